//! Keys over time: rotation, collisions and capacity in a `KeySet`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use pat::Error;
use pat::deploy::keyset::{KeyEntry, KeySet, Validity};
use pat::tokens::private;
use pat::wire::token_type::{PrivateP384, TokenType};

#[derive(Clone, Debug, PartialEq, Eq)]
struct TestKey {
    ty: u16,
    id: [u8; 32],
}

impl KeyEntry for TestKey {
    fn token_type(&self) -> u16 {
        self.ty
    }
    fn key_id(&self) -> &[u8; 32] {
        &self.id
    }
}

fn key(ty: u16, first: u8, last: u8) -> TestKey {
    let mut id = [first; 32];
    id[31] = last;
    TestKey { ty, id }
}

const fn window(not_before: u64, not_after: u64) -> Validity {
    Validity { not_before, not_after }
}

#[test]
fn rotation() {
    let old = key(2, 1, 0x10);
    let new = key(2, 2, 0x20);
    let mut set = KeySet::<TestKey, 4>::new();
    set.insert(old.clone(), window(0, 2000)).unwrap();
    // The next key is published at 900, used from 1000.
    set.insert(new.clone(), window(1000, 3000)).unwrap();
    assert_eq!(set.len(), 2);

    // Before the rotation the old key is current; the issuer already answers
    // for the new one (a client's clock may run ahead).
    assert_eq!(set.current(2, 999), Some(&old));
    assert_eq!(set.by_truncated_id(2, 0x20, 999), Some((&new, window(1000, 3000))));
    // From its not_before the new key is current.
    assert_eq!(set.current(2, 1000), Some(&new));
    // The old key still redeems and issues until its not_after.
    assert_eq!(set.by_key_id(2, &old.id, 1999), Some((&old, window(0, 2000))));
    assert_eq!(set.by_truncated_id(2, 0x10, 1999).map(|(k, _)| k), Some(&old));
    assert_eq!(set.by_key_id(2, &old.id, 2000), None);
    assert_eq!(set.by_truncated_id(2, 0x10, 2000), None);
    assert_eq!(set.current(2, 2000), Some(&new));
    // Retire drops it.
    assert_eq!(set.retire(1999), 0);
    assert_eq!(set.retire(2000), 1);
    assert_eq!(set.iter().collect::<Vec<_>>(), vec![(&new, window(1000, 3000))]);
    assert_eq!(set.by_key_id(2, &old.id, 0), None);
    // After the last key's not_after nothing is current.
    assert_eq!(set.current(2, 3000), None);
    assert_eq!(set.retire(u64::MAX), 1);
    assert!(set.is_empty());
}

#[test]
fn lookups_check_type_and_id() {
    let mut set = KeySet::<TestKey, 4>::new();
    set.insert(key(1, 1, 7), window(10, 20)).unwrap();
    assert_eq!(set.current(1, 9), None);
    assert_eq!(set.current(2, 15), None);
    assert_eq!(set.by_truncated_id(1, 8, 15), None);
    assert_eq!(set.by_truncated_id(2, 7, 15), None);
    assert_eq!(set.by_key_id(1, &key(1, 2, 7).id, 15), None);
    assert!(set.by_key_id(1, &key(1, 1, 7).id, 0).is_some());
}

#[test]
fn current_prefers_latest_not_before_then_first_inserted() {
    let mut set = KeySet::<TestKey, 4>::new();
    set.insert(key(2, 1, 1), window(0, 100)).unwrap();
    set.insert(key(2, 2, 2), window(50, 100)).unwrap();
    set.insert(key(2, 3, 3), window(50, 100)).unwrap();
    set.insert(key(2, 4, 4), window(60, 70)).unwrap();
    assert_eq!(set.current(2, 49).unwrap().id[0], 1);
    assert_eq!(set.current(2, 50).unwrap().id[0], 2);
    assert_eq!(set.current(2, 65).unwrap().id[0], 4);
    assert_eq!(set.current(2, 70).unwrap().id[0], 2);
}

#[test]
fn collisions_and_capacity() {
    let mut set = KeySet::<TestKey, 3>::new();
    set.insert(key(2, 1, 0xaa), window(0, 10)).unwrap();
    // Another key of the same type with the same last key-id byte.
    assert_eq!(set.insert(key(2, 2, 0xaa), window(0, 10)), Err(Error::KeyIdCollision));
    // The same key twice.
    assert_eq!(set.insert(key(2, 1, 0xaa), window(5, 20)), Err(Error::KeyIdCollision));
    // Other types may share the truncated id.
    set.insert(key(1, 2, 0xaa), window(0, 10)).unwrap();
    set.insert(key(5, 3, 0xaa), window(0, 10)).unwrap();
    assert_eq!(set.insert(key(2, 4, 0xbb), window(0, 10)), Err(Error::CapacityExceeded));
    assert_eq!(set.by_truncated_id(1, 0xaa, 0).unwrap().0.id[0], 2);
    assert_eq!(set.by_truncated_id(5, 0xaa, 0).unwrap().0.id[0], 3);
    // An expired key still blocks its truncated id until retired.
    let mut set = KeySet::<TestKey, 3>::new();
    set.insert(key(2, 1, 0xaa), window(0, 10)).unwrap();
    assert_eq!(set.insert(key(2, 2, 0xaa), window(10, 20)), Err(Error::KeyIdCollision));
    set.retire(10);
    set.insert(key(2, 2, 0xaa), window(10, 20)).unwrap();
    // An empty window is refused.
    assert_eq!(set.insert(key(2, 3, 0xcc), window(5, 5)), Err(Error::InvalidValue(pat::Field::Validity)));
    assert_eq!(set.len(), 1);
    assert_eq!(KeySet::<TestKey, 0>::new().insert(key(2, 1, 1), window(0, 1)), Err(Error::CapacityExceeded));
}

#[test]
fn real_issuers_and_clients() {
    let a = private::Issuer::<PrivateP384>::derive(b"seed a", b"info").unwrap();
    let b = private::Issuer::<PrivateP384>::derive(b"seed b", b"info").unwrap();
    assert_eq!(a.token_type(), PrivateP384::CODE);
    assert_eq!(KeyEntry::key_id(&a), a.key_id());
    let clients = [a.client(), b.client()];
    let mut set = KeySet::<private::Issuer<PrivateP384>, 2>::new();
    set.insert(a, window(0, 10)).unwrap();
    let inserted_b = set.insert(b, window(5, 20));
    // The two derived keys may collide in their last byte; either way the set is consistent.
    if clients[0].key_id()[31] == clients[1].key_id()[31] {
        assert_eq!(inserted_b, Err(Error::KeyIdCollision));
    } else {
        inserted_b.unwrap();
        assert_eq!(set.current(1, 6).unwrap().key_id(), clients[1].key_id());
        assert_eq!(set.by_key_id(1, clients[0].key_id(), 6).unwrap().0.key_id(), clients[0].key_id());
    }
    // Clients and borrowed keys are entries too.
    let mut by_ref = KeySet::<&private::Client<PrivateP384>, 2>::new();
    by_ref.insert(&clients[0], window(0, 10)).unwrap();
    assert_eq!(by_ref.current(PrivateP384::CODE, 0).unwrap().key_id(), clients[0].key_id());
}
