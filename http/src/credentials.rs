//! `pat fetch`'s ARC credentials (type 0xE5AC) between runs: one file,
//! readable by its owner only, holding each credential with the
//! presentation states made from it.
//!
//! A credential is bound to its request context
//! (draft-ietf-privacypass-arc-protocol-01 §7.1: the issuer name, the
//! origin_info, the `credential_context` and the issuer key id), so it is
//! kept under those four ([`CredentialKey`]), or rather under SHA-256 of
//! them: the file never lists the origins visited in clear, and an entry's
//! size does not grow with what an origin puts in its origin_info. Each presentation context
//! (§8.1: the same with the redemption context instead) gets one
//! presentation state, kept beside the credential: its nonce counter is
//! what makes the N tokens of a limit unlinkable, and a second state for
//! the same context would start again at nonce 0 and repeat the first
//! one's tags (linked, and refused as replays). So a state is never made
//! twice for one context: when a credential's state for a context is used
//! up, or it has [`MAX_STATES`] contexts already, the client gets a new
//! credential, which replaces it. For the same reason a credential is
//! dropped whole, never in part: a credential with more states than
//! [`MAX_STATES`] in the file is not read, and the client drops a
//! credential any of whose states does not load ([`crate::client`]).
//!
//! The file is JSON with hex fields, secret (credentials and states carry
//! the client's secrets; every copy in memory is wiped when dropped, and
//! buffers are made at their final size so that no grown buffer leaves a
//! copy behind). It is at most [`MAX_FILE`] bytes: [`CredentialStore::save`]
//! drops the least recently used credentials until it fits. It is
//! replaced atomically: written beside under a temporary name with mode
//! 0600, synced, renamed over the old one, and the folder synced, so a
//! crash leaves the old file or the new one. A writer holds an exclusive
//! lock on `<file>.lock` (`flock`, released by the kernel when the process
//! dies) from reading the file until it has written it back, so two `pat
//! fetch` runs never make tokens from one state at once; a run waits at
//! most [`LOCK_WAIT`] for it, saying so, and the wait runs on tokio's
//! blocking threads ([`CredentialStore::open_waiting`]). Temporary files a
//! crashed writer left are removed under the lock. The caller writes
//! the advanced state before it sends the token ([`crate::client`]): a
//! crash after that wastes one presentation, never repeats one.

use std::fs;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};
use zeroize::{Zeroize, Zeroizing};

use crate::{BoxError, hex};

/// Credentials a store keeps; beyond, the least recently used goes.
pub const MAX_CREDENTIALS: usize = 64;
/// Presentation states (contexts) kept per credential; beyond, the next
/// context gets a new credential.
pub const MAX_STATES: usize = 32;
/// The largest store file read or written (bytes).
pub const MAX_FILE: u64 = 4 << 20;
/// How long a run waits for another one's lock before it gives up.
pub const LOCK_WAIT: Duration = Duration::from_secs(60);
/// The version of the file format.
const VERSION: u32 = 1;
/// The label of the digest a credential is kept under.
const KEY_LABEL: &[u8] = b"pat-http credential store v1";
/// How often a waiting run tries the lock again.
const LOCK_POLL: Duration = Duration::from_millis(50);

/// What a credential is kept under: SHA-256 of its request context
/// (§7.1: the issuer name, the origin_info, the `credential_context` and
/// the issuer key id), each field length-prefixed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CredentialKey([u8; 32]);

impl CredentialKey {
    /// The key of a request context; `credential_context` is empty or 32
    /// bytes (draft-ietf-privacypass-arc-protocol-01 §6).
    pub fn new(
        issuer_name: &[u8],
        origin_info: &[u8],
        credential_context: &[u8],
        key_id: &[u8; 32],
    ) -> Result<Self, BoxError> {
        if !matches!(credential_context.len(), 0 | pat::tokens::arc::CREDENTIAL_CONTEXT_LEN) {
            return Err("a credential_context is empty or 32 bytes".into());
        }
        let mut h = Sha256::new();
        h.update(KEY_LABEL);
        for field in [issuer_name, origin_info, credential_context] {
            let len = u64::try_from(field.len()).map_err(|_| "a request context field is too long")?;
            h.update(len.to_be_bytes());
            h.update(field);
        }
        h.update(key_id);
        Ok(Self(h.finalize().into()))
    }
}

