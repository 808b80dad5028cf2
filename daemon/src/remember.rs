//! Remembered approvals (seed 004): an allow answered "for this session", "for a while" or
//! "always" lets later requests with the same owner and the same [`signature`] through without
//! asking again.
//!
//! This file owns the store: remembering, looking up (which counts a use and drops what has
//! ended), listing and forgetting. What a signature is lives in `signature.rs`; the file on
//! disk and the thread that writes it in `file.rs`. It decides nothing else: whether a request
//! may be remembered at all (only allows, only from a person) is the caller's business.
//!
//! Scopes: `once` remembers nothing. `session` is scoped to the request's session label when it
//! has one, else to its login session, and lives in memory only; a login session's rule ends
//! with the session (its leader is gone, or its pid now belongs to another process). A session
//! label is the client's claim, not an identity: it separates one agent conversation's
//! approvals from another's of the same owner, it does not protect them from that owner.
//! `for` a duration and `always` are persisted (see `file.rs`).

mod file;
mod scope;
mod signature;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{SystemTime, UNIX_EPOCH};

use assent_client::protocol::{Remember, RememberedApproval};

use crate::error::RequestError;
use scope::{Scope, start_time};
use signature::TRUNCATED_MARK;
pub use signature::signature;

/// The most remembered approvals one uid may have; more are refused until some are forgotten.
pub const MAX_REMEMBERED_PER_UID: usize = 1024;
/// The longest a "for a duration" approval may last: a year and a day.
pub const MAX_REMEMBER_SECS: u64 = 366 * 24 * 3600;

/// Where a request comes from, for session-scoped rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionKey {
    /// Its session label (an agent's conversation id).
    Label(String),
    /// Its login session id (from the kernel), when it has no label.
    Login(i32),
    /// Neither is known: session rules neither apply nor can be made.
    Unknown,
}

impl SessionKey {
    /// The session a request belongs to: its label when the caller gave one, else its login
    /// session.
    pub fn of(label: Option<&str>, sid: Option<i32>) -> SessionKey {
        match (label, sid) {
            (Some(label), _) => SessionKey::Label(label.to_string()),
            (None, Some(sid)) => SessionKey::Login(sid),
            (None, None) => SessionKey::Unknown,
        }
    }
}

#[derive(Debug, Clone)]
struct Approval {
    id: String,
    owner: u32,
    scope: Scope,
    signature: String,
    created_ms: u64,
    uses: u64,
}

impl Approval {
    fn to_wire(&self) -> RememberedApproval {
        RememberedApproval {
            id: self.id.clone(),
            uid: self.owner,
            scope: self.scope.to_wire(),
            signature: self.signature.clone(),
            created_ms: self.created_ms,
            uses: self.uses,
        }
    }
}

/// The writer thread's bookkeeping: generations of changes made and written.
#[derive(Debug, Default)]
struct Persist {
    dirty: u64,
    written: u64,
    /// A change other than use counts (or a `flush`): write without waiting.
    urgent: bool,
    stop: bool,
    last_error: Option<String>,
}

#[derive(Debug, Default)]
struct State {
    /// Per owner uid, oldest first.
    rules: HashMap<u32, Vec<Approval>>,
    persist: Persist,
}

impl State {
    fn mark(&mut self, urgent: bool) {
        self.persist.dirty += 1;
        self.persist.urgent |= urgent;
    }

    /// Drop the owner's rules that have ended; whether a persisted one went.
    fn prune(&mut self, owner: u32, now: u64) -> bool {
        let Some(rules) = self.rules.get_mut(&owner) else {
            return false;
        };
        let mut persisted = false;
        rules.retain(|r| {
            let keep = r.scope.in_force(now);
            persisted |= !keep && r.scope.persisted();
            keep
        });
        if rules.is_empty() {
            self.rules.remove(&owner);
        }
        persisted
    }
}

