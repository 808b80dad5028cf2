//! `remembered.json`: reading it at start, writing it atomically, and the thread that writes.
//!
//! Only rules that outlive the daemon are written: `always`, and `until` a moment still to come.
//! The document is versioned (`{"version":1,"rules":[…]}`). A file that cannot be read or
//! understood is renamed aside (`remembered.json.bad-<unix-ms>`) and the store starts empty:
//! never overwritten in place, never a reason not to start. Writes go to a temporary file in
//! the same directory (mode 0600), which is synced, renamed over the old one, and the directory
//! synced, so a crash leaves the old document or the new one, never half of one.
//!
//! A change a person asked for (remember for a while or always, lengthen, forget) is written
//! before it is made in memory and before the caller hears it was made: on the caller's thread,
//! under the store's commit lock (`Core::commit`); if the write fails, nothing changes and the
//! caller hears why. What nobody waits for (use counts, rules that ended) marks the store dirty
//! and wakes one writer thread, which snapshots the rules under the same commit lock and writes;
//! a burst is one write, a change that only counts uses waits up to [`USES_DELAY`] first (a
//! remembered rule matching in a loop is not a write per check), and a failed write is tried
//! again. Temporary files a crash left behind are removed at start.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{Approval, Core, Scope, is_id, now_ms};

/// The file's name in the state directory.
pub(super) const FILE_NAME: &str = "remembered.json";
/// The only document version this daemon reads and writes.
const VERSION: u32 = 1;
/// A larger file is not read (it would not come from us: 1024 remembered approvals per uid of
/// at most a 128 KiB signature each is far less for any real number of users).
const MAX_FILE_LEN: u64 = 64 * 1024 * 1024;
/// How long a change that only counts uses may wait for others to join it in one write.
pub(super) const USES_DELAY: Duration = Duration::from_secs(2);

#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Document {
    version: u32,
    /// The file's key since version 1, kept so existing state files read.
    #[serde(rename = "rules")]
    approvals: Vec<FileApproval>,
}

#[derive(Debug, Serialize, Deserialize)]
struct FileApproval {
    id: String,
    uid: u32,
    signature: String,
    created_ms: u64,
    uses: u64,
    /// Absent: always. Present: until this moment (ms since the Unix epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    until_ms: Option<u64>,
}

/// The outcome of reading the file at start.
pub(super) struct Loaded {
    /// The rules still in force.
    pub rules: Vec<Approval>,
    /// Whether the file may be written: false when a bad file could not be moved aside.
    pub writable: bool,
}

/// Read `dir/remembered.json`; a missing file is empty, a bad one is moved aside. Temporary
/// files of writes a crash interrupted are removed first.
pub(super) fn load(dir: &Path) -> Loaded {
    remove_stale_temps(dir);
    let path = dir.join(FILE_NAME);
    match read(&path) {
        Ok(rules) => Loaded {
            rules,
            writable: true,
        },
        Err(ReadError::Missing) => Loaded {
            rules: Vec::new(),
            writable: true,
        },
        Err(ReadError::Bad(why)) => {
            let aside = PathBuf::from(format!("{}.bad-{}", path.display(), now_ms()));
            match std::fs::rename(&path, &aside) {
                Ok(()) => {
                    tracing::error!(
                        path = %path.display(),
                        moved_to = %aside.display(),
                        error = %why,
                        "could not read the remembered approvals; moved the file aside and starting with none"
                    );
                    Loaded {
                        rules: Vec::new(),
                        writable: true,
                    }
                }
                Err(error) => {
                    tracing::error!(
                        path = %path.display(),
                        error = %why,
                        rename_error = %error,
                        "could not read the remembered approvals nor move the file aside; keeping new ones in memory only"
                    );
                    Loaded {
                        rules: Vec::new(),
                        writable: false,
                    }
                }
            }
        }
    }
}

/// Remove `.remembered.json.*.tmp` files: a write that was interrupted leaves one, and the
/// daemon that made it is gone (this runs before the first write of this one).
fn remove_stale_temps(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{FILE_NAME}.");
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with(&prefix) && name.ends_with(".tmp") {
            match std::fs::remove_file(entry.path()) {
                Ok(()) => {
                    tracing::info!(file = %entry.path().display(), "removed a temporary file a crash left")
                }
                Err(error) => {
                    tracing::warn!(file = %entry.path().display(), %error, "could not remove a temporary file a crash left")
                }
            }
        }
    }
}

enum ReadError {
    Missing,
    Bad(String),
}

