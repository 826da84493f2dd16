//! Checks that need std-only dependencies, for the fuzz targets that use them.

pub mod differential;
pub mod directory;
pub mod opaque_names;

#[cfg(test)]
mod corpus_test;
#[cfg(test)]
mod directory_test;
