//! Approving: answers (with what to remember), approval agents on their connection, and the
//! remembered approvals' list and removal.

use assent_client::protocol::{ApproverHello, Remember, RememberedList, Request, Response};

use super::{Conn, Flow};
use crate::approvers::{self, Agent};
use crate::error::RequestError;
use crate::pending::{Answerer, Approved};
use crate::policy::Approval;
use crate::remember::{MAX_REMEMBER_SECS, SessionKey};

/// How long one push to an approval agent may wait for its socket.
const PUSH_SEND_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

impl Conn {
    /// An approver's answer, and the remembering it asks for. An allow the policy says must
    /// be given with a password is first put to polkit for the answering process.
    pub(super) async fn answer(
        &self,
        token: &str,
        allow: bool,
        session: Option<String>,
        item: Option<u32>,
        remember: Remember,
        agent: bool,
    ) -> Response {
        if let Err(error) = check_remember(remember) {
            return Response::Error(error.to_wire());
        }
        let answerer = self.answerer(session, agent);
        let mut ahead = Vec::new();
        if allow {
            let allowing = self.shared.pending.allowing(token, item, &answerer);
            // Who may not answer at all, or a request gone or expired, hears it from the
            // answer itself below (which settles an expired one).
            let checked = match &allowing {
                Ok(allowing) if allowing.approval == Approval::Password => {
                    self.password(&answerer, &allowing.subjects).await
                }
                _ => Ok(()),
            };
            if let Err(error) = checked {
                tracing::warn!(
                    uid = answerer.uid,
                    pid = answerer.pid,
                    %error,
                    "an approval was refused"
                );
                return Response::Error(error.to_wire());
            }
            ahead = allowing.map(|a| a.approved).unwrap_or_default();
        }
        // What the person asked to remember is in force, and on disk, before the requester is
        // released: the same command run again at once is covered.
        let remembered = self.remember(&ahead, remember).await;
        match self
            .shared
            .pending
            .answer_item(token, item, &answerer, allow)
        {
            Ok(approved) => {
                // Anything the answer approved that was not read ahead (the batch changed in
                // between) is remembered now.
                let late: Vec<Approved> = approved
                    .into_iter()
                    .filter(|a| !ahead.contains(a))
                    .collect();
                let late = self.remember(&late, remember).await;
                match remembered.and(late) {
                    Ok(_) => Response::Done,
                    Err(error) => Response::Error(error.to_wire()),
                }
            }
            Err(error) => {
                // The request was answered, withdrawn or expired in between: what this answer
                // added is taken back, since it allowed nothing.
                if let Ok(added) = remembered {
                    self.unremember(added).await;
                }
                Response::Error(error.to_wire())
            }
        }
    }

    /// The password step for this connection's peer: polkit asked about the peer process,
    /// named by pid, start time and uid while its pidfd shows it is still the one that
    /// connected; the dialog names `subjects`, what the allow would let run.
    async fn password(&self, answerer: &Answerer, subjects: &[String]) -> Result<(), RequestError> {
        let start = crate::polkit::start_time(self.peer.pid)
            .filter(|_| self.peer.pidfd.is_none() || self.peer.still_alive())
            .ok_or_else(|| {
                RequestError::Identity(
                    "the answering process could not be named to polkit (it has exited?)".into(),
                )
            })?;
        let named = crate::polkit::named(subjects);
        crate::polkit::authorise(answerer.pid, start, answerer.uid, &named).await?;
        tracing::info!(
            uid = answerer.uid,
            pid = answerer.pid,
            "polkit authorised an approval with the user's password"
        );
        Ok(())
    }

    /// Remember what is being allowed, as `how` says, on disk before this returns when it
    /// outlives the daemon; returns the rules it added (owner, id). A failure to remember is
    /// returned (the approver hears that the request ran once and nothing was remembered),
    /// never turned into a deny.
    pub(super) async fn remember(
        &self,
        approved: &[Approved],
        how: Remember,
    ) -> Result<Vec<(u32, String)>, RequestError> {
        if how == Remember::Once || approved.is_empty() {
            return Ok(Vec::new());
        }
        let shared = std::sync::Arc::clone(&self.shared);
        let approved = approved.to_vec();
        // Writing and syncing the file blocks: off the async workers.
        let result = tokio::task::spawn_blocking(move || {
            let mut added = Vec::new();
            for a in &approved {
                let key = SessionKey::of(a.session.as_deref(), a.sid);
                match shared.remembered.remember(a.owner, &a.signature, how, &key) {
                    Ok(Some(id)) => {
                        tracing::info!(
                            uid = a.owner,
                            rule = %id,
                            scope = %how.describe(),
                            signature = %a.signature,
                            "approval remembered"
                        );
                        added.push((a.owner, id));
                    }
                    Ok(None) => {}
                    Err(error) => {
                        tracing::warn!(%error, signature = %a.signature, "could not remember an approval");
                        return Err(match error {
                            RequestError::NotSaved(why) => RequestError::NotSaved(format!(
                                "the request was allowed this once, but {why}"
                            )),
                            other => other,
                        });
                    }
                }
            }
            Ok(added)
        })
        .await;
        result.unwrap_or_else(|_| {
            Err(RequestError::NotSaved(
                "the request was allowed this once, but remembering it failed".into(),
            ))
        })
    }

