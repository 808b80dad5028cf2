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
//!
//! Nor by an agent: where the file is the user's own (user mode, [`Live::guard_weakening`]), a
//! reload that weakens the policy ([`super::weaken`]) is in force at once for the person's own
//! requests only; agents and tool calls keep the policy a person last approved
//! ([`Live::for_origin`]) until a person approves the change, which the server asks for as a
//! held request ([`Live::to_ask`], [`Live::settle_change`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::SystemTime;

use assent_client::protocol::Origin;

use super::{Policy, PolicyError, load, weaken};

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
    /// Whether a weakening reload waits for a person before it judges agents.
    guard: AtomicBool,
    /// The weakening change that waits, while one does.
    held_back: Mutex<Option<HeldBack>>,
    /// Numbers the weakening changes, so that an answer settles only the one it was asked of.
    generation: std::sync::atomic::AtomicU64,
}

/// A reload that weakened the policy, not yet approved by a person.
#[derive(Debug)]
struct HeldBack {
    /// The policy agents and tool calls stay under meanwhile: the last one a person approved.
    approved: Arc<Policy>,
    /// What the change weakens, one line each.
    changes: Vec<String>,
    /// Its number.
    generation: u64,
    /// Whether a person has been asked.
    asked: bool,
    /// Why it is not in force, once the person's answer was no (or nobody answered).
    refused: Option<String>,
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
            guard: AtomicBool::new(false),
            held_back: Mutex::new(None),
            generation: std::sync::atomic::AtomicU64::new(0),
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
            guard: AtomicBool::new(false),
            held_back: Mutex::new(None),
            generation: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Make a weakening reload wait for a person before it judges agents (user mode, where
    /// the file is the user's and so the agent's to write).
    pub fn guard_weakening(&self) {
        self.guard.store(true, Ordering::Relaxed);
    }

    /// The policy a request of `origin` is judged by: the one in force, except that agents and
    /// tool calls stay under the last one a person approved while a weakening change waits.
    pub fn for_origin(&self, origin: Origin) -> Arc<Policy> {
        if weaken::waits_for_person(origin)
            && let Ok(held) = self.held_back.lock()
            && let Some(held) = held.as_ref()
        {
            return Arc::clone(&held.approved);
        }
        self.current()
    }

    /// The weakening change a person has not been asked about yet (its number and what it
    /// weakens), marked asked.
    pub fn to_ask(&self) -> Option<(u64, Vec<String>)> {
        let mut held = self.held_back.lock().ok()?;
        let held = held.as_mut().filter(|h| !h.asked)?;
        held.asked = true;
        Some((held.generation, held.changes.clone()))
    }

    /// A person's answer to change `generation`: allowed, it is in force for everyone; refused
    /// (or unanswered), agents stay under the approved policy until the file changes again.
    pub fn settle_change(&self, generation: u64, allow: bool, why: &str) {
        let Ok(mut held) = self.held_back.lock() else {
            return;
        };
        match held.as_mut() {
            Some(h) if h.generation == generation && allow => {
                tracing::info!(generation, "a person approved the weakening policy change");
                *held = None;
            }
            Some(h) if h.generation == generation => {
                tracing::warn!(
                    generation,
                    why,
                    "the weakening policy change is not in force for agents"
                );
                h.refused = Some(why.to_string());
            }
            _ => {}
        }
    }

    /// While a weakening change is not in force for agents: what it weakens and why it waits.
    pub fn waiting_change(&self) -> Option<String> {
        let held = self.held_back.lock().ok()?;
        let held = held.as_ref()?;
        let state = match &held.refused {
            Some(why) => format!("refused ({why}); change the file again to be asked again"),
            None => "waits for a person's approval".to_string(),
        };
        Some(format!(
            "a change that weakens the policy is in force for your own requests only, and for agents and tool calls {state}: {}",
            listed(&held.changes)
        ))
    }

    /// Put `policy` in force; where weakening is guarded, hold a weakening change back from
    /// agents (against the policy they are under now, which a person approved).
    fn put_in_force(&self, policy: Policy) {
        let policy = Arc::new(policy);
        if self.guard.load(Ordering::Relaxed)
            && let Ok(mut held) = self.held_back.lock()
        {
            let approved = held
                .as_ref()
                .map_or_else(|| self.current(), |h| Arc::clone(&h.approved));
            let changes = weaken::weakenings(&approved, &policy);
            *held = if changes.is_empty() {
                None
            } else {
                let generation = self.generation.fetch_add(1, Ordering::Relaxed) + 1;
                tracing::warn!(generation, changes = %changes.join("; "), "a policy change weakens the policy: agents stay under the approved one until a person approves it");
                Some(HeldBack {
                    approved,
                    changes,
                    generation,
                    asked: false,
                    refused: None,
                })
            };
        }
        if let Ok(mut current) = self.current.write() {
            *current = policy;
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
                self.put_in_force(policy);
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

/// The most of a weakening's changes `status` lists, and of each change's text: a policy file
/// of thousands of entries (which an agent that can write it could make) must not make the
/// reply too large to send, and so blind the place where a person reads what changed.
const SHOWN_CHANGES: usize = 20;
const SHOWN_CHANGE: usize = 240;

/// `changes` as `status` lists them: the first [`SHOWN_CHANGES`], each cut to
/// [`SHOWN_CHANGE`] characters, then how many more there are.
fn listed(changes: &[String]) -> String {
    let mut shown: Vec<String> = changes
        .iter()
        .take(SHOWN_CHANGES)
        .map(|change| {
            if change.chars().count() > SHOWN_CHANGE {
                let cut: String = change.chars().take(SHOWN_CHANGE).collect();
                format!("{cut}…")
            } else {
                change.clone()
            }
        })
        .collect();
    if changes.len() > SHOWN_CHANGES {
        shown.push(format!(
            "and {} more (`assentd --check-policy FILE` explains the file whole)",
            changes.len() - SHOWN_CHANGES
        ));
    }
    shown.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lists_a_bounded_part_of_a_large_weakening() {
        let changes: Vec<String> = (0..20_000)
            .map(|i| format!("[[program]] \"p{i}\" added"))
            .collect();
        let text = listed(&changes);
        assert!(text.len() < 8 * 1024, "{} bytes", text.len());
        assert!(text.starts_with("[[program]] \"p0\" added; "), "{text}");
        assert!(
            text.ends_with(
                "and 19980 more (`assentd --check-policy FILE` explains the file whole)"
            ),
            "{text}"
        );
        let long = vec!["x".repeat(100_000)];
        assert_eq!(listed(&long).chars().count(), SHOWN_CHANGE + 1);
        assert_eq!(listed(&["a".into(), "b".into()]), "a; b");
    }
}
