//! Counters for `assent status`.

use std::sync::atomic::{AtomicU64, Ordering};

use assent_client::protocol::Decision;

/// Decisions since the daemon started.
#[derive(Debug, Default)]
pub struct Stats {
    allowed: AtomicU64,
    denied: AtomicU64,
    held: AtomicU64,
}

impl Stats {
    /// Count one decision: a final allow or deny, or a request being held.
    pub fn record(&self, decision: Decision) {
        let counter = match decision {
            Decision::Allow => &self.allowed,
            Decision::Deny => &self.denied,
            Decision::Confirm => &self.held,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// (allowed, denied, held).
    pub fn snapshot(&self) -> (u64, u64, u64) {
        (
            self.allowed.load(Ordering::Relaxed),
            self.denied.load(Ordering::Relaxed),
            self.held.load(Ordering::Relaxed),
        )
    }
}
