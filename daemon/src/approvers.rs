//! Approval agents (`assent-notify`): who is registered, and pushing held requests and their
//! ends to them (the polkit pattern, DESIGN "Processes").
//!
//! An agent registers on its connection and from then on receives a [`Response::Held`] for
//! every request it may answer and a [`Response::Withdrawn`] when one ends. Pushes go through a
//! bounded queue per agent and never block the daemon: an agent too slow to drain its queue is
//! dropped (its connection closes, it reconnects and gets a fresh list).
//!
//! Who counts as an approver for a request: an agent of the owner's uid that is not in the
//! requester's login session (an agent there could not answer anyway: `self_approval`).
//! [`Pending`](crate::pending::Pending) calls the pushes under its own lock, so for any request
//! an agent always sees `Held` before `Withdrawn`.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use assent_client::protocol::{Decided, PendingItem, Response, Withdrawn};
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TrySendError;

use crate::error::RequestError;
use crate::peer::PeerIdentity;

/// How many pushes wait for one agent before it is dropped as too slow.
pub const PUSH_QUEUE: usize = 1024;
/// How many agents one uid may have registered at once (one per login session).
pub const MAX_AGENTS_PER_UID: usize = 8;

/// A registered approval agent.
#[derive(Debug, Clone)]
pub struct Agent {
    /// Its connection.
    pub conn_id: u64,
    /// Its uid: it answers requests owned by this uid.
    pub uid: u32,
    /// Its pid.
    pub pid: i32,
    /// Its login session; an agent whose session is unknown is refused.
    pub sid: i32,
    /// What it calls itself.
    pub name: String,
    /// Whether it can show buttons ([`assent_client::protocol::ApproverHello::buttons`]).
    pub buttons: Option<bool>,
}

#[derive(Debug)]
struct Registered {
    agent: Agent,
    tx: mpsc::Sender<Response>,
}

/// The registered approval agents.
#[derive(Debug, Default)]
pub struct Approvers {
    agents: Mutex<Vec<Registered>>,
}

impl Approvers {
    fn lock(&self) -> MutexGuard<'_, Vec<Registered>> {
        // Every mutation is one push, retain or remove: a poisoned list is still consistent.
        self.agents
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Register `agent`, with `snapshot` (the requests it may answer now, oldest first) queued
    /// as its first pushes. One agent per login session: a second is refused, so a process
    /// cannot quietly replace the person's agent.
    pub(crate) fn add(
        &self,
        agent: Agent,
        snapshot: Vec<PendingItem>,
    ) -> Result<mpsc::Receiver<Response>, RequestError> {
        let mut agents = self.lock();
        agents.retain(|r| !r.tx.is_closed());
        if let Some(other) = agents
            .iter()
            .find(|r| r.agent.uid == agent.uid && r.agent.sid == agent.sid)
        {
            return Err(RequestError::Invalid(format!(
                "an approval agent is already registered for login session {} ({}, pid {}); one per session",
                agent.sid, other.agent.name, other.agent.pid
            )));
        }
        if agents.iter().filter(|r| r.agent.uid == agent.uid).count() >= MAX_AGENTS_PER_UID {
            return Err(RequestError::Invalid(format!(
                "uid {} already has {MAX_AGENTS_PER_UID} approval agents registered",
                agent.uid
            )));
        }
        let (tx, rx) = mpsc::channel(PUSH_QUEUE);
        for item in snapshot.into_iter().take(PUSH_QUEUE) {
            // The queue is new and large enough: this cannot fail.
            let _ = tx.try_send(Response::Held(item));
        }
        tracing::info!(
            uid = agent.uid,
            pid = agent.pid,
            sid = agent.sid,
            name = %agent.name,
            "approval agent registered"
        );
        agents.push(Registered { agent, tx });
        Ok(rx)
    }

    /// Forget the agent of connection `conn_id` (it left).
    pub fn remove(&self, conn_id: u64) {
        let mut agents = self.lock();
        let before = agents.len();
        agents.retain(|r| r.agent.conn_id != conn_id);
        if agents.len() != before {
            tracing::info!(conn = conn_id, "approval agent left");
        }
    }

