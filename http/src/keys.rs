//! The issuer's keys on disk, with their validity windows.
//!
//! A state folder holds `keys.json` (the manifest: one record per key with
//! its token type, file name, `not-before` and `not-after` in UNIX seconds)
//! and one file per key, readable by its owner only:
//! - types 0x0001 and 0x0005: `typeN-<id>.seed`, 32 random bytes in hex, from
//!   which the VOPRF key pair is derived (RFC 9497 §3.2.1, `DeriveKeyPair`);
//! - type 0x0002: `type2-<id>.pem`, the RSA key as PKCS#8 PEM;
//! - type 0xDA7A: `type55930-<id>.pem`, the RSA key as PKCS#8 PEM, whose
//!   primes are safe primes (draft-irtf-cfrg-partially-blind-rsa §4.1), made
//!   with `SecretKey::generate_safe` (seconds) on first start, or any such
//!   key put in the folder (a key made elsewhere, e.g. by another issuer);
//! - type 0xDA7B: `type55931-<id>.seed`, 48 random bytes in hex, from which
//!   the POPRF key pair is derived (`DeriveKeyPair(seed,
//!   "PrivacyPass-TypeDA7B")`, draft-ietf-privacypass-public-metadata-issuance-03 §5.5);
//! - type 0xE5AC: `type58796-<id>.key`, the 128-byte ARC ServerPrivateKey
//!   in hex (draft-ietf-privacypass-arc-crypto-01 §4.1, made by `SetupServer`
//!   on first start), whose 99-byte ServerPublicKey the directory publishes.
//!
//! Which types a folder may hold, and each one's file format, are the
//! served types' families (`crate::registry`); this module keeps the
//! manifest, the files and the lock.
//!
//! The manifest is replaced atomically (written beside, then renamed), so a
//! server that re-reads it while `pat issuer rotate` runs sees either the old
//! or the new set. Writers (`rotate`, and a first start that makes keys) hold
//! an exclusive lock on `.lock` in the folder (`flock`, released by the
//! kernel when a writer dies, even by `kill -9`), so two rotations at once
//! run one after the other. Under the lock, a writer also removes what a
//! crashed or failed writer left: temporary manifests and key files the
//! manifest does not list ([`sweep`]).
//!
//! A folder holds at most [`MAX_LIVE_KEYS`] keys of a type whose window has
//! not ended: `rotate` refuses to go beyond, so that the state always loads
//! and the directory stays small enough for clients to read.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use pat::deploy::keyset::{KeyEntry, Validity};
use pat::wire::token_type::{PublicMetadataP384, PublicMetadataRsa2048, TokenType as _};
use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

pub use crate::registry::IssuerKey;
use crate::{BoxError, hex, registry};

/// Token type 0xDA7A (partially blind RSA 2048 with public metadata).
pub const METADATA: u16 = PublicMetadataRsa2048::CODE;

/// Token type 0xDA7B (POPRF P-384 with public metadata, privately verifiable).
pub const POPRF: u16 = PublicMetadataP384::CODE;

/// Token type 0xE5AC (ARC(P-256), privately verifiable, issued as credentials).
pub const ARC: u16 = pat::tokens::arc::TOKEN_TYPE;

/// How long a new key stays valid by default: 30 days.
pub const DEFAULT_LIFETIME: u64 = 30 * 24 * 3600;

/// The file name of the manifest inside a state folder.
pub const MANIFEST: &str = "keys.json";

/// The lock file of a state folder.
pub const LOCK: &str = ".lock";

/// The most keys of one token type whose window has not ended that a state
/// folder may hold (what [`rotate`] allows). 128 RSA keys make a directory
/// entry list of about 70 KB, well within what clients read
/// ([`crate::client::MAX_RESPONSE`]); an issuer loads up to 256 per type.
pub const MAX_LIVE_KEYS: usize = 128;

/// The family of a type a state folder may hold, or why not.
fn served(token_type: u16) -> Result<&'static dyn registry::Family, BoxError> {
    registry::family(token_type)
        .ok_or_else(|| format!("token type {token_type} is not served (supported: {})", registry::supported()).into())
}

/// A key's entry in the key set: its type and id (the secret stays in [`IssuerKey`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyRef {
    /// The token type code.
    pub token_type: u16,
    /// The key id.
    pub key_id: [u8; 32],
    /// The key's position in the issuer's list of keys of its type.
    pub index: usize,
}

