//! The issuer's keys on disk, with their validity windows.
//!
//! A state folder holds `keys.json` (the manifest: one record per key with
//! its token type, file name, `not-before` and `not-after` in UNIX seconds)
//! and one file per key, readable by its owner only:
//! - types 0x0001 and 0x0005: `typeN-<id>.seed`, 32 random bytes in hex, from
//!   which the VOPRF key pair is derived (RFC 9497 §3.2.1, `DeriveKeyPair`);
//! - type 0x0002: `type2-<id>.pem`, the RSA key as PKCS#8 PEM.
//!
//! The manifest is replaced atomically (written beside, then renamed), so a
//! server that re-reads it while `pat issuer rotate` runs sees either the old
//! or the new set.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use pat::blind_rsa::{self, PKCS8_PEM_MAX_LEN};
use pat::keyset::{KeyEntry, Validity};
use pat::token_type::{PrivateP384, PrivateRistretto255};
use pat::types::{private, public};
use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

use crate::BoxError;

/// The token types an issuer can serve.
pub const SUPPORTED_TYPES: [u16; 3] = [1, 2, 5];

/// How long a new key stays valid by default: 30 days.
pub const DEFAULT_LIFETIME: u64 = 30 * 24 * 3600;

/// The file name of the manifest inside a state folder.
pub const MANIFEST: &str = "keys.json";

/// The `info` input of the VOPRF key derivation.
const DERIVE_INFO: &[u8] = b"pat-http issuer key";

/// One issuer key of a supported type.
pub enum IssuerKey {
    /// Type 0x0001 (VOPRF P-384).
    P384(private::Issuer<PrivateP384>),
    /// Type 0x0002 (blind RSA 2048).
    Rsa(Box<public::Issuer>),
    /// Type 0x0005 (VOPRF ristretto255).
    R255(private::Issuer<PrivateRistretto255>),
}

impl IssuerKey {
    /// The token type code.
    pub fn token_type(&self) -> u16 {
        match self {
            Self::P384(_) => 1,
            Self::Rsa(_) => 2,
            Self::R255(_) => 5,
        }
    }

    /// The key id (SHA-256 of the token key, RFC 9578).
    pub fn key_id(&self) -> &[u8; 32] {
        match self {
            Self::P384(k) => k.key_id(),
            Self::Rsa(k) => k.key_id(),
            Self::R255(k) => k.key_id(),
        }
    }

    /// The public token key as the directory and `WWW-Authenticate` carry it.
    pub fn token_key(&self) -> Vec<u8> {
        match self {
            Self::P384(k) => k.token_key().as_ref().to_vec(),
            Self::Rsa(k) => k.token_key().to_vec(),
            Self::R255(k) => k.token_key().as_ref().to_vec(),
        }
    }
}

/// A key's entry in the key set: its type and id (the secret stays in [`IssuerKey`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyRef {
    /// The token type code.
    pub token_type: u16,
    /// The key id.
    pub key_id: [u8; 32],
    /// The key's position in [`KeyState::keys`].
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
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    f.write_all(bytes)?;
    f.sync_all()?;
    Ok(())
}