    /// How many agents are registered.
    pub fn count(&self) -> usize {
        self.lock().len()
    }

    /// How many agents are registered for `uid` (for every uid when `None`).
    pub fn count_for(&self, uid: Option<u32>) -> usize {
        self.count_where(uid, |_| true)
    }

    /// How many of those show requests where no button can answer them.
    pub fn without_buttons_for(&self, uid: Option<u32>) -> usize {
        self.count_where(uid, |agent| agent.buttons == Some(false))
    }

    fn count_where(&self, uid: Option<u32>, what: impl Fn(&Agent) -> bool) -> usize {
        self.lock()
            .iter()
            .filter(|r| {
                !r.tx.is_closed() && uid.is_none_or(|uid| r.agent.uid == uid) && what(&r.agent)
            })
            .count()
    }

    /// Whether some agent could answer a request owned by `owner` from login session
    /// `requester_sid`.
    pub fn available(&self, owner: u32, requester_sid: Option<i32>) -> bool {
        self.lock()
            .iter()
            .any(|r| !r.tx.is_closed() && eligible(&r.agent, owner, requester_sid))
    }

    /// Tell the agents that may answer it that a request is held.
    pub(crate) fn push_held(&self, owner: u32, requester_sid: Option<i32>, item: &PendingItem) {
        self.push(owner, requester_sid, || Response::Held(item.clone()));
    }

    /// Tell the agents that were shown it that a request has ended.
    pub(crate) fn push_withdrawn(
        &self,
        owner: u32,
        requester_sid: Option<i32>,
        token: &str,
        outcome: &Decided,
    ) {
        self.push(owner, requester_sid, || {
            Response::Withdrawn(Withdrawn {
                token: token.to_string(),
                outcome: outcome.clone(),
            })
        });
    }

    fn push(&self, owner: u32, requester_sid: Option<i32>, message: impl Fn() -> Response) {
        let mut agents = self.lock();
        if agents.is_empty() {
            return;
        }
        agents.retain(|r| {
            if !eligible(&r.agent, owner, requester_sid) {
                return true;
            }
            match r.tx.try_send(message()) {
                Ok(()) => true,
                Err(TrySendError::Full(_)) => {
                    tracing::warn!(
                        pid = r.agent.pid,
                        name = %r.agent.name,
                        "approval agent too slow to keep up; dropping it (it will reconnect)"
                    );
                    false
                }
                Err(TrySendError::Closed(_)) => false,
            }
        });
    }
}

/// May `agent` answer a request owned by `owner` from login session `requester_sid`? A
/// requester whose session is unknown could be in any session, the agent's included, so no
/// agent counts for it (`validate.rs` refuses a same-uid answer to it likewise).
pub(crate) fn eligible(agent: &Agent, owner: u32, requester_sid: Option<i32>) -> bool {
    agent.uid == owner && requester_sid.is_some_and(|sid| sid != agent.sid)
}

