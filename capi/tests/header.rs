//! `include/pat.h` is what cbindgen makes of this crate today: a change to
//! an exported function, struct or constant fails here until the header is
//! regenerated (`PAT_BLESS_HEADER=1 cargo test -p pat-capi --test header`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::std_instead_of_core)]

use std::path::Path;

#[test]
fn header_is_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).unwrap();
    let bindings = cbindgen::Builder::new().with_crate(dir).with_config(config).generate().unwrap();
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let path = dir.join("include/pat.h");
    if std::env::var_os("PAT_BLESS_HEADER").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let checked_in = std::fs::read(&path).unwrap_or_default();
    if checked_in != generated {
        panic!(
            "capi/include/pat.h is stale: regenerate it with `PAT_BLESS_HEADER=1 cargo test -p pat-capi --test header`"
        );
    }
}

/// The string `#define`s written into the header by cbindgen.toml's
/// `after_includes` (cbindgen writes no string constant) equal the crate's.
#[test]
fn string_defines_match_the_crate() {
    let header = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("include/pat.h")).unwrap();
    for (name, value) in [
        ("PAT_MEDIA_TYPE_TOKEN_REQUEST", pat_capi::http::PAT_MEDIA_TYPE_TOKEN_REQUEST),
        ("PAT_MEDIA_TYPE_TOKEN_RESPONSE", pat_capi::http::PAT_MEDIA_TYPE_TOKEN_RESPONSE),
        ("PAT_MEDIA_TYPE_ISSUER_DIRECTORY", pat_capi::http::PAT_MEDIA_TYPE_ISSUER_DIRECTORY),
        ("PAT_ISSUER_DIRECTORY_PATH", pat_capi::http::PAT_ISSUER_DIRECTORY_PATH),
        ("PAT_MEDIA_TYPE_CREDENTIAL_REQUEST", pat_capi::http::PAT_MEDIA_TYPE_CREDENTIAL_REQUEST),
        ("PAT_MEDIA_TYPE_CREDENTIAL_RESPONSE", pat_capi::http::PAT_MEDIA_TYPE_CREDENTIAL_RESPONSE),
        ("PAT_MEDIA_TYPE_AMORTIZED_REQUEST", pat_capi::http::PAT_MEDIA_TYPE_AMORTIZED_REQUEST),
        ("PAT_MEDIA_TYPE_AMORTIZED_RESPONSE", pat_capi::http::PAT_MEDIA_TYPE_AMORTIZED_RESPONSE),
        ("PAT_MEDIA_TYPE_GENERIC_BATCH_REQUEST", pat_capi::http::PAT_MEDIA_TYPE_GENERIC_BATCH_REQUEST),
        ("PAT_MEDIA_TYPE_GENERIC_BATCH_RESPONSE", pat_capi::http::PAT_MEDIA_TYPE_GENERIC_BATCH_RESPONSE),
    ] {
        let line = format!("#define {name} \"{value}\"\n");
        assert_eq!(header.matches(&line).count(), 1, "{line}");
    }
}
