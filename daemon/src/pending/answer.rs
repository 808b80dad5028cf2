//! Answering a held request: an approver's answer (with what it allows to be remembered) and
//! the terminal prompt's answer from the requesting connection itself.

use assent_client::protocol::{Decided, DecidedBy, Origin};
use tokio::time::Instant;

use super::expiry::expired;
use super::validate::{answered, authorise};
use super::{Allowing, Answerer, Approved, Entry, Pending};
use crate::error::RequestError;
use crate::policy::Approval;

impl Pending {
    /// What an allow of this held request (or of these batch items) would be, once the
    /// answerer is authorised to answer it at all: how it must be given, and what it approves.
    /// Nothing is taken or settled, so what the answer remembers can be in force before the
    /// requester is released. An unknown or expired token is reported as the answer itself
    /// would report it.
    pub fn allowing(
        &self,
        token: &str,
        item: Option<u32>,
        by: &Answerer,
    ) -> Result<Allowing, RequestError> {
        let inner = self.lock();
        if let Some(entry) = inner.entries.get(token) {
            if entry.expires_at <= Instant::now() {
                return Err(RequestError::Expired);
            }
            let hold = &entry.hold;
            authorise(&hold.requester, hold.owner, &hold.session, by, true)?;
            return Ok(Allowing {
                approval: hold.approval,
                approved: vec![Approved {
                    owner: hold.owner,
                    signature: hold.signature.clone(),
                    session: hold.session.clone(),
                    sid: hold.requester.sid,
                }],
            });
        }
        let Some(batch) = inner.batches.get(token) else {
            return Err(if inner.expired.iter().any(|t| t == token) {
                RequestError::Expired
            } else {
                RequestError::NotFound
            });
        };
        let hold = &batch.hold;
        authorise(&hold.requester, hold.owner, &hold.session, by, true)?;
        let items = &hold.items;
        let chosen = |i: usize| match item {
            Some(n) => usize::try_from(n).is_ok_and(|n| n == i + 1),
            None => items[i].decided.is_none(),
        };
        let chosen: Vec<usize> = (0..items.len()).filter(|&i| chosen(i)).collect();
        Ok(Allowing {
            approval: chosen
                .iter()
                .map(|&i| items[i].approval)
                .max_by_key(|a| *a == Approval::Password)
                .unwrap_or_default(),
            approved: chosen
                .iter()
                .filter(|&&i| items[i].decided.is_none())
                .map(|&i| Approved {
                    owner: hold.owner,
                    signature: items[i].signature.clone(),
                    session: hold.session.clone(),
                    sid: hold.requester.sid,
                })
                .collect(),
        })
    }

    /// Answer a held request. Checks, in order: it exists and has not expired, the answerer's
    /// uid is the owner's or root, the answerer's session label (if scoped) matches, and the
    /// answerer is neither the requesting connection nor a process of its login session.
    pub fn answer(
        &self,
        token: &str,
        by: &Answerer,
        allow: bool,
    ) -> Result<Vec<Approved>, RequestError> {
        self.answer_item(token, None, by, allow)
    }

    /// Answer a held request, a whole batch (`item: None`), or one item of a batch (from 1).
    /// The same checks as [`Pending::answer`]; an item out of range or not held is
    /// `NoSuchItem`, and `item` with a single request's token is `Invalid`. Returns what was
    /// allowed, for remembering (empty for a deny).
    pub fn answer_item(
        &self,
        token: &str,
        item: Option<u32>,
        by: &Answerer,
        allow: bool,
    ) -> Result<Vec<Approved>, RequestError> {
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
            if let Err(error) = authorise(
                &entry.hold.requester,
                entry.hold.owner,
                &entry.hold.session,
                by,
                allow,
            ) {
                self.refused(Self::about(&entry.hold), token, by, &error);
                return Err(error);
            }
            Self::take(&mut inner, token)
        };
        Ok(self.settle_answered(token, entry, answered(by, allow)))
    }

    /// The terminal prompt's answer, from the requesting connection itself. Accepted only
    /// for a single request of origin interactive whose requester is its owner, asked on
    /// this very connection, when `terminal` (the requester has a controlling terminal).
    pub fn prompted(
        &self,
        token: &str,
        conn_id: u64,
        terminal: bool,
        allow: bool,
    ) -> Result<Vec<Approved>, RequestError> {
        let (entry, outcome) = {
            let mut inner = self.lock();
            let Some(entry) = inner.entries.get(token) else {
                return Err(if inner.batches.contains_key(token) {
                    RequestError::Invalid("a batch is not answered at a terminal prompt".into())
                } else {
                    RequestError::NotFound
                });
            };
            let hold = &entry.hold;
            if hold.requester.conn_id != conn_id || hold.origin != Origin::Interactive || !terminal
            {
                return Err(RequestError::SelfApproval(None));
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
            (Self::take(&mut inner, token), outcome)
        };
        Ok(self.settle_answered(token, entry, outcome))
    }

    /// Settle an answered request and say what to remember.
    fn settle_answered(
        &self,
        token: &str,
        entry: Option<Entry>,
        outcome: Decided,
    ) -> Vec<Approved> {
        let Some(entry) = entry else {
            return Vec::new();
        };
        let approved = outcome
            .allow
            .then(|| Approved {
                owner: entry.hold.owner,
                signature: entry.hold.signature.clone(),
                session: entry.hold.session.clone(),
                sid: entry.hold.requester.sid,
            })
            .into_iter()
            .collect();
        self.settle(token, entry, outcome);
        approved
    }
}
