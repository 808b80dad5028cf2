//! Landlock rulesets kept ready for the doors: a door that runs an allowed line confined would
//! otherwise work out its plan from the disk and open a descriptor for every rule on every run
//! (about a millisecond). For a confinement it has seen, the daemon keeps the plan's open
//! descriptors, made as the requester, and hands the door a ruleset built from them with the
//! reply (`SCM_RIGHTS`); the door only confines itself with it (`client/src/cli/confine`).
//!
//! What keeps this right:
//! - **Never stale.** A plan depends on what is in the directories it consulted
//!   (`assent_client::plan::Plan::consulted`): each is watched (inotify, for entries made,
//!   removed or renamed, and for the directory itself going). Before anything is handed out,
//!   every event the kernel queued is read, synchronously, and each kept plan one of them
//!   touches is dropped; an overflowed queue drops them all. The kernel queues an event before
//!   the change's system call returns, so a secret made before a door asks is seen. Watches are
//!   set before the plan is made, and the plan is made again after them, so no change falls in
//!   between. A mount or unmount anywhere (it is no inotify event, and a rule on a directory
//!   covers what is mounted below it) drops every kept plan: the mount table is polled too.
//!   Only directories on local file systems are watched (a network or FUSE one changed from
//!   elsewhere tells this kernel nothing): a plan that consults another is not kept.
//! - **Never shared.** Every door gets a ruleset made for it alone: a process can add rules to
//!   the one it was passed, so one handed out is never kept or handed out again.
//! - **Bounded.** Descriptors kept are within a budget taken from the connection limits
//!   (least recently used dropped first), watches within `MAX_WATCHES`, and at most
//!   `MAX_FILLING` plans are made at once, one per uid (a plan reads the disk, and a FUSE
//!   file system can hang its thread).
//!
//! A confinement not kept yet is planned by the door itself, as before; the daemon plans it on
//! the blocking pool after replying, for the next run, and makes each next spare there too:
//! nothing here that touches a kept descriptor or the disk runs on an async worker or under
//! the lock every door's take waits on (a FUSE file system an agent mounted can make such a
//! call hang).

use std::collections::{BTreeSet, HashMap};
use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use assent_client::plan::Plan;
pub use assent_client::protocol::Confinement;
use landlock::{
    AccessFs, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd, RulesetCreatedAttr,
};
use nix::errno::Errno;
use nix::sys::inotify::{AddWatchFlags, InitFlags, Inotify, WatchDescriptor};

use crate::read;

/// Watches set in all; past this, everything kept is dropped and watching starts again.
const MAX_WATCHES: usize = 4096;
/// Plans being made at once.
const MAX_FILLING: usize = 2;
/// Reads of the event queue before a take; a queue longer than this drops everything.
const MAX_EVENT_READS: usize = 16;

/// What a kept ruleset is for: the requester, the confinement, and whether a person approved
/// (which grants more).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    pub uid: u32,
    pub confine: Confinement,
    pub approved: bool,
}

/// Rulesets kept for doors, per [`Key`].
#[derive(Debug)]
pub struct Rulesets {
    inner: Mutex<Inner>,
    /// Descriptors the kept plans may hold in all.
    budget: usize,
    /// Fills under way, per uid: at most one each, `MAX_FILLING` in all.
    filling: Mutex<HashMap<u32, usize>>,
}

#[derive(Debug, Default)]
struct Inner {
    entries: HashMap<Key, Entry>,
    watcher: Option<Arc<Inotify>>,
    /// The daemon's mount table, polled: a mount or unmount is no inotify event, and can put a
    /// secret below a directory a kept plan grants whole.
    mounts: Option<std::fs::File>,
    /// Every watch set on the instance, with how many events it has had.
    watched: HashMap<WatchDescriptor, u64>,
    /// Which instance this is: watch numbers are only meaningful within one.
    instance: u64,
    /// A clock for least recently used.
    tick: u64,
    /// Rulesets handed out, for `status`.
    handed: u64,
}

#[derive(Debug)]
struct Entry {
    plan: Arc<Kept>,
    wds: Vec<WatchDescriptor>,
    /// A ruleset made ahead for the next door, never handed out before.
    spare: Option<OwnedFd>,
    used: u64,
}

