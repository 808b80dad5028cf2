//! The held requests this agent shows, in arrival order, and what each notification stands for.
//!
//! Pure state: no I/O, no clock of its own (callers pass `now`). The agent loop feeds it the
//! daemon's pushes and the notification server's signals and acts on what it returns.
//!
//! - Identical requests form one group: one notification, and one answer sent to every token
//!   of the group. Identical means the same digest, which the daemon computes over the whole
//!   request (every byte of the command, not the shortened text a listing carries, and who
//!   asked), so requests that only look alike are never answered together.
//! - A batch is one group; "Review" replaces it with one group per held item, all answered
//!   with the batch token and their item number.
//! - A dismissed notification only marks its group; the requests stay held until the daemon
//!   withdraws them. Nothing here ever produces an answer without an action.

use std::time::{Duration, Instant};

use assent_client::protocol::{DecidedBy, PendingItem, Remember, Withdrawn};

use crate::text::action;

/// A group's id, stable for its life.
pub type GroupId = u64;

/// What a group's notification stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// One request, or several identical ones.
    Request,
    /// A batch, answered as a whole.
    Batch,
    /// One item of a batch under review (its number, from 1).
    ReviewItem(u32),
}

/// Where a group's notification is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// Not shown yet (no notification server, or it restarted): show it when one is there.
    Waiting,
    /// Shown with this notification id.
    Up(u32),
    /// Dismissed or expired on the desktop: the request stays held, nothing is shown again.
    Dismissed,
}

/// Requests shown together.
#[derive(Debug, Clone)]
pub struct Group {
    /// Its id.
    pub id: GroupId,
    /// What it stands for.
    pub kind: Kind,
    /// The first request of the group (for a batch and its items: the batch).
    pub item: PendingItem,
    /// Every token answered together, with when each expires.
    tokens: Vec<(String, Instant)>,
    /// Its notification.
    pub shown: Shown,
    /// "Remember…" was clicked: it offers the remembering answers (and Deny) instead.
    pub remembering: bool,
}

impl Group {
    /// How many requests share this group.
    pub fn count(&self) -> usize {
        self.tokens.len()
    }

    /// The time left until the last of its requests expires.
    pub fn left(&self, now: Instant) -> Duration {
        self.tokens
            .iter()
            .map(|(_, deadline)| deadline.saturating_duration_since(now))
            .max()
            .unwrap_or_default()
    }

    /// The notification id, if one is up.
    pub fn notification(&self) -> Option<u32> {
        match self.shown {
            Shown::Up(id) => Some(id),
            Shown::Waiting | Shown::Dismissed => None,
        }
    }

    fn same_request(&self, item: &PendingItem) -> bool {
        // Only the digest: what is shown may be cut, and an empty digest matches nothing.
        self.kind == Kind::Request
            && item.items.is_empty()
            && !item.digest.is_empty()
            && self.item.digest == item.digest
    }
}

/// One `Answer` to send to the daemon.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The token.
    pub token: String,
    /// Allow or deny.
    pub allow: bool,
    /// A batch item, or the whole request.
    pub item: Option<u32>,
    /// How long an allow is remembered (a deny is always once).
    pub remember: Remember,
}

/// What a `Held` push did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// A new group: show it.
    New(GroupId),
    /// Joined an identical request's group: update its notification.
    Joined(GroupId),
    /// A token already known (ignored).
    Known,
}

/// What a `Withdrawn` push did.
#[derive(Debug, Default)]
pub struct Ended {
    /// Groups that are gone: close their notifications.
    pub removed: Vec<Group>,
    /// Groups that lost one of their identical requests: update their notifications.
    pub shrunk: Vec<GroupId>,
    /// It expired unanswered: show a "missed request" notice about this request.
    pub missed: Option<PendingItem>,
}

/// What a clicked button does.
#[derive(Debug)]
pub enum Clicked {
    /// Send these answers; the group is gone, close its notification.
    Answer(Group, Vec<Answer>),
    /// The batch is replaced by one group per item: close its notification, show these.
    Review(Group, Vec<GroupId>),
    /// "Remember…": close the notification and show this group again with the remembering
    /// answers.
    Remembering(GroupId),
    /// Not one of ours, or not a button of this kind of notification.
    Ignored,
}

/// The agent's held requests.
#[derive(Debug, Default)]
pub struct Queue {
    groups: Vec<Group>,
    next_id: GroupId,
}

impl Queue {
    /// An empty queue.
    pub fn new() -> Queue {
        Queue::default()
    }

    /// The groups, oldest first.
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// A group by id.
    pub fn get(&self, id: GroupId) -> Option<&Group> {
        self.groups.iter().find(|g| g.id == id)
    }

    fn add(&mut self, kind: Kind, item: PendingItem, deadline: Instant) -> GroupId {
        self.next_id += 1;
        let id = self.next_id;
        self.groups.push(Group {
            id,
            kind,
            tokens: vec![(item.token.clone(), deadline)],
            item,
            shown: Shown::Waiting,
            remembering: false,
        });
        id
    }

