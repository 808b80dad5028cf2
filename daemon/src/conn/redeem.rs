//! Redeeming a token: of a request held without a waiter (`check --no-wait`), the person's
//! answer, once, for exactly the subject that was held, or that it is still held; of a grant
//! (`assent sh --grant`), what to run the line with ([`crate::grants`]), audited either way.

use assent_client::protocol::{DecidedBy, Decision, GrantRequest, Origin, RedeemRequest, Response};

use super::check::verdict;
use super::{Conn, Flow};
use crate::{grants, pending};

impl Conn {
    /// Redeem a token of a request held without waiting: the person's answer, once, for
    /// exactly the subject that was held; or that it is still held.
    pub(super) async fn redeem(&mut self, redeem: RedeemRequest) -> Flow {
        let RedeemRequest {
            token,
            subject,
            origin,
            context,
        } = redeem;
        let policy = self.shared.policy.for_origin(origin);
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
            match self.asker().judge(policy, subject, origin, context).await {
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
                self.asker().audit(
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

    /// Redeem a grant from the door that runs its line: what to run it with, or why not. The
    /// redeemer's parents are read only for a grant bound to an agent, and only count while
    /// the pidfd shows the peer is still the process that connected.
    pub(super) fn redeem_grant(&self, grant: GrantRequest) -> Response {
        let peer = &self.peer;
        let chain = || {
            let chain = crate::peer::ancestors(peer.pid);
            if peer.pidfd.is_none() || peer.still_alive() {
                chain
            } else {
                Vec::new()
            }
        };
        let redeemed = (self.shared.grants).redeem(&grant.token, peer.uid, &grant.subject, chain);
        let who = grants::Who {
            uid: peer.uid,
            pid: peer.pid,
            origin: Origin::Agent,
        };
        let (reply, why) = match redeemed {
            Ok(granted) => (Response::Granted(granted), None),
            Err(error) => {
                let wire = error.to_wire();
                let why = wire.message.clone();
                (Response::Error(wire), Some(why))
            }
        };
        let step = match &why {
            None => grants::Step::Redeemed,
            Some(why) => grants::Step::Refused(why),
        };
        (self.shared.audit).record(grants::event(&grant.token, who, &grant.subject, step));
        reply
    }
}
