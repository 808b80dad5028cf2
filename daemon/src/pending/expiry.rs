//! Held requests nobody answered: ended at their deadline, by the sweep, or all at
//! once when the daemon stops; and the memory of expired tokens, so a late answer hears
//! `expired`, not `not_found`.

use std::time::Duration;

use assent_client::protocol::{Decided, DecidedBy};
use tokio::time::Instant;

use super::{Entry, Inner, Pending};

/// How many expired tokens are remembered so a late answer hears `expired`, not `not_found`.
const EXPIRED_MEMORY: usize = 1024;

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
        let entry = {
            let mut inner = self.lock();
            let entry = Self::take(&mut inner, token);
            if entry.is_some() {
                Self::remember_expired(&mut inner, token);
            }
            entry
        };
        match entry {
            Some(entry) => {
                self.settle(token, entry, expired(self.ttl()));
                true
            }
            None => false,
        }
    }

    /// End every request whose deadline has passed (those nobody waits on; waiting connections
    /// expire their own on time). Returns how many ended.
    pub fn sweep(&self) -> usize {
        let now = Instant::now();
        let ended: Vec<(String, Entry)> = {
            let mut inner = self.lock();
            let due: Vec<String> = inner
                .entries
                .iter()
                .filter(|(_, e)| e.expires_at <= now)
                .map(|(t, _)| t.clone())
                .collect();
            due.into_iter()
                .filter_map(|token| {
                    let entry = Self::take(&mut inner, &token)?;
                    Self::remember_expired(&mut inner, &token);
                    Some((token, entry))
                })
                .collect()
        };
        let count = ended.len();
        for (token, entry) in ended {
            self.settle(&token, entry, expired(self.ttl()));
        }
        count
    }

    /// End every held request with `outcome` (the daemon is stopping).
    pub fn drain(&self, outcome: &Decided) {
        let all: Vec<(String, Entry)> = {
            let mut inner = self.lock();
            inner.per_uid.clear();
            inner.entries.drain().collect()
        };
        for (token, entry) in all {
            self.settle(&token, entry, outcome.clone());
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
