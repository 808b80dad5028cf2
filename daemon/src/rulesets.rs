//! Landlock rulesets kept ready for the doors: a door that runs an allowed line confined would
//! otherwise work out its plan from the disk and open a descriptor for every rule on every run
//! (about a millisecond). For a confinement it has seen, the daemon keeps the plan's open
//! descriptors, made as the requester, and hands the door a ruleset built from them with the
//! reply (`SCM_RIGHTS`); the door only confines itself with it (`client/src/cli/confine`).
//!
//! What keeps this right:
//! - **Never stale.** A plan depends on what is in the directories it consulted
//!   (`assent_client::plan::Plan::consulted`): every entry of a directory it listed, the next
//!   name of one it walked through. Each is watched (inotify, for entries made, removed or
//!   renamed, and for the directory itself going). Before anything is handed out, every event
//!   the kernel queued is read, synchronously, and each kept plan that depends on the entry an
//!   event names is dropped (a file made beside the project, or in `/tmp` beside a project
//!   there, drops none); an overflowed queue drops them all. The kernel queues an event before
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
//!
//! A plan a change dropped is made again at once (the daemon listens for the events as they
//! come: [`Rulesets::changed`]), so the next door finds it ready: on a machine in use the home
//! changes between most runs (an editor's or an agent's own files written there), and waiting
//! for the next door to find its plan gone would leave nearly every door planning for itself.
//! At most `MAX_AHEAD` times between two doors, a few a second in all, and only for
//! confinements used lately.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use assent_client::plan::{Consulted, Entries, Plan};
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
/// Plans dropped by a change that are made again ahead of their next door, at most, at once.
const MAX_AGAIN: usize = 4;
/// And at most this many a second in all.
const AGAIN_PER_SECOND: u32 = 20;
/// Plans made again for a confinement since a door last took from it, at most: a home that
/// changes while no door runs costs this many plans, not one a change.
const MAX_AHEAD: u8 = 2;
/// Only a confinement a door used within this long is made again ahead.
const AGAIN_IF_USED_WITHIN: std::time::Duration = std::time::Duration::from_secs(600);

/// What a kept ruleset is for: the requester, the confinement, and whether a person approved
/// (which grants more).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    pub uid: u32,
    /// The group and supplementary groups it is planned with, where the daemon reads as the
    /// requester (root, for another user; else none): a door of the same uid with other groups
    /// (a session from before `gpasswd -a`) may see other files.
    pub gid: u32,
    pub groups: Vec<u32>,
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
    /// Plans a change dropped, to be made again ahead of their next door.
    dropped: Vec<Again>,
}

/// A plan to make again: its key, as whom, and when a door last used it.
#[derive(Debug)]
pub struct Again {
    pub key: Key,
    pub who: read::As,
    used: std::time::Instant,
    /// Times made again since a door last took from it.
    ahead: u8,
}

/// How many plans are made again ahead: at most `AGAIN_PER_SECOND` a second.
#[derive(Debug)]
pub struct Ahead {
    since: std::time::Instant,
    made: u32,
}

impl Default for Ahead {
    fn default() -> Ahead {
        Ahead {
            since: std::time::Instant::now(),
            made: 0,
        }
    }
}

impl Ahead {
    /// What of `dropped` may be made again now.
    pub fn admit(&mut self, mut dropped: Vec<Again>) -> Vec<Again> {
        if self.since.elapsed() >= std::time::Duration::from_secs(1) {
            *self = Ahead::default();
        }
        let room = AGAIN_PER_SECOND.saturating_sub(self.made);
        dropped.truncate(usize::try_from(room).unwrap_or(usize::MAX));
        self.made += u32::try_from(dropped.len()).unwrap_or(u32::MAX);
        dropped
    }
}

