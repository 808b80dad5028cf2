//! Judging one subject for a peer: `Check` and `Explain`, holding what needs a person, and
//! waiting on the connection until a held request or batch is settled.
//!
//! The policy decides; this only carries its ruling to the reply, the counters, the audit
//! trail and, for a confirm, the store of held requests.

use std::sync::Arc;

use assent_client::CodecError;
use assent_client::codec::{self, decode_request};
use assent_client::protocol::{
    AuditEvent, CheckRequest, Decided, DecidedBy, Decision, ExplainRequest, Explanation,
    RedeemRequest, Request, Response, Subject, Verdict,
};
use tokio::sync::oneshot;
use tokio::time::{Instant, sleep_until};

use super::approve::session_key;
use super::{Conn, Flow};
use crate::decide;
use crate::error::RequestError;
use crate::judge::{self, Caller, Judgement, MAX_COMMANDS_ON_WIRE};
use crate::pending::{self, Hold, Requester};
use crate::policy::Policy;
use crate::remember;

/// Commands longer than this are analysed off the async workers.
const ANALYSE_INLINE_MAX: usize = 4096;
/// The largest packet a connection waiting for its held request accepts (a `Cancel`).
const WAITING_PACKET_MAX: usize = 512;

impl Conn {
    /// Run the pipe for a subject, off the async workers when the input is large.
    pub(super) async fn judge(
        &self,
        policy: Arc<Policy>,
        subject: Subject,
        origin: assent_client::protocol::Origin,
        context: assent_client::protocol::Context,
    ) -> Result<(Judgement, Subject, assent_client::protocol::Context), RequestError> {
        if let Subject::Shell { cwd, .. } = &subject
            && !cwd.starts_with('/')
        {
            return Err(RequestError::Invalid(format!(
                "the working directory must be an absolute path, not {cwd:?}"
            )));
        }
        let large = match &subject {
            Subject::Shell { command, .. } => command.len() > ANALYSE_INLINE_MAX,
            Subject::Tool { args_json, .. } => args_json.len() > ANALYSE_INLINE_MAX,
        };

        let home = self.home.clone();
        let user = self.user.clone();
        let uid = self.peer.uid;
        let run = move || {
            let judgement = judge::judge_for(
                &policy,
                &subject,
                origin,
                &context,
                &Caller {
                    uid: Some(uid),
                    user: user.as_deref(),
                    home: home.as_deref(),
                },
            );
            (judgement, subject, context)
        };
        if large {
            tokio::task::spawn_blocking(run)
                .await
                .map_err(|e| RequestError::Invalid(format!("analysis failed: {e}")))
        } else {
            Ok(run())
        }
    }

    pub(super) async fn explain(&self, explain: ExplainRequest) -> Response {
        let judgement = match self
            .judge(
                self.shared.policy.current(),
                explain.subject,
                explain.origin,
                explain.context,
            )
            .await
        {
            Ok((judgement, _, _)) => judgement,
            Err(error) => return Response::Error(error.to_wire()),
        };
        let mut explanation = Explanation {
            verdict: verdict(&judgement, None, None),
            commands: judgement
                .analysis
                .commands
                .iter()
                .take(MAX_COMMANDS_ON_WIRE)
                .map(|c| c.to_wire())
                .collect(),
        };
        // The list of commands is the part that can be left short to fit one packet.
        while !explanation.commands.is_empty()
            && codec::encode_response(&Response::Explained(explanation.clone())).is_err()
        {
            explanation
                .commands
                .truncate(explanation.commands.len() / 2);
        }
        Response::Explained(explanation)
    }

