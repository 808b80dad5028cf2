//! Held requests and batches nobody answered: ended at their deadline, by the sweep, or all at
//! once when the daemon stops; and the memory of expired tokens, so a late answer hears
//! `expired`, not `not_found`.

use std::time::Duration;

use assent_client::protocol::{Decided, DecidedBy};
use tokio::time::Instant;

use super::{BatchEntry, Entry, Inner, Pending};

/// How many expired tokens are remembered so a late answer hears `expired`, not `not_found`.
const EXPIRED_MEMORY: usize = 1024;

/// Requests and batches taken out of the store together, to settle after the lock.
type Ended = (Vec<(String, Entry)>, Vec<(String, BatchEntry)>);

impl Pending {
    pub(super) fn remember_expired(inner: &mut Inner, token: &str) {
        if inner.expired.len() >= EXPIRED_MEMORY {
            inner.expired.pop_front();
        }
        inner.expired.push_back(token.to_string());
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
}

/// The outcome of a request nobody answered within `ttl`.
pub(super) fn expired(ttl: Duration) -> Decided {
    Decided {
        allow: false,
        by: DecidedBy::Timeout,
        reason: format!("no answer within {} s", ttl.as_secs()),
    }
}
