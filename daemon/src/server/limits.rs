//! How many connections the daemon takes, and what an idle one costs: caps derived from the
//! descriptor limit (per uid, with a reserve only root may use), the slot a connection holds
//! while it lives, and the receive buffers lent only while a packet is read.

use std::collections::HashMap;
use std::sync::Mutex;

use super::Shared;

/// Descriptors kept free for everything that is not a connection (the policy and state files,
/// the journal, polkit's pipes, the runtime's own).
const RESERVED_FDS: u64 = 64;
/// Descriptors one connection holds: its socket and its peer's pidfd.
const FDS_PER_CONN: u64 = 2;
/// Connections only root may open: another uid can never take the last of them.
const ROOT_RESERVE: usize = 16;
/// The most descriptors the rulesets kept for doors may hold (`rulesets.rs`): a sixteenth of
/// the limit, at most this, and none under [`KEPT_FDS_FROM`] (a plan holds some fifty; a small
/// limit is the connections').
const KEPT_FDS_MAX: u64 = 1024;
const KEPT_FDS_FROM: u64 = 2048;

/// How many connections the process can hold, derived from its descriptor limit at start.
#[derive(Debug, Clone, Copy)]
pub struct ConnLimits {
    /// In all.
    pub total: usize,
    /// Per uid: at most a quarter of the total, so one uid can never take what others need.
    pub per_uid: usize,
    /// Descriptors the rulesets kept for doors may hold, taken before the connections'.
    pub kept_fds: usize,
}

impl ConnLimits {
    /// Raise the process's soft descriptor limit to its hard limit, then derive the caps from
    /// it and the configured per-uid cap.
    pub fn derive(configured_per_uid: usize) -> ConnLimits {
        use nix::sys::resource::{Resource, getrlimit, setrlimit};
        let soft = match getrlimit(Resource::RLIMIT_NOFILE) {
            Ok((soft, hard)) if soft < hard => {
                match setrlimit(Resource::RLIMIT_NOFILE, hard, hard) {
                    Ok(()) => hard,
                    Err(error) => {
                        tracing::warn!(%error, soft, hard, "could not raise the open-descriptor limit");
                        soft
                    }
                }
            }
            Ok((soft, _)) => soft,
            Err(error) => {
                tracing::warn!(%error, "could not read the open-descriptor limit; assuming 1024");
                1024
            }
        };
        let limits = ConnLimits::from_fds(soft, configured_per_uid);
        tracing::info!(
            descriptors = soft,
            connections = limits.total,
            per_uid = limits.per_uid,
            "connection limits"
        );
        limits
    }

    fn from_fds(soft: u64, configured_per_uid: usize) -> ConnLimits {
        let kept = if soft >= KEPT_FDS_FROM {
            (soft / 16).min(KEPT_FDS_MAX)
        } else {
            0
        };
        let total = usize::try_from(soft.saturating_sub(RESERVED_FDS + kept) / FDS_PER_CONN)
            .unwrap_or(usize::MAX)
            .max(ROOT_RESERVE + 4);
        ConnLimits {
            total,
            per_uid: configured_per_uid.min(total / 4).max(1),
            kept_fds: usize::try_from(kept).unwrap_or(0),
        }
    }
}

/// Open connections, per uid and in all.
#[derive(Debug, Default)]
pub(super) struct Connections {
    per_uid: HashMap<u32, usize>,
    total: usize,
}

/// One of a uid's connection slots, returned on drop.
pub(super) struct ConnSlot<'a> {
    shared: &'a Shared,
    uid: u32,
}

impl<'a> ConnSlot<'a> {
    /// A slot for `uid`, or why there is none.
    pub(super) fn take(shared: &'a Shared, uid: u32) -> Result<ConnSlot<'a>, String> {
        let limits = shared.limits;
        let mut connections = shared
            .connections
            .lock()
            .map_err(|_| "the connection table is unavailable".to_string())?;
        let mine = connections.per_uid.get(&uid).copied().unwrap_or(0);
        if mine >= limits.per_uid {
            return Err(format!(
                "uid {uid} already has {} connections open (the most one user may have); close some and retry",
                limits.per_uid
            ));
        }
        let room = if uid == 0 {
            limits.total
        } else {
            limits.total - ROOT_RESERVE
        };
        if connections.total >= room {
            return Err(format!(
                "assentd has {} connections open, all it can hold; retry in a moment",
                connections.total
            ));
        }
        *connections.per_uid.entry(uid).or_default() += 1;
        connections.total += 1;
        Ok(ConnSlot { shared, uid })
    }
}

impl Drop for ConnSlot<'_> {
    fn drop(&mut self) {
        if let Ok(mut connections) = self.shared.connections.lock() {
            connections.total = connections.total.saturating_sub(1);
            if let Some(count) = connections.per_uid.get_mut(&self.uid) {
                *count = count.saturating_sub(1);
                if *count == 0 {
                    connections.per_uid.remove(&self.uid);
                }
            }
        }
    }
}

/// Receive buffers, lent to a connection only while it reads and decodes one packet: an idle
/// connection holds none. A few are kept for reuse; the rest are freed when returned.
#[derive(Debug, Default)]
pub struct Buffers(Mutex<Vec<Vec<u8>>>);

/// Buffers kept for reuse.
const KEPT_BUFFERS: usize = 16;

impl Buffers {
    /// A buffer one byte longer than a packet may be, so an oversized packet is seen.
    pub fn take(&self) -> Vec<u8> {
        self.0
            .lock()
            .ok()
            .and_then(|mut kept| kept.pop())
            .unwrap_or_else(|| vec![0; assent_client::protocol::MAX_MESSAGE_LEN + 1])
    }

    /// Give a buffer back.
    pub fn put(&self, buffer: Vec<u8>) {
        if let Ok(mut kept) = self.0.lock()
            && kept.len() < KEPT_BUFFERS
        {
            kept.push(buffer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_limits_follow_the_descriptors() {
        // The default soft limit: no rulesets kept for doors, 480 connections, 120 per uid,
        // 16 of them only for root.
        let small = ConnLimits::from_fds(1024, 1024);
        assert_eq!((small.kept_fds, small.total, small.per_uid), (0, 480, 120));
        // The unit's LimitNOFILE: the configured cap per uid applies.
        let large = ConnLimits::from_fds(65536, 1024);
        assert_eq!(
            (large.kept_fds, large.total, large.per_uid),
            (1024, 32224, 1024)
        );
        // Absurdly low: still room for root and a few users.
        let tiny = ConnLimits::from_fds(10, 1024);
        assert!(tiny.total > ROOT_RESERVE && tiny.per_uid >= 1);
    }
}
