#!/usr/bin/env python3
"""Fails if an ELF file names an allocator: a libc heap function (malloc,
free, ...), Rust's allocator shim (__rust_alloc, __rg_alloc, __rdl_alloc,
under their plain or mangled names) or the `alloc` crate. Reads the symbol
table itself, so no target binutils are needed, and refuses a file without
symbols (a stripped file would pass vacuously).

    elf_check.py FILE...     exit 0 when no file names an allocator"""
import re
import struct
import sys

LIBC = re.compile(r"^_?(malloc|calloc|realloc|free|aligned_alloc|posix_memalign|memalign|valloc|pvalloc)(_r)?$")
RUST = re.compile(r"__rust_(alloc|dealloc|realloc|alloc_zeroed|alloc_error_handler|no_alloc_shim)|__rg_|__rdl_"
                  r"|_ZN5alloc|_5alloc")
SHT_SYMTAB = 2


def symbols(path):
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 1:
        sys.exit(f"{path}: not a 32-bit little-endian ELF file")
    shoff, = struct.unpack_from("<I", data, 0x20)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x2E)
    names = []
    for i in range(shnum):
        _, sh_type, _, _, off, size, link, _, _, entsize = struct.unpack_from("<10I", data, shoff + i * shentsize)
        if sh_type != SHT_SYMTAB:
            continue
        strtab_off = struct.unpack_from("<10I", data, shoff + link * shentsize)[4]
        for at in range(off, off + size, entsize):
            name_at, = struct.unpack_from("<I", data, at)
            start = strtab_off + name_at
            names.append(data[start:data.index(b"\0", start)].decode(errors="replace"))
    return [n for n in names if n]


failed = False
for path in sys.argv[1:]:
    names = symbols(path)
    if not names:
        sys.exit(f"{path}: no symbols to check")
    bad = sorted({n for n in names if LIBC.match(n) or RUST.search(n)})
    if bad:
        print(f"{path}: allocator symbols: {' '.join(bad)}")
        failed = True
sys.exit(1 if failed else 0)
