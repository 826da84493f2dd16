//! `pat`: the command-line tool of the `pat` crate (placeholder on this branch).

fn main() {}