/// What the store and its writer thread share.
#[derive(Debug, Default)]
struct Core {
    state: Mutex<State>,
    /// Wakes the writer: something changed, or stop.
    wake: Condvar,
    /// Wakes `sync`: a write finished.
    written: Condvar,
    /// Held from taking a snapshot of the rules until it is on disk, by whoever writes the
    /// file: a change a caller waits for (`commit`) and the writer thread. Writes of the file
    /// never overtake each other, so an older snapshot never replaces a newer one.
    commit: Mutex<()>,
    /// Where the file is written: `None` in memory only (tests, or a file that may not be
    /// written).
    dir: Option<std::path::PathBuf>,
    /// Why the file may not be written, when a bad one could not be moved aside: persisted
    /// changes are then refused rather than kept in memory only.
    broken: Option<String>,
}

/// A change to the persisted rules, made on disk before it is made in memory.
#[derive(Debug, Clone)]
enum Change {
    Add(Approval),
    Extend { owner: u32, id: String, until: u64 },
    Remove(Vec<String>),
}

impl Change {
    /// Make the change in `rules`. Idempotent, and it touches only the rules it names, so it
    /// can be made on a snapshot and later on the live map, whatever else changed meanwhile.
    fn apply(&self, rules: &mut HashMap<u32, Vec<Approval>>) {
        match self {
            Change::Add(rule) => {
                let owned = rules.entry(rule.owner).or_default();
                if !owned.iter().any(|r| r.id == rule.id) {
                    owned.push(rule.clone());
                }
            }
            Change::Extend { owner, id, until } => {
                if let Some(rule) = rules
                    .get_mut(owner)
                    .and_then(|owned| owned.iter_mut().find(|r| &r.id == id))
                    && let Scope::Until(old) = &mut rule.scope
                {
                    *old = (*old).max(*until);
                }
            }
            Change::Remove(ids) => {
                for owned in rules.values_mut() {
                    owned.retain(|r| !ids.contains(&r.id));
                }
                rules.retain(|_, owned| !owned.is_empty());
            }
        }
    }
}

impl Core {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves the rules as consistent as between two
        // statements; keep serving rather than take the daemon down.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn lock_commit(&self) -> MutexGuard<'_, ()> {
        self.commit
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Put `change` on disk, then in memory. The caller holds the commit lock and passes the
    /// state's guard, which is released while the file is written (lookups go on meanwhile)
    /// and returned afterwards. With no file to write, the change is made in memory only.
    fn commit<'a>(
        &'a self,
        mut state: MutexGuard<'a, State>,
        change: &Change,
        now: u64,
    ) -> (MutexGuard<'a, State>, std::io::Result<()>) {
        if let Some(why) = &self.broken {
            return (state, Err(std::io::Error::other(why.clone())));
        }
        let Some(dir) = &self.dir else {
            change.apply(&mut state.rules);
            return (state, Ok(()));
        };
        let mut snapshot = state.rules.clone();
        change.apply(&mut snapshot);
        let doc = file::document(snapshot.values().flatten(), now);
        drop(state);
        let result = file::write(dir, &doc);
        let mut state = self.lock();
        if result.is_ok() {
            change.apply(&mut state.rules);
            state.persist.last_error = None;
        } else if let Err(error) = &result {
            tracing::error!(
                path = %dir.join(file::FILE_NAME).display(),
                %error,
                "could not write the remembered approvals"
            );
            state.persist.last_error = Some(error.to_string());
        }
        (state, result)
    }
}

/// The store of remembered approvals. Thread-safe; `Drop` writes what is left and stops the
/// writer thread.
#[derive(Debug)]
pub struct Remembered {
    core: Arc<Core>,
    writer: Option<JoinHandle<()>>,
}