/// A plan's rules as open descriptors.
#[derive(Debug)]
struct Kept {
    rules: Vec<(PathFd, BitFlags<AccessFs>)>,
    offline: bool,
}

impl Kept {
    /// Descriptors it holds, with a spare ruleset.
    fn fds(&self) -> usize {
        self.rules.len() + 1
    }

    /// A new ruleset of these rules, as the door would build it: every file-system right
    /// and the scopes handled (and TCP, offline), each rule best effort.
    fn ruleset(&self) -> Option<OwnedFd> {
        let mut created =
            assent_client::plan::ruleset(self.offline, CompatLevel::HardRequirement).ok()?;
        for (fd, access) in &self.rules {
            let rule = PathBeneath::new(fd, *access).set_compatibility(CompatLevel::BestEffort);
            created = created.add_rule(rule).ok()?;
        }
        created.into()
    }
}

/// What `status` says of the kept rulesets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub kept: usize,
    pub handed: u64,
}

impl Rulesets {
    /// Rulesets whose rules hold at most `budget` descriptors in all.
    pub fn new(budget: usize) -> Rulesets {
        Rulesets {
            inner: Mutex::new(Inner::default()),
            budget,
            filling: Mutex::new(HashMap::new()),
        }
    }

    /// A ruleset for `key`'s door, when one is kept; `None` and the door plans for itself.
    pub fn take(&self, key: &Key) -> Option<OwnedFd> {
        let mut inner = self.inner.lock().ok()?;
        inner.drain();
        inner.tick += 1;
        let tick = inner.tick;
        let entry = inner.entries.get_mut(key)?;
        entry.used = tick;
        // Only a spare made ahead: making one here would hold every door's lock through system
        // calls on the kept descriptors (the binding's `fstat`, which a FUSE file system can
        // make hang). Without one the door plans for itself.
        let ruleset = entry.spare.take()?;
        inner.handed += 1;
        Some(ruleset)
    }

    /// What `status` shows.
    pub fn counts(&self) -> Counts {
        self.inner
            .lock()
            .map_or(Counts { kept: 0, handed: 0 }, |inner| Counts {
                kept: inner.entries.len(),
                handed: inner.handed,
            })
    }

    /// Makes ready the next ruleset for a kept `key` (a spare, from its open descriptors), or
    /// plans `key` from the disk as `who` when it is not kept. Blocking (it reads the disk,
    /// and the binding `fstat`s each kept descriptor: a network or FUSE file system can make
    /// either hang): run it on the blocking pool, after the reply. At most one per uid and
    /// `MAX_FILLING` at once: a hung one holds its place, so a uid that hangs its own (a
    /// FUSE mount of its own) leaves the others theirs, and then fewer are made ready (never
    /// less confined).
    pub fn fill(&self, key: Key, who: &read::As) {
        if self.budget == 0 {
            return;
        }
        let uid = key.uid;
        {
            let Ok(mut filling) = self.filling.lock() else {
                return;
            };
            let all: usize = filling.values().sum();
            let mine = filling.entry(uid).or_insert(0);
            if *mine >= 1 || all >= MAX_FILLING {
                return;
            }
            *mine += 1;
        }
        if !self.refill(&key) {
            self.plan_now(key, who);
        }
        if let Ok(mut filling) = self.filling.lock()
            && let Some(mine) = filling.get_mut(&uid)
        {
            *mine = mine.saturating_sub(1);
            if *mine == 0 {
                filling.remove(&uid);
            }
        }
    }

    /// Makes ready the next ruleset for a kept `key`; false when `key` is not kept.
    fn refill(&self, key: &Key) -> bool {
        let kept = match self.inner.lock() {
            Ok(mut inner) => {
                inner.drain();
                inner
                    .entries
                    .get(key)
                    .map(|e| (Arc::clone(&e.plan), e.spare.is_some()))
            }
            Err(_) => return true,
        };
        let plan = match kept {
            None => return false,
            Some((_, true)) => return true,
            Some((plan, false)) => plan,
        };
        let Some(spare) = plan.ruleset() else {
            return true;
        };
        if let Ok(mut inner) = self.inner.lock() {
            inner.drain();
            // Still the same plan (not dropped and made again in between).
            if let Some(entry) = inner.entries.get_mut(key)
                && Arc::ptr_eq(&entry.plan, &plan)
                && entry.spare.is_none()
            {
                entry.spare = Some(spare);
            }
        }
        true
    }

