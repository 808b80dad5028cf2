//! Asking a person about a policy change that weakens the gate (user mode).
//!
//! The change is held like a request: shown by the approval agents and `assent watch`, listed
//! by `assent pending`, answered by `assent approve`/`deny`, with what it weakens as its
//! findings. Who may answer is checked as for any held request (never an agent, nor what an
//! agent left behind), and how is the policy's own setting for destructive requests under the
//! policy agents are still held to (a click by default, a password where it asks one). Until it is allowed, agents
//! and tool calls stay under the approved policy; refused or unanswered, they stay there until
//! the file changes again.

use std::sync::Arc;

use assent_client::protocol::{Finding, Level, Origin, Span};

use super::Shared;
use crate::pending::{Hold, Item, Requester, Sent};

/// Ask about the weakening change that waits, if one has not been asked about yet.
pub(super) fn ask(shared: &Arc<Shared>) {
    let Some((generation, changes)) = shared.policy.to_ask() else {
        return;
    };
    let uid = nix::unistd::geteuid().as_raw();
    let file = shared.config.policy_file.display().to_string();
    let approval =
        shared.policy.for_origin(Origin::Agent).settings.approval[Level::Destructive as usize];
    let subject = format!("policy change in {file}: {}", changes.join("; "));
    let findings = changes
        .iter()
        .map(|change| Finding {
            id: "change.gate".into(),
            level: Level::Destructive,
            message: format!("weakens the gate: {change}"),
            span: Span { start: 0, end: 0 },
        })
        .collect();
    let hold = Hold {
        requester: Requester {
            uid,
            // The daemon's own request: no process, connection or session of anyone's, so
            // nobody is refused as its requester (agents are still refused as agents).
            pid: 0,
            sid: Some(0),
            conn_id: 0,
            audit_session: None,
            chain: Vec::new(),
            agent: None,
        },
        owner: uid,
        session: None,
        origin: Origin::Agent,
        sent: Sent::One {
            exact: format!("policy\0{generation}\0{subject}"),
        },
        items: vec![Item {
            subject,
            cwd: Some(file.clone()),
            level: Level::Destructive,
            findings,
            reason: "a change that weakens the policy is in force for agents only once a person approves it".into(),
            decided: None,
            signature: format!("policy change {generation} in {file}"),
            approval,
        }],
        wait: true,
        program: "assentd".into(),
        agent: Some("policy change".into()),
    };
    let held = match shared.pending.hold(hold) {
        Ok(held) => held,
        Err(error) => {
            shared
                .policy
                .settle_change(generation, false, &format!("could not ask: {error}"));
            return;
        }
    };
    let Some(outcome) = held.outcome else {
        return;
    };
    let shared = Arc::clone(shared);
    tokio::spawn(async move {
        let (allow, why) = match outcome.await {
            Ok(items) => match items.first() {
                Some(decided) => (decided.allow, decided.reason.clone()),
                None => (false, "no answer".to_string()),
            },
            Err(_) => (false, "the request ended without an answer".to_string()),
        };
        shared.policy.settle_change(generation, allow, &why);
    });
}
