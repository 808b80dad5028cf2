//! Held requests: the store, the token, and every way a held request ends.
//!
//! A held request ends exactly once. Whoever removes it from the map under the lock (an
//! answer, a cancel, its expiry, the daemon stopping) settles it: the outcome goes to the
//! waiting connection, the audit trail and the counters. Two answers racing: one removes the
//! entry and wins, the other finds nothing and gets `not_found`.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use assent_client::protocol::{
    AuditEvent, Decided, DecidedBy, Decision, Finding, Level, Origin, PendingBatchItem, PendingItem,
};
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::audit::Audit;
use crate::error::RequestError;
use crate::stats::Stats;

/// How many expired tokens are remembered so a late answer hears `expired`, not `not_found`.
const EXPIRED_MEMORY: usize = 1024;

/// The process that made a request, as the kernel reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requester {
    /// Its uid; the request's owner.
    pub uid: u32,
    /// Its pid.
    pub pid: i32,
    /// Its login session id, if known.
    pub sid: Option<i32>,
    /// The connection it asked on.
    pub conn_id: u64,
}

/// Who is answering.
#[derive(Debug, Clone)]
pub struct Answerer {
    /// Its uid.
    pub uid: u32,
    /// Its pid.
    pub pid: i32,
    /// Its login session id, if known.
    pub sid: Option<i32>,
    /// Its connection.
    pub conn_id: u64,
    /// The session label it answers for, if scoped.
    pub session: Option<String>,
}

/// A request to hold.
#[derive(Debug)]
pub struct Hold {
    /// Who asked.
    pub requester: Requester,
    /// The uid who may answer it: the requester's, or the human the policy maps an agent
    /// uid to (`[approvers]`).
    pub owner: u32,
    /// Its session label.
    pub session: Option<String>,
    /// Its origin.
    pub origin: Origin,
    /// The command or tool call, in one line.
    pub subject: String,
    /// Shell cwd.
    pub cwd: Option<String>,
    /// Level.
    pub level: Level,
    /// Findings.
    pub findings: Vec<Finding>,
    /// The policy's reason for holding it.
    pub reason: String,
    /// Whether the requester waits on its connection for the outcome.
    pub wait: bool,
}

/// A held request as admitted: its token, its deadline, and where its outcome arrives.
#[derive(Debug)]
pub struct Held {
    /// The token.
    pub token: String,
    /// When it expires.
    pub expires_at: Instant,
    /// The outcome, for a waiting requester.
    pub outcome: Option<oneshot::Receiver<Decided>>,
}

/// One item of a batch to hold.
#[derive(Debug, Clone)]
pub struct BatchItem {
    /// The command or tool call, in one line.
    pub subject: String,
    /// Shell cwd.
    pub cwd: Option<String>,
    /// Level.
    pub level: Level,
    /// Findings.
    pub findings: Vec<Finding>,
    /// The policy's outcome for an item it decided; `None` for a held item.
    pub decided: Option<Decided>,
}

/// A batch to hold: several items under one token, some decided by the policy, the rest held.
#[derive(Debug)]
pub struct BatchHold {
    /// Who asked.
    pub requester: Requester,
    /// The uid who may answer it.
    pub owner: u32,
    /// Its session label.
    pub session: Option<String>,
    /// Its origin.
    pub origin: Origin,
    /// Every item, in the order sent.
    pub items: Vec<BatchItem>,
    /// Whether the requester waits on its connection for the outcome.
    pub wait: bool,
}

/// A batch as admitted.
#[derive(Debug)]
pub struct HeldBatch {
    /// The batch token.
    pub token: String,
    /// When its held items expire.
    pub expires_at: Instant,
    /// Every item's outcome, in order, once the last held one is settled.
    pub outcome: Option<oneshot::Receiver<Vec<Decided>>>,
}

#[derive(Debug)]
struct Entry {
    hold: Hold,
    expires_at: Instant,
    waiter: Option<oneshot::Sender<Decided>>,
}

/// Requests and batches taken out of the store together, to settle after the lock.
type Ended = (Vec<(String, Entry)>, Vec<(String, BatchEntry)>);

#[derive(Debug)]
struct BatchEntry {
    hold: BatchHold,
    expires_at: Instant,
    waiter: Option<oneshot::Sender<Vec<Decided>>>,
    /// Items still held.
    held: usize,
}