/// A credential and its presentation states, as the library exports them
/// (secret bytes, wiped on drop).
pub struct Stored {
    /// `Credential::export`.
    pub credential: Zeroizing<Vec<u8>>,
    /// `PresentationState::export`, one per presentation context.
    pub states: Vec<Zeroizing<Vec<u8>>>,
}

impl std::fmt::Debug for Stored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stored").field("states", &self.states.len()).finish_non_exhaustive()
    }
}

/// The credentials of one file (or of one run, in memory), with the file's
/// lock held until dropped.
pub struct CredentialStore {
    path: Option<PathBuf>,
    _lock: Option<fs::File>,
    /// Least recently used first.
    entries: Vec<(CredentialKey, Stored)>,
    /// What reading the file dropped or removed, for the caller's log.
    notes: Vec<String>,
}

impl std::fmt::Debug for CredentialStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CredentialStore")
            .field("path", &self.path)
            .field("credentials", &self.entries.len())
            .finish_non_exhaustive()
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    version: u32,
    credentials: Vec<Entry>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    /// [`CredentialKey`], in hex.
    context: String,
    credential: String,
    states: Vec<String>,
}

impl Drop for Entry {
    fn drop(&mut self) {
        self.credential.zeroize();
        self.states.iter_mut().for_each(Zeroize::zeroize);
    }
}

/// The bytes of a hex field of the file at `path`; errors name the file and
/// the field, never the value.
fn unhex(path: &Path, s: &str, what: &str) -> Result<Zeroizing<Vec<u8>>, BoxError> {
    crate::unhex(s).ok_or_else(|| format!("{}: {what}: not an even number of hex digits", path.display()).into())
}

impl CredentialStore {
    /// A store for this run only: nothing is read or written.
    pub fn in_memory() -> Self {
        Self { path: None, _lock: None, entries: Vec::new(), notes: Vec::new() }
    }

    /// Opens the store at `path` (empty if the file does not exist yet),
    /// taking its lock, waited for at most [`LOCK_WAIT`] while another run
    /// holds it (blocking the calling thread: async code calls
    /// [`Self::open_waiting`]).
    pub fn open(path: &Path) -> Result<Self, BoxError> {
        let (file, lock_path) = lock_file(path)?;
        let lock = if try_lock(&file, &lock_path)? { file } else { wait_for_lock(file, &lock_path, LOCK_WAIT)? };
        Self::read_locked(path, lock)
    }

    /// [`Self::open`] for async code: the lock is tried at once; if another
    /// run holds it, `log` says so and the wait, at most `wait`, runs on
    /// tokio's blocking threads; then it is an error naming the lock file.
    pub async fn open_waiting(path: &Path, wait: Duration, log: &mut dyn FnMut(&str)) -> Result<Self, BoxError> {
        let (file, lock_path) = lock_file(path)?;
        let lock = if try_lock(&file, &lock_path)? {
            file
        } else {
            log(&format!("waiting for {} (another pat fetch)", lock_path.display()));
            tokio::task::spawn_blocking(move || wait_for_lock(file, &lock_path, wait))
                .await
                .map_err(|e| format!("waiting for the credential store's lock: {e}"))??
        };
        Self::read_locked(path, lock)
    }

    /// The store at `path`, whose lock `lock` is held: leftover temporary
    /// files removed, the file read.
    fn read_locked(path: &Path, lock: fs::File) -> Result<Self, BoxError> {
        let mut notes = sweep(path)?;
        let entries = match fs::File::open(path) {
            Ok(f) => read(path, f, &mut notes)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(format!("{}: {e}", path.display()).into()),
        };
        Ok(Self { path: Some(path.to_owned()), _lock: Some(lock), entries, notes })
    }

    /// What opening the store dropped or cleaned up, one line each (taken:
    /// a second call gives none).
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// The file, if the store has one.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// How many credentials the store holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the store holds no credential.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The credential kept under `key`.
    pub fn get(&self, key: &CredentialKey) -> Option<&Stored> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, s)| s)
    }

    /// Keeps `stored` under `key` (replacing what was there) as the most
    /// recently used; the least recently used beyond [`MAX_CREDENTIALS`] go.
    pub fn put(&mut self, key: CredentialKey, stored: Stored) {
        self.entries.retain(|(k, _)| *k != key);
        self.entries.push((key, stored));
        let excess = self.entries.len().saturating_sub(MAX_CREDENTIALS);
        self.entries.drain(..excess);
    }

    /// Writes the store back to its file, atomically (nothing for a store
    /// in memory), dropping the least recently used credentials until the
    /// file is at most [`MAX_FILE`] bytes.
    pub fn save(&mut self) -> Result<(), BoxError> {
        let Some(path) = self.path.clone() else { return Ok(()) };
        let json = serialize_within(&mut self.entries, MAX_FILE)?;
        replace(&path, &json)
    }
}

