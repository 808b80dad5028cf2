//! Held requests: the store, the token, and every way a held request ends.
//!
//! A held request ends exactly once. Whoever removes it from the map under the lock (an
//! answer, a cancel, its expiry, the daemon stopping) settles it: the outcome goes to the
//! waiting connection, the audit trail and the counters. Two answers racing: one removes the
//! entry and wins, the other finds nothing and gets `not_found`.
//!
//! A single check is held as a batch of one: one entry type, one way to answer it, one
//! settle. What was sent ([`Sent`]) only changes how it is shown, whether it may be answered
//! item by item, at the requester's terminal, or redeemed.
//!
//! This file holds the types and the store's core: holding, cancelling and settling a request.
//! Answers are in `answer.rs`, ending by deadline or shutdown in `expiry.rs`, redeeming in
//! `redeem.rs`, who may answer in `validate.rs`, how a held request looks to approvers and
//! in the audit trail in `shown.rs` (a long command cut around its dangerous findings in
//! `excerpt.rs`), and the digest approvers group identical requests on in `digest.rs`.

mod answer;
mod digest;
mod excerpt;
mod expiry;
mod redeem;
mod shown;
mod validate;

pub use redeem::{Redeemed, exact};

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use assent_client::protocol::{
    AuditEvent, Decided, DecidedBy, Decision, Finding, Level, Origin, PendingItem,
};
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::approvers::{Agent, Approvers, eligible};
use crate::audit::Audit;
use crate::error::RequestError;
use crate::peer::{AgentFacts, AnswererFacts, Proc};
use crate::policy::Approval;
use crate::stats::Stats;

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
    /// Its audit session, where the kernel keeps one.
    pub audit_session: Option<u32>,
    /// The requesting process and the processes of its uid above it, up to the agent that
    /// asked ([`crate::peer::requester_chain`]): whatever descends from one of them may not
    /// answer. Empty when it could not be read.
    pub chain: Vec<Proc>,
    /// The agent at the top of the chain, with what its background jobs keep of it.
    pub agent: Option<AgentFacts>,
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
    /// Its audit session, where the kernel keeps one.
    pub audit_session: Option<u32>,
    /// The answering process and its ancestors.
    pub ancestors: Vec<Proc>,
    /// Its terminal and cgroup.
    pub facts: AnswererFacts,
    /// A registered approval agent (`assent-notify`) answering a click, rather than a
    /// one-shot `assent approve`.
    pub agent: bool,
}

/// A request to hold: one subject or a batch, under one token. Items the policy decided ride
/// along so a batch's waiter hears every item's outcome in order; the rest are held.
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
    /// What was sent: one subject (its items are that one) or a batch.
    pub sent: Sent,
    /// Every item, in the order sent; at least one is held (`decided` is `None`).
    pub items: Vec<Item>,
    /// Whether the requester waits on its connection for the outcome.
    pub wait: bool,
    /// The requesting program's name as the daemon saw it, for approvers.
    pub program: String,
    /// The agent the requester says it serves (its own claim).
    pub agent: Option<String>,
}

/// What the requester sent, which decides how the held request is listed, audited, answered
/// and redeemed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sent {
    /// One subject: listed and audited as itself, answerable at the requester's own terminal
    /// prompt and, when nobody waits for it, redeemable by its token.
    One {
        /// The subject exactly as it was sent ([`exact`]): what redeeming its token must
        /// repeat.
        exact: String,
    },
    /// A batch: listed as a summary with its held items, answered whole or item by item.
    Batch,
}

/// One item of a request to hold.
#[derive(Debug, Clone)]
pub struct Item {
    /// The command or tool call, in one line.
    pub subject: String,
    /// Shell cwd.
    pub cwd: Option<String>,
    /// Level.
    pub level: Level,
    /// Findings.
    pub findings: Vec<Finding>,
    /// The policy's reason for its ruling.
    pub reason: String,
    /// Its outcome: `None` while it is held; set by the policy (or a remembered approval) for
    /// an item that was not held, and by whoever ends it otherwise.
    pub decided: Option<Decided>,
    /// What a remembered approval of it would match ([`crate::remember::signature`]).
    pub signature: String,
    /// How a person must approve it.
    pub approval: Approval,
}

/// What an allow would be, read before it is given ([`Pending::allowing`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowing {
    /// How the allow must be given.
    pub approval: crate::policy::Approval,
    /// What it would approve, for remembering.
    pub approved: Vec<Approved>,
    /// The commands or tool calls it would allow, as held, for the password dialog to name.
    pub subjects: Vec<String>,
}