#[derive(Debug, Default)]
struct Inner {
    entries: HashMap<String, Entry>,
    batches: HashMap<String, BatchEntry>,
    /// Held items per requester uid (a batch counts each held item).
    per_uid: HashMap<u32, usize>,
    expired: VecDeque<String>,
}

impl Inner {
    fn release(&mut self, uid: u32, n: usize) {
        if let Some(count) = self.per_uid.get_mut(&uid) {
            *count = count.saturating_sub(n);
            if *count == 0 {
                self.per_uid.remove(&uid);
            }
        }
    }
}

/// The store of held requests.
#[derive(Debug)]
pub struct Pending {
    inner: Mutex<Inner>,
    /// Milliseconds a request stays held (the policy may change it on reload).
    ttl_ms: AtomicU64,
    max_per_uid: AtomicUsize,
    audit: Arc<Audit>,
    stats: Arc<Stats>,
}

/// A fresh token: `pa_` and 32 lowercase hex digits from the OS RNG. A lookup key only.
pub fn new_token() -> Result<String, RequestError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| RequestError::Invalid(format!("could not draw a token: {e}")))?;
    let mut token = String::with_capacity(35);
    token.push_str("pa_");
    for byte in bytes {
        token.push_str(&format!("{byte:02x}"));
    }
    Ok(token)
}

