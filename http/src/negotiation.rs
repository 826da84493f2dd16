//! Extension negotiation (draft-ietf-privacypass-auth-scheme-extensions-03
//! §4–§5): what an origin announces and enforces, and what `pat fetch`
//! answers.
//!
//! An origin that negotiates adds `extension-set="…"` to its challenge, the
//! extension types it asks for, each required or optional, and may add
//! `extensions="…"`, a list it fills in for clients. The TokenChallenge does
//! not change. A token whose `Authorization` extensions lack a required type
//! is refused like any other invalid token (401 and a fresh challenge); an
//! optional type may be sent or not.
//!
//! The client ([`choose`]) keeps, of its own extensions, the types the set
//! lists and leaves the others out; a required type it has no value for is
//! taken from the origin's suggested list only when the user allowed it
//! (`pat fetch --use-origin-extensions`), and is otherwise an error before
//! anything is asked of the issuer. The draft lets a client use the origin's
//! values (§4), but values the origin picks are public metadata the issuer
//! signs and sees at issuance: an origin could give each client its own
//! value and link the two sides (§5 and §6 warn of partitioning), so using
//! them is opt-in. Without an `extension-set` the client sends its own list
//! as it is: the origin does not negotiate (§5).
//!
//! Only token types whose tokens carry extensions can meet a requirement
//! (0xDA7A and 0xDA7B: the extensions are bound by the issuance); the
//! origin refuses to start otherwise, and the client stops.

use pat::wire::codec::Decode as _;
use pat::wire::extension_set::{ExtensionEntry, ExtensionSet, ExtensionSetWriter, extension_set_len};
use pat::wire::extensions::{Extensions, ExtensionsWriter};

use crate::BoxError;
use crate::registry::Family;

/// Whether the tokens of `family` carry extensions, so that an origin can
/// require them and a client can send them ([`Family::carries_extensions`]:
/// types 0xDA7A and 0xDA7B).
pub(crate) fn carries_extensions(family: &dyn Family) -> bool {
    family.carries_extensions()
}

/// The encoded ExtensionSet of `entries`, in their order.
pub fn encode_set(entries: &[ExtensionEntry]) -> Result<Vec<u8>, BoxError> {
    let mut buf = vec![0u8; extension_set_len(entries.len())];
    let mut w = ExtensionSetWriter::new(&mut buf);
    for entry in entries {
        w.push(*entry)?;
    }
    let n = w.finish()?.as_bytes().len();
    buf.truncate(n);
    Ok(buf)
}

/// The encoded Extensions list of `(type, data)` entries, sorted by type
/// (stable: entries of one type keep their order).
pub fn encode_list(mut entries: Vec<(u16, Vec<u8>)>) -> Result<Vec<u8>, BoxError> {
    entries.sort_by_key(|(t, _)| *t);
    let mut buf = vec![0u8; 2 + entries.iter().map(|(_, d)| 4 + d.len()).sum::<usize>()];
    let mut w = ExtensionsWriter::new(&mut buf);
    for (t, d) in &entries {
        w.push(*t, d)?;
    }
    let n = w.finish()?.as_bytes().len();
    buf.truncate(n);
    Ok(buf)
}

/// The most entries of a challenge's extension-set the client answers;
/// a longer set is refused before it is read further.
pub const MAX_SET_ENTRIES: usize = 64;

/// The types of `types` as a message lists them: `1, 0x00FF`.
fn list(types: &[u16]) -> String {
    types.iter().map(|t| if *t < 0x100 { t.to_string() } else { format!("{t:#06X}") }).collect::<Vec<_>>().join(", ")
}