/// An allowed request whose answer may be remembered: what to remember it for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approved {
    /// The uid whose requests the remembered approval allows.
    pub owner: u32,
    /// Its signature.
    pub signature: String,
    /// The requester's session label.
    pub session: Option<String>,
    /// The requester's login session.
    pub sid: Option<i32>,
}

/// A held request as admitted: its token, its deadline, and where its outcome arrives.
#[derive(Debug)]
pub struct Held {
    /// The token.
    pub token: String,
    /// When it expires.
    pub expires_at: Instant,
    /// Every item's outcome in order, for a waiting requester, once the last held one ends.
    pub outcome: Option<oneshot::Receiver<Vec<Decided>>>,
    /// Another user must answer (the policy's `[approvers]` maps the requester to them).
    pub another_answers: bool,
}

#[derive(Debug)]
struct Entry {
    hold: Hold,
    expires_at: Instant,
    waiter: Option<oneshot::Sender<Vec<Decided>>>,
    /// Items still held.
    held: usize,
}

#[derive(Debug, Default)]
struct Inner {
    entries: HashMap<String, Entry>,
    /// Held items per requester uid (each held item of a batch counts).
    per_uid: HashMap<u32, usize>,
    expired: VecDeque<String>,
    /// Requests held without a waiter that a person answered, until they are redeemed.
    answered: HashMap<String, redeem::Answered>,
    /// Their tokens, oldest first, so the oldest are forgotten first.
    answered_order: VecDeque<String>,
    /// The agents that asked lately, newest last, at most [`RECENT_AGENTS`]: an agent never
    /// answers, not even another agent's request.
    agents: VecDeque<AgentFacts>,
}