impl Remembered {
    /// Load persisted rules from `dir/remembered.json` (None: in memory only, for tests).
    /// A missing file is empty; an unreadable or corrupt one is renamed aside
    /// (`remembered.json.bad-<unix-ms>`), logged, and the store starts empty.
    pub fn open(dir: Option<&Path>) -> Self {
        let Some(dir) = dir else {
            return Remembered {
                core: Arc::new(Core::default()),
                writer: None,
            };
        };
        let loaded = file::load(dir);
        let core = Arc::new(Core {
            dir: loaded.writable.then(|| dir.to_path_buf()),
            broken: (!loaded.writable).then(|| {
                format!(
                    "{} could not be read nor moved aside",
                    dir.join(file::FILE_NAME).display()
                )
            }),
            ..Core::default()
        });
        {
            let mut state = core.lock();
            for rule in loaded.rules {
                state.rules.entry(rule.owner).or_default().push(rule);
            }
            for rules in state.rules.values_mut() {
                rules.sort_by(|a, b| (a.created_ms, &a.id).cmp(&(b.created_ms, &b.id)));
                if rules.len() > MAX_REMEMBERED_PER_UID {
                    tracing::warn!(
                        uid = rules[0].owner,
                        count = rules.len(),
                        "more remembered approvals than a uid may have; keeping the newest"
                    );
                    let extra = rules.len() - MAX_REMEMBERED_PER_UID;
                    rules.drain(..extra);
                }
            }
        }
        let writer = if loaded.writable {
            let (core, dir) = (Arc::clone(&core), dir.to_path_buf());
            std::thread::Builder::new()
                .name("assent-remember".into())
                .spawn(move || file::writer(core, dir))
                .map_err(|error| {
                    tracing::error!(%error, "could not start the remembered approvals' writer; keeping them in memory only");
                })
                .ok()
        } else {
            None
        };
        Remembered { core, writer }
    }

    /// A remembered approval for this owner, signature and session, if one is in force now:
    /// its id. Counts a use (written later, see `file.rs`). Drops the owner's rules that have
    /// ended.
    pub fn lookup(&self, owner: u32, signature: &str, session: &SessionKey) -> Option<String> {
        self.lookup_at(owner, signature, session, now_ms())
    }

    fn lookup_at(
        &self,
        owner: u32,
        signature: &str,
        session: &SessionKey,
        now: u64,
    ) -> Option<String> {
        if signature.ends_with(TRUNCATED_MARK) {
            return None;
        }
        let mut state = self.core.lock();
        let rules = state.rules.get_mut(&owner)?;
        let matches = |r: &Approval| r.signature == signature && r.scope.covers(session);
        // Ended durations go (a comparison); whether a login session ended costs a syscall,
        // so only the rules that would match are asked.
        let mut ended_persisted = false;
        rules.retain(|r| {
            let keep = match r.scope {
                Scope::Until(ms) => now < ms,
                Scope::Login { .. } if matches(r) => r.scope.in_force(now),
                _ => true,
            };
            ended_persisted |= !keep && r.scope.persisted();
            keep
        });
        let found = rules.iter_mut().find(|r| matches(r)).map(|rule| {
            rule.uses = rule.uses.saturating_add(1);
            (rule.id.clone(), rule.scope.persisted())
        });
        if rules.is_empty() {
            state.rules.remove(&owner);
        }
        if ended_persisted {
            state.mark(true);
        }
        if let Some((_, true)) = found {
            state.mark(false);
        }
        self.core.wake.notify_one();
        found.map(|(id, _)| id)
    }

    /// Remember an allow. `Once`: nothing, `Ok(None)`. `Session`: for the session label if
    /// any, else the login session, else refused. `For { secs }`: 1 s to a year and a day.
    /// `Always`: persisted. A rule already covering it (same owner and signature, and the same
    /// session, a later or no end) is not duplicated: its id is returned (a shorter `for` is
    /// extended).
    pub fn remember(
        &self,
        owner: u32,
        signature: &str,
        how: Remember,
        session: &SessionKey,
    ) -> Result<Option<String>, RequestError> {
        self.remember_at(owner, signature, how, session, now_ms())
    }