/// In system mode only the installed agents may register (`assent-notify`, and `assent` for
/// `assent watch`): the peer's executable, read through `/proc/PID/exe` while its pidfd pins
/// the pid, must be one of `expected`.
pub fn check_executable(peer: &PeerIdentity, expected: &[PathBuf]) -> Result<(), RequestError> {
    let refuse = |why: String| {
        let names: Vec<String> = expected.iter().map(|e| e.display().to_string()).collect();
        RequestError::Identity(format!(
            "only {} may register as an approval agent: {why}",
            names.join(" or ")
        ))
    };
    if peer.pidfd.is_none() {
        return Err(refuse(
            "this kernel gives no pidfd for the peer, so its executable cannot be verified".into(),
        ));
    }
    let exe = std::fs::read_link(format!("/proc/{}/exe", peer.pid))
        .map_err(|e| refuse(format!("its executable could not be read: {e}")))?;
    // The pid must still be the peer's after the read, or the read may have been of a new
    // process that reused the pid.
    if !peer.still_alive() {
        return Err(refuse(
            "the process ended while it was being checked".into(),
        ));
    }
    if !expected.contains(&exe) {
        return Err(refuse(format!("the peer runs {}", exe.display())));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use assent_client::protocol::{DecidedBy, Level, Origin};

    fn agent(conn_id: u64, uid: u32, sid: i32) -> Agent {
        Agent {
            conn_id,
            uid,
            pid: 100 + i32::try_from(conn_id).unwrap_or(0),
            sid,
            name: "test".into(),
            buttons: None,
        }
    }

    fn item(token: &str) -> PendingItem {
        PendingItem {
            token: token.into(),
            uid: 1000,
            pid: 7,
            origin: Origin::Agent,
            subject: "git push".into(),
            cwd: Some("/".into()),
            level: Level::Moderate,
            findings: vec![],
            session: None,
            expires_in_ms: 1000,
            items: vec![],
            program: "claude".into(),
            signature: "git push in /".into(),
            agent: None,
            digest: String::new(),
        }
    }

    #[test]
    fn an_agent_gets_its_snapshot_then_pushes_for_its_uid_only() {
        let approvers = Approvers::default();
        let mut rx = approvers
            .add(agent(1, 1000, 50), vec![item("pa_old")])
            .expect("registers");
        approvers.push_held(1000, Some(60), &item("pa_new"));
        approvers.push_held(1001, Some(60), &item("pa_other_uid"));
        let outcome = Decided {
            allow: true,
            by: DecidedBy::User,
            reason: "ok".into(),
        };
        approvers.push_withdrawn(1000, Some(60), "pa_new", &outcome);
        let mut seen = Vec::new();
        while let Ok(message) = rx.try_recv() {
            seen.push(match message {
                Response::Held(item) => format!("held {}", item.token),
                Response::Withdrawn(w) => format!("withdrawn {}", w.token),
                other => format!("{other:?}"),
            });
        }
        assert_eq!(seen, ["held pa_old", "held pa_new", "withdrawn pa_new"]);
    }

    #[test]
    fn an_agent_in_the_requesters_session_is_not_an_approver() {
        let approvers = Approvers::default();
        let mut rx = approvers
            .add(agent(1, 1000, 50), vec![])
            .expect("registers");
        assert!(!approvers.available(1000, Some(50)));
        assert!(approvers.available(1000, Some(51)));
        assert!(
            !approvers.available(1000, None),
            "a requester of unknown session could be in the agent's"
        );
        assert!(!approvers.available(1001, Some(51)));
        approvers.push_held(1000, Some(50), &item("pa_self"));
        assert!(rx.try_recv().is_err());
    }

    #[test]
    fn one_agent_per_login_session_and_leaving_frees_the_place() {
        let approvers = Approvers::default();
        let _rx = approvers
            .add(agent(1, 1000, 50), vec![])
            .expect("registers");
        assert!(matches!(
            approvers.add(agent(2, 1000, 50), vec![]),
            Err(RequestError::Invalid(_))
        ));
        let _other_session = approvers
            .add(agent(3, 1000, 51), vec![])
            .expect("registers");
        approvers.remove(1);
        let _again = approvers
            .add(agent(2, 1000, 50), vec![])
            .expect("registers");
        let _root = approvers.add(agent(4, 0, 52), vec![]).expect("registers");
        assert_eq!(approvers.count(), 3);
        assert_eq!(approvers.count_for(Some(1000)), 2);
        assert_eq!(approvers.count_for(Some(1001)), 0);
        assert_eq!(approvers.count_for(None), 3);
    }

    #[test]
    fn a_stalled_agent_is_dropped_not_waited_for() {
        let approvers = Approvers::default();
        let _rx = approvers
            .add(agent(1, 1000, 50), vec![])
            .expect("registers");
        for n in 0..=PUSH_QUEUE {
            approvers.push_held(1000, Some(60), &item(&format!("pa_{n}")));
        }
        assert_eq!(approvers.count(), 0);
        assert!(!approvers.available(1000, Some(60)));
    }

    #[test]
    fn a_closed_agent_is_not_available() {
        let approvers = Approvers::default();
        let rx = approvers
            .add(agent(1, 1000, 50), vec![])
            .expect("registers");
        drop(rx);
        assert!(!approvers.available(1000, Some(60)));
    }
}
