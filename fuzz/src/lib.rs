//! Checks that need std-only dependencies, for the fuzz targets that use them.

pub mod differential;

#[cfg(test)]
mod corpus_test;