fn read(path: &Path) -> Result<Vec<Approval>, ReadError> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(ReadError::Missing),
        Err(e) => return Err(ReadError::Bad(e.to_string())),
    };
    let mut text = String::new();
    file.take(MAX_FILE_LEN + 1)
        .read_to_string(&mut text)
        .map_err(|e| ReadError::Bad(e.to_string()))?;
    if text.len() as u64 > MAX_FILE_LEN {
        return Err(ReadError::Bad(format!("larger than {MAX_FILE_LEN} bytes")));
    }
    let doc: Document =
        serde_json::from_str(&text).map_err(|e| ReadError::Bad(format!("not valid: {e}")))?;
    if doc.version != VERSION {
        return Err(ReadError::Bad(format!(
            "document version {} (this daemon reads {VERSION})",
            doc.version
        )));
    }
    let now = now_ms();
    let mut rules: Vec<Approval> = Vec::with_capacity(doc.approvals.len());
    let mut seen = std::collections::HashSet::with_capacity(doc.approvals.len());
    for r in doc.approvals {
        if !is_id(&r.id) || !seen.insert(r.id.clone()) {
            tracing::warn!(id = %r.id, "skipping a remembered approval with a bad or repeated id");
            continue;
        }
        let scope = match r.until_ms {
            None => Scope::Always,
            Some(ms) if ms > now => Scope::Until(ms),
            Some(_) => continue,
        };
        rules.push(Approval {
            id: r.id,
            owner: r.uid,
            scope,
            signature: r.signature,
            created_ms: r.created_ms,
            uses: r.uses,
        });
    }
    Ok(rules)
}

/// The rules that outlive the daemon, as the document to write.
pub(super) fn document<'a>(rules: impl Iterator<Item = &'a Approval>, now: u64) -> Document {
    let rules = rules
        .filter_map(|r| {
            let until_ms = match r.scope {
                Scope::Always => None,
                Scope::Until(ms) if ms > now => Some(ms),
                _ => return None,
            };
            Some(FileApproval {
                id: r.id.clone(),
                uid: r.owner,
                signature: r.signature.clone(),
                created_ms: r.created_ms,
                uses: r.uses,
                until_ms,
            })
        })
        .collect();
    Document {
        version: VERSION,
        approvals: rules,
    }
}

/// Write `doc` to `dir/remembered.json` atomically, mode 0600.
pub(super) fn write(dir: &Path, doc: &Document) -> std::io::Result<()> {
    let bytes = serde_json::to_vec_pretty(doc).map_err(std::io::Error::other)?;
    let mut salt = [0u8; 4];
    getrandom::fill(&mut salt).map_err(|e| std::io::Error::other(e.to_string()))?;
    let temp = dir.join(format!(
        ".{FILE_NAME}.{}.{:08x}.tmp",
        std::process::id(),
        u32::from_le_bytes(salt)
    ));
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp)?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, dir.join(FILE_NAME))?;
        File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// How long the writer waits before trying again after a failed write.
const RETRY: Duration = Duration::from_secs(5);

/// The writer thread's loop: write whenever the store is dirty, until told to stop (then write
/// what is left, and return). It writes what callers do not wait for (use counts, rules that
/// ended); a failed write is tried again after [`RETRY`].
pub(super) fn writer(core: Arc<Core>, dir: PathBuf) {
    loop {
        {
            let mut state = core.lock();
            while state.persist.written == state.persist.dirty && !state.persist.stop {
                state = core
                    .wake
                    .wait(state)
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
            }
            if state.persist.written == state.persist.dirty {
                return; // stopping, nothing left
            }
            // Only use counts changed: give other uses a moment to join this write.
            let deadline = Instant::now() + USES_DELAY;
            while !state.persist.urgent && !state.persist.stop {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                state = core
                    .wake
                    .wait_timeout(state, left)
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .0;
            }
        }
        // The commit lock first (the order every writer takes), then the snapshot.
        let commit = core.lock_commit();
        let (doc, generation) = {
            let mut state = core.lock();
            state.persist.urgent = false;
            let generation = state.persist.dirty;
            (
                document(state.rules.values().flatten(), now_ms()),
                generation,
            )
        };
        let result = write(&dir, &doc);
        drop(commit);
        if let Err(error) = &result {
            tracing::error!(
                path = %dir.join(FILE_NAME).display(),
                %error,
                "could not write the remembered approvals' use counts; trying again in 5 s"
            );
        }
        let mut state = core.lock();
        state.persist.written = generation;
        let failed = result.is_err();
        state.persist.last_error = result.err().map(|e| e.to_string());
        core.written.notify_all();
        if failed && !state.persist.stop {
            let (mut state, _) = core
                .wake
                .wait_timeout(state, RETRY)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if state.persist.last_error.is_some() {
                state.mark(true);
            }
        }
    }
}
