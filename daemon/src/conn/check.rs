//! `Check` and `CheckBatch` as packets: both go down the one request path
//! ([`crate::request::Asker::rule`]); only their replies differ, a `Verdict` (then a
//! `Decided`) for one subject, a `BatchVerdict` (then a `BatchDecided`) for a batch, fitted
//! to one packet.

use assent_client::codec;
use assent_client::protocol::{
    BatchDecided, BatchRequest, BatchVerdict, CheckRequest, Decided, DecidedBy, Decision,
    MAX_BATCH_ITEMS, Response, Verdict,
};
use tokio::time::Instant;

use super::{Conn, Flow};
use crate::error::RequestError;
use crate::grants;
use crate::judge::{self, Judgement};
use crate::pending::{self, Held};
use crate::request::Ruled;

/// Findings per item of a batch verdict, at most, when the whole does not fit one packet.
const BATCH_FINDINGS_STEPS: [usize; 4] = [16, 4, 1, 0];

impl Conn {
    pub(super) async fn check(&mut self, check: CheckRequest) -> Flow {
        let CheckRequest {
            subject,
            origin,
            context,
            wait,
        } = check;
        // The subject as the caller sent it: what a grant is bound to and redeemed with.
        let wants_grant = (context.grant && context.confines).then(|| subject.clone());
        // The caller is the door that runs the line confined: an allow comes with a ruleset.
        let is_door = context.confines && !context.grant;
        let ruled = self
            .asker()
            .rule(vec![subject], origin, context, wait, false)
            .await;
        let Some(Ruled { judged, held }) = self.or_error(ruled).await else {
            return Flow::Continue;
        };
        let Some((mut judgement, _)) = judged.into_iter().next() else {
            return Flow::Continue;
        };
        let (token, expires_in) = held_for(held.as_ref());
        // The confinement is moved, not copied, to where it goes: for a request that asked for
        // a grant (an agent's hook), into the grant; for a door, into the reply.
        let confine = judgement.confine.take();
        let mut reply = verdict(&judgement, token.clone(), expires_in);
        reply.another_answers = held.as_ref().is_some_and(|held| held.another_answers);
        let uid = self.peer.uid;
        let allowed = judgement.ruling.decision == Decision::Allow;
        // An ask the hook hands to the agent's own prompt, rewritten to run confined: the
        // grant comes now, with what a person's approval adds, bound to the agent.
        let asked = judgement.ruling.decision == Decision::Confirm && held.is_none();
        let agent = match (&wants_grant, &confine, asked) {
            (Some(_), Some(_), true) => self.asker().asking_agent(),
            _ => None,
        };
        // Only a held line's answer needs the confinement after the reply (cloned only then:
        // it is some fifty paths).
        let after = held.as_ref().and_then(|_| confine.clone());
        match (&wants_grant, confine) {
            (Some(subject), Some(confine)) if allowed || agent.is_some() => {
                reply.confine = Some(confine.told_with_grant());
                let given = match agent {
                    Some(agent) => {
                        let ttl = self.shared.pending.ttl();
                        let given = (self.shared.grants).give_for_prompt(
                            uid,
                            subject,
                            grants::granted(confine, true),
                            agent,
                            ttl,
                        );
                        given.map(|grant| (grant, grants::Step::ForPrompt))
                    }
                    None => {
                        let given = (self.shared.grants).give(
                            uid,
                            subject,
                            grants::granted(confine, false),
                        );
                        given.map(|grant| (grant, grants::Step::Issued(DecidedBy::Policy)))
                    }
                };
                match given {
                    Ok((grant, step)) => {
                        let who = grants::Who {
                            uid,
                            pid: self.peer.pid,
                            origin,
                        };
                        (self.shared.audit).record(grants::event(&grant, who, subject, step));
                        reply.grant = Some(grant);
                    }
                    Err(error) => {
                        self.send(&Response::Error(error.to_wire())).await;
                        return Flow::Continue;
                    }
                }
            }
            (_, confine) => reply.confine = confine,
        }
        // The door's confinement as it will build it: a line the policy let through by itself
        // never gets `write_anywhere`, which only a person's approval grants.
        let door_key = (is_door && reply.decision == Decision::Allow)
            .then(|| reply.confine.clone())
            .flatten()
            .and_then(|mut confine| {
                confine.write_anywhere = false;
                self.door_key(confine, false)
            });
        let confine = after;
        let kept = door_key.as_ref().and_then(|key| self.kept_ruleset(key));
        self.send_passing(&Response::Verdict(reply), kept).await;
        if let Some(key) = door_key {
            self.after_passing(key);
        }
        let shared = self.shared.clone();
        let pid = self.peer.pid;
        self.wait(held, move |items| {
            let one = items
                .and_then(|items| items.into_iter().next())
                .unwrap_or_else(lost);
            // A person's allow of a held line: its token becomes the grant to run it, with
            // what was approved (given before the requester hears of it).
            if let (Some(subject), Some(confine), Some(token)) = (wants_grant, confine, token)
                && one.allow
            {
                let approved = one.by == DecidedBy::User;
                let who = grants::Who { uid, pid, origin };
                let step = grants::Step::Issued(one.by);
                (shared.audit).record(grants::event(&token, who, &subject, step));
                shared
                    .grants
                    .give_as(token, uid, &subject, grants::granted(confine, approved));
            }
            Response::Decided(one)
        })
        .await
    }