impl Pending {
    /// An empty store.
    pub fn new(ttl: Duration, max_per_uid: usize, audit: Arc<Audit>, stats: Arc<Stats>) -> Self {
        Pending {
            inner: Mutex::new(Inner::default()),
            ttl_ms: AtomicU64::new(millis(ttl)),
            max_per_uid: AtomicUsize::new(max_per_uid),
            audit,
            stats,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A poisoned lock means a panic while holding it, which is a bug; the map itself is
        // still consistent (every mutation is a single insert or remove), so keep serving.
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The hold time.
    pub fn ttl(&self) -> Duration {
        Duration::from_millis(self.ttl_ms.load(Ordering::Relaxed))
    }

    /// Change the hold time and the per-uid limit (a policy reload); held requests keep theirs.
    pub fn set_limits(&self, ttl: Duration, max_per_uid: usize) {
        self.ttl_ms.store(millis(ttl), Ordering::Relaxed);
        self.max_per_uid.store(max_per_uid, Ordering::Relaxed);
    }

    /// Admit a request, or refuse it when its uid is at the limit.
    pub fn hold(&self, hold: Hold) -> Result<Held, RequestError> {
        let token = new_token()?;
        let expires_at = Instant::now() + self.ttl();
        let (tx, rx) = if hold.wait {
            let (tx, rx) = oneshot::channel();
            (Some(tx), Some(rx))
        } else {
            (None, None)
        };
        let uid = hold.requester.uid;
        let mut inner = self.lock();
        let count = inner.per_uid.entry(uid).or_default();
        let max_per_uid = self.max_per_uid.load(Ordering::Relaxed);
        if *count >= max_per_uid {
            return Err(RequestError::LimitReached {
                uid,
                limit: max_per_uid,
            });
        }
        *count += 1;
        inner.entries.insert(
            token.clone(),
            Entry {
                hold,
                expires_at,
                waiter: tx,
            },
        );
        Ok(Held {
            token,
            expires_at,
            outcome: rx,
        })
    }

    /// Admit a batch with at least one held item, or refuse it when its uid would pass the
    /// limit (each held item counts).
    pub fn hold_batch(&self, hold: BatchHold) -> Result<HeldBatch, RequestError> {
        let held = hold.items.iter().filter(|i| i.decided.is_none()).count();
        if held == 0 {
            return Err(RequestError::Invalid("a batch with nothing held".into()));
        }
        let token = new_token()?;
        let expires_at = Instant::now() + self.ttl();
        let (tx, rx) = if hold.wait {
            let (tx, rx) = oneshot::channel();
            (Some(tx), Some(rx))
        } else {
            (None, None)
        };
        let uid = hold.requester.uid;
        let mut inner = self.lock();
        let count = inner.per_uid.entry(uid).or_default();
        let max_per_uid = self.max_per_uid.load(Ordering::Relaxed);
        if *count + held > max_per_uid {
            if *count == 0 {
                inner.per_uid.remove(&uid);
            }
            return Err(RequestError::LimitReached {
                uid,
                limit: max_per_uid,
            });
        }
        *count += held;
        inner.batches.insert(
            token.clone(),
            BatchEntry {
                hold,
                expires_at,
                waiter: tx,
                held,
            },
        );
        Ok(HeldBatch {
            token,
            expires_at,
            outcome: rx,
        })
    }

    /// Remove an entry under the lock; the caller settles it after releasing the lock.
    fn take(inner: &mut Inner, token: &str) -> Option<Entry> {
        let entry = inner.entries.remove(token)?;
        inner.release(entry.hold.requester.uid, 1);
        Some(entry)
    }

    /// Remove a batch under the lock; the caller settles its held items after releasing it.
    fn take_batch(inner: &mut Inner, token: &str) -> Option<BatchEntry> {
        let batch = inner.batches.remove(token)?;
        inner.release(batch.hold.requester.uid, batch.held);
        Some(batch)
    }

    fn remember_expired(inner: &mut Inner, token: &str) {
        if inner.expired.len() >= EXPIRED_MEMORY {
            inner.expired.pop_front();
        }
        inner.expired.push_back(token.to_string());
    }

    /// Answer a held request. Checks, in order: it exists and has not expired, the answerer's
    /// uid is the owner's or root, the answerer's session label (if scoped) matches, and the
    /// answerer is neither the requesting connection nor a process of its login session.
    pub fn answer(&self, token: &str, by: &Answerer, allow: bool) -> Result<(), RequestError> {
        self.answer_item(token, None, by, allow)
    }

    /// Answer a held request, a whole batch (`item: None`), or one item of a batch (from 1).
    /// The same checks as [`Pending::answer`]; an item out of range or not held is
    /// `NoSuchItem`, and `item` with a single request's token is `Invalid`.
    pub fn answer_item(
        &self,
        token: &str,
        item: Option<u32>,
        by: &Answerer,
        allow: bool,
    ) -> Result<(), RequestError> {
        let entry = {
            let mut inner = self.lock();
            let Some(entry) = inner.entries.get(token) else {
                if inner.batches.contains_key(token) {
                    return self.answer_batch(inner, token, item, by, allow);
                }
                return Err(if inner.expired.iter().any(|t| t == token) {
                    RequestError::Expired
                } else {
                    RequestError::NotFound
                });
            };
            if item.is_some() {
                return Err(RequestError::Invalid(
                    "this token is a single held request, not a batch: answer it without --item"
                        .into(),
                ));
            }
            if entry.expires_at <= Instant::now() {
                let entry = Self::take(&mut inner, token);
                Self::remember_expired(&mut inner, token);
                drop(inner);
                if let Some(entry) = entry {
                    self.settle(token, entry, expired(self.ttl()));
                }
                return Err(RequestError::Expired);
            }
            authorise(
                &entry.hold.requester,
                entry.hold.owner,
                &entry.hold.session,
                by,
            )?;
            Self::take(&mut inner, token)
        };
        if let Some(entry) = entry {
            self.settle(token, entry, answered(by, allow));
        }
        Ok(())
    }

    /// Answer a batch's held items under the lock: all of them, or item `n`. Each answered
    /// item is marked under the lock (two answers to one item: the first marks it, the second
    /// finds it no longer held), audited after; the last one settles the batch.
    fn answer_batch(
        &self,
        mut guard: MutexGuard<'_, Inner>,
        token: &str,
        item: Option<u32>,
        by: &Answerer,
        allow: bool,
    ) -> Result<(), RequestError> {
        let inner = &mut *guard;
        let Some(batch) = inner.batches.get_mut(token) else {
            return Err(RequestError::NotFound);
        };
        if batch.expires_at <= Instant::now() {
            let ended = Self::take_batch(inner, token);
            Self::remember_expired(inner, token);
            drop(guard);
            if let Some(batch) = ended {
                self.settle_batch(token, batch, expired(self.ttl()));
            }
            return Err(RequestError::Expired);
        }
        authorise(
            &batch.hold.requester,
            batch.hold.owner,
            &batch.hold.session,
            by,
        )?;
        let count = batch.hold.items.len();
        let chosen: Vec<usize> = match item {
            None => (0..count)
                .filter(|&i| batch.hold.items[i].decided.is_none())
                .collect(),
            Some(n) => {
                let index = usize::try_from(n).unwrap_or(usize::MAX);
                if index == 0 || index > count {
                    return Err(RequestError::NoSuchItem(format!(
                        "the batch has items 1 to {count}; there is no item {n}"
                    )));
                }
                if let Some(decided) = &batch.hold.items[index - 1].decided {
                    let how = if decided.allow { "allowed" } else { "denied" };
                    return Err(RequestError::NoSuchItem(format!(
                        "item {n} of the batch is not held: it was {how} by {}",
                        decided.by.as_str()
                    )));
                }
                vec![index - 1]
            }
        };
        let outcome = answered(by, allow);
        let mut events = Vec::with_capacity(chosen.len());
        for &index in &chosen {
            batch.hold.items[index].decided = Some(outcome.clone());
            events.push(item_event(token, &batch.hold, index, &outcome));
        }
        batch.held -= chosen.len();
        let uid = batch.hold.requester.uid;
        let finished = if batch.held == 0 {
            inner.batches.remove(token)
        } else {
            None
        };
        inner.release(uid, chosen.len());
        drop(guard);
        for event in events {
            self.record(event);
        }
        if let Some(batch) = finished {
            self.settle_batch(token, batch, outcome);
        }
        Ok(())
    }

    /// Withdraw a request on its owner's behalf.
    pub fn cancel(&self, token: &str, uid: u32, why: &str) -> Result<(), RequestError> {
        let entry = {
            let mut inner = self.lock();
            let Some(entry) = inner.entries.get(token) else {
                let Some(batch) = inner.batches.get(token) else {
                    return Err(RequestError::NotFound);
                };
                let owner = batch.hold.requester.uid;
                if uid != owner && uid != batch.hold.owner && uid != 0 {
                    return Err(RequestError::UserMismatch { caller: uid, owner });
                }
                let batch = Self::take_batch(&mut inner, token);
                drop(inner);
                if let Some(batch) = batch {
                    let outcome = Decided {
                        allow: false,
                        by: DecidedBy::Cancelled,
                        reason: format!("cancelled: {why}"),
                    };
                    self.settle_batch(token, batch, outcome);
                }
                return Ok(());
            };
            let owner = entry.hold.requester.uid;
            if uid != owner && uid != entry.hold.owner && uid != 0 {
                return Err(RequestError::UserMismatch { caller: uid, owner });
            }
            Self::take(&mut inner, token)
        };
        if let Some(entry) = entry {
            let outcome = Decided {
                allow: false,
                by: DecidedBy::Cancelled,
                reason: format!("cancelled: {why}"),
            };
            self.settle(token, entry, outcome);
        }
        Ok(())
    }

    /// End a request whose deadline passed. Returns false if something else ended it first
    /// (its outcome is then on the waiter's channel).
    pub fn expire(&self, token: &str) -> bool {
        let (entry, batch) = {
            let mut inner = self.lock();
            let entry = Self::take(&mut inner, token);
            let batch = Self::take_batch(&mut inner, token);
            if entry.is_some() || batch.is_some() {
                Self::remember_expired(&mut inner, token);
            }
            (entry, batch)
        };
        match (entry, batch) {
            (Some(entry), _) => {
                self.settle(token, entry, expired(self.ttl()));
                true
            }
            (None, Some(batch)) => {
                self.settle_batch(token, batch, expired(self.ttl()));
                true
            }
            (None, None) => false,
        }
    }

    /// End every request whose deadline has passed (those nobody waits on; waiting connections
    /// expire their own on time). Returns how many ended.
    pub fn sweep(&self) -> usize {
        let now = Instant::now();
        let (ended, ended_batches): Ended = {
            let mut inner = self.lock();
            let due: Vec<String> = inner
                .entries
                .iter()
                .filter(|(_, e)| e.expires_at <= now)
                .map(|(t, _)| t.clone())
                .collect();
            let due_batches: Vec<String> = inner
                .batches
                .iter()
                .filter(|(_, b)| b.expires_at <= now)
                .map(|(t, _)| t.clone())
                .collect();
            let ended = due
                .into_iter()
                .filter_map(|token| {
                    let entry = Self::take(&mut inner, &token)?;
                    Self::remember_expired(&mut inner, &token);
                    Some((token, entry))
                })
                .collect();
            let ended_batches = due_batches
                .into_iter()
                .filter_map(|token| {
                    let batch = Self::take_batch(&mut inner, &token)?;
                    Self::remember_expired(&mut inner, &token);
                    Some((token, batch))
                })
                .collect();
            (ended, ended_batches)
        };
        let count = ended.len() + ended_batches.len();
        for (token, entry) in ended {
            self.settle(&token, entry, expired(self.ttl()));
        }
        for (token, batch) in ended_batches {
            self.settle_batch(&token, batch, expired(self.ttl()));
        }
        count
    }

    /// End every held request with `outcome` (the daemon is stopping).
    pub fn drain(&self, outcome: &Decided) {
        let (all, batches): Ended = {
            let mut inner = self.lock();
            inner.per_uid.clear();
            (
                inner.entries.drain().collect(),
                inner.batches.drain().collect(),
            )
        };
        for (token, entry) in all {
            self.settle(&token, entry, outcome.clone());
        }
        for (token, batch) in batches {
            self.settle_batch(&token, batch, outcome.clone());
        }
    }

    /// Held requests visible to `uid` (all of them for root), oldest first.
    pub fn list(&self, uid: u32) -> Vec<PendingItem> {
        let now = Instant::now();
        let inner = self.lock();
        let mut items: Vec<(Instant, PendingItem)> = inner
            .entries
            .iter()
            .filter(|(_, e)| uid == 0 || e.hold.requester.uid == uid || e.hold.owner == uid)
            .map(|(token, e)| {
                let item = PendingItem {
                    token: token.clone(),
                    uid: e.hold.requester.uid,
                    pid: e.hold.requester.pid,
                    origin: e.hold.origin,
                    subject: e.hold.subject.clone(),
                    cwd: e.hold.cwd.clone(),
                    level: e.hold.level,
                    findings: e.hold.findings.clone(),
                    session: e.hold.session.clone(),
                    expires_in_ms: millis(e.expires_at.saturating_duration_since(now)),
                    items: Vec::new(),
                };
                (e.expires_at, item)
            })
            .collect();
        items.extend(
            inner
                .batches
                .iter()
                .filter(|(_, b)| uid == 0 || b.hold.requester.uid == uid || b.hold.owner == uid)
                .map(|(token, b)| {
                    let held: Vec<PendingBatchItem> = b
                        .hold
                        .items
                        .iter()
                        .enumerate()
                        .filter(|(_, i)| i.decided.is_none())
                        .map(|(index, i)| PendingBatchItem {
                            item: u32::try_from(index + 1).unwrap_or(u32::MAX),
                            subject: i.subject.clone(),
                            cwd: i.cwd.clone(),
                            level: i.level,
                            findings: i.findings.clone(),
                        })
                        .collect();
                    let item = PendingItem {
                        token: token.clone(),
                        uid: b.hold.requester.uid,
                        pid: b.hold.requester.pid,
                        origin: b.hold.origin,
                        subject: format!(
                            "batch of {} items, {} held",
                            b.hold.items.len(),
                            held.len()
                        ),
                        cwd: None,
                        level: held.iter().map(|i| i.level).max().unwrap_or_default(),
                        findings: Vec::new(),
                        session: b.hold.session.clone(),
                        expires_in_ms: millis(b.expires_at.saturating_duration_since(now)),
                        items: held,
                    };
                    (b.expires_at, item)
                }),
        );
        items.sort_by_key(|(at, _)| *at);
        items.into_iter().map(|(_, item)| item).collect()
    }

    /// How many requests are held (each held item of a batch counts).
    pub fn len(&self) -> usize {
        let inner = self.lock();
        inner.entries.len() + inner.batches.values().map(|b| b.held).sum::<usize>()
    }

    /// Whether none are held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The one place a held request ends: tell the waiter, count it, audit it.
    fn settle(&self, token: &str, entry: Entry, outcome: Decided) {
        self.stats.record(if outcome.allow {
            Decision::Allow
        } else {
            Decision::Deny
        });
        let hold = entry.hold;
        let event = AuditEvent {
            time_ms: now_ms(),
            uid: hold.requester.uid,
            pid: hold.requester.pid,
            origin: hold.origin,
            subject: hold.subject,
            level: hold.level,
            findings: hold.findings.into_iter().map(|f| f.id).collect(),
            decision: if outcome.allow {
                Decision::Allow
            } else {
                Decision::Deny
            },
            by: outcome.by,
            reason: outcome.reason.clone(),
            token: Some(token.to_string()),
        };
        if let Some(waiter) = entry.waiter {
            // The requester may have gone; its outcome is still audited below.
            let _ = waiter.send(outcome);
        }
        self.audit.record(event);
    }

    /// The one place a batch ends: every item still held gets `outcome` (one audit event and
    /// one count each), then the waiter hears every item's outcome in order.
    fn settle_batch(&self, token: &str, mut batch: BatchEntry, outcome: Decided) {
        for index in 0..batch.hold.items.len() {
            if batch.hold.items[index].decided.is_none() {
                batch.hold.items[index].decided = Some(outcome.clone());
                self.record(item_event(token, &batch.hold, index, &outcome));
            }
        }
        if let Some(waiter) = batch.waiter {
            let items = batch
                .hold
                .items
                .into_iter()
                .map(|i| i.decided.unwrap_or_else(|| outcome.clone()))
                .collect();
            let _ = waiter.send(items);
        }
    }

    /// Count and audit one settled item of a batch.
    fn record(&self, event: AuditEvent) {
        self.stats.record(event.decision);
        self.audit.record(event);
    }
}

/// The audit event of item `index` of a batch, settled with `outcome`. The reason names the
/// item, the token is the batch's.
fn item_event(token: &str, hold: &BatchHold, index: usize, outcome: &Decided) -> AuditEvent {
    let item = &hold.items[index];
    AuditEvent {
        time_ms: now_ms(),
        uid: hold.requester.uid,
        pid: hold.requester.pid,
        origin: hold.origin,
        subject: item.subject.clone(),
        level: item.level,
        findings: item.findings.iter().map(|f| f.id.clone()).collect(),
        decision: if outcome.allow {
            Decision::Allow
        } else {
            Decision::Deny
        },
        by: outcome.by,
        reason: format!("batch item {}: {}", index + 1, outcome.reason),
        token: Some(token.to_string()),
    }
}

/// A person's answer as an outcome.
fn answered(by: &Answerer, allow: bool) -> Decided {
    let who = if by.uid == 0 {
        "root".to_string()
    } else {
        format!("uid {}", by.uid)
    };
    let verb = if allow { "allowed" } else { "denied" };
    Decided {
        allow,
        by: DecidedBy::User,
        reason: format!("{verb} by {who} (pid {})", by.pid),
    }
}

/// May `by` answer a request of `requester`, owned by `owner`, of session label `session`?
fn authorise(
    requester: &Requester,
    owner: u32,
    session: &Option<String>,
    by: &Answerer,
) -> Result<(), RequestError> {
    if by.uid != owner && by.uid != 0 {
        return Err(RequestError::UserMismatch {
            caller: by.uid,
            owner,
        });
    }
    if by.session.is_some() && by.session != *session {
        return Err(RequestError::SessionMismatch {
            caller: by.session.clone(),
            owner: session.clone(),
        });
    }
    check_not_self(requester, by)
}

/// The requester may not answer itself: not on its own connection, not from its own process,
/// not from any process of its login session (an agent could run `assent approve` itself). An
/// answerer whose session cannot be established is refused rather than assumed different.
fn check_not_self(owner: &Requester, by: &Answerer) -> Result<(), RequestError> {
    if by.conn_id == owner.conn_id || (by.pid > 0 && by.pid == owner.pid) {
        return Err(RequestError::SelfApproval);
    }
    match (owner.sid, by.sid) {
        (_, None) => Err(RequestError::Identity(
            "the answering process's login session could not be established".into(),
        )),
        (Some(a), Some(b)) if a == b => Err(RequestError::SelfApproval),
        _ => Ok(()),
    }
}

fn expired(ttl: Duration) -> Decided {
    Decided {
        allow: false,
        by: DecidedBy::Timeout,
        reason: format!("no answer within {} s", ttl.as_secs()),
    }
}

/// Milliseconds, saturating.
pub fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Wall-clock milliseconds since the epoch, for audit events.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(millis)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests;