/// How many agents that asked are remembered for [`Inner::agents`].
const RECENT_AGENTS: usize = 64;

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
    approvers: Arc<Approvers>,
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
    pub fn new(
        ttl: Duration,
        max_per_uid: usize,
        audit: Arc<Audit>,
        stats: Arc<Stats>,
        approvers: Arc<Approvers>,
    ) -> Self {
        Pending {
            inner: Mutex::new(Inner::default()),
            ttl_ms: AtomicU64::new(millis(ttl)),
            max_per_uid: AtomicUsize::new(max_per_uid),
            audit,
            stats,
            approvers,
        }
    }

    /// The registered approval agents.
    pub fn approvers(&self) -> &Approvers {
        &self.approvers
    }

    /// Register an approval agent and queue, as its first pushes, every held request it may
    /// answer (oldest first). Done under the store's lock, so no request is missed or shown
    /// after its end.
    pub fn register_approver(
        &self,
        agent: Agent,
    ) -> Result<tokio::sync::mpsc::Receiver<assent_client::protocol::Response>, RequestError> {
        let inner = self.lock();
        let snapshot = Self::listing(&inner, |e| {
            eligible(&agent, e.hold.owner, e.hold.requester.sid)
        });
        let rx = self.approvers.add(agent, snapshot)?;
        drop(inner);
        Ok(rx)
    }

    /// Refuse a process that is, or is left behind by, an agent that asked lately or a known
    /// coding agent: such a process may answer nothing.
    pub fn check_not_agent(&self, by: &Answerer) -> Result<(), RequestError> {
        let inner = self.lock();
        validate::check_not_agent(inner.agents.iter(), by)
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

    /// Admit a request with at least one held item, or refuse it when its uid would pass the
    /// limit (each held item counts).
    pub fn hold(&self, hold: Hold) -> Result<Held, RequestError> {
        let held = hold.items.iter().filter(|i| i.decided.is_none()).count();
        if held == 0 || (matches!(hold.sent, Sent::One { .. }) && hold.items.len() != 1) {
            return Err(RequestError::Internal(
                "a held request must hold something, and a single one has one item".into(),
            ));
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
        let max_per_uid = self.max_per_uid.load(Ordering::Relaxed);
        let count = inner.per_uid.get(&uid).copied().unwrap_or(0);
        if count + held > max_per_uid {
            return Err(RequestError::LimitReached {
                uid,
                limit: max_per_uid,
            });
        }
        inner.per_uid.insert(uid, count + held);
        if let Some(agent) = &hold.requester.agent
            && !inner.agents.contains(agent)
        {
            if inner.agents.len() >= RECENT_AGENTS {
                inner.agents.pop_front();
            }
            inner.agents.push_back(agent.clone());
        }
        let entry = Entry {
            hold,
            expires_at,
            waiter: tx,
            held,
        };
        // Under the lock: an agent sees Held before the Withdrawn of the same request.
        self.approvers.push_held(
            entry.hold.owner,
            entry.hold.requester.sid,
            &shown::listed(&token, &entry, Instant::now()),
        );
        let another_answers = entry.hold.owner != entry.hold.requester.uid;
        inner.entries.insert(token.clone(), entry);
        Ok(Held {
            token,
            expires_at,
            outcome: rx,
            another_answers,
        })
    }

    /// Remove an entry under the lock; the caller settles it after releasing the lock.
    fn take(inner: &mut Inner, token: &str) -> Option<Entry> {
        let entry = inner.entries.remove(token)?;
        inner.release(entry.hold.requester.uid, entry.held);
        Some(entry)
    }

    /// Withdraw a request on its owner's behalf.
    pub fn cancel(&self, token: &str, uid: u32, why: &str) -> Result<(), RequestError> {
        let entry = {
            let mut inner = self.lock();
            let Some(entry) = inner.entries.get(token) else {
                return Err(RequestError::NotFound);
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

    /// Held requests visible to `uid` (all of them for root), oldest first.
    pub fn list(&self, uid: u32) -> Vec<PendingItem> {
        let inner = self.lock();
        Self::listing(&inner, |e| {
            uid == 0 || e.hold.requester.uid == uid || e.hold.owner == uid
        })
    }

    /// The held requests `shown` picks, as listed, oldest first.
    fn listing(inner: &Inner, shown: impl Fn(&Entry) -> bool) -> Vec<PendingItem> {
        let now = Instant::now();
        let mut items: Vec<(Instant, PendingItem)> = inner
            .entries
            .iter()
            .filter(|(_, e)| shown(e))
            .map(|(token, e)| (e.expires_at, shown::listed(token, e, now)))
            .collect();
        items.sort_by_key(|(at, _)| *at);
        items.into_iter().map(|(_, item)| item).collect()
    }

    /// How many requests are held (each held item of a batch counts).
    pub fn len(&self) -> usize {
        self.lock().entries.values().map(|e| e.held).sum()
    }

    /// Whether none are held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// An answer refused because it came from the requester's own chain or session: the
    /// request stays held, and the audit trail says who tried and through which processes.
    fn refused(&self, hold: &Hold, token: &str, by: &Answerer, error: &RequestError) {
        let RequestError::SelfApproval(Some(why)) = error else {
            return;
        };
        tracing::warn!(
            uid = by.uid,
            pid = by.pid,
            token,
            why = %why,
            "an answer from the requester's own agent or session was refused"
        );
        self.audit.record(AuditEvent {
            time_ms: now_ms(),
            uid: by.uid,
            pid: by.pid,
            decision: Decision::Confirm,
            by: DecidedBy::User,
            reason: format!("answer refused (self_approval), the request stays held: {why}"),
            token: Some(token.to_string()),
            refused: Some("self_approval".to_string()),
            refused_places: Vec::new(),
            grant: None,
            ..shown::about(hold)
        });
    }

    /// The one place a held request ends: every item still held gets `outcome` (one count and
    /// one audit event each, in the audit before the requester hears it, so `assent log`
    /// already shows an outcome its requester has), approval agents withdraw it, and the
    /// waiter hears every item's outcome in order.
    fn settle(&self, token: &str, mut entry: Entry, outcome: Decided) {
        let hold = &mut entry.hold;
        self.approvers
            .push_withdrawn(hold.owner, hold.requester.sid, token, &outcome);
        for index in 0..hold.items.len() {
            if hold.items[index].decided.is_none() {
                hold.items[index].decided = Some(outcome.clone());
                self.record(shown::item_event(token, hold, index, &outcome));
            }
        }
        if !hold.wait && outcome.by == DecidedBy::User {
            self.keep_answered(token, hold, &outcome);
        }
        if let Some(waiter) = entry.waiter {
            let items = entry
                .hold
                .items
                .into_iter()
                .map(|i| i.decided.unwrap_or_else(|| outcome.clone()))
                .collect();
            // The requester may have gone; its outcome is audited all the same.
            let _ = waiter.send(items);
        }
    }

    /// Count and audit one ended item.
    fn record(&self, event: AuditEvent) {
        self.stats.record(event.decision);
        self.audit.record(event);
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
