//! `CheckBatch`: judge every subject of a batch under one policy, reply with one verdict per
//! item, and hold the held ones under one token.
//!
//! A batch is one request against the rate limit and is refused or held as a whole; its reply
//! must fit one packet, so findings are shortened before anything else is.

use std::sync::Arc;

use assent_client::codec;
use assent_client::protocol::{
    BatchDecided, BatchRequest, BatchVerdict, Decided, DecidedBy, Decision, MAX_BATCH_ITEMS,
    Origin, Response, Subject,
};
use tokio::time::Instant;

use super::approve::session_key;
use super::check::{lost, no_approver_reason, verdict};
use super::{Conn, Flow};
use crate::decide;
use crate::error::RequestError;
use crate::judge;
use crate::pending::{self, BatchHold, BatchItem};
use crate::remember;

/// Findings per item of a batch verdict, at most, when the whole does not fit one packet.
const BATCH_FINDINGS_STEPS: [usize; 4] = [16, 4, 1, 0];

impl Conn {
    /// Judge every subject of a batch under one policy; hold the held ones under one token.
    pub(super) async fn check_batch(&mut self, batch: BatchRequest) -> Flow {
        let BatchRequest {
            subjects,
            origin,
            context,
            wait,
        } = batch;
        if subjects.is_empty() || subjects.len() > MAX_BATCH_ITEMS {
            let error = RequestError::Invalid(format!(
                "a batch carries 1 to {MAX_BATCH_ITEMS} items, not {}",
                subjects.len()
            ));
            self.send(&Response::Error(error.to_wire())).await;
            return Flow::Continue;
        }
        let policy = self.shared.policy.current();
        // One batch is one request against the rate limit.
        if let Err(error) = self
            .shared
            .take_rate(self.peer.uid, policy.settings.rate_limit)
        {
            self.send(&Response::Error(error.to_wire())).await;
            self.shared.stats.record(Decision::Deny);
            return Flow::Continue;
        }
        let owner = policy.owner_of(self.peer.uid);
        let no_approver = self
            .shared
            .config
            .no_approver
            .unwrap_or(policy.settings.no_approver);
        let mut judged = Vec::with_capacity(subjects.len());
        for subject in subjects {
            match self
                .judge(Arc::clone(&policy), subject, origin, context.clone())
                .await
            {
                Ok((judgement, subject, _)) => judged.push((judgement, subject)),
                Err(error) => {
                    let error = RequestError::InBatch {
                        item: judged.len() + 1,
                        error: Box::new(error),
                    };
                    self.send(&Response::Error(error.to_wire())).await;
                    return Flow::Continue;
                }
            }
        }
        let count = judged.len();
        // Items a remembered approval covers are allowed; each is remembered by its own signature.
        let key = session_key(context.session.as_deref(), self.peer.sid);
        let mut signatures = Vec::with_capacity(count);
        let mut items = Vec::with_capacity(count);
        let mut remembered = Vec::with_capacity(count);
        for (judgement, subject) in &judged {
            let signature = remember::signature(subject);
            let id = match judgement.ruling.decision {
                Decision::Confirm => self.shared.remembered.lookup(owner, &signature, &key),
                _ => None,
            };
            items.push(decide::Item {
                ruled: judgement.ruling.decision,
                origin: judgement.origin,
                remembered: id.is_some(),
            });
            remembered.push(id);
            signatures.push(signature);
        }
        let approvers = || {
            self.shared
                .pending
                .approvers()
                .available(owner, self.peer.sid)
        };
        let outcomes = decide::decide(&items, approvers, no_approver);
        for (index, (judgement, _)) in judged.iter_mut().enumerate() {
            match outcomes[index] {
                decide::Outcome::Remembered => {
                    let id = remembered[index].as_deref().unwrap_or_default();
                    judgement.ruling.reason =
                        format!("remembered approval {id}: {}", signatures[index]);
                }
                decide::Outcome::NoApprover { ask } => {
                    judgement.ruling.reason = no_approver_reason(
                        &judgement.ruling.reason,
                        owner,
                        ask,
                        &self.shared.config.policy_file,
                    );
                }
                decide::Outcome::Policy(_) | decide::Outcome::Hold => {}
            }
            judgement.ruling.decision = outcomes[index].decision();
        }
        if remembered.iter().any(Option::is_some) {
            self.shared.remembered.flush();
        }
        let any_held = outcomes.contains(&decide::Outcome::Hold);
        let mut reply = BatchVerdict {
            items: judged.iter().map(|(j, _)| verdict(j, None, None)).collect(),
            token: None,
            expires_in_ms: None,
        };
        if !any_held {
            fit_batch_verdict(&mut reply);
            for (index, (judgement, subject)) in judged.iter().enumerate() {
                let by = match outcomes[index] {
                    decide::Outcome::Remembered => DecidedBy::Remembered,
                    decide::Outcome::NoApprover { .. } => DecidedBy::NoApprover,
                    decide::Outcome::Policy(_) | decide::Outcome::Hold => DecidedBy::Policy,
                };
                let decision = outcomes[index].recorded();
                self.shared.stats.record(decision);
                self.audit_by(
                    judgement,
                    subject,
                    decision,
                    None,
                    by,
                    context.agent.as_deref(),
                );
            }
            self.send(&Response::BatchVerdict(reply)).await;
            return Flow::Continue;
        }
        let requester = self.requester();
        let program =
            crate::peer::asking_program(&requester.chain).unwrap_or_else(|| self.peer.program());
        let hold = BatchHold {
            owner,
            requester,
            session: context.session.clone(),
            origin: if judged.iter().all(|(j, _)| j.origin == Origin::Tool) {
                Origin::Tool
            } else {
                origin
            },
            items: judged
                .iter()
                .zip(signatures)
                .map(|((judgement, subject), signature)| BatchItem {
                    signature,
                    approval: judgement.ruling.approval,
                    subject: subject.summary(),
                    cwd: match subject {
                        Subject::Shell { cwd, .. } => Some(cwd.clone()),
                        Subject::Tool { .. } => None,
                    },
                    level: judgement.analysis.level,
                    findings: judge::wire_findings(&judgement.analysis.findings),
                    decided: match judgement.ruling.decision {
                        Decision::Confirm => None,
                        decision => Some(Decided {
                            allow: decision == Decision::Allow,
                            by: DecidedBy::Policy,
                            reason: judgement.ruling.reason.clone(),
                        }),
                    },
                })
                .collect(),
            wait,
            program,
            agent: crate::peer::claimed_agent(context.agent.as_deref()),
        };
        let held = match self.shared.pending.hold_batch(hold) {
            Ok(held) => held,
            Err(error) => {
                // Refused as a whole: nothing of it is allowed.
                for (judgement, subject) in &judged {
                    self.shared.stats.record(Decision::Deny);
                    self.audit(
                        judgement,
                        subject,
                        Decision::Deny,
                        None,
                        context.agent.as_deref(),
                    );
                }
                self.send(&Response::Error(error.to_wire())).await;
                return Flow::Continue;
            }
        };
        reply.token = Some(held.token.clone());
        reply.expires_in_ms = Some(pending::millis(
            held.expires_at.saturating_duration_since(Instant::now()),
        ));
        fit_batch_verdict(&mut reply);
        for (judgement, subject) in &judged {
            let decision = judgement.ruling.decision;
            self.shared.stats.record(decision);
            self.audit(
                judgement,
                subject,
                decision,
                Some(&held.token),
                context.agent.as_deref(),
            );
        }
        self.send(&Response::BatchVerdict(reply)).await;
        match held.outcome {
            Some(outcome) => {
                self.wait(&held.token, held.expires_at, outcome, |items| {
                    Response::BatchDecided(BatchDecided {
                        items: items.unwrap_or_else(|_| vec![lost(); count]),
                    })
                })
                .await
            }
            None => Flow::Continue,
        }
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