    /// Plans `key` from the disk as `who`, watching first what the plan consults.
    fn plan_now(&self, key: Key, who: &read::As) {
        // Without the home the daemon knows, the door plans from the user database's: not
        // the same plan, so none is kept.
        let Some(home) = key.confine.home.as_deref().map(std::path::Path::new) else {
            return;
        };
        let home = Some(home);
        let Some(creds) = read::Creds::become_(who) else {
            return;
        };
        let first = Plan::of(&key.confine, home, key.approved);
        if first.rules.len() + 1 > self.budget {
            return;
        }
        let Some(watching) = self.watch(&first.consulted) else {
            return;
        };
        // Made again under the watches: a change from here on is an event.
        let plan = Plan::of(&key.confine, home, key.approved);
        if !plan.consulted.is_subset(&first.consulted) || plan.rules.len() + 1 > self.budget {
            return;
        }
        // A directory not there when the watches were set, and there now: its making may have
        // fallen between, unseen, and nothing watches it.
        if watching
            .missing
            .iter()
            .any(|d| std::fs::symlink_metadata(d).is_ok())
        {
            return;
        }
        // Every rule opened, or nothing kept: a plan narrower than the door's own would fail
        // honest runs until something changed.
        let rules: Option<Vec<_>> = plan
            .rules
            .iter()
            .map(|(path, access)| Some((PathFd::new(path).ok()?, *access)))
            .collect();
        let Some(rules) = rules else {
            return;
        };
        let kept = Kept {
            rules,
            offline: plan.offline,
        };
        let Some(spare) = kept.ruleset() else {
            return;
        };
        drop(creds);
        if kept.fds() > self.budget {
            return;
        }
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        inner.drain();
        // A watched directory that changed while the plan was made: its event is in the queue
        // now, and was just read. The plan is kept only if none of its watches fired.
        if inner.fired(&watching) {
            return;
        }
        let wds = watching.counts.into_iter().map(|(wd, _)| wd).collect();
        inner.make_room(kept.fds(), self.budget);
        inner.tick += 1;
        let used = inner.tick;
        inner.entries.insert(
            key,
            Entry {
                plan: Arc::new(kept),
                wds,
                spare: Some(spare),
                used,
            },
        );
    }

    /// Watches each directory in `dirs`, and returns their watches with their events so far;
    /// `None` when one that exists cannot be watched (then a change there could not be seen).
    /// The watches are set with no lock held: setting one looks its path up, which a network
    /// or FUSE file system can make hang, and every door's take waits on the lock.
    fn watch(&self, dirs: &BTreeSet<PathBuf>) -> Option<Watching> {
        let (watcher, instance) = {
            let mut inner = self.inner.lock().ok()?;
            inner.drain();
            if inner.watched.len() + dirs.len() > MAX_WATCHES {
                inner.forget_all();
            }
            if inner.watcher.is_none() {
                let made = Inotify::init(InitFlags::IN_NONBLOCK | InitFlags::IN_CLOEXEC).ok()?;
                inner.mounts = Some(std::fs::File::open("/proc/self/mountinfo").ok()?);
                inner.watcher = Some(Arc::new(made));
            }
            (Arc::clone(inner.watcher.as_ref()?), inner.instance)
        };
        let mask = AddWatchFlags::IN_CREATE
            | AddWatchFlags::IN_DELETE
            | AddWatchFlags::IN_MOVED_FROM
            | AddWatchFlags::IN_MOVED_TO
            | AddWatchFlags::IN_DELETE_SELF
            | AddWatchFlags::IN_MOVE_SELF
            | AddWatchFlags::IN_ONLYDIR;
        let mut wds = Vec::with_capacity(dirs.len());
        let mut missing = Vec::new();
        for dir in dirs {
            match watcher.add_watch(dir.as_path(), mask) {
                // Only where every change is an event: a network file system changed from
                // another machine, or a FUSE one, tells this kernel nothing.
                Ok(wd) if read::local_fs(dir) => wds.push(wd),
                Ok(_) => return None,
                // Not there (yet): its making is an event in the directory above, watched too.
                Err(Errno::ENOENT | Errno::ENOTDIR) => missing.push(dir.clone()),
                Err(_) => return None,
            }
        }
        let mut inner = self.inner.lock().ok()?;
        // Events since the watches were set are counted before the plan is made again.
        inner.drain();
        if inner.instance != instance {
            return None;
        }
        let counts = wds
            .into_iter()
            .map(|wd| (wd, *inner.watched.entry(wd).or_insert(0)))
            .collect();
        Some(Watching {
            instance,
            counts,
            missing,
        })
    }
}

