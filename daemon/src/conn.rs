//! One peer: read a packet, answer it, repeat.
//!
//! Errors in a connection end that connection and nothing else. A framing error (wrong
//! version, undecodable, oversized) gets an error reply and closes the connection; a request
//! error (unknown token, …) gets an error reply and the connection goes on. A held request with
//! `wait` keeps the connection until it is settled; closing the connection cancels it.
//!
//! This file holds the loop, the dispatch and sending; what a request decides is
//! [`crate::request`]'s. `check.rs` turns a check's or a batch's outcome into packets,
//! `wait.rs` keeps a connection
//! until its held request ends, `redeem.rs` redeems a token, `explain.rs` explains,
//! `approve.rs` answers and serves approval agents, `replies.rs` builds the list and done
//! replies.

mod approve;
mod check;
mod explain;
mod redeem;
mod refused;
mod replies;
mod wait;

use std::io;
use std::os::fd::{AsFd, AsRawFd};
use std::sync::Arc;
use std::time::Instant;

use assent_client::CodecError;
use assent_client::codec::{self, decode_request};
use assent_client::protocol::{
    LogPage, MAX_MESSAGE_LEN, PROTOCOL_VERSION, PendingList, Request, Response, StatusInfo,
};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::socket::{MsgFlags, recv};
use tokio::sync::watch;
use tokio_seqpacket::UnixSeqpacket;

use crate::error::RequestError;
use crate::peer::PeerIdentity;
use crate::request::Asker;
use crate::server::Shared;
use replies::{done_or_error, page};

/// The most audit events one `Log` returns.
const MAX_LOG_EVENTS: usize = 1000;

/// The longest a door's next ruleset waits for the door's run to end before it is made: a
/// run that lasts longer than this hardly feels the work beside it, and the next door of the
/// same confinement, should it come meanwhile, plans for itself.
const FILL_AFTER: std::time::Duration = std::time::Duration::from_millis(50);

/// Whether the connection goes on after a request.
enum Flow {
    Continue,
    Close,
}

/// One connection's state.
pub struct Conn {
    socket: UnixSeqpacket,
    peer: PeerIdentity,
    id: u64,
    shared: Arc<Shared>,
    home: Option<String>,
    user: Option<String>,
    /// The daemon's stop signal, for loops that outlive one request (approval agents).
    shutdown: watch::Receiver<bool>,
}

impl Conn {
    /// A connection whose peer is known.
    pub fn new(
        socket: UnixSeqpacket,
        peer: PeerIdentity,
        id: u64,
        shared: Arc<Shared>,
        home: Option<String>,
        user: Option<String>,
        shutdown: watch::Receiver<bool>,
    ) -> Conn {
        Conn {
            socket,
            peer,
            id,
            shared,
            home,
            user,
            shutdown,
        }
    }

