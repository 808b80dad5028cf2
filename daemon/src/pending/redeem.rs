//! Redeeming the token of a request held without a waiter (`check --no-wait`): the requester
//! pauses, a person answers, and the requester comes back with the token to run it.
//!
//! When a person answers such a request, its outcome is kept under its token for one hold TTL
//! ([`Pending::keep_answered`]). [`Pending::redeem`] hands it out once, to the requester's uid,
//! for the same session label and exactly the same subject, and forgets it as it does: a token
//! allows one run of what was approved, nothing else, and never twice.

use assent_client::protocol::{Decided, Subject};
use tokio::time::Instant;

use super::{Hold, Pending, Sent};
use crate::error::RequestError;

/// Answered tokens kept at most, over all users; the oldest are forgotten first.
const ANSWERED_MEMORY: usize = 4096;

/// A held request a person answered, waiting to be redeemed.
#[derive(Debug)]
pub(super) struct Answered {
    /// The requesting uid: the only one that may redeem it.
    uid: u32,
    /// The session label it was held for.
    session: Option<String>,
    /// The subject exactly as it was sent ([`exact`]).
    exact: String,
    /// The person's answer.
    outcome: Decided,
    /// When the token stops being redeemable.
    until: Instant,
}

/// What redeeming a token gives.
#[derive(Debug, Clone, PartialEq)]
pub enum Redeemed {
    /// A person answered: allowed or denied, and the token is spent.
    Answered(Decided),
    /// Nobody has answered yet; the request is still held, for this long.
    StillHeld {
        /// Milliseconds until it expires.
        expires_in_ms: u64,
    },
}

/// A subject exactly as it was sent, for comparing a redeemed subject with the held one: the
/// kind, the directory and the whole command, or the tool and its whole arguments.
pub fn exact(subject: &Subject) -> String {
    match subject {
        Subject::Shell {
            command,
            cwd,
            truncated,
        } => format!("shell\0{cwd}\0{truncated}\0{command}"),
        Subject::Tool {
            name,
            args_json,
            cwd,
        } => format!(
            "tool\0{}\0{name}\0{args_json}",
            cwd.as_deref().unwrap_or_default()
        ),
    }
}

impl Pending {
    /// Keep a person's answer to a request nobody waits for, so its requester can redeem it.
    /// Only a single request can be redeemed; a batch's answer is not kept.
    pub(super) fn keep_answered(&self, token: &str, hold: &Hold, outcome: &Decided) {
        let Sent::One { exact } = &hold.sent else {
            return;
        };
        let mut inner = self.lock();
        while inner.answered_order.len() >= ANSWERED_MEMORY {
            let Some(oldest) = inner.answered_order.pop_front() else {
                break;
            };
            inner.answered.remove(&oldest);
        }
        inner.answered.insert(
            token.to_string(),
            Answered {
                uid: hold.requester.uid,
                session: hold.session.clone(),
                exact: exact.clone(),
                outcome: outcome.clone(),
                until: Instant::now() + self.ttl(),
            },
        );
        inner.answered_order.push_back(token.to_string());
    }

    /// Redeem `token` for `subject` ([`exact`]) as `uid` with session label `session`: the
    /// person's answer, consumed atomically, or that it is still held. Errors: `not_found`
    /// (unknown or already redeemed), `expired`, `user_mismatch`, `session_mismatch`, and
    /// `invalid` for another subject or a batch's token. A refused redeem spends nothing.
    pub fn redeem(
        &self,
        token: &str,
        uid: u32,
        session: &Option<String>,
        subject: &str,
    ) -> Result<Redeemed, RequestError> {
        let mut inner = self.lock();
        let now = Instant::now();
        if let Some(entry) = inner.entries.get(token) {
            let hold = &entry.hold;
            let Sent::One { exact } = &hold.sent else {
                return Err(RequestError::Invalid(
                    "a batch's token is answered item by item and cannot be redeemed; send the call again"
                        .into(),
                ));
            };
            check_requester(
                hold.requester.uid,
                &hold.session,
                exact,
                uid,
                session,
                subject,
            )?;
            let left = entry.expires_at.saturating_duration_since(now);
            return Ok(Redeemed::StillHeld {
                expires_in_ms: u64::try_from(left.as_millis()).unwrap_or(u64::MAX),
            });
        }
        let Some(answered) = inner.answered.get(token) else {
            return Err(if inner.expired.iter().any(|t| t == token) {
                RequestError::Expired
            } else {
                RequestError::NotFound
            });
        };
        if answered.until <= now {
            inner.answered.remove(token);
            inner.answered_order.retain(|t| t != token);
            Self::remember_expired(&mut inner, token);
            return Err(RequestError::Expired);
        }
        check_requester(
            answered.uid,
            &answered.session,
            &answered.exact,
            uid,
            session,
            subject,
        )?;
        let answered = inner.answered.remove(token).ok_or(RequestError::NotFound)?;
        inner.answered_order.retain(|t| t != token);
        Ok(Redeemed::Answered(answered.outcome))
    }
}

/// The redeemer must be the requester: its uid, its session label, its subject.
fn check_requester(
    owner: u32,
    held_session: &Option<String>,
    held_subject: &str,
    uid: u32,
    session: &Option<String>,
    subject: &str,
) -> Result<(), RequestError> {
    if uid != owner {
        return Err(RequestError::UserMismatch { caller: uid, owner });
    }
    if held_session.is_some() && session != held_session {
        return Err(RequestError::SessionMismatch {
            caller: session.clone(),
            owner: held_session.clone(),
        });
    }
    if subject != held_subject {
        return Err(RequestError::Invalid(
            "this token was given for another command or tool call; redeem it with exactly the one that was held"
                .into(),
        ));
    }
    Ok(())
}