/// The Extensions list a client sends (encoded) for a challenge that
/// carries `set` and the origin's `suggested` list, given its `own` list.
///
/// - No set: `own`, as it is (the origin does not negotiate).
/// - A set: the entries of `own` whose type the set lists (the others are
///   left out, with a line to `log`); for each required type `own` lacks,
///   the origin's suggested entries of that type if `use_suggested`; a
///   required type still missing is an error naming it.
pub fn choose(
    own: &Extensions<'_>,
    set: Option<&ExtensionSet<'_>>,
    suggested: Option<&Extensions<'_>>,
    use_suggested: bool,
    log: &mut dyn FnMut(&str),
) -> Result<Vec<u8>, BoxError> {
    let Some(set) = set else { return Ok(own.as_bytes().to_vec()) };
    // A hostile origin may send a set of 21,845 entries: refuse more than a
    // client would ever answer, before any work on it.
    let entries = set.iter().count();
    if entries > MAX_SET_ENTRIES {
        return Err(
            format!("the origin's extension-set has {entries} entries; pat answers at most {MAX_SET_ENTRIES}").into()
        );
    }
    let mut chosen: Vec<(u16, Vec<u8>)> = Vec::new();
    let mut dropped: Vec<u16> = Vec::new();
    for e in own.iter() {
        if set.contains(e.extension_type) {
            chosen.push((e.extension_type, e.data.to_vec()));
        } else if !dropped.contains(&e.extension_type) {
            dropped.push(e.extension_type);
        }
    }
    if !dropped.is_empty() {
        log(&format!("extension types {} are not in the origin's extension-set: left out", list(&dropped)));
    }
    let mut missing: Vec<u16> = Vec::new();
    let mut offered: Vec<u16> = Vec::new();
    for t in set.required() {
        if chosen.iter().any(|(c, _)| *c == t) || missing.contains(&t) {
            continue;
        }
        let from_origin: Vec<_> = suggested.map(|s| s.all_of(t).collect()).unwrap_or_default();
        if from_origin.is_empty() {
            missing.push(t);
        } else if use_suggested {
            log(&format!("extension type {}: the origin's suggested value", list(&[t])));
            chosen.extend(from_origin.iter().map(|e| (t, e.data.to_vec())));
        } else {
            missing.push(t);
            offered.push(t);
        }
    }
    if !missing.is_empty() {
        let mut message = format!(
            "the origin requires extension types {} (its extension-set); give each with --extension TYPE:HEX",
            list(&missing)
        );
        if !offered.is_empty() {
            message.push_str(&format!(
                ", or accept the values the origin suggests for {} with --use-origin-extensions",
                list(&offered)
            ));
        }
        return Err(message.into());
    }
    encode_list(chosen)
}

/// What an origin announces and enforces: the encoded `extension-set` and
/// `extensions` parameters of its challenges, checked once at start.
#[derive(Clone, Debug, Default)]
pub(crate) struct Announcement {
    /// The encoded ExtensionSet (`None`: the origin does not negotiate).
    pub(crate) set: Option<Vec<u8>>,
    /// The encoded suggested Extensions list.
    pub(crate) suggested: Option<Vec<u8>>,
}

impl Announcement {
    /// Checks an origin's negotiation settings against its token type's
    /// family and its `allowed` extension types, and encodes them.
    pub(crate) fn new(
        family: &dyn Family,
        entries: &[ExtensionEntry],
        suggested: Option<&[u8]>,
        allowed: Option<&[u16]>,
    ) -> Result<Self, BoxError> {
        if entries.is_empty() && suggested.is_none() {
            return Ok(Self::default());
        }
        let code = family.code();
        if !carries_extensions(family) {
            return Err(format!(
                "tokens of type {} carry no extensions: --require-extension, --optional-extension and \
                 --suggest-extension need a type that does (0xDA7A, 0xDA7B)",
                list(&[code])
            )
            .into());
        }
        for (i, e) in entries.iter().enumerate() {
            if entries.iter().skip(i + 1).any(|f| f.extension_type == e.extension_type) {
                return Err(format!("extension type {} is announced twice", list(&[e.extension_type])).into());
            }
            if allowed.is_some_and(|a| !a.contains(&e.extension_type)) {
                // A required type could never be accepted; an optional one
                // would invite clients to send what the origin then refuses.
                let what = if e.required { "required" } else { "announced" };
                return Err(format!(
                    "extension type {} is {what} but not among --allowed-extensions: a token carrying it \
                     would be refused",
                    list(&[e.extension_type])
                )
                .into());
            }
        }
        if let Some(bytes) = suggested {
            let list_ = Extensions::decode(bytes).map_err(|e| format!("the suggested extensions: {e}"))?;
            if let Some(e) = list_.iter().find(|e| allowed.is_some_and(|a| !a.contains(&e.extension_type))) {
                return Err(format!(
                    "the suggested extension of type {} is not among --allowed-extensions",
                    list(&[e.extension_type])
                )
                .into());
            }
        }
        let set = if entries.is_empty() { None } else { Some(encode_set(entries)?) };
        Ok(Self { set, suggested: suggested.map(<[u8]>::to_vec) })
    }