    fn remember_at(
        &self,
        owner: u32,
        signature: &str,
        how: Remember,
        session: &SessionKey,
        now: u64,
    ) -> Result<Option<String>, RequestError> {
        if signature.ends_with(TRUNCATED_MARK) {
            return Err(RequestError::Invalid(
                "a command cut at 16 KiB is never remembered (others share its beginning)".into(),
            ));
        }
        let scope = match (how, session) {
            (Remember::Once, _) => return Ok(None),
            (Remember::Session, SessionKey::Label(label)) => Scope::Label(label.clone()),
            (Remember::Session, SessionKey::Login(sid)) => Scope::Login {
                sid: *sid,
                start: start_time(*sid),
            },
            (Remember::Session, SessionKey::Unknown) => {
                return Err(RequestError::Invalid(
                    "no session to remember for (the request has no session label and its login session is unknown)".into(),
                ));
            }
            (Remember::For { secs }, _) => {
                if secs == 0 || secs > MAX_REMEMBER_SECS {
                    return Err(RequestError::Invalid(format!(
                        "a remembered approval lasts from 1 s to {MAX_REMEMBER_SECS} s, not {secs} s"
                    )));
                }
                Scope::Until(now.saturating_add(secs.saturating_mul(1000)))
            }
            (Remember::Always, _) => Scope::Always,
        };
        // Persisted changes are written under the commit lock, so no other write of the file
        // can overtake this one; taken first, as everywhere, then the state's.
        let _commit = self.core.lock_commit();
        let mut state = self.core.lock();
        state.prune(owner, now);
        if let Some((id, extend)) = Self::existing(&state, owner, signature, &scope) {
            let Some(until) = extend else {
                return Ok(Some(id));
            };
            let change = Change::Extend {
                owner,
                id: id.clone(),
                until,
            };
            let (_state, written) = self.core.commit(state, &change, now);
            return match written {
                Ok(()) => Ok(Some(id)),
                Err(error) => Err(not_saved("lengthen the remembered approval", &error)),
            };
        }
        let count = state.rules.get(&owner).map_or(0, Vec::len);
        if count >= MAX_REMEMBERED_PER_UID {
            return Err(RequestError::TooManyRemembered {
                uid: owner,
                limit: MAX_REMEMBERED_PER_UID,
            });
        }
        let id = loop {
            let id = new_id()?;
            if !state.rules.values().flatten().any(|r| r.id == id) {
                break id;
            }
        };
        let rule = Approval {
            id: id.clone(),
            owner,
            scope,
            signature: signature.to_string(),
            created_ms: now,
            uses: 0,
        };
        if !rule.scope.persisted() {
            Change::Add(rule).apply(&mut state.rules);
            return Ok(Some(id));
        }
        let (_state, written) = self.core.commit(state, &Change::Add(rule), now);
        match written {
            Ok(()) => Ok(Some(id)),
            Err(error) => Err(not_saved("remember the approval", &error)),
        }
    }

    /// A rule of `owner` for `signature` that already covers `scope`: its id, and the later
    /// end a shorter `until` must be lengthened to (a persisted change the caller makes).
    fn existing(
        state: &State,
        owner: u32,
        signature: &str,
        scope: &Scope,
    ) -> Option<(String, Option<u64>)> {
        let rules = state.rules.get(&owner)?;
        let same = |r: &&Approval| r.signature == signature;
        if let Some(always) = rules.iter().filter(same).find(|r| r.scope == Scope::Always) {
            return Some((always.id.clone(), None));
        }
        let rule = rules
            .iter()
            .filter(same)
            .find(|r| match (&r.scope, scope) {
                (Scope::Until(_), Scope::Until(_)) => true,
                (Scope::Label(a), Scope::Label(b)) => a == b,
                (Scope::Login { sid: a, .. }, Scope::Login { sid: b, .. }) => a == b,
                _ => false,
            })?;
        match (&rule.scope, scope) {
            (Scope::Until(old), Scope::Until(new)) if new > old => {
                Some((rule.id.clone(), Some(*new)))
            }
            _ => Some((rule.id.clone(), None)),
        }
    }

    /// The rules `caller` may see (its own uid's; all for root), oldest first.
    pub fn list(&self, caller: u32) -> Vec<RememberedApproval> {
        self.list_at(caller, now_ms())
    }