impl KeyEntry for KeyRef {
    fn token_type(&self) -> u16 {
        self.token_type
    }

    fn key_id(&self) -> &[u8; 32] {
        &self.key_id
    }
}

/// A key with its validity window.
pub struct LoadedKey {
    /// The key.
    pub key: IssuerKey,
    /// When it may be used.
    pub validity: Validity,
}

/// The keys of a state folder, in manifest order.
pub struct KeyState {
    /// The keys.
    pub keys: Vec<LoadedKey>,
    /// Records whose key could not be loaded (a file missing or unreadable,
    /// a key of another type), skipped with a log line.
    pub skipped: usize,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
struct KeyRecord {
    token_type: u16,
    file: String,
    not_before: u64,
    not_after: u64,
}

#[derive(Serialize, Deserialize, Default, Debug)]
struct Manifest {
    keys: Vec<KeyRecord>,
}

fn manifest_path(dir: &Path) -> PathBuf {
    dir.join(MANIFEST)
}

fn read_manifest(dir: &Path) -> Result<Option<Manifest>, BoxError> {
    match fs::read(manifest_path(dir)) {
        Ok(bytes) => {
            Ok(Some(serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", manifest_path(dir).display()))?))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", manifest_path(dir).display()).into()),
    }
}

fn write_private(path: &Path, bytes: &[u8]) -> Result<(), BoxError> {
    use std::os::unix::fs::OpenOptionsExt as _;
    // `create_new`: an existing file (with other permissions) is never reused.
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    f.write_all(bytes)?;
    f.sync_all()?;
    Ok(())
}

/// Replaces the manifest atomically: a temporary file of this process, then
/// a rename, then the folder synced. Callers hold the folder's lock, so two
/// writers never interleave.
fn write_manifest(dir: &Path, manifest: &Manifest) -> Result<(), BoxError> {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let tmp = dir.join(format!(".{MANIFEST}.{}.{nanos}.tmp", std::process::id()));
    let mut json = serde_json::to_vec_pretty(manifest)?;
    json.push(b'\n');
    write_private(&tmp, &json)?;
    if let Err(e) = fs::rename(&tmp, manifest_path(dir)) {
        let _ = fs::remove_file(&tmp);
        return Err(e.into());
    }
    fs::File::open(dir)?.sync_all()?;
    Ok(())
}

/// Makes a new key of `token_type` whose truncated key id (the last byte of
/// its key id, RFC 9578 §5.5, §6.5) differs from those of `taken`, and writes
/// its file into `dir`; returns the key and the file name.
fn generate(dir: &Path, token_type: u16, taken: &[u8]) -> Result<(IssuerKey, String), BoxError> {
    // 256 truncated ids; a set holds a few keys per type, so this ends fast.
    if taken.len() >= 256 {
        return Err(format!("type {token_type}: every truncated key id is taken").into());
    }
    let family = served(token_type)?;
    let (key, contents) = loop {
        let (key, contents) = family.generate()?;
        if !taken.contains(&truncated(key.key_id())) {
            break (key, contents);
        }
    };
    let file = format!("type{token_type}-{}.{}", short_id(key.key_id()), family.key_file_ext());
    write_private(&dir.join(&file), &contents)?;
    Ok((key, file))
}

fn truncated(key_id: &[u8; 32]) -> u8 {
    key_id.last().copied().unwrap_or_default()
}

/// The truncated ids of the manifest's keys of `token_type`.
fn taken_ids(dir: &Path, manifest: &Manifest, token_type: u16) -> Result<Vec<u8>, BoxError> {
    let mut ids = Vec::new();
    for record in manifest.keys.iter().filter(|r| r.token_type == token_type) {
        ids.push(truncated(load_key(dir, record)?.key_id()));
    }
    Ok(ids)
}

fn load_key(dir: &Path, record: &KeyRecord) -> Result<IssuerKey, BoxError> {
    if record.file.contains('/') || record.file.starts_with('.') {
        return Err(format!("{MANIFEST}: key file name {:?} leaves the state folder", record.file).into());
    }
    let path = dir.join(&record.file);
    let contents = Zeroizing::new(fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?);
    match registry::family(record.token_type) {
        Some(family) => family.load(&path, &contents),
        None => Err(format!("{MANIFEST}: token type {} is not served", record.token_type).into()),
    }
}

/// Loads the keys of a state folder whose window has not ended at `now`
/// (expired records are skipped, whether or not their files still exist); an
/// error if it has no manifest or the manifest does not parse. A record
/// whose key cannot be loaded (its file gone, say, because a rotation
/// removed it between this reader's clock and the rotation's) is skipped
/// with a log line and counted: one bad key never fails the whole set.
pub fn load(dir: &Path, now: u64) -> Result<KeyState, BoxError> {
    let manifest = read_manifest(dir)?
        .ok_or_else(|| format!("{}: no {MANIFEST} (start `pat issuer serve` first)", dir.display()))?;
    let mut keys = Vec::with_capacity(manifest.keys.len());
    let mut skipped = 0;
    for record in manifest.keys.iter().filter(|r| r.not_after > now) {
        let key = match load_key(dir, record) {
            Ok(key) if key.token_type() == record.token_type => key,
            Ok(_) => {
                tracing::warn!(file = %record.file, "skipping a key: the file holds a key of another type");
                skipped += 1;
                continue;
            }
            Err(e) => {
                tracing::warn!(file = %record.file, error = %e, "skipping a key that cannot be loaded");
                skipped += 1;
                continue;
            }
        };
        keys.push(LoadedKey { key, validity: Validity { not_before: record.not_before, not_after: record.not_after } });
    }
    Ok(KeyState { keys, skipped })
}

/// Takes the folder's writer lock, waiting for another writer to finish.
fn lock(dir: &Path) -> Result<fs::File, BoxError> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let path = dir.join(LOCK);
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    file.lock().map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(file)
}

/// Whether `name` is a key file name this module writes (`typeN-XXXXXXXX.seed`, `.pem` or `.key`).
fn is_key_file_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("type") else { return false };
    let Some((digits, rest)) = rest.split_once('-') else { return false };
    let Some((id, ext)) = rest.split_once('.') else { return false };
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && id.len() == 8
        && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        && registry::SERVED.iter().any(|f| f.key_file_ext() == ext)
}

