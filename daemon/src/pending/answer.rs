//! Answering a held request: an approver's answer (with what it allows to be remembered),
//! whole or item by item, and the terminal prompt's answer from the requesting connection.

use assent_client::protocol::{Decided, DecidedBy, Origin};
use tokio::time::Instant;

use super::expiry::expired;
use super::validate::{answered, authorise};
use super::{Allowing, Answerer, Approved, Hold, Inner, Pending, Sent};
use crate::error::RequestError;
use crate::policy::Approval;

impl Pending {
    /// What an allow of this held request (or of these batch items) would be, once the
    /// answerer is authorised to answer it at all: how it must be given, and what it approves.
    /// Nothing is taken or settled, so what the answer remembers can be in force before the
    /// requester is released. An unknown, expired or wrongly numbered request is reported as
    /// the answer itself would report it.
    pub fn allowing(
        &self,
        token: &str,
        item: Option<u32>,
        by: &Answerer,
    ) -> Result<Allowing, RequestError> {
        let inner = self.lock();
        let Some(entry) = inner.entries.get(token) else {
            return Err(gone(&inner, token));
        };
        if entry.expires_at <= Instant::now() {
            return Err(RequestError::Expired);
        }
        let hold = &entry.hold;
        authorise(
            &hold.requester,
            hold.owner,
            &hold.session,
            by,
            true,
            &inner.agents,
        )?;
        let chosen = chosen(hold, item)?;
        Ok(Allowing {
            approval: chosen
                .iter()
                .map(|&i| hold.items[i].approval)
                .max_by_key(|a| *a == Approval::Password)
                .unwrap_or_default(),
            approved: approved(hold, &chosen),
            subjects: chosen
                .iter()
                .map(|&i| hold.items[i].subject.clone())
                .collect(),
        })
    }

    /// Answer a held request whole (`item: None`), or one item of a batch (from 1). Checks, in
    /// order: it exists and has not expired, the answerer's uid is the owner's or root, the
    /// answerer's session label (if scoped) matches, the answerer is not the requester's own
    /// agent or session (for an allow), and the item is one still held (`NoSuchItem`; an item
    /// of a single request is `Invalid`). Returns what was allowed, for remembering (empty for
    /// a deny).
    ///
    /// Items answered while others stay held are marked under the lock (two answers to one
    /// item: the first marks it, the second finds it no longer held) and audited after; the
    /// answer that leaves nothing held ends the request.
    pub fn answer_item(
        &self,
        token: &str,
        item: Option<u32>,
        by: &Answerer,
        allow: bool,
    ) -> Result<Vec<Approved>, RequestError> {
        let mut guard = self.lock();
        let inner = &mut *guard;
        let Some(entry) = inner.entries.get_mut(token) else {
            return Err(gone(inner, token));
        };
        if entry.expires_at <= Instant::now() {
            let ended = Self::take(inner, token);
            Self::remember_expired(inner, token);
            drop(guard);
            if let Some(entry) = ended {
                self.settle(token, entry, expired(self.ttl()));
            }
            return Err(RequestError::Expired);
        }
        let hold = &entry.hold;
        if let Err(error) = authorise(
            &hold.requester,
            hold.owner,
            &hold.session,
            by,
            allow,
            &inner.agents,
        ) {
            self.refused(hold, token, by, &error);
            return Err(error);
        }
        let chosen = chosen(hold, item)?;
        let outcome = answered(by, allow);
        let approved = if allow {
            approved(hold, &chosen)
        } else {
            Vec::new()
        };
        if chosen.len() == entry.held {
            let ended = Self::take(inner, token);
            drop(guard);
            if let Some(entry) = ended {
                self.settle(token, entry, outcome);
            }
            return Ok(approved);
        }
        let mut events = Vec::with_capacity(chosen.len());
        for &index in &chosen {
            entry.hold.items[index].decided = Some(outcome.clone());
            events.push(super::shown::item_event(
                token,
                &entry.hold,
                index,
                &outcome,
            ));
        }
        entry.held -= chosen.len();
        let uid = entry.hold.requester.uid;
        inner.release(uid, chosen.len());
        drop(guard);
        for event in events {
            self.record(event);
        }
        Ok(approved)
    }

    /// Answer a held request whole; see [`Pending::answer_item`].
    pub fn answer(
        &self,
        token: &str,
        by: &Answerer,
        allow: bool,
    ) -> Result<Vec<Approved>, RequestError> {
        self.answer_item(token, None, by, allow)
    }

