//! One peer: read a packet, answer it, repeat.
//!
//! Errors in a connection end that connection and nothing else. A framing error (wrong
//! version, undecodable, oversized) gets an error reply and closes the connection; a request
//! error (unknown token, …) gets an error reply and the connection goes on. A held request with
//! `wait` keeps the connection until it is settled; closing the connection cancels it.
//!
//! This file holds the loop, the dispatch and sending; `check.rs` judges, holds and waits,
//! `batch.rs` does the same for a batch, `replies.rs` builds the list and done replies.

mod approve;
mod batch;
mod check;
mod replies;

use std::sync::Arc;

use assent_client::CodecError;
use assent_client::codec::{self, decode_request};
use assent_client::protocol::{
    ErrorKind, LogPage, MAX_MESSAGE_LEN, PROTOCOL_VERSION, PendingList, Request, Response,
    StatusInfo, WireError,
};
use tokio::sync::watch;
use tokio_seqpacket::UnixSeqpacket;

use crate::peer::PeerIdentity;
use crate::server::Shared;
use replies::{done_or_error, page};

/// The most audit events one `Log` returns.
const MAX_LOG_EVENTS: usize = 1000;

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

    /// Serve requests until the peer leaves, breaks the protocol, stays idle past the
    /// configuration's `idle_timeout`, or the daemon stops.
    pub async fn serve(mut self) {
        let mut shutdown = self.shutdown.clone();
        loop {
            // Wait for a packet without a buffer: an idle connection holds none.
            let ready = tokio::select! {
                ready = tokio::time::timeout(self.shared.config.idle_timeout, self.socket.peek(&mut [])) => ready,
                _ = shutdown.changed() => return,
            };
            match ready {
                Ok(Ok(_)) => {}
                Ok(Err(error)) => {
                    tracing::debug!(%error, "receive failed");
                    return;
                }
                Err(_) => {
                    tracing::debug!(conn = self.id, "closing a connection idle for too long");
                    return;
                }
            }
            // Wait for the audit writer when it is far behind: the decisions made are recorded,
            // new work waits rather than outrun it.
            self.shared.audit.keep_up().await;
            let flow = match self.receive().await {
                Some(Ok(request)) => self.handle(request).await,
                Some(Err(error)) => self.reject(error).await,
                None => return,
            };
            if let Flow::Close = flow {
                return;
            }
        }
    }

    /// Receive and decode one packet into a buffer lent for the moment. `None`: the peer is
    /// gone (zero bytes is end of connection; an empty packet reads the same way).
    async fn receive(&self) -> Option<Result<Request, CodecError>> {
        let mut buf = self.shared.buffers.take();
        let received = self.socket.recv(&mut buf).await;
        let decoded = match received {
            Ok(info) if info.bytes_read() == 0 => None,
            Ok(info) => Some(decode_request(&buf[..info.bytes_read()])),
            Err(error) => {
                tracing::debug!(%error, "receive failed");
                None
            }
        };
        self.shared.buffers.put(buf);
        decoded
    }

    async fn reject(&mut self, error: CodecError) -> Flow {
        let (kind, message, flow) = match error {
            CodecError::Version { theirs } => (
                ErrorKind::VersionMismatch,
                format!(
                    "client speaks protocol {theirs}, assentd speaks protocol {PROTOCOL_VERSION}: use the assent client from the same release as the daemon"
                ),
                Flow::Close,
            ),
            CodecError::UnknownRequest { tag } => (
                ErrorKind::UnknownRequest,
                format!("request variant {tag} is not known to this assentd"),
                Flow::Continue,
            ),
            CodecError::TooLarge { len } => (
                ErrorKind::TooLarge,
                format!("packet larger than {MAX_MESSAGE_LEN} bytes (got at least {len})"),
                Flow::Close,
            ),
            other => (ErrorKind::BadMessage, other.to_string(), Flow::Close),
        };
        tracing::debug!(uid = self.peer.uid, kind = kind.as_str(), "rejected packet");
        self.send(&Response::Error(WireError { kind, message }))
            .await;
        flow
    }

    async fn handle(&mut self, request: Request) -> Flow {
        match request {
            Request::Check(check) => return self.check(check).await,
            Request::CheckBatch(batch) => return self.check_batch(batch).await,
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
            Request::Rules { from } => {
                let reply = self.rules(from);
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
        }
    }

    /// Send one response. A failure means the peer is gone; the next receive ends the loop.
    async fn send(&self, response: &Response) {
        let packet = match codec::encode_response(response) {
            Ok(packet) => packet,
            Err(error) => {
                tracing::error!(%error, "could not encode a response");
                let fallback = Response::Error(WireError {
                    kind: ErrorKind::Internal,
                    message: format!("could not encode the reply: {error}"),
                });
                match codec::encode_response(&fallback) {
                    Ok(packet) => packet,
                    Err(_) => return,
                }
            }
        };
        if let Err(error) = self.socket.send(&packet).await {
            tracing::debug!(%error, conn = self.id, "send failed");
        }
    }
}