/// Whether `name` is a temporary manifest ([`write_manifest`]'s).
fn is_temporary_manifest(name: &str) -> bool {
    name.strip_prefix(&format!(".{MANIFEST}.")).is_some_and(|rest| rest.ends_with(".tmp"))
}

/// Removes what a crashed or failed writer left in `dir`: temporary
/// manifests, and key files (named as this module names them) that the
/// manifest does not list. Other files are left alone. Takes the folder's
/// lock. Returns the names removed.
pub fn sweep(dir: &Path) -> Result<Vec<String>, BoxError> {
    let _lock = lock(dir)?;
    let manifest = read_manifest(dir)?.unwrap_or_default();
    sweep_locked(dir, &manifest)
}

fn sweep_locked(dir: &Path, manifest: &Manifest) -> Result<Vec<String>, BoxError> {
    let mut removed = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else { continue };
        let orphan =
            is_temporary_manifest(&name) || (is_key_file_name(&name) && !manifest.keys.iter().any(|r| r.file == name));
        if orphan && entry.file_type().is_ok_and(|t| t.is_file()) {
            fs::remove_file(entry.path()).map_err(|e| format!("{}: {e}", entry.path().display()))?;
            removed.push(name);
        }
    }
    removed.sort();
    Ok(removed)
}

/// Opens a state folder, creating it and a key for every type of
/// `token_types` that has no key valid at `now` yet (valid from `now` for
/// `lifetime` seconds); removes what a crashed writer left ([`sweep`]).
pub fn open_or_init(dir: &Path, token_types: &[u16], now: u64, lifetime: u64) -> Result<KeyState, BoxError> {
    use std::os::unix::fs::DirBuilderExt as _;
    fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let lock = lock(dir)?;
    let mut manifest = read_manifest(dir)?.unwrap_or_default();
    let mut changed = false;
    for &t in token_types {
        served(t)?;
        if manifest.keys.iter().any(|r| r.token_type == t && r.not_before <= now && now < r.not_after) {
            continue;
        }
        let taken = taken_ids(dir, &manifest, t)?;
        let (_, file) = generate(dir, t, &taken)?;
        // Published a little before now, so that a client whose clock is
        // behind the issuer's does not find the first key not yet valid.
        let not_before = now.saturating_sub(CLOCK_SKEW);
        manifest.keys.push(KeyRecord { token_type: t, file, not_before, not_after: now.saturating_add(lifetime) });
        changed = true;
    }
    if changed {
        write_manifest(dir, &manifest)?;
    }
    for name in sweep_locked(dir, &manifest)? {
        tracing::info!(file = %name, "issuer: removed a file a crashed or failed writer left");
    }
    drop(lock);
    load(dir, now)
}

