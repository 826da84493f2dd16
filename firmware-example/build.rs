//! The linker memory map of the mps2-an386 board: 4 MiB of code memory at 0,
//! 4 MiB of SRAM at 0x2000_0000. A real part has less: docs/embedded.md says
//! what the client alone needs (the example also carries the simulated
//! issuer and origin).
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    std::fs::write(
        out.join("memory.x"),
        "MEMORY\n{\n  FLASH : ORIGIN = 0x00000000, LENGTH = 4096K\n  RAM : ORIGIN = 0x20000000, LENGTH = 4096K\n}\n",
    )
    .unwrap();
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rustc-link-arg=-Tlink.x");
    println!("cargo:rerun-if-changed=build.rs");
}
