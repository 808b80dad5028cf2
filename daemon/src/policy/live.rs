//! The policy in force, and its reloads.
//!
//! A reload parses the whole file first and swaps the `Arc` only when it succeeded: a decision
//! in flight keeps the `Arc` it took and finishes under the policy it started with, and a
//! failed reload keeps the running policy, logs the error and shows it in `assent status`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::SystemTime;

use super::{Policy, PolicyError, load};

/// What identifies a version of the file without reading it.
type Stamp = Option<(SystemTime, u64, u64)>;

/// The policy in force, swapped whole on reload.
#[derive(Debug)]
pub struct Live {
    current: RwLock<Arc<Policy>>,
    file: Option<PathBuf>,
    stamp: Mutex<Stamp>,
    error: Mutex<Option<String>>,
}

fn stamp(path: &Path) -> Stamp {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len(), meta.ino()))
}

/// Load `file` if it exists, else the embedded default. `required` (an explicit `--policy`)
/// makes a missing file an error.
pub fn initial(file: &Path, required: bool) -> Result<Policy, PolicyError> {
    if !required && !file.exists() {
        let mut policy = Policy::embedded();
        policy.source = format!("embedded default (no {})", file.display());
        return Ok(policy);
    }
    let loaded = load(file)?;
    for warning in &loaded.warnings {
        tracing::warn!(policy = %file.display(), warning = %warning, "policy warning");
    }
    Ok(loaded.policy)
}

impl Live {
    /// A fixed policy, never reloaded (tests, benches).
    pub fn fixed(policy: Policy) -> Live {
        Live {
            current: RwLock::new(Arc::new(policy)),
            file: None,
            stamp: Mutex::new(None),
            error: Mutex::new(None),
        }
    }

    /// The policy at `file` (or the embedded default when there is none), watched for changes.
    /// A file that fails to load at start is an error too, but `run` keeps serving under the
    /// embedded default and shows it in status: the daemon never runs without a policy.
    pub fn watching(file: PathBuf, required: bool) -> Live {
        let stamp_now = stamp(&file);
        let (policy, error) = match initial(&file, required) {
            Ok(policy) => (policy, None),
            Err(error) => {
                tracing::error!(%error, "could not load the policy; using the embedded default");
                (Policy::embedded(), Some(error.to_string()))
            }
        };
        Live {
            current: RwLock::new(Arc::new(policy)),
            file: Some(file),
            stamp: Mutex::new(stamp_now),
            error: Mutex::new(error),
        }
    }

    /// The policy in force now. Hold the `Arc` for the whole decision.
    pub fn current(&self) -> Arc<Policy> {
        match self.current.read() {
            Ok(p) => Arc::clone(&p),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// Where the policy came from, for status.
    pub fn source(&self) -> String {
        self.current().source.clone()
    }

    /// The last reload's error, if the last reload failed.
    pub fn last_error(&self) -> Option<String> {
        self.error.lock().ok().and_then(|e| e.clone())
    }

    /// Reload when the file changed since the last look (the poller).
    pub fn reload_if_changed(&self) -> bool {
        let Some(file) = &self.file else {
            return false;
        };
        let now = stamp(file);
        {
            let Ok(mut last) = self.stamp.lock() else {
                return false;
            };
            if *last == now {
                return false;
            }
            *last = now;
        }
        self.reload("file changed");
        true
    }

    /// Reload now (SIGHUP, or a change). Returns whether the new policy is in force.
    pub fn reload(&self, why: &str) -> bool {
        let Some(file) = &self.file else {
            return false;
        };
        if let Ok(mut last) = self.stamp.lock() {
            *last = stamp(file);
        }
        match initial(file, false) {
            Ok(policy) => {
                tracing::info!(policy = %policy.source, why, "policy reloaded");
                if let Ok(mut current) = self.current.write() {
                    *current = Arc::new(policy);
                }
                if let Ok(mut error) = self.error.lock() {
                    *error = None;
                }
                true
            }
            Err(error) => {
                tracing::error!(%error, why, "policy reload failed; keeping the running policy");
                if let Ok(mut last) = self.error.lock() {
                    *last = Some(error.to_string());
                }
                false
            }
        }
    }
}
