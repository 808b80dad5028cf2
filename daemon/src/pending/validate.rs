//! Who may answer a held request, and the outcome an answer gives it.
//!
//! Pure checks on the request's requester, owner and session label: no lock, no settling.

use std::collections::VecDeque;

use assent_client::protocol::{Decided, DecidedBy};

use super::{Answerer, Requester};
use crate::error::RequestError;
use crate::peer::{AGENT_PROGRAMS, AgentFacts, cgroup_within};

/// A person's answer as an outcome.
pub(super) fn answered(by: &Answerer, allow: bool) -> Decided {
    let who = if by.uid == 0 {
        "root".to_string()
    } else {
        format!("uid {}", by.uid)
    };
    let verb = if allow { "allowed" } else { "denied" };
    Decided {
        allow,
        by: DecidedBy::User,
        reason: format!("{verb} by {who} (pid {})", by.pid),
    }
}

/// May `by` answer a request of `requester`, owned by `owner`, of session label `session`,
/// with `allow`? A deny is always safe, so the requester may deny its own request: only an
/// allow must come from somebody else, and never from an agent: `agents` are the agents seen
/// asking lately, of any request.
pub(super) fn authorise(
    requester: &Requester,
    owner: u32,
    session: &Option<String>,
    by: &Answerer,
    allow: bool,
    agents: &VecDeque<AgentFacts>,
) -> Result<(), RequestError> {
    if by.uid != owner && by.uid != 0 {
        return Err(RequestError::UserMismatch {
            caller: by.uid,
            owner,
        });
    }
    if by.session.is_some() && by.session != *session {
        return Err(RequestError::SessionMismatch {
            caller: by.session.clone(),
            owner: session.clone(),
        });
    }
    if allow {
        check_not_self(requester, by)?;
        check_not_agent(requester.agent.iter().chain(agents), by)
    } else {
        Ok(())
    }
}

/// An agent never answers: not a process that descends from an agent that asked the gate (this
/// request's or another's) or from a program known as a coding agent; not a process in the
/// agent's own POSIX session or on its terminal (what a job it put in the background keeps);
/// not a process in the cgroup the agent has to itself (what even a double fork keeps).
pub(crate) fn check_not_agent<'a>(
    agents: impl Iterator<Item = &'a AgentFacts> + Clone,
    by: &Answerer,
) -> Result<(), RequestError> {
    let refuse = |why: String| Err(RequestError::SelfApproval(Some(why)));
    let answerer = by
        .ancestors
        .first()
        .map_or_else(|| format!("pid {}", by.pid), |p| format!("pid {p}"));
    for ancestor in &by.ancestors {
        if let Some(agent) = agents
            .clone()
            .find(|a| a.proc.pid == ancestor.pid && a.proc.start == ancestor.start)
        {
            return refuse(format!(
                "{answerer} descends from {}, an agent that asked the gate",
                agent.proc
            ));
        }
        if AGENT_PROGRAMS.contains(&ancestor.comm.as_str()) {
            return refuse(format!(
                "{answerer} descends from {ancestor}, a coding agent"
            ));
        }
    }
    for agent in agents {
        if by.sid == Some(agent.sid) {
            return refuse(format!(
                "{answerer} is in the POSIX session ({}) of the agent {}",
                agent.sid, agent.proc
            ));
        }
        if agent.tty != 0 && by.facts.tty == agent.tty {
            return refuse(format!(
                "{answerer} is on the terminal of the agent {}",
                agent.proc
            ));
        }
        if let (Some(own), Some(theirs)) = (&agent.cgroup, &by.facts.cgroup)
            && cgroup_within(theirs, own)
        {
            return refuse(format!(
                "{answerer} is in the cgroup {own} that the agent {} has to itself",
                agent.proc
            ));
        }
    }
    Ok(())
}

/// The requester may not answer itself: not on its own connection, not from its own process,
/// not from a process that descends from the requester or the agent above it (`setsid assent
/// approve`, a raw socket client it started), and not from its session: the audit session
/// where the kernel keeps one for both (a process cannot leave it), else the POSIX session. An
/// approval agent's session is always compared as a POSIX session: on a desktop every user
/// service (the approval agent, the terminal emulator's shells) shares one audit session, so
/// comparing those would refuse every desktop approval of an agent in a terminal. An answerer
/// whose session cannot be established is refused rather than assumed different.
fn check_not_self(owner: &Requester, by: &Answerer) -> Result<(), RequestError> {
    if by.conn_id == owner.conn_id || (by.pid > 0 && by.pid == owner.pid) {
        return Err(RequestError::SelfApproval(None));
    }
    // An answerer whose parents cannot be read (it left, and its connection lives on in
    // another process) could be anything the requester started: refused, not assumed apart.
    if by.ancestors.is_empty() && !owner.chain.is_empty() {
        return Err(RequestError::Identity(
            "the answering process's parents could not be established (it has exited?)".into(),
        ));
    }
    if let Some(at) = by.ancestors.iter().position(|a| {
        owner
            .chain
            .iter()
            .any(|c| c.pid == a.pid && c.start == a.start)
    }) {
        return Err(RequestError::SelfApproval(Some(descends(owner, by, at))));
    }
    if !by.agent
        && let (Some(a), Some(b)) = (owner.audit_session, by.audit_session)
    {
        return if a == b {
            Err(RequestError::SelfApproval(Some(format!(
                "the answer comes from the requester's own audit session ({a}), which no process can leave"
            ))))
        } else {
            Ok(())
        };
    }
    match (owner.sid, by.sid) {
        (_, None) => Err(RequestError::Identity(
            "the answering process's login session could not be established".into(),
        )),
        (Some(a), Some(b)) if a == b => Err(RequestError::SelfApproval(Some(format!(
            "the answer comes from the requester's own login session ({a})"
        )))),
        // The requester's session is unknown (it left before it could be pinned): it could be
        // the answerer's own, so the same uid may not answer; another uid (root) still may.
        (None, Some(_)) if by.uid == owner.uid => Err(RequestError::SelfApproval(None)),
        _ => Ok(()),
    }
}

/// In words: the answering process, the ancestor of it that is in the requester's chain, and
/// that chain (`pid 812 (assent) descends from 650 (claude), of the requesting chain 700
/// (assent) <- 650 (claude) <- 600 (bash)`).
fn descends(owner: &Requester, by: &Answerer, at: usize) -> String {
    let answerer = by
        .ancestors
        .first()
        .map_or_else(|| format!("pid {}", by.pid), |p| format!("pid {p}"));
    let chain: Vec<String> = owner.chain.iter().map(ToString::to_string).collect();
    format!(
        "{answerer} descends from {}, of the requesting chain {}",
        by.ancestors[at],
        chain.join(" <- ")
    )
}
