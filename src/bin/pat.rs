//! The `pat` command-line tool (placeholder on this branch).

fn main() {}
