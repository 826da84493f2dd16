//! Unit tests of the batch framing.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::wire::sizes;
use super::*;
use crate::error::{Error, Field};
use crate::wire::codec::Decode;

#[test]
fn sizes_follow_the_registry() {
    assert_eq!(sizes(1), Ok((52, 145)));
    assert_eq!(sizes(2), Ok((259, 256)));
    assert_eq!(sizes(5), Ok((35, 96)));
    assert_eq!(sizes(3), Err(Error::UnknownTokenType(3)));
    // Type 0xDA7A has no place for its extensions in a generic batch.
    assert_eq!(sizes(0xDA7A), Err(Error::UnknownTokenType(0xDA7A)));
}

#[test]
fn empty_batches_round_trip() {
    let req = GenericBatchTokenRequest::decode(&[0]).unwrap();
    assert!(req.is_empty());
    assert_eq!(req.max_response_len(), 1);
    let resp = GenericBatchTokenResponse::decode(&[0]).unwrap();
    assert_eq!(resp.iter().count(), 0);
}

#[test]
fn absent_entries_parse() {
    let resp = GenericBatchTokenResponse::decode(&[3, 0, 0, 0]).unwrap();
    assert_eq!(resp.len(), 3);
    assert!(resp.iter().all(|e| e == Ok(None)));
    assert_eq!(GenericBatchTokenResponse::decode(&[2, 0, 2]).err(), Some(Error::InvalidValue(Field::Batch)));
    assert_eq!(GenericBatchTokenResponse::decode(&[3, 0, 1, 0]).err(), Some(Error::InvalidLength(Field::Batch)));
}
