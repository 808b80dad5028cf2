//! The policy in force, and its reloads.
//!
//! A reload parses the whole file first and swaps the `Arc` only when it succeeded: a decision
//! in flight keeps the `Arc` it took and finishes under the policy it started with, and a
//! failed reload keeps the running policy, logs the error and shows it in `assent status`.
//!
//! A reload never weakens the policy by accident: a file that was loaded and then disappears
//! (moved away, deleted, an editor's save caught between two renames), turns empty or cannot
//! be read keeps the policy in force, whatever the mode or flags. Only a file that parses
//! replaces it; going back to the embedded default takes a restart without the file.

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
    /// Whether the policy in force came from the file (not the embedded default).
    from_file: Mutex<bool>,
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
            from_file: Mutex::new(false),
        }
    }

    /// The policy at `file` (or the embedded default when there is none), watched for changes.
    /// A file that fails to load at start is an error too, but `run` keeps serving under the
    /// embedded default and shows it in status: the daemon never runs without a policy.
    pub fn watching(file: PathBuf, required: bool) -> Live {
        let stamp_now = stamp(&file);
        let (policy, error, from_file) = match initial(&file, required) {
            Ok(policy) => (policy, None, file.exists()),
            Err(error) => {
                tracing::error!(%error, "could not load the policy; using the embedded default");
                (Policy::embedded(), Some(error.to_string()), false)
            }
        };
        Live {
            current: RwLock::new(Arc::new(policy)),
            file: Some(file),
            stamp: Mutex::new(stamp_now),
            error: Mutex::new(error),
            from_file: Mutex::new(from_file),
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
        let from_file = self.from_file.lock().map(|f| *f).unwrap_or(true);
        let loaded = match std::fs::symlink_metadata(file) {
            // No file, and none was loaded: the embedded default stays, nothing to say.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !from_file => {
                self.set_error(None);
                return false;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(format!(
                "{} is gone (removed or moved away); keeping the policy loaded from it. Put the file back, or restart assentd to run on the embedded default",
                file.display()
            )),
            _ => load(file).map_err(|error| error.to_string()),
        };
        match loaded {
            Ok(loaded) => {
                for warning in &loaded.warnings {
                    tracing::warn!(policy = %file.display(), warning = %warning, "policy warning");
                }
                let policy = loaded.policy;
                tracing::info!(policy = %policy.source, why, "policy reloaded");
                if let Ok(mut current) = self.current.write() {
                    *current = Arc::new(policy);
                }
                if let Ok(mut from_file) = self.from_file.lock() {
                    *from_file = true;
                }
                self.set_error(None);
                true
            }
            Err(error) => {
                tracing::error!(%error, why, "policy reload failed; keeping the running policy");
                self.set_error(Some(error));
                false
            }
        }
    }

    fn set_error(&self, error: Option<String>) {
        if let Ok(mut last) = self.error.lock() {
            *last = error;
        }
    }
}
