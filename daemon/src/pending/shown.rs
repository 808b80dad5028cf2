//! How a held request looks to approval agents and `assent pending` (a listed item, its long
//! parts shortened to fit a packet) and in the audit trail (one event per ended item, and the
//! request as a whole when an answer to it is refused).

use assent_client::protocol::{
    AuditEvent, Decided, DecidedBy, Decision, PendingBatchItem, PendingItem,
};
use tokio::time::Instant;

use super::{Entry, Hold, Sent, digest, excerpt, millis, now_ms};

/// Commands of a listed request are shortened to this many bytes.
const LISTED_SUBJECT_MAX: usize = 4096;
/// Items of a listed batch are shortened to this many bytes each.
const LISTED_BATCH_SUBJECT_MAX: usize = 512;
/// Findings listed per item of a batch, at most.
const LISTED_BATCH_FINDINGS_MAX: usize = 8;

/// A held request as approvers and `assent pending` see it: a single one as itself, a batch
/// as a summary line with its held items (numbered from 1 as sent).
pub(super) fn listed(token: &str, e: &Entry, now: Instant) -> PendingItem {
    let hold = &e.hold;
    let mut item = PendingItem {
        token: token.to_string(),
        uid: hold.requester.uid,
        pid: hold.requester.pid,
        origin: hold.origin,
        subject: String::new(),
        cwd: None,
        level: hold.items.iter().map(|i| i.level).max().unwrap_or_default(),
        findings: Vec::new(),
        session: hold.session.clone(),
        expires_in_ms: millis(e.expires_at.saturating_duration_since(now)),
        items: Vec::new(),
        program: hold.program.clone(),
        // A batch's items are each remembered by their own signature.
        signature: String::new(),
        agent: hold.agent.clone(),
        // Over the whole request, before anything is shortened below.
        digest: digest::of(hold),
    };
    match (&hold.sent, hold.items.first()) {
        (Sent::One { .. }, Some(one)) => {
            item.subject = one.subject.clone();
            item.cwd = one.cwd.clone();
            item.findings = one.findings.clone();
            item.signature = one.signature.clone();
        }
        _ => {
            item.items = hold
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
            item.level = item.items.iter().map(|i| i.level).max().unwrap_or_default();
            item.subject = format!(
                "batch of {} items, {} held",
                hold.items.len(),
                item.items.len()
            );
        }
    }
    shorten_item(item)
}

/// A held request as one audit event shows it: a single one as itself; a batch's items in one
/// line, the highest level, every finding once.
pub(super) fn about(hold: &Hold) -> AuditEvent {
    let mut findings: Vec<String> = Vec::new();
    for finding in hold.items.iter().flat_map(|i| &i.findings) {
        if !findings.contains(&finding.id) {
            findings.push(finding.id.clone());
        }
    }
    let (subject, reason) = match (&hold.sent, hold.items.first()) {
        (Sent::One { .. }, Some(one)) => (one.subject.clone(), one.reason.clone()),
        _ => {
            let subjects: Vec<&str> = hold.items.iter().map(|i| i.subject.as_str()).collect();
            let subject = format!("batch of {}: {}", hold.items.len(), subjects.join("; "));
            (subject, String::new())
        }
    };
    AuditEvent {
        time_ms: 0,
        uid: hold.requester.uid,
        pid: hold.requester.pid,
        origin: hold.origin,
        subject,
        level: hold.items.iter().map(|i| i.level).max().unwrap_or_default(),
        findings,
        decision: Decision::Confirm,
        by: DecidedBy::Policy,
        reason,
        token: None,
        agent: hold.agent.clone(),
        program: Some(hold.program.clone()),
        cwd: common_cwd(hold),
        refused: None,
        refused_places: Vec::new(),
        grant: None,
    }
}

/// The one working directory of a hold's items, when they share it.
fn common_cwd(hold: &Hold) -> Option<String> {
    let first = hold.items.first()?.cwd.as_ref()?;
    hold.items
        .iter()
        .all(|i| i.cwd.as_ref() == Some(first))
        .then(|| first.clone())
}

/// The audit event of item `index` ended with `outcome`; a batch's reason names the item.
pub(super) fn item_event(token: &str, hold: &Hold, index: usize, outcome: &Decided) -> AuditEvent {
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
        reason: match hold.sent {
            Sent::One { .. } => outcome.reason.clone(),
            Sent::Batch => format!("batch item {}: {}", index + 1, outcome.reason),
        },
        token: Some(token.to_string()),
        agent: hold.agent.clone(),
        program: Some(hold.program.clone()),
        refused_places: Vec::new(),
        grant: None,
        cwd: item.cwd.clone(),
        refused: None,
    }
}

/// Cut `text` to at most `max` bytes at a character boundary, marking the cut.
fn shorten(text: &mut String, max: usize) {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
}

/// Shorten a listed request's long parts, so that one item always fits a packet and what is
/// queued for an approval agent stays small; a command keeps the text around its dangerous
/// findings ([`excerpt`]).
fn shorten_item(mut item: PendingItem) -> PendingItem {
    excerpt::cut(&mut item.subject, &mut item.findings, LISTED_SUBJECT_MAX);
    shorten(&mut item.signature, LISTED_SUBJECT_MAX);
    for held in &mut item.items {
        excerpt::cut(
            &mut held.subject,
            &mut held.findings,
            LISTED_BATCH_SUBJECT_MAX,
        );
        held.findings.truncate(LISTED_BATCH_FINDINGS_MAX);
    }
    item
}