/// A plan's watches, each with the events it had when the plan began.
#[derive(Debug)]
struct Watching {
    instance: u64,
    counts: Vec<(WatchDescriptor, u64)>,
    /// Consulted directories that did not exist when the watches were set.
    missing: Vec<PathBuf>,
}

impl Inner {
    /// Reads every event queued, and drops what each one makes stale.
    fn drain(&mut self) {
        let Some(watcher) = &self.watcher else {
            return;
        };
        if self.mounts_changed() {
            self.forget_all();
            return;
        }
        let mut fired: BTreeSet<WatchDescriptor> = BTreeSet::new();
        let mut all = false;
        let mut reads = 0;
        loop {
            match watcher.read_events() {
                Ok(events) => {
                    for event in events {
                        if event.mask.contains(AddWatchFlags::IN_Q_OVERFLOW) {
                            all = true;
                        }
                        fired.insert(event.wd);
                    }
                }
                Err(Errno::EINTR) => continue,
                Err(Errno::EAGAIN) => break,
                // The queue cannot be read: nothing kept can be trusted.
                Err(_) => {
                    all = true;
                    break;
                }
            }
            reads += 1;
            if reads >= MAX_EVENT_READS {
                all = true;
                break;
            }
        }
        if all {
            self.forget_all();
            return;
        }
        if fired.is_empty() {
            return;
        }
        self.entries
            .retain(|_, entry| !entry.wds.iter().any(|wd| fired.contains(wd)));
        for wd in &fired {
            if let Some(count) = self.watched.get_mut(wd) {
                *count += 1;
            }
        }
    }

    /// Whether any of a plan's watches had an event since it began (or the instance went).
    fn fired(&self, watching: &Watching) -> bool {
        watching.instance != self.instance
            || watching
                .counts
                .iter()
                .any(|(wd, was)| self.watched.get(wd) != Some(was))
    }

    /// Whether a file system was mounted or unmounted since the last look (the kernel marks
    /// the open mount table with `POLLPRI` once per change); a table that cannot be polled
    /// counts as changed.
    fn mounts_changed(&self) -> bool {
        use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
        use std::os::fd::AsFd;
        let Some(mounts) = &self.mounts else {
            return true;
        };
        let mut fds = [PollFd::new(mounts.as_fd(), PollFlags::POLLPRI)];
        match poll(&mut fds, PollTimeout::ZERO) {
            Ok(0) => false,
            Ok(_) => fds[0]
                .revents()
                .is_none_or(|r| r.intersects(PollFlags::POLLPRI | PollFlags::POLLERR)),
            Err(_) => true,
        }
    }

    /// Drops every kept plan and watch (closing the instance removes its watches and queue).
    fn forget_all(&mut self) {
        self.entries.clear();
        self.watched.clear();
        self.watcher = None;
        self.mounts = None;
        self.instance += 1;
    }

    /// Drops the least recently used plans until `more` descriptors fit the budget.
    fn make_room(&mut self, more: usize, budget: usize) {
        loop {
            let held: usize = self.entries.values().map(|e| e.plan.fds()).sum();
            if held + more <= budget {
                return;
            }
            let Some(oldest) = self
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone())
            else {
                return;
            };
            self.entries.remove(&oldest);
        }
    }
}

#[cfg(test)]
mod tests;