/// The file's JSON for `entries`, at most `max` bytes: the least recently
/// used entries are dropped until it fits.
fn serialize_within(entries: &mut Vec<(CredentialKey, Stored)>, max: u64) -> Result<Zeroizing<Vec<u8>>, BoxError> {
    loop {
        let json = serialize(entries)?;
        if u64::try_from(json.len()).is_ok_and(|n| n <= max) || entries.is_empty() {
            return Ok(json);
        }
        entries.remove(0);
    }
}

/// The file's JSON for `entries`, in a buffer made at (more than) its final
/// size and wiped when dropped.
fn serialize(entries: &[(CredentialKey, Stored)]) -> Result<Zeroizing<Vec<u8>>, BoxError> {
    let capacity = entries.iter().fold(256usize, |n, (_, s)| {
        let states =
            s.states.iter().fold(0usize, |m, st| m.saturating_add(st.len().saturating_mul(2)).saturating_add(32));
        n.saturating_add(256).saturating_add(s.credential.len().saturating_mul(2)).saturating_add(states)
    });
    let file = File {
        version: VERSION,
        credentials: entries
            .iter()
            .map(|(k, s)| Entry {
                context: hex(&k.0),
                credential: hex(&s.credential),
                states: s.states.iter().map(|st| hex(st)).collect(),
            })
            .collect(),
    };
    let mut json = Zeroizing::new(Vec::with_capacity(capacity));
    serde_json::to_writer_pretty(&mut *json, &file)?;
    json.push(b'\n');
    Ok(json)
}

/// serde_json's error without its text, which can quote the offending
/// value (a secret): the category, line and column.
fn json_error(path: &Path, e: &serde_json::Error) -> BoxError {
    let category = match e.classify() {
        serde_json::error::Category::Io => "read",
        serde_json::error::Category::Syntax => "syntax",
        serde_json::error::Category::Data => "data",
        serde_json::error::Category::Eof => "truncated",
    };
    format!("{}: not a credential store ({category} error at line {} column {})", path.display(), e.line(), e.column())
        .into()
}

fn read(path: &Path, mut f: fs::File, notes: &mut Vec<String>) -> Result<Vec<(CredentialKey, Stored)>, BoxError> {
    let what = path.display();
    // Made at the file's size (and one more byte, to see the end), so
    // reading does not grow it.
    let size = f.metadata().map_err(|e| format!("{what}: {e}"))?.len().min(MAX_FILE);
    let mut bytes = Zeroizing::new(Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1)));
    (&mut f).take(MAX_FILE + 1).read_to_end(&mut bytes).map_err(|e| format!("{what}: {e}"))?;
    if !u64::try_from(bytes.len()).is_ok_and(|n| n <= MAX_FILE) {
        return Err(format!("{what}: larger than {MAX_FILE} bytes").into());
    }
    let file: File = serde_json::from_slice(&bytes).map_err(|e| json_error(path, &e))?;
    if file.version != VERSION {
        return Err(format!("{what}: version {} (this pat reads {VERSION})", file.version).into());
    }
    let mut entries = Vec::with_capacity(file.credentials.len().min(MAX_CREDENTIALS));
    for (i, e) in file.credentials.iter().enumerate() {
        let context = unhex(path, &e.context, &format!("credential {i}: context"))?;
        let key = CredentialKey(
            context.as_slice().try_into().map_err(|_| format!("{what}: credential {i}: a context is 32 bytes"))?,
        );
        let credential = unhex(path, &e.credential, &format!("credential {i}: credential"))?;
        if e.states.len() > MAX_STATES {
            // Dropping some of its states would let a state be made again
            // for their contexts, repeating tags: the credential goes whole.
            notes.push(format!(
                "credential store: credential {i} has {} states, more than {MAX_STATES}: dropped",
                e.states.len()
            ));
            continue;
        }
        let states = e
            .states
            .iter()
            .map(|s| unhex(path, s, &format!("credential {i}: state")))
            .collect::<Result<Vec<_>, _>>()?;
        entries.push((key, Stored { credential, states }));
    }
    let excess = entries.len().saturating_sub(MAX_CREDENTIALS);
    entries.drain(..excess);
    Ok(entries)
}

