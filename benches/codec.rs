//! Codec benchmarks (placeholder on this branch).

fn main() {}