/// How far before its creation a first key is published as valid (seconds).
pub const CLOCK_SKEW: u64 = 300;

/// What [`rotate`] added.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rotated {
    /// The token type.
    pub token_type: u16,
    /// The new key's id.
    pub key_id: [u8; 32],
    /// Its validity.
    pub validity: Validity,
    /// Keys of its type whose window has not ended, itself included.
    pub live: usize,
}

/// Adds the next key for every type the folder serves (or those of
/// `token_types`), valid from `not_before` for `lifetime` seconds, with a
/// truncated key id no other key of its type has. A published key's window
/// is never changed (clients and origins have read it from the directory).
/// Rotation is refused if the new key would start after every
/// current key of its type has ended (a gap with no key), or if its type
/// would then have more than [`MAX_LIVE_KEYS`] keys whose window has not
/// ended. Keys whose window has ended are dropped from the manifest, and
/// their files removed once the new manifest is in place, with any file a
/// crashed writer left ([`sweep`]). Runs under the folder's lock: a second
/// `rotate` waits for the first.
pub fn rotate(
    dir: &Path,
    token_types: Option<&[u16]>,
    now: u64,
    not_before: u64,
    lifetime: u64,
) -> Result<Vec<Rotated>, BoxError> {
    if !dir.join(MANIFEST).exists() {
        return Err(format!("{}: no {MANIFEST}", dir.display()).into());
    }
    let lock = lock(dir)?;
    let mut manifest = read_manifest(dir)?.ok_or_else(|| format!("{}: no {MANIFEST}", dir.display()))?;
    let mut types: Vec<u16> = match token_types {
        Some(t) => t.to_vec(),
        None => manifest.keys.iter().map(|r| r.token_type).collect(),
    };
    types.sort_unstable();
    types.dedup();
    let (live, dead): (Vec<_>, Vec<_>) = manifest.keys.drain(..).partition(|r| r.not_after > now);
    manifest.keys = live;
    for &t in &types {
        let end = manifest.keys.iter().filter(|r| r.token_type == t).map(|r| r.not_after).max();
        if let Some(end) = end.filter(|&end| not_before > end) {
            return Err(format!(
                "type {t}: the new key would start at {not_before}, after the current keys end ({end}); rotate sooner"
            )
            .into());
        }
        let live = manifest.keys.iter().filter(|r| r.token_type == t).count();
        if live >= MAX_LIVE_KEYS {
            return Err(format!(
                "type {t}: {live} keys are live already, the most a state folder holds ({MAX_LIVE_KEYS}); \
                 wait until older keys expire, or rotate with a shorter --lifetime"
            )
            .into());
        }
    }
    let mut added = Vec::new();
    for t in types {
        let taken = taken_ids(dir, &manifest, t)?;
        let (key, file) = generate(dir, t, &taken)?;
        let validity = Validity { not_before, not_after: not_before.saturating_add(lifetime) };
        manifest.keys.push(KeyRecord { token_type: t, file, not_before, not_after: validity.not_after });
        let live = manifest.keys.iter().filter(|r| r.token_type == t).count();
        added.push(Rotated { token_type: t, key_id: *key.key_id(), validity, live });
    }
    write_manifest(dir, &manifest)?;
    for r in dead {
        let _ = fs::remove_file(dir.join(&r.file));
    }
    for name in sweep_locked(dir, &manifest)? {
        tracing::info!(file = %name, "rotate: removed a file a crashed or failed writer left");
    }
    drop(lock);
    Ok(added)
}

/// The modification time of the manifest, to notice a rotation.
pub fn manifest_mtime(dir: &Path) -> Option<std::time::SystemTime> {
    fs::metadata(manifest_path(dir)).and_then(|m| m.modified()).ok()
}

/// Hex of a key id's first bytes, for logs.
pub fn short_id(key_id: &[u8; 32]) -> String {
    hex(key_id.get(..4).unwrap_or_default())
}