/// The lock file of a store: `<file>.lock` beside it.
fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(std::ffi::OsStr::to_os_string).unwrap_or_default();
    name.push(".lock");
    path.with_file_name(name)
}

/// The store's lock file, opened (created 0600), and its path.
fn lock_file(path: &Path) -> Result<(fs::File, PathBuf), BoxError> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let lock_path = lock_path(path);
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(&lock_path)
        .map_err(|e| format!("{}: {e}", lock_path.display()))?;
    Ok((file, lock_path))
}

/// Takes the lock if it is free; `false` if another run holds it.
fn try_lock(file: &fs::File, lock_path: &Path) -> Result<bool, BoxError> {
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(fs::TryLockError::WouldBlock) => Ok(false),
        Err(fs::TryLockError::Error(e)) => Err(format!("{}: {e}", lock_path.display()).into()),
    }
}

/// Tries the lock until it is taken or `wait` has passed (then an error).
fn wait_for_lock(file: fs::File, lock_path: &Path, wait: Duration) -> Result<fs::File, BoxError> {
    let deadline = Instant::now().checked_add(wait).ok_or("the lock wait is too long")?;
    loop {
        if try_lock(&file, lock_path)? {
            return Ok(file);
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(format!(
                "{}: another pat fetch has held this lock for more than {} s; gave up (try again, or remove a \
                 stuck process)",
                lock_path.display(),
                wait.as_secs_f32()
            )
            .into());
        }
        std::thread::sleep(LOCK_POLL.min(deadline.saturating_duration_since(now)));
    }
}

/// The names [`replace`] gives its temporary files: `.<name>.<pid>.<nanos>.tmp`.
fn is_temporary(name: &str, store_name: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|rest| rest.strip_prefix(store_name))
        .and_then(|rest| rest.strip_prefix('.'))
        .is_some_and(|rest| rest.ends_with(".tmp"))
}

/// Removes the temporary files a crashed or failed writer left beside the
/// store (secret, 0600); the lock is held, so no writer is running.
fn sweep(path: &Path) -> Result<Vec<String>, BoxError> {
    let dir = folder(path);
    let store_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut notes = Vec::new();
    for entry in fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else { continue };
        if is_temporary(&name, &store_name) && entry.file_type().is_ok_and(|t| t.is_file()) {
            fs::remove_file(entry.path()).map_err(|e| format!("{}: {e}", entry.path().display()))?;
            notes.push(format!("credential store: removed {name}, left by an interrupted run"));
        }
    }
    Ok(notes)
}

