//! Held batches: several items under one token, answered whole or item by item.
//!
//! Each held item counts against the requester's limit and is audited on its own; the batch
//! ends once, in [`Pending::settle_batch`], when its last held item is answered or when it is
//! cancelled, expires or the daemon stops.

use std::sync::MutexGuard;
use std::sync::atomic::Ordering;

use assent_client::protocol::{
    AuditEvent, Decided, DecidedBy, Decision, Finding, Level, Origin, PendingBatchItem, PendingItem,
};
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::expiry::expired;
use super::validate::{answered, authorise};
use super::{
    Answerer, Approved, Inner, Pending, Requester, millis, new_token, now_ms, shorten_item,
};
use crate::error::RequestError;
use crate::policy::Approval;

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
    /// What a remembered approval of it would match.
    pub signature: String,
    /// How a person must approve it.
    pub approval: Approval,
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
    /// The requesting program's name as the daemon saw it, for approvers.
    pub program: String,
    /// The agent the requester says it serves (its own claim).
    pub agent: Option<String>,
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
pub(super) struct BatchEntry {
    pub(super) hold: BatchHold,
    pub(super) expires_at: Instant,
    pub(super) waiter: Option<oneshot::Sender<Vec<Decided>>>,
    /// Items still held.
    pub(super) held: usize,
}

impl BatchEntry {
    /// The batch as `assent pending` shows it: a summary line and its held items.
    pub(super) fn listed(&self, token: &str, now: Instant) -> PendingItem {
        let held: Vec<PendingBatchItem> = self
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
        shorten_item(PendingItem {
            token: token.to_string(),
            uid: self.hold.requester.uid,
            pid: self.hold.requester.pid,
            origin: self.hold.origin,
            subject: format!(
                "batch of {} items, {} held",
                self.hold.items.len(),
                held.len()
            ),
            cwd: None,
            level: held.iter().map(|i| i.level).max().unwrap_or_default(),
            findings: Vec::new(),
            session: self.hold.session.clone(),
            expires_in_ms: millis(self.expires_at.saturating_duration_since(now)),
            items: held,
            program: self.hold.program.clone(),
            // Each item is remembered by its own signature.
            signature: String::new(),
            agent: self.hold.agent.clone(),
        })
    }
}

impl Pending {
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
        let batch = BatchEntry {
            hold,
            expires_at,
            waiter: tx,
            held,
        };
        self.approvers.push_held(
            batch.hold.owner,
            batch.hold.requester.sid,
            &batch.listed(&token, Instant::now()),
        );
        inner.batches.insert(token.clone(), batch);
        Ok(HeldBatch {
            token,
            expires_at,
            outcome: rx,
        })
    }

    /// Remove a batch under the lock; the caller settles its held items after releasing it.
    pub(super) fn take_batch(inner: &mut Inner, token: &str) -> Option<BatchEntry> {
        let batch = inner.batches.remove(token)?;
        inner.release(batch.hold.requester.uid, batch.held);
        Some(batch)
    }

    /// Answer a batch's held items under the lock: all of them, or item `n`. Each answered
    /// item is marked under the lock (two answers to one item: the first marks it, the second
    /// finds it no longer held), audited after; the last one settles the batch.
    pub(super) fn answer_batch(
        &self,
        mut guard: MutexGuard<'_, Inner>,
        token: &str,
        item: Option<u32>,
        by: &Answerer,
        allow: bool,
    ) -> Result<Vec<Approved>, RequestError> {
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
        if let Err(error) = authorise(
            &batch.hold.requester,
            batch.hold.owner,
            &batch.hold.session,
            by,
            allow,
        ) {
            self.refused(batch_about(&batch.hold), token, by, &error);
            return Err(error);
        }
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
        let mut approved = Vec::new();
        for &index in &chosen {
            batch.hold.items[index].decided = Some(outcome.clone());
            events.push(item_event(token, &batch.hold, index, &outcome));
            if allow {
                approved.push(Approved {
                    owner: batch.hold.owner,
                    signature: batch.hold.items[index].signature.clone(),
                    session: batch.hold.session.clone(),
                    sid: batch.hold.requester.sid,
                });
            }
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
        Ok(approved)
    }

    /// Withdraw a batch on its owner's behalf, under the lock `guard` (the token is a batch's).
    pub(super) fn cancel_batch(
        &self,
        mut guard: MutexGuard<'_, Inner>,
        token: &str,
        uid: u32,
        why: &str,
    ) -> Result<(), RequestError> {
        let Some(batch) = guard.batches.get(token) else {
            return Err(RequestError::NotFound);
        };
        let owner = batch.hold.requester.uid;
        if uid != owner && uid != batch.hold.owner && uid != 0 {
            return Err(RequestError::UserMismatch { caller: uid, owner });
        }
        let batch = Self::take_batch(&mut guard, token);
        drop(guard);
        if let Some(batch) = batch {
            let outcome = Decided {
                allow: false,
                by: DecidedBy::Cancelled,
                reason: format!("cancelled: {why}"),
            };
            self.settle_batch(token, batch, outcome);
        }
        Ok(())
    }

    /// The one place a batch ends: every item still held gets `outcome` (one audit event and
    /// one count each), then the waiter hears every item's outcome in order.
    pub(super) fn settle_batch(&self, token: &str, mut batch: BatchEntry, outcome: Decided) {
        self.approvers
            .push_withdrawn(batch.hold.owner, batch.hold.requester.sid, token, &outcome);
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
/// A held batch as one audit event shows it: its items in one line, the highest level, every
/// finding once.
fn batch_about(hold: &BatchHold) -> AuditEvent {
    let subjects: Vec<&str> = hold.items.iter().map(|i| i.subject.as_str()).collect();
    let mut findings: Vec<String> = Vec::new();
    for finding in hold.items.iter().flat_map(|i| &i.findings) {
        if !findings.contains(&finding.id) {
            findings.push(finding.id.clone());
        }
    }
    AuditEvent {
        time_ms: 0,
        uid: hold.requester.uid,
        pid: hold.requester.pid,
        origin: hold.origin,
        subject: format!("batch of {}: {}", hold.items.len(), subjects.join("; ")),
        level: hold.items.iter().map(|i| i.level).max().unwrap_or_default(),
        findings,
        decision: Decision::Confirm,
        by: DecidedBy::Policy,
        reason: String::new(),
        token: None,
        agent: hold.agent.clone(),
        program: Some(hold.program.clone()),
    }
}

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
        agent: hold.agent.clone(),
        program: Some(hold.program.clone()),
    }
}
