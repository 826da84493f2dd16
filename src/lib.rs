#![doc = include_str!("../README.md")]
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "std")]
extern crate std;

pub mod codec;
pub mod error;
pub mod voprf;

pub use error::{Error, Field, Result};