    pub(super) async fn check(&mut self, check: CheckRequest) -> Flow {
        let CheckRequest {
            subject,
            origin,
            context,
            wait,
        } = check;
        // One policy for the whole decision, even if a reload lands meanwhile.
        let policy = self.shared.policy.current();
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
        let judged = self.judge(policy, subject, origin, context).await;
        let (judgement, subject, context) = match judged {
            Ok(judged) => judged,
            Err(error) => {
                self.send(&Response::Error(error.to_wire())).await;
                return Flow::Continue;
            }
        };
        // Only what the policy held can be remembered or held: an allowed or denied line,
        // the usual case, makes no signature and asks no store.
        let signature = if judgement.ruling.decision == Decision::Confirm {
            remember::signature(&subject)
        } else {
            String::new()
        };
        let remembered = match judgement.ruling.decision {
            Decision::Confirm => {
                let key = session_key(context.session.as_deref(), self.peer.sid);
                self.shared.remembered.lookup(owner, &signature, &key)
            }
            _ => None,
        };
        let item = decide::Item {
            ruled: judgement.ruling.decision,
            origin: judgement.origin,
            remembered: remembered.is_some(),
        };
        let approvers = || {
            self.shared
                .pending
                .approvers()
                .available(owner, self.peer.sid)
        };
        let outcome = decide::decide(&[item], approvers, no_approver)[0];
        if outcome != decide::Outcome::Hold {
            let mut judgement = judgement;
            judgement.ruling.decision = outcome.decision();
            let by = match outcome {
                decide::Outcome::Remembered => {
                    let id = remembered.unwrap_or_default();
                    judgement.ruling.reason = format!("remembered approval {id}: {signature}");
                    DecidedBy::Remembered
                }
                decide::Outcome::NoApprover { ask } => {
                    judgement.ruling.reason = no_approver_reason(
                        &judgement.ruling.reason,
                        owner,
                        ask,
                        &self.shared.config.policy_file,
                    );
                    DecidedBy::NoApprover
                }
                _ => DecidedBy::Policy,
            };
            self.shared.stats.record(outcome.recorded());
            self.audit_by(
                &judgement,
                &subject,
                outcome.recorded(),
                None,
                by,
                context.agent.as_deref(),
            );
            self.send(&Response::Verdict(verdict(&judgement, None, None)))
                .await;
            if outcome == decide::Outcome::Remembered {
                // Its use count is kept when the store next writes.
                self.shared.remembered.flush();
            }
            return Flow::Continue;
        }
        let requester = self.requester();
        let program =
            crate::peer::asking_program(&requester.chain).unwrap_or_else(|| self.peer.program());
        let hold = Hold {
            owner,
            requester,
            session: context.session.clone(),
            origin: judgement.origin,
            subject: subject.summary(),
            cwd: match &subject {
                Subject::Shell { cwd, .. } => Some(cwd.clone()),
                Subject::Tool { .. } => None,
            },
            level: judgement.analysis.level,
            findings: judge::wire_findings(&judgement.analysis.findings),
            reason: judgement.ruling.reason.clone(),
            wait,
            program,
            agent: crate::peer::claimed_agent(context.agent.as_deref()),
            exact: pending::exact(&subject),
            signature,
            approval: judgement.ruling.approval,
        };
        let held = match self.shared.pending.hold(hold) {
            Ok(held) => held,
            Err(error) => {
                self.shared.stats.record(Decision::Deny);
                self.audit(
                    &judgement,
                    &subject,
                    Decision::Deny,
                    None,
                    context.agent.as_deref(),
                );
                self.send(&Response::Error(error.to_wire())).await;
                return Flow::Continue;
            }
        };
        let expires_in = pending::millis(held.expires_at.saturating_duration_since(Instant::now()));
        let reply = verdict(&judgement, Some(held.token.clone()), Some(expires_in));
        self.shared.stats.record(Decision::Confirm);
        self.audit(
            &judgement,
            &subject,
            Decision::Confirm,
            Some(&held.token),
            context.agent.as_deref(),
        );
        self.send(&Response::Verdict(reply)).await;
        match held.outcome {
            Some(outcome) => {
                self.wait(&held.token, held.expires_at, outcome, |decided| {
                    Response::Decided(decided.unwrap_or_else(|_| lost()))
                })
                .await
            }
            None => Flow::Continue,
        }
    }

    /// Wait for a held request or batch to be settled, while watching the connection: a
    /// `Cancel` or the peer leaving withdraws it. `reply` turns the outcome into the response.
    pub(super) async fn wait<T>(
        &mut self,
        token: &str,
        expires_at: Instant,
        mut outcome: oneshot::Receiver<T>,
        reply: impl FnOnce(Result<T, oneshot::error::RecvError>) -> Response,
    ) -> Flow {
        let mut timed_out = false;
        // Enough for a Cancel; anything larger arrives truncated and is refused.
        let mut small = [0u8; WAITING_PACKET_MAX];
        loop {
            tokio::select! {
                decided = &mut outcome => {
                    self.send(&reply(decided)).await;
                    return Flow::Continue;
                }
                _ = sleep_until(expires_at), if !timed_out => {
                    // Whoever ended it (us, or an answer in the same instant) sends the outcome.
                    self.shared.pending.expire(token);
                    timed_out = true;
                }
                received = self.socket.recv(&mut small) => {
                    let request = match received {
                        Ok(info) if info.truncated() => Err(CodecError::TooLarge { len: info.bytes_read() }),
                        Ok(info) if info.bytes_read() > 0 => decode_request(&small[..info.bytes_read()]),
                        _ => {
                            let _ = self.shared.pending.cancel(token, self.peer.uid, "the requester disconnected");
                            return Flow::Close;
                        }
                    };
                    match request {
                        Ok(Request::Cancel { token: t }) if t == token => {
                            let _ = self.shared.pending.cancel(token, self.peer.uid, "withdrawn by the requester");
                        }
                        Ok(Request::Prompted { token: t, allow, remember }) if t == token => {
                            let terminal = self.peer.has_terminal();
                            match self.shared.pending.prompted(token, self.id, terminal, allow) {
                                // The outcome arrives on `outcome` next round.
                                // A person at the terminal chose; what could not be
                                // remembered is logged and shows in status.
                                Ok(approved) => {
                                    let _ = self.remember(&approved, remember).await;
                                }
                                Err(error) => self.send(&Response::Error(error.to_wire())).await,
                            }
                        }
                        Ok(_) => {
                            let error = RequestError::Invalid(
                                "this connection waits for its held request; only Cancel and Prompted are accepted".into(),
                            );
                            self.send(&Response::Error(error.to_wire())).await;
                        }
                        Err(error) => {
                            let _ = self.shared.pending.cancel(token, self.peer.uid, "the requester broke the protocol");
                            return self.reject(error).await;
                        }
                    }
                }
            }
        }
    }