    fn list_at(&self, caller: u32, now: u64) -> Vec<RememberedApproval> {
        let mut state = self.core.lock();
        let owners: Vec<u32> = if caller == 0 {
            state.rules.keys().copied().collect()
        } else {
            vec![caller]
        };
        let mut pruned = false;
        for owner in &owners {
            pruned |= state.prune(*owner, now);
        }
        if pruned {
            state.mark(true);
            self.core.wake.notify_one();
        }
        let mut rules: Vec<&Approval> = owners
            .iter()
            .filter_map(|o| state.rules.get(o))
            .flatten()
            .collect();
        rules.sort_by(|a, b| (a.created_ms, &a.id).cmp(&(b.created_ms, &b.id)));
        rules.into_iter().map(Approval::to_wire).collect()
    }

    /// Remove one rule by id (only the caller's own, or any for root; another's id is
    /// `not_found`, as an unknown one: ids are not disclosed across users), or all of the
    /// caller's (all for root) when `id` is `None`. Returns how many went.
    pub fn forget(&self, caller: u32, id: Option<&str>) -> Result<u32, RequestError> {
        let _commit = self.core.lock_commit();
        let state = self.core.lock();
        let mine = |owner: u32| caller == 0 || caller == owner;
        let removed: Vec<&Approval> = match id {
            Some(id) => {
                let found = state
                    .rules
                    .values()
                    .flatten()
                    .find(|r| r.id == id && mine(r.owner));
                match found {
                    Some(rule) => vec![rule],
                    None => {
                        return Err(RequestError::NoSuchItem(format!(
                            "no remembered approval {id} (see `assent remembered`)"
                        )));
                    }
                }
            }
            None => state
                .rules
                .values()
                .flatten()
                .filter(|r| mine(r.owner))
                .collect(),
        };
        let count = u32::try_from(removed.len()).unwrap_or(u32::MAX);
        let persisted = removed.iter().any(|r| r.scope.persisted());
        let change = Change::Remove(removed.into_iter().map(|r| r.id.clone()).collect());
        if !persisted {
            let mut state = state;
            change.apply(&mut state.rules);
            return Ok(count);
        }
        let (_state, written) = self.core.commit(state, &change, now_ms());
        match written {
            Ok(()) => Ok(count),
            Err(error) => Err(not_saved("forget", &error)),
        }
    }

    /// Why the last write of the file failed, while no write has succeeded since.
    pub fn last_error(&self) -> Option<String> {
        self.core.lock().persist.last_error.clone()
    }

    /// Ask the writer to write pending use counts now rather than after a short delay. Never
    /// blocks: call it after replying.
    pub fn flush(&self) {
        let mut state = self.core.lock();
        if state.persist.dirty != state.persist.written {
            state.persist.urgent = true;
            self.core.wake.notify_one();
        }
    }

    /// Write everything changed so far and wait until it is on disk (shutdown, tests). The
    /// last write's error, if it failed. Blocks: not for an async task's thread.
    pub fn sync(&self) -> Result<(), String> {
        let mut state = self.core.lock();
        if self.writer.is_none() {
            return Ok(());
        }
        let target = state.persist.dirty;
        state.persist.urgent = true;
        self.core.wake.notify_one();
        while state.persist.written < target {
            state = self
                .core
                .written
                .wait(state)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        state.persist.last_error.clone().map_or(Ok(()), Err)
    }
}

impl Drop for Remembered {
    fn drop(&mut self) {
        self.core.lock().persist.stop = true;
        self.core.wake.notify_all();
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

/// The error for a persisted change the file would not take: nothing changed, and the
/// message says so and where to look.
fn not_saved(what: &str, error: &std::io::Error) -> RequestError {
    RequestError::NotSaved(format!(
        "could not {what}: the state file could not be written ({error}), so nothing changed; free space or fix the state directory, then try again"
    ))
}

/// A fresh rule id: `r_` and 8 lowercase hex digits from the OS RNG.
fn new_id() -> Result<String, RequestError> {
    let mut bytes = [0u8; 4];
    getrandom::fill(&mut bytes)
        .map_err(|e| RequestError::Invalid(format!("could not draw a rule id: {e}")))?;
    Ok(format!("r_{:08x}", u32::from_be_bytes(bytes)))
}

/// Whether `id` has the shape of a rule id.
fn is_id(id: &str) -> bool {
    id.strip_prefix("r_").is_some_and(|hex| {
        hex.len() == 8
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