    /// This connection's peer as the request path sees it.
    fn asker(&self) -> Asker<'_> {
        Asker {
            shared: &self.shared,
            peer: &self.peer,
            conn_id: self.id,
            home: self.home.as_deref(),
            user: self.user.as_deref(),
        }
    }

    /// Serve requests until the peer leaves, breaks the protocol, stays idle past the
    /// configuration's `idle_timeout`, or the daemon stops.
    pub async fn serve(mut self) {
        let mut shutdown = self.shutdown.clone();
        let idle = self.shared.config.idle_timeout;
        // One timer for the connection's life, moved only when it fires: a request costs a
        // clock read, not a timer.
        let mut active = Instant::now();
        let deadline = tokio::time::sleep(idle);
        tokio::pin!(deadline);
        loop {
            // Wait for the audit writer when it is far behind: the decisions made are recorded,
            // new work waits rather than outrun it.
            self.shared.audit.keep_up().await;
            let received = tokio::select! {
                received = self.receive() => received,
                () = &mut deadline => {
                    if active.elapsed() >= idle {
                        tracing::debug!(conn = self.id, "closing a connection idle for too long");
                        return;
                    }
                    deadline.as_mut().reset((active + idle).into());
                    continue;
                }
                _ = shutdown.changed() => return,
            };
            active = Instant::now();
            let flow = match received {
                Some(Ok(request)) => self.handle(request).await,
                Some(Err(error)) => self.reject(error).await,
                None => return,
            };
            if let Flow::Close = flow {
                return;
            }
        }
    }

    /// Wait for a packet, then receive and decode it into a buffer lent only for the read: a
    /// connection waiting for its next request holds none. `None`: the peer is gone (zero bytes
    /// is end of connection; an empty packet reads the same way). Cancel-safe: nothing is read
    /// before the packet is there.
    async fn receive(&self) -> Option<Result<Request, CodecError>> {
        let socket = self.socket.as_async_fd();
        loop {
            let mut ready = match socket.readable().await {
                Ok(ready) => ready,
                Err(error) => {
                    tracing::debug!(%error, "receive failed");
                    return None;
                }
            };
            let mut buf = self.shared.buffers.take();
            let received = ready.try_io(|socket| {
                recv(socket.as_raw_fd(), &mut buf, MsgFlags::MSG_DONTWAIT).map_err(io::Error::from)
            });
            let decoded = match received {
                // Readiness was stale: give the buffer back and wait again.
                Err(_would_block) => None,
                Ok(Ok(0)) => Some(None),
                Ok(Ok(len)) => Some(Some(decode_request(&buf[..len]))),
                Ok(Err(error)) => {
                    tracing::debug!(%error, "receive failed");
                    Some(None)
                }
            };
            self.shared.buffers.put(buf);
            if let Some(decoded) = decoded {
                return decoded;
            }
        }
    }

    async fn reject(&mut self, error: CodecError) -> Flow {
        let (error, flow) = match error {
            CodecError::Version { theirs } => (
                RequestError::Version {
                    theirs,
                    ours: PROTOCOL_VERSION,
                },
                Flow::Close,
            ),
            CodecError::UnknownRequest { tag } => {
                (RequestError::UnknownRequest(tag), Flow::Continue)
            }
            CodecError::TooLarge { len } => (
                RequestError::TooLarge {
                    limit: MAX_MESSAGE_LEN,
                    len,
                },
                Flow::Close,
            ),
            other => (RequestError::BadMessage(other.to_string()), Flow::Close),
        };
        let wire = error.to_wire();
        tracing::debug!(
            uid = self.peer.uid,
            kind = wire.kind.as_str(),
            "rejected packet"
        );
        self.send(&Response::Error(wire)).await;
        flow
    }

    async fn handle(&mut self, request: Request) -> Flow {
        match request {
            Request::Check(check) => return self.check(check).await,
            Request::CheckBatch(batch) => return self.check_batch(batch).await,
            Request::Redeem(redeem) => return self.redeem(redeem).await,
            Request::Grant(grant) => {
                let reply = self.redeem_grant(grant);
                let key = match &reply {
                    Response::Granted(granted) => {
                        self.door_key(granted.confine.clone(), granted.approved)
                    }
                    _ => None,
                };
                let kept = key.as_ref().and_then(|key| self.kept_ruleset(key));
                self.send_passing(&reply, kept).await;
                if let Some(key) = key {
                    self.after_passing(key);
                }
            }
            Request::Refused(refused) => {
                let reply = self.refused(refused).await;
                self.send(&reply).await;
            }
            Request::Explain(explain) => {
                let response = self.explain(explain).await;
                self.send(&response).await;
            }
            Request::Cancel { token } => {
                let result =
                    self.shared
                        .pending
                        .cancel(&token, self.peer.uid, "withdrawn by the requester");
                self.send(&done_or_error(result)).await;
            }
            Request::Answer {
                token,
                allow,
                session,
                item,
                remember,
            } => {
                let reply = self
                    .answer(&token, allow, session, item, remember, false)
                    .await;
                self.send(&reply).await;
            }
            Request::RegisterApprover(hello) => return self.serve_approver(hello).await,
            Request::ListRemembered { from } => {
                let reply = self.remembered(from);
                self.send(&reply).await;
            }
            Request::Forget { id } => {
                let reply = self.forget(id).await;
                self.send(&reply).await;
            }
            Request::Prompted { .. } => {
                let error = crate::error::RequestError::Invalid(
                    "a terminal prompt's answer is only taken on the connection that waits for its held request".into(),
                );
                self.send(&Response::Error(error.to_wire())).await;
            }
            Request::ListPending { from } => {
                let items = self.shared.pending.list(self.peer.uid);
                let reply = page(&items, from, |items, next| {
                    Response::Pending(PendingList { items, next })
                });
                self.send(&reply).await;
            }
            Request::Status => {
                let status = self.status();
                self.send(&Response::Status(status)).await;
            }
            Request::Log { limit, from } => {
                let uid = (self.peer.uid != 0).then_some(self.peer.uid);
                let limit = usize::try_from(limit)
                    .unwrap_or(usize::MAX)
                    .min(MAX_LOG_EVENTS);
                let events = self.shared.audit.recent(uid, limit);
                let reply = page(&events, from, |events, next| {
                    Response::Log(LogPage { events, next })
                });
                self.send(&reply).await;
            }
        }
        Flow::Continue
    }

    fn status(&self) -> StatusInfo {
        let kept = self.shared.rulesets.counts();
        let (allowed, denied, held) = self.shared.stats.snapshot();
        let audit = self.shared.audit.health();
        StatusInfo {
            version: env!("CARGO_PKG_VERSION").into(),
            protocol: PROTOCOL_VERSION,
            mode: self.shared.config.mode.as_str().into(),
            socket: self.shared.config.socket.display().to_string(),
            uptime_secs: self.shared.started.elapsed().as_secs(),
            allowed,
            denied,
            held,
            pending: u32::try_from(self.shared.pending.len()).unwrap_or(u32::MAX),
            policy: self.shared.policy.source(),
            policy_error: self.shared.policy.last_error(),
            approvers: u32::try_from(
                self.shared
                    .pending
                    .approvers()
                    .count_for((self.peer.uid != 0).then_some(self.peer.uid)),
            )
            .unwrap_or(u32::MAX),
            sessions: if crate::peer::kernel_has_audit_sessions() {
                "audit".into()
            } else {
                "posix".into()
            },
            no_approver: self
                .shared
                .config
                .no_approver
                .unwrap_or(self.shared.policy.current().settings.no_approver)
                .as_str()
                .into(),
            audit_failing: audit.failing,
            audit_waiting: audit.waiting,
            audit_lost: audit.lost,
            state_error: self.shared.remembered.last_error(),
            observe: self.shared.policy.current().observing(),
            policy_waiting: self.shared.policy.waiting_change(),
            landlock_abi: crate::landlock::abi(),
            refusals_unknown: self.shared.denials.why_not(),
            kept_rulesets: u32::try_from(kept.kept).unwrap_or(u32::MAX),
            rulesets_passed: kept.handed,
            hold_ttl_secs: self.shared.pending.ttl().as_secs(),
            approvers_without_buttons: u32::try_from(
                self.shared
                    .pending
                    .approvers()
                    .without_buttons_for((self.peer.uid != 0).then_some(self.peer.uid)),
            )
            .unwrap_or(u32::MAX),
        }
    }

    /// Send one response. A failure means the peer is gone; the next receive ends the loop.
    async fn send(&self, response: &Response) {
        self.send_passing(response, None).await;
    }

    /// Send one response, passing `fd` with it (`SCM_RIGHTS`) when there is one: a door's
    /// ruleset ([`crate::rulesets`]). Ours is closed once sent.
    async fn send_passing(&self, response: &Response, fd: Option<std::os::fd::OwnedFd>) {
        let packet = match codec::encode_response(response) {
            Ok(packet) => packet,
            Err(error) => {
                tracing::error!(%error, "could not encode a response");
                let fallback = Response::Error(RequestError::Internal(error.to_string()).to_wire());
                match codec::encode_response(&fallback) {
                    Ok(packet) => packet,
                    Err(_) => return,
                }
            }
        };
        let sent = match &fd {
            None => self.socket.send(&packet).await,
            Some(fd) => {
                use std::os::fd::AsFd;
                let mut space = [0u8; 64];
                let mut ancillary =
                    tokio_seqpacket::ancillary::AncillaryMessageWriter::new(&mut space);
                if ancillary.add_fds([fd.as_fd()]).is_err() {
                    self.socket.send(&packet).await
                } else {
                    (self.socket)
                        .send_with_ancillary(&packet, &mut ancillary)
                        .await
                }
            }
        };
        if let Err(error) = sent {
            tracing::debug!(%error, conn = self.id, "send failed");
        }
    }

    /// The ruleset kept for a door's run of `confine`, if one is, to pass with the reply; and
    /// the next made ready after it (`after_passing`).
    fn kept_ruleset(&self, key: &crate::rulesets::Key) -> Option<std::os::fd::OwnedFd> {
        self.shared.rulesets.take(key)
    }

    /// The key of the ruleset kept for a door's run of `confine` (with `approved`), when the
    /// door sees the file system as the daemon does (else it plans for itself).
    fn door_key(
        &self,
        confine: crate::rulesets::Confinement,
        approved: bool,
    ) -> Option<crate::rulesets::Key> {
        if !self.peer.same_mounts() {
            return None;
        }
        // Planned as the requester, with its groups, where the daemon switches to it: a
        // requester whose groups cannot be told is planned for by its door.
        let (gid, groups) = if nix::unistd::geteuid().is_root() && self.peer.uid != 0 {
            let groups = self.peer.groups();
            if groups.unknown() {
                return None;
            }
            let mut groups = groups.get().to_vec();
            groups.sort_unstable();
            groups.dedup();
            (self.peer.gid, groups)
        } else {
            (0, Vec::new())
        };
        Some(crate::rulesets::Key {
            uid: self.peer.uid,
            gid,
            groups,
            confine,
            approved,
        })
    }

    /// After a reply to a door: the next ruleset for `key` made ready, from what is kept, or
    /// planned from the disk as the requester, on the blocking pool, once the door's run is
    /// over (its process gone) or [`FILL_AFTER`] has passed, whichever comes first. Made at
    /// once, the next ruleset's fifty-odd `landlock_add_rule` ran beside the run it was passed
    /// for: on two cores a confined `ls -la` cost 0.40 ms more than an unconfined one that
    /// way, 0.36 ms made after the run (BENCHMARKS.md, "Plain lines without bash").
    fn after_passing(&self, key: crate::rulesets::Key) {
        let shared = self.shared.clone();
        // As the requester, with the groups its key was made with (read while its door waited).
        let who = crate::read::As {
            uid: self.peer.uid,
            gid: self.peer.gid,
            groups: crate::peer::Groups::known(key.groups.clone()),
            named: Vec::new(),
        };
        // The door's process, as its pidfd (readable once it ended).
        let door = self.peer.pidfd.clone();
        tokio::task::spawn_blocking(move || {
            match door {
                Some(door) => {
                    let mut ended = [PollFd::new(door.as_fd(), PollFlags::POLLIN)];
                    let _ = poll(
                        &mut ended,
                        PollTimeout::try_from(FILL_AFTER).unwrap_or(PollTimeout::ZERO),
                    );
                }
                None => std::thread::sleep(FILL_AFTER),
            }
            shared.rulesets.fill(key, &who);
        });
    }
}