    pub(super) fn audit(
        &self,
        judgement: &Judgement,
        subject: &Subject,
        decision: Decision,
        token: Option<&str>,
        agent: Option<&str>,
    ) {
        self.audit_by(
            judgement,
            subject,
            decision,
            token,
            DecidedBy::Policy,
            agent,
        );
    }

    /// Audit a decision made by `by`, with the judgement's reason.
    pub(super) fn audit_by(
        &self,
        judgement: &Judgement,
        subject: &Subject,
        decision: Decision,
        token: Option<&str>,
        by: DecidedBy,
        agent: Option<&str>,
    ) {
        self.shared.audit.record(AuditEvent {
            time_ms: pending::now_ms(),
            uid: self.peer.uid,
            pid: self.peer.pid,
            origin: judgement.origin,
            subject: subject.summary(),
            level: judgement.analysis.level,
            findings: judgement
                .analysis
                .findings
                .iter()
                .map(|f| f.id.to_string())
                .collect(),
            decision,
            by,
            reason: judgement.ruling.reason.clone(),
            token: token.map(str::to_string),
            agent: crate::peer::claimed_agent(agent),
            program: None,
        });
    }

    /// Redeem a token of a request held without waiting: the person's answer, once, for
    /// exactly the subject that was held; or that it is still held.
    pub(super) async fn redeem(&mut self, redeem: RedeemRequest) -> Flow {
        let RedeemRequest {
            token,
            subject,
            origin,
            context,
        } = redeem;
        let policy = self.shared.policy.current();
        if let Err(error) = self
            .shared
            .take_rate(self.peer.uid, policy.settings.rate_limit)
        {
            self.send(&Response::Error(error.to_wire())).await;
            return Flow::Continue;
        }
        let exact = pending::exact(&subject);
        // Judged again for the level and findings the reply and the audit trail show; the
        // decision is the person's.
        let (mut judgement, subject, context) =
            match self.judge(policy, subject, origin, context).await {
                Ok(judged) => judged,
                Err(error) => {
                    self.send(&Response::Error(error.to_wire())).await;
                    return Flow::Continue;
                }
            };
        let redeemed = self
            .shared
            .pending
            .redeem(&token, self.peer.uid, &context.session, &exact);
        let reply = match redeemed {
            Ok(pending::Redeemed::Answered(outcome)) => {
                let decision = if outcome.allow {
                    Decision::Allow
                } else {
                    Decision::Deny
                };
                judgement.ruling.decision = decision;
                judgement.ruling.reason = format!("{}; token {token} redeemed", outcome.reason);
                self.shared.stats.record(decision);
                self.audit_by(
                    &judgement,
                    &subject,
                    decision,
                    Some(&token),
                    DecidedBy::User,
                    context.agent.as_deref(),
                );
                Response::Verdict(verdict(&judgement, None, None))
            }
            Ok(pending::Redeemed::StillHeld { expires_in_ms }) => {
                judgement.ruling.decision = Decision::Confirm;
                judgement.ruling.reason =
                    "still held: nobody has answered it yet; redeem the token again after a person approves it".into();
                Response::Verdict(verdict(&judgement, Some(token), Some(expires_in_ms)))
            }
            Err(error) => Response::Error(error.to_wire()),
        };
        self.send(&reply).await;
        Flow::Continue
    }

    /// This connection's peer as the requester of a held request.
    pub(super) fn requester(&self) -> Requester {
        // Read while the pidfd shows the peer is still the process that connected; a chain
        // read after it went could name another process's parents.
        let chain = crate::peer::requester_chain(self.peer.pid, self.peer.uid);
        let chain = if self.peer.pidfd.is_none() || self.peer.still_alive() {
            chain
        } else {
            Vec::new()
        };
        Requester {
            uid: self.peer.uid,
            pid: self.peer.pid,
            sid: self.peer.sid,
            conn_id: self.id,
            audit_session: self.peer.audit_session,
            chain,
        }
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
    }
}

/// Why a request that needed a person was not held: nobody could be asked.
pub(super) fn no_approver_reason(
    policy_reason: &str,
    owner: u32,
    ask: bool,
    policy_file: &std::path::Path,
) -> String {
    let then = if ask {
        "the agent's own prompt decides"
    } else {
        "denied"
    };
    format!(
        "{policy_reason}; but no approval agent is running for uid {owner}, so {then}. Start one: \
         `assent watch` in a terminal (SSH, tmux), or assent-notify on the desktop \
         (`systemctl --user start assent-notify`); or hold such requests for `assent approve` \
         with `no_approver = \"hold\"` in {} (or `assentd --no-approver hold`)",
        policy_file.display()
    )
}

/// The outcome a waiter hears when its request vanished without being settled (a bug).
pub(super) fn lost() -> Decided {
    Decided {
        allow: false,
        by: DecidedBy::Shutdown,
        reason: "the gate lost the request".into(),
    }
}