    /// Take back rules [`Self::remember`] added for an answer that then allowed nothing.
    async fn unremember(&self, added: Vec<(u32, String)>) {
        if added.is_empty() {
            return;
        }
        let shared = std::sync::Arc::clone(&self.shared);
        let _ = tokio::task::spawn_blocking(move || {
            for (owner, id) in added {
                if let Err(error) = shared.remembered.forget(owner, Some(&id)) {
                    tracing::warn!(%error, rule = %id, "could not take back an approval remembered for an answer that failed");
                }
            }
        })
        .await;
    }

    /// Serve an approval agent: register it, then forward pushes and take its answers until
    /// it leaves or the daemon stops.
    pub(super) async fn serve_approver(&mut self, hello: ApproverHello) -> Flow {
        let registered = self.register_approver(hello);
        let mut pushes = match registered {
            Ok(pushes) => pushes,
            Err(error) => {
                self.send(&Response::Error(error.to_wire())).await;
                return Flow::Continue;
            }
        };
        self.send(&Response::Done).await;
        let mut shutdown = self.shutdown.clone();
        let flow = loop {
            tokio::select! {
                push = pushes.recv() => match push {
                    Some(push) => {
                        // An agent that stops reading must not pin its queue (and this task)
                        // forever: give up on it, as the store gives up on a full queue.
                        if tokio::time::timeout(PUSH_SEND_TIMEOUT, self.send(&push)).await.is_err() {
                            tracing::warn!(conn = self.id, "approval agent stopped reading; dropping it");
                            break Flow::Close;
                        }
                    }
                    // Dropped as too slow (or the daemon is going): end, it reconnects.
                    None => break Flow::Close,
                },
                // Cancel-safe: a push that wins the race leaves the packet unread.
                request = self.receive() => {
                    let Some(request) = request else {
                        break Flow::Close;
                    };
                    match request {
                        Ok(Request::Answer { token, allow, session, item, remember }) => {
                            let reply = self.answer(&token, allow, session, item, remember, true).await;
                            self.send(&reply).await;
                        }
                        Ok(_) => {
                            let error = RequestError::Invalid(
                                "an approval agent's connection takes only Answer".into(),
                            );
                            self.send(&Response::Error(error.to_wire())).await;
                        }
                        Err(error) => break self.reject(error).await,
                    }
                }
                _ = shutdown.changed() => break Flow::Close,
            }
        };
        self.shared.pending.approvers().remove(self.id);
        flow
    }

    /// This connection's peer as the one who answers: its ancestors and what the kernel says
    /// of it, read while its pidfd shows it is still the process that connected (the
    /// ancestors of a process that left could be anyone's: then none, which is refused).
    fn answerer(&self, session: Option<String>, agent: bool) -> Answerer {
        let ancestors = crate::peer::ancestors(self.peer.pid);
        let facts = crate::peer::answerer_facts(self.peer.pid);
        let ancestors = if self.peer.pidfd.is_none() || self.peer.still_alive() {
            ancestors
        } else {
            Vec::new()
        };
        Answerer {
            uid: self.peer.uid,
            pid: self.peer.pid,
            sid: self.peer.sid,
            conn_id: self.id,
            session,
            audit_session: self.peer.audit_session(),
            facts,
            ancestors,
            agent,
        }
    }

    fn register_approver(
        &self,
        hello: ApproverHello,
    ) -> Result<tokio::sync::mpsc::Receiver<Response>, RequestError> {
        let exes = &self.shared.config.approver_exes;
        if !exes.is_empty() {
            approvers::check_executable(&self.peer, exes)?;
        }
        // An agent's process may not become an approval agent: it would answer for the person.
        self.shared
            .pending
            .check_not_agent(&self.answerer(None, true))?;
        let Some(sid) = self.peer.sid else {
            return Err(RequestError::Identity(
                "the approval agent's login session could not be established".into(),
            ));
        };
        let name: String = hello.name.chars().take(64).collect();
        self.shared.pending.register_approver(Agent {
            conn_id: self.id,
            uid: self.peer.uid,
            pid: self.peer.pid,
            sid,
            name,
            buttons: hello.buttons,
        })
    }

    /// One page of the remembered approvals this peer may see.
    pub(super) fn remembered(&self, from: u32) -> Response {
        let all = self.shared.remembered.list(self.peer.uid);
        super::replies::page(&all, from, |approvals, next| {
            Response::Remembered(RememberedList { approvals, next })
        })
    }

    /// Remove remembered approvals: on disk before the reply says they went.
    pub(super) async fn forget(&self, id: Option<String>) -> Response {
        let shared = std::sync::Arc::clone(&self.shared);
        let caller = self.peer.uid;
        let result =
            tokio::task::spawn_blocking(move || shared.remembered.forget(caller, id.as_deref()))
                .await
                .unwrap_or_else(|_| {
                    Err(RequestError::NotSaved(
                        "forgetting failed; nothing changed".into(),
                    ))
                });
        match result {
            Ok(removed) => Response::Forgot { removed },
            Err(error) => Response::Error(error.to_wire()),
        }
    }
}

fn check_remember(how: Remember) -> Result<(), RequestError> {
    match how {
        Remember::For { secs } if secs == 0 || secs > MAX_REMEMBER_SECS => {
            Err(RequestError::Invalid(format!(
                "a remembered approval lasts from 1 s to {MAX_REMEMBER_SECS} s, not {secs} s"
            )))
        }
        _ => Ok(()),
    }
}