fn write_manifest(dir: &Path, manifest: &Manifest) -> Result<(), BoxError> {
    let tmp = dir.join(format!("{MANIFEST}.tmp"));
    let mut json = serde_json::to_vec_pretty(manifest)?;
    json.push(b'\n');
    write_private(&tmp, &json)?;
    fs::rename(&tmp, manifest_path(dir))?;
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Zeroizing<Vec<u8>>> {
    let s = s.trim();
    if !s.len().is_multiple_of(2) {
        return None;
    }
    let mut out = Zeroizing::new(Vec::with_capacity(s.len() / 2));
    for pair in s.as_bytes().chunks(2) {
        let text = core::str::from_utf8(pair).ok()?;
        out.push(u8::from_str_radix(text, 16).ok()?);
    }
    Some(out)
}

fn rng() -> rand_core::UnwrapErr<pat::OsRng> {
    rand_core::UnwrapErr(pat::OsRng)
}

fn derive(token_type: u16, seed: &[u8]) -> Result<IssuerKey, BoxError> {
    Ok(match token_type {
        1 => IssuerKey::P384(private::Issuer::derive(seed, DERIVE_INFO)?),
        5 => IssuerKey::R255(private::Issuer::derive(seed, DERIVE_INFO)?),
        t => return Err(format!("token type {t} has no seed keys").into()),
    })
}

/// Makes a new key of `token_type` and writes its file into `dir`; returns the file name.
fn generate(dir: &Path, token_type: u16) -> Result<(IssuerKey, String), BoxError> {
    let (key, contents) = match token_type {
        1 | 5 => {
            let mut seed = Zeroizing::new([0u8; 32]);
            rand_core::TryRng::try_fill_bytes(&mut pat::OsRng, seed.as_mut())
                .map_err(|e| format!("randomness: {e}"))?;
            let key = derive(token_type, seed.as_ref())?;
            (key, Zeroizing::new(format!("{}\n", hex(seed.as_ref())).into_bytes()))
        }
        2 => {
            let secret = blind_rsa::SecretKey::generate(&mut rng())?;
            let mut pem = Zeroizing::new([0u8; PKCS8_PEM_MAX_LEN]);
            let text = Zeroizing::new(secret.to_pkcs8_pem(pem.as_mut())?.as_bytes().to_vec());
            (IssuerKey::Rsa(Box::new(public::Issuer::new(secret))), text)
        }
        t => return Err(format!("token type {t} is not served (supported: 1, 2, 5)").into()),
    };
    let ext = if token_type == 2 { "pem" } else { "seed" };
    let file = format!("type{token_type}-{}.{ext}", hex(key.key_id().get(..4).unwrap_or_default()));
    write_private(&dir.join(&file), &contents)?;
    Ok((key, file))
}

fn load_key(dir: &Path, record: &KeyRecord) -> Result<IssuerKey, BoxError> {
    if record.file.contains('/') || record.file.starts_with('.') {
        return Err(format!("{MANIFEST}: key file name {:?} leaves the state folder", record.file).into());
    }
    let path = dir.join(&record.file);
    let contents = Zeroizing::new(fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?);
    let bad = |what: &str| -> BoxError { format!("{}: {what}", path.display()).into() };
    match record.token_type {
        1 | 5 => {
            let text = core::str::from_utf8(&contents).map_err(|_| bad("not hex text"))?;
            let seed = unhex(text).ok_or_else(|| bad("not hex"))?;
            if seed.len() != 32 {
                return Err(bad("a seed is 32 bytes"));
            }
            derive(record.token_type, &seed)
        }
        2 => {
            let text = core::str::from_utf8(&contents).map_err(|_| bad("not PEM text"))?;
            let secret = blind_rsa::SecretKey::from_pkcs8_pem(text).map_err(|e| bad(&format!("{e}")))?;
            Ok(IssuerKey::Rsa(Box::new(public::Issuer::new(secret))))
        }
        t => Err(format!("{MANIFEST}: token type {t} is not served").into()),
    }
}

/// Loads the keys of a state folder; an error if it has no manifest.
pub fn load(dir: &Path) -> Result<KeyState, BoxError> {
    let manifest = read_manifest(dir)?
        .ok_or_else(|| format!("{}: no {MANIFEST} (start `pat issuer serve` first)", dir.display()))?;
    let mut keys = Vec::with_capacity(manifest.keys.len());
    for record in &manifest.keys {
        let key = load_key(dir, record)?;
        if key.token_type() != record.token_type {
            return Err(format!("{MANIFEST}: {} holds a key of another type", record.file).into());
        }
        keys.push(LoadedKey { key, validity: Validity { not_before: record.not_before, not_after: record.not_after } });
    }
    Ok(KeyState { keys })
}

/// Opens a state folder, creating it and a key for every type of
/// `token_types` that has no key valid at `now` yet (valid from `now` for
/// `lifetime` seconds).
pub fn open_or_init(dir: &Path, token_types: &[u16], now: u64, lifetime: u64) -> Result<KeyState, BoxError> {
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut manifest = read_manifest(dir)?.unwrap_or_default();
    let mut changed = false;
    for &t in token_types {
        if !SUPPORTED_TYPES.contains(&t) {
            return Err(format!("token type {t} is not served (supported: 1, 2, 5)").into());
        }
        if manifest.keys.iter().any(|r| r.token_type == t && r.not_before <= now && now < r.not_after) {
            continue;
        }
        let (_, file) = generate(dir, t)?;
        manifest.keys.push(KeyRecord { token_type: t, file, not_before: now, not_after: now.saturating_add(lifetime) });
        changed = true;
    }
    if changed {
        write_manifest(dir, &manifest)?;
    }
    load(dir)
}

/// What [`rotate`] added.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rotated {
    /// The token type.
    pub token_type: u16,
    /// The new key's id.
    pub key_id: [u8; 32],
    /// Its validity.
    pub validity: Validity,
}

/// Adds the next key for every type the folder serves (or those of
/// `token_types`), valid from `not_before` for `lifetime` seconds. Each older
/// key of the type whose window would end before `not_before + overlap` is
/// extended to it, so tokens issued just before the switch still redeem for
/// `overlap` seconds. Keys whose window has ended are dropped from the
/// manifest (their files are removed).
pub fn rotate(
    dir: &Path,
    token_types: Option<&[u16]>,
    now: u64,
    not_before: u64,
    lifetime: u64,
    overlap: u64,
) -> Result<Vec<Rotated>, BoxError> {
    let mut manifest = read_manifest(dir)?.ok_or_else(|| format!("{}: no {MANIFEST}", dir.display()))?;
    let mut types: Vec<u16> = match token_types {
        Some(t) => t.to_vec(),
        None => manifest.keys.iter().map(|r| r.token_type).collect(),
    };
    types.sort_unstable();
    types.dedup();
    let (live, dead): (Vec<_>, Vec<_>) = manifest.keys.drain(..).partition(|r| r.not_after > now);
    manifest.keys = live;
    for r in dead {
        let _ = fs::remove_file(dir.join(&r.file));
    }
    let mut added = Vec::new();
    for t in types {
        let (key, file) = generate(dir, t)?;
        let validity = Validity { not_before, not_after: not_before.saturating_add(lifetime) };
        let min_end = not_before.saturating_add(overlap);
        for r in manifest.keys.iter_mut().filter(|r| r.token_type == t && r.not_after < min_end) {
            r.not_after = min_end;
        }
        manifest.keys.push(KeyRecord { token_type: t, file, not_before, not_after: validity.not_after });
        added.push(Rotated { token_type: t, key_id: *key.key_id(), validity });
    }
    write_manifest(dir, &manifest)?;
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
