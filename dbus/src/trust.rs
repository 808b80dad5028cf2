//! Whether the notification server may be shown held requests.
//!
//! `org.freedesktop.Notifications` is a name anything on the session bus may take once it is
//! free: an agent that kills the person's notification server and starts one of its own would
//! be shown the requests it is waiting on, and would "click" them. So when the name changes
//! owner (to nobody or to another connection) while requests are held, the agent shows nothing
//! more, to any server, until every request held at that moment has ended: answered through
//! `assent watch` or `assent approve` (the daemon keeps them), cancelled, or expired. Trust
//! comes back then, and is logged at warn; requests held since are shown from that moment.
//! Another program replacing one of the agent's notifications by its id is distrusted the
//! same way.
//!
//! A request's end is known from the daemon's `Withdrawn`, or, if the agent missed it (it was
//! unregistered meanwhile), from its deadline: a request cannot be held past it, so distrust
//! never outlives the longest of them. Pure: callers pass `now`.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// After a request's deadline, how long it may take the daemon's `Withdrawn` to say it ended.
pub const DEADLINE_SLACK: Duration = Duration::from_secs(1);

/// The requests held when the server changed owner, with their deadlines.
#[derive(Debug, Default)]
pub struct Distrust {
    held: HashMap<String, Instant>,
}

/// What [`Distrust::ended`] and [`Distrust::expire`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// Still distrusted (or never was): nothing changed.
    Unchanged,
    /// The last request held at the change ended: the server is trusted again.
    Back,
}

impl Distrust {
    /// Whether nothing may be shown now.
    pub fn active(&self) -> bool {
        !self.held.is_empty()
    }

    /// The server changed owner while these requests (token, deadline) were held.
    pub fn changed(&mut self, held: impl IntoIterator<Item = (String, Instant)>) {
        for (token, deadline) in held {
            let deadline = deadline + DEADLINE_SLACK;
            let at = self.held.entry(token).or_insert(deadline);
            *at = (*at).max(deadline);
        }
    }

    /// How many requests it waits for.
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// Whether it waits for none.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// The daemon says `token` ended.
    pub fn ended(&mut self, token: &str) -> Trust {
        if self.held.remove(token).is_some() && self.held.is_empty() {
            Trust::Back
        } else {
            Trust::Unchanged
        }
    }

    /// Forget requests past their deadline.
    pub fn expire(&mut self, now: Instant) -> Trust {
        let before = self.held.len();
        self.held.retain(|_, deadline| *deadline > now);
        if before > 0 && self.held.is_empty() {
            Trust::Back
        } else {
            Trust::Unchanged
        }
    }

    /// When the next held request passes its deadline, if any is held.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.held.values().min().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_comes_back_when_every_request_held_at_the_change_has_ended() {
        let now = Instant::now();
        let mut distrust = Distrust::default();
        assert!(!distrust.active());
        assert_eq!(distrust.ended("pa_x"), Trust::Unchanged);
        distrust.changed([
            ("pa_a".to_string(), now + Duration::from_secs(5)),
            ("pa_b".to_string(), now + Duration::from_secs(60)),
        ]);
        assert!(distrust.active());
        assert_eq!(distrust.len(), 2);
        // A request held after the change is not waited for.
        assert_eq!(distrust.ended("pa_new"), Trust::Unchanged);
        assert_eq!(distrust.ended("pa_a"), Trust::Unchanged);
        assert!(distrust.active());
        assert_eq!(distrust.ended("pa_b"), Trust::Back);
        assert!(!distrust.active());
    }

    #[test]
    fn a_missed_end_is_bounded_by_the_deadline() {
        let now = Instant::now();
        let mut distrust = Distrust::default();
        distrust.changed([("pa_a".to_string(), now + Duration::from_secs(5))]);
        // A second change while distrusted keeps the later deadline.
        distrust.changed([("pa_a".to_string(), now + Duration::from_secs(9))]);
        assert_eq!(
            distrust.next_deadline(),
            Some(now + Duration::from_secs(9) + DEADLINE_SLACK)
        );
        assert_eq!(
            distrust.expire(now + Duration::from_secs(9)),
            Trust::Unchanged
        );
        assert!(distrust.active());
        assert_eq!(distrust.expire(now + Duration::from_secs(11)), Trust::Back);
        assert_eq!(
            distrust.expire(now + Duration::from_secs(12)),
            Trust::Unchanged
        );
        assert_eq!(distrust.next_deadline(), None);
    }
}