    pub(super) async fn check_batch(&mut self, batch: BatchRequest) -> Flow {
        let BatchRequest {
            subjects,
            origin,
            context,
            wait,
        } = batch;
        let count = subjects.len();
        if count == 0 || count > MAX_BATCH_ITEMS {
            let error = RequestError::Invalid(format!(
                "a batch carries 1 to {MAX_BATCH_ITEMS} items, not {count}"
            ));
            self.send(&Response::Error(error.to_wire())).await;
            return Flow::Continue;
        }
        let ruled = self
            .asker()
            .rule(subjects, origin, context, wait, true)
            .await;
        let Some(Ruled { judged, held }) = self.or_error(ruled).await else {
            return Flow::Continue;
        };
        let (token, expires_in_ms) = held_for(held.as_ref());
        // As for a single check: a held item another person must answer says so, and the
        // batch's wait tells the requester.
        let another_answers = held.as_ref().is_some_and(|held| held.another_answers);
        let mut reply = BatchVerdict {
            items: judged
                .iter()
                .map(|(j, _)| {
                    let mut item = verdict(j, None, None);
                    item.another_answers = another_answers && item.decision == Decision::Confirm;
                    item
                })
                .collect(),
            token,
            expires_in_ms,
        };
        fit_batch_verdict(&mut reply);
        self.send(&Response::BatchVerdict(reply)).await;
        self.wait(held, |items| {
            Response::BatchDecided(BatchDecided {
                items: items.unwrap_or_else(|| vec![lost(); count]),
            })
        })
        .await
    }

    /// What the request path ruled, or its error sent as the reply.
    async fn or_error(&mut self, ruled: Result<Ruled, RequestError>) -> Option<Ruled> {
        match ruled {
            Ok(ruled) => Some(ruled),
            Err(error) => {
                self.send(&Response::Error(error.to_wire())).await;
                None
            }
        }
    }
}

/// The token and milliseconds left of a hold, for the reply.
fn held_for(held: Option<&Held>) -> (Option<String>, Option<u64>) {
    match held {
        Some(held) => (
            Some(held.token.clone()),
            Some(pending::millis(
                held.expires_at.saturating_duration_since(Instant::now()),
            )),
        ),
        None => (None, None),
    }
}

pub(super) fn verdict(
    judgement: &Judgement,
    token: Option<String>,
    expires_in_ms: Option<u64>,
) -> Verdict {
    Verdict {
        decision: judgement.ruling.decision,
        level: judgement.analysis.level,
        findings: judge::wire_findings(&judgement.analysis.findings),
        reason: judgement.ruling.reason.clone(),
        token,
        expires_in_ms,
        confine: judgement.confine.clone(),
        grant: None,
        another_answers: false,
    }
}

/// Make a batch verdict fit one packet: every item keeps its decision, level and reason; the
/// findings are shortened (the most severe first, as they are sorted) until it fits.
fn fit_batch_verdict(reply: &mut BatchVerdict) {
    for keep in BATCH_FINDINGS_STEPS {
        if codec::encode_response(&Response::BatchVerdict(reply.clone())).is_ok() {
            return;
        }
        for item in &mut reply.items {
            item.findings.truncate(keep);
        }
    }
}

/// The outcome a waiter hears when its request vanished without being settled (a bug).
fn lost() -> Decided {
    Decided {
        allow: false,
        by: DecidedBy::Shutdown,
        reason: "the gate lost the request".into(),
    }
}