    /// The terminal prompt's answer, from the requesting connection itself. Accepted only
    /// for a single request of origin interactive whose requester is its owner, asked on
    /// this very connection, when `terminal` says the requester is at its terminal
    /// ([`crate::peer::PeerIdentity::at_its_terminal`]: the processes from it up to its
    /// session's leader, none of them an agent that asked lately).
    pub fn prompted(
        &self,
        token: &str,
        conn_id: u64,
        terminal: Result<Vec<crate::peer::Proc>, String>,
        allow: bool,
    ) -> Result<Vec<Approved>, RequestError> {
        let (entry, outcome, approved) = {
            let mut inner = self.lock();
            let Some(entry) = inner.entries.get(token) else {
                return Err(RequestError::NotFound);
            };
            let hold = &entry.hold;
            if hold.sent == Sent::Batch {
                return Err(RequestError::Invalid(
                    "a batch is not answered at a terminal prompt".into(),
                ));
            }
            if hold.requester.conn_id != conn_id || hold.origin != Origin::Interactive {
                return Err(RequestError::SelfApproval(None));
            }
            let refused = |why: String| {
                Err(RequestError::SelfApproval(Some(format!(
                    "a terminal prompt's answer, but {why}"
                ))))
            };
            let walked = match terminal {
                Ok(walked) => walked,
                Err(why) => return refused(why),
            };
            // Above the requester itself (which the hold took for its own agent when nothing
            // above it asked).
            if let Some(agent) = inner.agents.iter().find(|agent| {
                walked
                    .iter()
                    .skip(1)
                    .any(|p| p.pid == agent.proc.pid && p.start == agent.proc.start)
            }) {
                return refused(format!("it runs under {}, an agent that asked", agent.proc));
            }
            if hold.requester.uid != hold.owner {
                return Err(RequestError::UserMismatch {
                    caller: hold.requester.uid,
                    owner: hold.owner,
                });
            }
            let verb = if allow { "allowed" } else { "denied" };
            let outcome = Decided {
                allow,
                by: DecidedBy::User,
                reason: format!("{verb} at the terminal (pid {})", hold.requester.pid),
            };
            let approved = if allow {
                approved(hold, &chosen(hold, None)?)
            } else {
                Vec::new()
            };
            (Self::take(&mut inner, token), outcome, approved)
        };
        if let Some(entry) = entry {
            self.settle(token, entry, outcome);
        }
        Ok(approved)
    }
}

/// Why a token names no held request: it expired a while ago, or it never did (or was
/// answered already).
fn gone(inner: &Inner, token: &str) -> RequestError {
    if inner.expired.iter().any(|t| t == token) {
        RequestError::Expired
    } else {
        RequestError::NotFound
    }
}

/// The items an answer is for: every one still held, or item `n` (from 1) of a batch.
fn chosen(hold: &Hold, item: Option<u32>) -> Result<Vec<usize>, RequestError> {
    let count = hold.items.len();
    match (item, &hold.sent) {
        (None, _) => Ok((0..count)
            .filter(|&i| hold.items[i].decided.is_none())
            .collect()),
        (Some(_), Sent::One { .. }) => Err(RequestError::Invalid(
            "this token is a single held request, not a batch: answer it without --item".into(),
        )),
        (Some(n), Sent::Batch) => {
            let index = usize::try_from(n).unwrap_or(usize::MAX);
            if index == 0 || index > count {
                return Err(RequestError::NoSuchItem(format!(
                    "the batch has items 1 to {count}; there is no item {n}"
                )));
            }
            if let Some(decided) = &hold.items[index - 1].decided {
                let how = if decided.allow { "allowed" } else { "denied" };
                return Err(RequestError::NoSuchItem(format!(
                    "item {n} of the batch is not held: it was {how} by {}",
                    decided.by.as_str()
                )));
            }
            Ok(vec![index - 1])
        }
    }
}

/// What allowing items `chosen` of `hold` would remember.
fn approved(hold: &Hold, chosen: &[usize]) -> Vec<Approved> {
    chosen
        .iter()
        .map(|&i| Approved {
            owner: hold.owner,
            signature: hold.items[i].signature.clone(),
            session: hold.session.clone(),
            sid: hold.requester.sid,
        })
        .collect()
}