#[derive(Debug)]
struct Entry {
    plan: Arc<Kept>,
    /// Each watch, with the entries of its directory the plan depends on.
    wds: Vec<(WatchDescriptor, Entries)>,
    /// A ruleset made ahead for the next door, never handed out before.
    spare: Option<OwnedFd>,
    used: u64,
    /// As whom to make it again when a change drops it, and when a door last took from it.
    again: Option<(read::As, std::time::Instant)>,
    /// How many times it was made again after a change since a door last took from it: past
    /// [`MAX_AHEAD`], a change that drops it does not make it again.
    ahead: u8,
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
        entry.ahead = 0;
        if let Some((_, used)) = &mut entry.again {
            *used = std::time::Instant::now();
        }
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
        self.fill_used(key, who, std::time::Instant::now(), 0);
    }

    /// Makes again a plan a change dropped ([`Rulesets::changed`]), as [`Rulesets::fill`].
    pub fn again(&self, again: Again) {
        self.fill_used(again.key, &again.who, again.used, again.ahead + 1);
    }

    /// [`Rulesets::fill`], for a confinement a door last used at `used`; `ahead`: how many times
    /// it was made again after a change since a door last took from it, this one included.
    fn fill_used(&self, key: Key, who: &read::As, used: std::time::Instant, ahead: u8) {
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
            self.plan_now(key, who, used, ahead);
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
    fn plan_now(&self, key: Key, who: &read::As, used: std::time::Instant, ahead: u8) {
        // Without the home the daemon knows, the door plans from the user database's: not
        // the same plan, so none is kept.
        let Some(home) = key.confine.home.as_deref().map(std::path::Path::new) else {
            return;
        };
        let home = Some(home);
        let Some(creds) = read::Creds::become_(who) else {
            return;
        };
        let mut first = Plan::of(&key.confine, home, key.approved);
        if first.rules.len() + 1 > self.budget || !first.consulted.follow_links() {
            return;
        }
        let Some(watching) = self.watch(&first.consulted) else {
            return;
        };
        // Made again under the watches: a change from here on is an event.
        let mut plan = Plan::of(&key.confine, home, key.approved);
        if !plan.consulted.follow_links()
            || !plan.consulted.within(&first.consulted)
            || plan.rules.len() + 1 > self.budget
        {
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
            // Made again once the changes settle (a file written and renamed is two events
            // apart), when a door asked for it.
            if ahead < MAX_AHEAD
                && let Some(who) = Self::again_as(&key, who)
            {
                inner.note_again(Again {
                    key,
                    who,
                    used,
                    ahead,
                });
            }
            return;
        }
        let again = Self::again_as(&key, who).map(|who| (who, used));
        let wds = watching
            .counts
            .iter()
            .zip(watching.entries)
            .map(|((wd, _), entries)| (*wd, entries))
            .collect();
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
                again,
                ahead,
            },
        );
    }

    /// As whom a plan for `key` is made again without its door: the ids and groups of its key.
    fn again_as(key: &Key, who: &read::As) -> Option<read::As> {
        Some(read::As {
            uid: key.uid,
            gid: who.gid,
            groups: crate::peer::Groups::known(key.groups.clone()),
            named: who.named.clone(),
        })
    }

    /// What to listen to for changes as they come: the current inotify instance's number and a
    /// descriptor of it (`None` before anything was planned). Wait for it to be readable, then
    /// ask [`Rulesets::changed`].
    pub fn listening(&self) -> Option<(u64, OwnedFd)> {
        let inner = self.inner.lock().ok()?;
        let watcher = inner.watcher.as_ref()?;
        let fd = nix::unistd::dup(watcher.as_ref()).ok()?;
        Some((inner.instance, fd))
    }

    /// Reads the changes queued and drops what they make stale (what to make again is kept for
    /// [`Rulesets::changed`]).
    pub fn read_changes(&self) {
        if let Ok(mut inner) = self.inner.lock() {
            inner.drain();
        }
    }

    /// Reads the changes queued, drops what they make stale, and returns the plans dropped
    /// that a door used lately, to be made again ahead of the next (with [`Rulesets::again`]);
    /// and whether `instance` is still the one listened to.
    pub fn changed(&self, instance: u64) -> (Vec<Again>, bool) {
        let Ok(mut inner) = self.inner.lock() else {
            return (Vec::new(), false);
        };
        inner.drain();
        let dropped = std::mem::take(&mut inner.dropped);
        (
            dropped,
            inner.instance == instance && inner.watcher.is_some(),
        )
    }

    /// Watches each directory in `dirs`, and returns their watches with their events so far;
    /// `None` when one that exists cannot be watched (then a change there could not be seen).
    /// The watches are set with no lock held: setting one looks its path up, which a network
    /// or FUSE file system can make hang, and every door's take waits on the lock.
    fn watch(&self, dirs: &Consulted) -> Option<Watching> {
        let (watcher, instance) = {
            let mut inner = self.inner.lock().ok()?;
            inner.drain();
            if inner.watched.len() + dirs.iter().count() > MAX_WATCHES {
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
        let mut wds = Vec::new();
        let mut entries = Vec::new();
        let mut missing = Vec::new();
        for (dir, depends) in dirs.iter() {
            match watcher.add_watch(dir, mask) {
                // Only where every change is an event: a network file system changed from
                // another machine, or a FUSE one, tells this kernel nothing.
                Ok(wd) if read::local_fs(dir) => {
                    wds.push(wd);
                    entries.push(depends.clone());
                }
                Ok(_) => return None,
                // Not there (yet): its making is an event in the directory above, watched too.
                Err(Errno::ENOENT | Errno::ENOTDIR) => missing.push(dir.to_path_buf()),
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
            entries,
            missing,
        })
    }
}

/// What changed in one watched directory, from the events read at once.
#[derive(Debug, Default)]
struct Changed {
    /// The directory itself (removed, moved, no longer watched).
    itself: bool,
    /// The entries made, removed or renamed in it.
    names: HashSet<OsString>,
}

impl Changed {
    /// Whether a plan that depends on `depends` of the directory is stale now.
    fn matters_to(&self, depends: &Entries) -> bool {
        self.itself || self.names.iter().any(|name| depends.matter(Some(name)))
    }
}

/// A plan's watches, each with the events it had when the plan began.
#[derive(Debug)]
struct Watching {
    instance: u64,
    counts: Vec<(WatchDescriptor, u64)>,
    /// For each of `counts`, the entries of its directory the plan depends on.
    entries: Vec<Entries>,
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
        let mut fired: HashMap<WatchDescriptor, Changed> = HashMap::new();
        let mut all = false;
        let mut reads = 0;
        loop {
            match watcher.read_events() {
                Ok(events) => {
                    for event in events {
                        if event.mask.contains(AddWatchFlags::IN_Q_OVERFLOW) {
                            all = true;
                        }
                        let changed = fired.entry(event.wd).or_default();
                        // Without a name it is the directory itself (gone, moved, unwatched).
                        match event.name {
                            Some(name) if !changed.itself => {
                                changed.names.insert(name);
                            }
                            Some(_) => {}
                            None => changed.itself = true,
                        }
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
        let stale: Vec<Key> = self
            .entries
            .iter()
            .filter(|(_, entry)| {
                entry.wds.iter().any(|(wd, depends)| {
                    fired
                        .get(wd)
                        .is_some_and(|changed| changed.matters_to(depends))
                })
            })
            .map(|(key, _)| key.clone())
            .collect();
        for key in stale {
            if let Some((key, entry)) = self.entries.remove_entry(&key) {
                self.note_dropped(key, entry);
            }
        }
        for wd in fired.keys() {
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
        for (key, entry) in std::mem::take(&mut self.entries) {
            self.note_dropped(key, entry);
        }
        self.watched.clear();
        self.watcher = None;
        self.mounts = None;
        self.instance += 1;
    }

    /// Notes a plan a change dropped, to be made again ahead of its next door when a door used
    /// it lately: the [`MAX_AGAIN`] used last are kept.
    fn note_dropped(&mut self, key: Key, entry: Entry) {
        if entry.ahead >= MAX_AHEAD {
            return;
        }
        if let Some((who, used)) = entry.again {
            self.note_again(Again {
                key,
                who,
                used,
                ahead: entry.ahead,
            });
        }
    }

    /// Notes a plan to make again, if a door used it lately.
    fn note_again(&mut self, again: Again) {
        if again.used.elapsed() > AGAIN_IF_USED_WITHIN {
            return;
        }
        self.dropped.retain(|other| other.key != again.key);
        self.dropped.push(again);
        self.dropped
            .sort_by_key(|again| std::cmp::Reverse(again.used));
        self.dropped.truncate(MAX_AGAIN);
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