/// The folder of `path` (`.` for a bare name).
fn folder(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// Replaces `path` with `bytes`: a temporary file of this process (mode
/// 0600, never an existing file), synced, renamed over `path`, the folder
/// synced.
fn replace(path: &Path, bytes: &[u8]) -> Result<(), BoxError> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let dir = folder(path);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let tmp = dir.join(format!(".{name}.{}.{nanos}.tmp", std::process::id()));
    let written = (|| -> Result<(), BoxError> {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(|e| format!("{}: {e}", tmp.display()))?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(())
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written?;
    fs::File::open(&dir)?.sync_all()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use std::os::unix::fs::PermissionsExt as _;
    use std::time::Duration;

    use zeroize::Zeroizing;

    use super::{CredentialKey, CredentialStore, MAX_CREDENTIALS, MAX_FILE, MAX_STATES, Stored};

    fn key(n: u8) -> CredentialKey {
        CredentialKey::new(&[n], &[], &[7; 32], &[n; 32]).unwrap()
    }

    fn stored(n: u8) -> Stored {
        Stored { credential: Zeroizing::new(vec![n; 4]), states: vec![Zeroizing::new(vec![n, n])] }
    }

    fn names(dir: &std::path::Path) -> Vec<String> {
        let mut names: Vec<_> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        names
    }

    #[test]
    fn a_store_round_trips_through_its_file_with_mode_0600() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("credentials.json");
        {
            let mut store = CredentialStore::open(&path).unwrap();
            assert!(store.is_empty());
            store.put(key(1), stored(1));
            store.put(key(2), stored(2));
            store.save().unwrap();
        }
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let store = CredentialStore::open(&path).unwrap();
        assert_eq!(store.len(), 2);
        assert_eq!(*store.get(&key(2)).unwrap().credential, vec![2; 4]);
        assert_eq!(*store.get(&key(1)).unwrap().states[0], vec![1, 1]);
        assert!(store.get(&key(3)).is_none());
        // Only the file and its lock: no temporary file left.
        assert_eq!(names(dir.path()), ["credentials.json", "credentials.json.lock"]);
    }

    #[test]
    fn the_least_recently_used_go_beyond_the_cap() {
        let mut store = CredentialStore::in_memory();
        for n in 0..=u8::try_from(MAX_CREDENTIALS).unwrap() {
            store.put(key(n), stored(n));
        }
        assert_eq!(store.len(), MAX_CREDENTIALS);
        assert!(store.get(&key(0)).is_none() && store.get(&key(1)).is_some());
        store.save().unwrap();
    }

    #[test]
    fn a_broken_file_is_an_error_not_an_empty_store() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        let entry = |context: &str, credential: &str, extra: &str| {
            format!(
                "{{\"version\": 1, \"credentials\": [{{\"context\": \"{context}\", \"credential\": \"{credential}\", \
                 \"states\": []{extra}}}]}}"
            )
        };
        let context = "ab".repeat(32);
        for bad in [
            "{".to_owned(),
            "{\"version\": 2, \"credentials\": []}".to_owned(),
            "{\"version\": 1, \"credentials\": [], \"more\": 1}".to_owned(),
            entry("zz", "", ""),
            entry(&"ab".repeat(31), "", ""),
            entry(&context, "+a", ""),
            entry(&context, "0", ""),
            entry(&context, " a", ""),
            entry(&context, "00", ", \"origin_info\": \"\""),
        ] {
            std::fs::write(&path, &bad).unwrap();
            let err = CredentialStore::open(&path).unwrap_err().to_string();
            assert!(err.starts_with(&format!("{}: ", path.display())), "{bad}: {err}");
        }
        std::fs::write(&path, entry(&context, "0A", "")).unwrap();
        assert_eq!(CredentialStore::open(&path).unwrap().len(), 1);
        // A credential_context is empty or 32 bytes.
        assert!(CredentialKey::new(b"i", b"", &[0; 31], &[0; 32]).is_err());
        assert_ne!(CredentialKey::new(b"i", b"", &[], &[0; 32]).unwrap(), key(0));
    }

    /// B2: serde_json's text quotes the value it refused; the error says only
    /// where it was.
    #[test]
    fn a_refused_file_does_not_quote_its_secrets() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        let secret = "5ec7e75ec7e75ec7e75ec7e75ec7e75ec7e7";
        let text = format!(
            "{{\"version\": 1, \"credentials\": [{{\"context\": \"{}\", \"credential\": \"00\", \"states\": \
             \"{secret}\"}}]}}",
            "ab".repeat(32)
        );
        std::fs::write(&path, text).unwrap();
        let err = CredentialStore::open(&path).unwrap_err().to_string();
        assert!(!err.contains(secret) && !err.contains("5ec7"), "{err}");
        assert!(err.contains("not a credential store (data error at line 1 column"), "{err}");
        std::fs::write(&path, format!("{{\"version\": 1, \"credentials\": [\"{secret}\" ]}}")).unwrap();
        let err = CredentialStore::open(&path).unwrap_err().to_string();
        assert!(!err.contains("5ec7"), "{err}");
        // Bad hex in a field: the file and the field are named, not the value.
        let bad = format!("{secret}+a");
        let text = format!(
            "{{\"version\": 1, \"credentials\": [{{\"context\": \"{}\", \"credential\": \"{bad}\", \"states\": \
             []}}]}}",
            "ab".repeat(32)
        );
        std::fs::write(&path, text).unwrap();
        let err = CredentialStore::open(&path).unwrap_err().to_string();
        assert_eq!(err, format!("{}: credential 0: credential: not an even number of hex digits", path.display()));
    }

    /// S1: entries are kept under a digest, so origins with 64 KB of
    /// origin_info neither grow the file nor appear in it; and whatever the
    /// entries hold, the file is written within MAX_FILE and read back.
    #[test]
    fn the_file_stays_within_its_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        let origin = |n: u8| vec![b'a' + n % 26; 65_000];
        {
            let mut store = CredentialStore::open(&path).unwrap();
            for n in 0..100u8 {
                let key = CredentialKey::new(b"issuer", &origin(n), &[], &[n; 32]).unwrap();
                let states = (0..MAX_STATES).map(|_| Zeroizing::new(vec![n; 180])).collect();
                store.put(key, Stored { credential: Zeroizing::new(vec![n; 131]), states });
            }
            store.save().unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(u64::try_from(text.len()).unwrap() < MAX_FILE / 4, "{}", text.len());
        assert!(!text.contains(&"a".repeat(64)), "origin_info in the file");
        let store = CredentialStore::open(&path).unwrap();
        assert_eq!(store.len(), MAX_CREDENTIALS);
        assert!(store.get(&CredentialKey::new(b"issuer", &origin(99), &[], &[99; 32]).unwrap()).is_some());
        drop(store);
        // Entries too large together: the least recently used go until the
        // file fits (a smaller limit here, as MAX_FILE's 4 MiB takes long
        // to sync in a test).
        let mut entries: Vec<_> = (0..5u8)
            .map(|n| (key(n), Stored { credential: Zeroizing::new(vec![n; 900]), states: Vec::new() }))
            .collect();
        let json = super::serialize_within(&mut entries, 4000).unwrap();
        assert!(json.len() <= 4000 && json.len() > 3600, "{}", json.len());
        assert_eq!(entries.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>(), [key(3), key(4)]);
        // One entry over the limit alone: an empty store.
        let mut entries = vec![(key(1), Stored { credential: Zeroizing::new(vec![1; 3000]), states: Vec::new() })];
        assert!(super::serialize_within(&mut entries, 4000).unwrap().len() < 100);
        assert!(entries.is_empty());
    }

    /// A credential with more states than kept is dropped whole when read
    /// (dropping some states would let one be made again, repeating tags).
    #[test]
    fn a_credential_with_too_many_states_is_dropped_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        {
            let mut store = CredentialStore::open(&path).unwrap();
            store
                .put(key(1), Stored { credential: Zeroizing::new(vec![1]), states: vec![Zeroizing::new(vec![1]); 33] });
            store.put(key(2), stored(2));
            store.save().unwrap();
        }
        let mut store = CredentialStore::open(&path).unwrap();
        assert_eq!(store.len(), 1);
        assert!(store.get(&key(1)).is_none() && store.get(&key(2)).is_some());
        let notes = store.take_notes();
        assert_eq!(notes, ["credential store: credential 0 has 33 states, more than 32: dropped"]);
    }

    /// N3: temporary files an interrupted run left (secret) are removed
    /// under the lock; other files are left alone.
    #[test]
    fn leftover_temporary_files_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        for name in [".c.json.123.456.tmp", ".c.json.9.tmp", ".other.json.1.2.tmp", "c.json.tmp", ".c.jsonx.1.tmp"] {
            std::fs::write(dir.path().join(name), "secret").unwrap();
        }
        let mut store = CredentialStore::open(&path).unwrap();
        assert_eq!(store.take_notes().len(), 2);
        assert_eq!(names(dir.path()), [".c.jsonx.1.tmp", ".other.json.1.2.tmp", "c.json.lock", "c.json.tmp"]);
    }

    /// S2: a held lock is waited for on a blocking thread, said in the log,
    /// and given up on after the deadline with an error naming the lock.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_held_lock_is_waited_for_until_a_deadline() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        let held = CredentialStore::open(&path).unwrap();
        let mut lines = Vec::new();
        let started = std::time::Instant::now();
        let err = CredentialStore::open_waiting(&path, Duration::from_millis(300), &mut |l| lines.push(l.to_owned()))
            .await
            .unwrap_err()
            .to_string();
        assert!(started.elapsed() >= Duration::from_millis(300));
        let lock = format!("{}.lock", path.display());
        assert_eq!(lines, [format!("waiting for {lock} (another pat fetch)")]);
        assert!(err.starts_with(&format!("{lock}: another pat fetch has held this lock for more than 0.3 s")), "{err}");
        // Released while waited for: taken.
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            drop(held);
        });
        let mut lines = Vec::new();
        CredentialStore::open_waiting(&path, Duration::from_secs(10), &mut |l| lines.push(l.to_owned())).await.unwrap();
        assert_eq!(lines.len(), 1);
        release.join().unwrap();
        // Free: no wait, no line.
        let mut lines = Vec::new();
        CredentialStore::open_waiting(&path, Duration::ZERO, &mut |l| lines.push(l.to_owned())).await.unwrap();
        assert!(lines.is_empty());
    }
}
