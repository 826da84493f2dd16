//! Support code of the `pat` command (`pat-cli`): the cycle-count harness
//! shared by `pat bench` and the Ace-vs-ntor bench (`benches/ace_ntor.rs`).
#![allow(clippy::std_instead_of_core)] // std tools

pub mod cycles;