    /// The announced set, decoded.
    pub(crate) fn set(&self) -> Option<ExtensionSet<'_>> {
        self.set.as_deref().and_then(|s| ExtensionSet::decode(s).ok())
    }

    /// The suggested list, decoded.
    pub(crate) fn suggested(&self) -> Option<Extensions<'_>> {
        self.suggested.as_deref().and_then(|s| Extensions::decode(s).ok())
    }

    /// The first required type `extensions` (encoded) has no entry of;
    /// a list that does not decode misses the first required type.
    pub(crate) fn first_missing(&self, extensions: &[u8]) -> Option<u16> {
        let set = self.set()?;
        match Extensions::decode(extensions) {
            Ok(list) => set.first_missing(&list),
            Err(_) => set.required().next(),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use pat::wire::codec::Decode as _;
    use pat::wire::extension_set::{ExtensionEntry, ExtensionSet};
    use pat::wire::extensions::Extensions;

    use super::{Announcement, MAX_SET_ENTRIES, carries_extensions, choose, encode_list, encode_set};
    use crate::registry::family;

    #[test]
    fn only_the_metadata_types_carry_extensions() {
        for (t, carries) in [(1, false), (2, false), (5, false), (0xDA7A, true), (0xDA7B, true)] {
            assert_eq!(carries_extensions(family(t).unwrap()), carries, "{t:#x}");
        }
    }

    #[test]
    fn the_origin_checks_its_settings() {
        let req = [ExtensionEntry::required(2), ExtensionEntry::optional(1)];
        let da7a = family(0xDA7A).unwrap();
        let a = Announcement::new(da7a, &req, None, None).unwrap();
        assert_eq!(a.set.as_deref(), Some(&[0, 6, 1, 0, 2, 0, 0, 1][..]));
        assert_eq!(a.first_missing(&[0, 0]), Some(2));
        assert_eq!(a.first_missing(&encode_list(vec![(2, vec![])]).unwrap()), None);
        assert_eq!(a.first_missing(&[0, 1]), Some(2), "a list that does not decode");
        // Nothing announced: nothing enforced, on any type.
        let none = Announcement::new(family(2).unwrap(), &[], None, None).unwrap();
        assert_eq!(none.first_missing(&[0, 0]), None);
        assert_eq!((none.set, none.suggested), (None, None));
        // Refused: a type without extensions, a type twice, a required type
        // the allowed list refuses, a bad or refused suggested list.
        let e = Announcement::new(family(2).unwrap(), &req, None, None).unwrap_err().to_string();
        assert!(e.contains("tokens of type 2 carry no extensions"), "{e}");
        let twice = [ExtensionEntry::required(2), ExtensionEntry::optional(2)];
        assert!(Announcement::new(da7a, &twice, None, None).unwrap_err().to_string().contains("twice"));
        let e = Announcement::new(da7a, &req, None, Some(&[1])).unwrap_err().to_string();
        assert!(e.contains("required but not among --allowed-extensions"), "{e}");
        assert!(e.ends_with("a token carrying it would be refused"), "{e}");
        let e = Announcement::new(da7a, &req, None, Some(&[2])).unwrap_err().to_string();
        assert!(e.contains("type 1 is announced but not among --allowed-extensions"), "{e}");
        assert!(Announcement::new(da7a, &req, None, Some(&[1, 2])).is_ok());
        assert!(Announcement::new(da7a, &req, Some(&[0, 1]), None).is_err());
        let sugg = encode_list(vec![(3, vec![7])]).unwrap();
        assert!(Announcement::new(da7a, &req, Some(&sugg), Some(&[2])).is_err());
        let a = Announcement::new(da7a, &[], Some(&sugg), None).unwrap();
        assert_eq!((a.set, a.suggested.as_deref()), (None, Some(&sugg[..])));
    }

    #[test]
    fn the_client_answers_the_set() {
        let set_bytes = encode_set(&[ExtensionEntry::required(2), ExtensionEntry::optional(1)]).unwrap();
        let set = ExtensionSet::decode(&set_bytes).unwrap();
        let own_bytes = encode_list(vec![(3, vec![3]), (1, vec![1]), (2, vec![2])]).unwrap();
        let own = Extensions::decode(&own_bytes).unwrap();
        let lines = std::cell::RefCell::new(Vec::new());
        let mut log = |l: &str| lines.borrow_mut().push(l.to_owned());
        // No set: the own list as it is.
        assert_eq!(choose(&own, None, None, false, &mut log).unwrap(), own_bytes);
        // A set: types 1 and 2 kept, 3 left out.
        let sent = choose(&own, Some(&set), None, false, &mut log).unwrap();
        assert_eq!(sent, encode_list(vec![(1, vec![1]), (2, vec![2])]).unwrap());
        assert!(
            lines.borrow().iter().any(|l: &String| l.contains("3 are not in the origin's extension-set")),
            "{lines:?}"
        );
        // Only the optional type 1: fine without it, but the required 2 is missing.
        let only1 = encode_list(vec![(1, vec![1])]).unwrap();
        let only1 = Extensions::decode(&only1).unwrap();
        let e = choose(&only1, Some(&set), None, false, &mut log).unwrap_err().to_string();
        assert!(e.contains("requires extension types 2") && !e.contains("--use-origin-extensions"), "{e}");
        let two = encode_list(vec![(2, vec![9])]).unwrap();
        let just2 = Extensions::decode(&two).unwrap();
        assert_eq!(choose(&just2, Some(&set), None, false, &mut log).unwrap(), two);
        // The origin's suggestion: named in the error, used when allowed.
        let sugg_bytes = encode_list(vec![(2, vec![0xaa]), (2, vec![0xbb]), (5, vec![5])]).unwrap();
        let sugg = Extensions::decode(&sugg_bytes).unwrap();
        let e = choose(&only1, Some(&set), Some(&sugg), false, &mut log).unwrap_err().to_string();
        assert!(e.contains("--use-origin-extensions"), "{e}");
        let sent = choose(&only1, Some(&set), Some(&sugg), true, &mut log).unwrap();
        assert_eq!(sent, encode_list(vec![(1, vec![1]), (2, vec![0xaa]), (2, vec![0xbb])]).unwrap());
        // The client's own value wins over the suggestion.
        assert_eq!(choose(&just2, Some(&set), Some(&sugg), true, &mut log).unwrap(), two);
        // The empty set: nothing is sent.
        assert_eq!(choose(&own, Some(&ExtensionSet::EMPTY), None, false, &mut log).unwrap(), [0, 0]);
        // A set of 64 entries is answered; 65 are refused unread.
        let many: Vec<ExtensionEntry> = (1..=65).map(ExtensionEntry::optional).collect();
        let at_cap = encode_set(&many[..MAX_SET_ENTRIES]).unwrap();
        assert!(choose(&own, Some(&ExtensionSet::decode(&at_cap).unwrap()), None, false, &mut log).is_ok());
        let over = encode_set(&many).unwrap();
        let e = choose(&own, Some(&ExtensionSet::decode(&over).unwrap()), None, false, &mut log).unwrap_err();
        assert!(e.to_string().contains("65 entries"), "{e}");
    }
}