    /// The daemon held a request this agent may answer.
    pub fn held(&mut self, item: PendingItem, now: Instant) -> Held {
        if self
            .groups
            .iter()
            .any(|g| g.tokens.iter().any(|(t, _)| *t == item.token))
        {
            return Held::Known;
        }
        let deadline = now + Duration::from_millis(item.expires_in_ms);
        if let Some(group) = self.groups.iter_mut().find(|g| g.same_request(&item)) {
            group.tokens.push((item.token, deadline));
            return Held::Joined(group.id);
        }
        let kind = if item.items.is_empty() {
            Kind::Request
        } else {
            Kind::Batch
        };
        Held::New(self.add(kind, item, deadline))
    }

    /// The daemon says a request ended.
    pub fn withdrawn(&mut self, withdrawn: &Withdrawn) -> Ended {
        let mut ended = Ended::default();
        let mut kept = Vec::with_capacity(self.groups.len());
        for mut group in std::mem::take(&mut self.groups) {
            let before = group.tokens.len();
            group.tokens.retain(|(t, _)| *t != withdrawn.token);
            if group.tokens.len() == before {
                kept.push(group);
            } else if group.tokens.is_empty() {
                if withdrawn.outcome.by == DecidedBy::Timeout && ended.missed.is_none() {
                    ended.missed = Some(group.item.clone());
                }
                ended.removed.push(group);
            } else {
                ended.shrunk.push(group.id);
                kept.push(group);
            }
        }
        self.groups = kept;
        ended
    }

    fn by_notification(&self, notification: u32) -> Option<usize> {
        self.groups
            .iter()
            .position(|g| g.shown == Shown::Up(notification))
    }

    /// A button was clicked on notification `notification`.
    pub fn clicked(&mut self, notification: u32, key: &str) -> Clicked {
        let Some(index) = self.by_notification(notification) else {
            return Clicked::Ignored;
        };
        let kind = self.groups[index].kind;
        let answer = |allow: bool, remember: Remember| (allow, remember);
        let chosen = match (kind, key) {
            (Kind::Request | Kind::ReviewItem(_), action::ALLOW_ONCE) => {
                answer(true, Remember::Once)
            }
            (Kind::Request | Kind::ReviewItem(_), action::ALLOW_SESSION) => {
                answer(true, Remember::Session)
            }
            (Kind::Request | Kind::ReviewItem(_), action::ALLOW_ALWAYS) => {
                answer(true, Remember::Always)
            }
            (Kind::Request | Kind::ReviewItem(_), action::DENY) => answer(false, Remember::Once),
            (Kind::Request | Kind::ReviewItem(_), action::REMEMBER) => {
                let group = &mut self.groups[index];
                group.remembering = true;
                group.shown = Shown::Waiting;
                return Clicked::Remembering(group.id);
            }
            (Kind::Batch, action::ALLOW_ALL) => answer(true, Remember::Once),
            (Kind::Batch, action::DENY_ALL) => answer(false, Remember::Once),
            (Kind::Batch, action::REVIEW) => {
                let batch = self.groups.remove(index);
                let deadline = batch.tokens.first().map(|(_, d)| *d);
                let mut ids = Vec::new();
                if let Some(deadline) = deadline {
                    for entry in &batch.item.items {
                        ids.push(self.add(
                            Kind::ReviewItem(entry.item),
                            batch.item.clone(),
                            deadline,
                        ));
                    }
                }
                return Clicked::Review(batch, ids);
            }
            _ => return Clicked::Ignored,
        };
        let (allow, remember) = chosen;
        let group = self.groups.remove(index);
        let item = match group.kind {
            Kind::ReviewItem(n) => Some(n),
            Kind::Request | Kind::Batch => None,
        };
        let answers = group
            .tokens
            .iter()
            .map(|(token, _)| Answer {
                token: token.clone(),
                allow,
                item,
                remember,
            })
            .collect();
        Clicked::Answer(group, answers)
    }

    /// The server closed notification `notification` (expired on the desktop, or dismissed).
    /// Returns whether it was one of ours. Its requests stay held.
    pub fn dismissed(&mut self, notification: u32) -> bool {
        match self.by_notification(notification) {
            Some(index) => {
                self.groups[index].shown = Shown::Dismissed;
                true
            }
            None => false,
        }
    }

    /// Record the notification shown for a group.
    pub fn set_shown(&mut self, id: GroupId, shown: Shown) {
        if let Some(group) = self.groups.iter_mut().find(|g| g.id == id) {
            group.shown = shown;
        }
    }

    /// The notification server went away or was replaced: its notifications are gone, so
    /// every group that had one waits to be shown again. Returns those groups' ids.
    pub fn server_lost(&mut self) -> Vec<GroupId> {
        let mut ids = Vec::new();
        for group in &mut self.groups {
            if matches!(group.shown, Shown::Up(_)) {
                group.shown = Shown::Waiting;
            }
            if group.shown == Shown::Waiting {
                ids.push(group.id);
            }
        }
        ids
    }

    /// Every held request's token with its deadline.
    pub fn tokens(&self) -> Vec<(String, Instant)> {
        self.groups
            .iter()
            .flat_map(|g| g.tokens.iter().cloned())
            .collect()
    }

    /// The groups waiting to be shown, oldest first.
    pub fn waiting(&self) -> Vec<GroupId> {
        self.groups
            .iter()
            .filter(|g| g.shown == Shown::Waiting)
            .map(|g| g.id)
            .collect()
    }

    /// The daemon connection ended: every request ended with it. Returns the notifications to
    /// close.
    pub fn clear(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.groups)
            .iter()
            .filter_map(Group::notification)
            .collect()
    }
}

#[cfg(test)]
mod tests;
