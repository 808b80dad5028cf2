//! One peer: read a packet, answer it, repeat.
//!
//! Errors in a connection end that connection and nothing else. A framing error (wrong
//! version, undecodable, oversized) gets an error reply and closes the connection; a request
//! error (unknown token, …) gets an error reply and the connection goes on. A held request with
//! `wait` keeps the connection until it is settled; closing the connection cancels it.

use std::sync::Arc;

use assent_client::CodecError;
use assent_client::codec::{self, decode_request};
use assent_client::protocol::{
    AuditEvent, BatchDecided, BatchRequest, BatchVerdict, CheckRequest, Decided, DecidedBy,
    Decision, ErrorKind, ExplainRequest, Explanation, MAX_BATCH_ITEMS, MAX_MESSAGE_LEN, Origin,
    PROTOCOL_VERSION, PendingItem, PendingList, Request, Response, StatusInfo, Subject, Verdict,
    WireError,
};
use tokio::sync::{oneshot, watch};
use tokio::time::{Instant, sleep_until};
use tokio_seqpacket::UnixSeqpacket;

use crate::error::RequestError;
use crate::judge::{self, Caller, Judgement, MAX_COMMANDS_ON_WIRE};
use crate::peer::PeerIdentity;
use crate::pending::{self, Answerer, BatchHold, BatchItem, Hold, Requester};
use crate::policy::Policy;
use crate::server::Shared;

/// Commands longer than this are analysed off the async workers.
const ANALYSE_INLINE_MAX: usize = 4096;
/// The largest packet a connection waiting for its held request accepts (a `Cancel`).
const WAITING_PACKET_MAX: usize = 512;
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
    buf: Vec<u8>,
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
    ) -> Conn {
        Conn {
            socket,
            peer,
            id,
            shared,
            home,
            user,
            // One byte over the limit, so an oversized packet is seen, not silently cut.
            buf: vec![0; MAX_MESSAGE_LEN + 1],
        }
    }

    /// Serve requests until the peer leaves, breaks the protocol, or the daemon stops.
    pub async fn serve(mut self, mut shutdown: watch::Receiver<bool>) {
        loop {
            let received = tokio::select! {
                received = self.socket.recv(&mut self.buf) => received,
                _ = shutdown.changed() => return,
            };
            let len = match received {
                // Zero bytes is end of connection (an empty packet reads the same way).
                Ok(info) if info.bytes_read() == 0 => return,
                Ok(info) => info.bytes_read(),
                Err(error) => {
                    tracing::debug!(%error, "receive failed");
                    return;
                }
            };
            let flow = match decode_request(&self.buf[..len]) {
                Ok(request) => self.handle(request).await,
                Err(error) => self.reject(error).await,
            };
            if let Flow::Close = flow {
                return;
            }
        }
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
            } => {
                let answerer = Answerer {
                    uid: self.peer.uid,
                    pid: self.peer.pid,
                    sid: self.peer.sid,
                    conn_id: self.id,
                    session,
                };
                let result = self
                    .shared
                    .pending
                    .answer_item(&token, item, &answerer, allow);
                self.send(&done_or_error(result)).await;
            }
            Request::ListPending => {
                let list = pending_list(self.shared.pending.list(self.peer.uid));
                self.send(&Response::Pending(list)).await;
            }
            Request::Status => {
                let status = self.status();
                self.send(&Response::Status(status)).await;
            }
            Request::Log { limit } => {
                let uid = (self.peer.uid != 0).then_some(self.peer.uid);
                let limit = usize::try_from(limit)
                    .unwrap_or(usize::MAX)
                    .min(MAX_LOG_EVENTS);
                let mut events = self.shared.audit.recent(uid, limit);
                while !events.is_empty()
                    && codec::encode_response(&Response::Log(events.clone())).is_err()
                {
                    events.drain(..events.len() / 2);
                }
                self.send(&Response::Log(events)).await;
            }
        }
        Flow::Continue
    }

    fn status(&self) -> StatusInfo {
        let (allowed, denied, held) = self.shared.stats.snapshot();
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
        }
    }

    /// Run the pipe for a subject, off the async workers when the input is large.
    async fn judge(
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

    async fn explain(&self, explain: ExplainRequest) -> Response {
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

    async fn check(&mut self, check: CheckRequest) -> Flow {
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
        let judged = self.judge(policy, subject, origin, context).await;
        let (judgement, subject, context) = match judged {
            Ok(judged) => judged,
            Err(error) => {
                self.send(&Response::Error(error.to_wire())).await;
                return Flow::Continue;
            }
        };
        let decision = judgement.ruling.decision;
        if decision != Decision::Confirm {
            self.send(&Response::Verdict(verdict(&judgement, None, None)))
                .await;
            self.shared.stats.record(decision);
            self.audit(&judgement, &subject, decision, None);
            return Flow::Continue;
        }
        let hold = Hold {
            owner,
            requester: self.requester(),
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
        };
        let held = match self.shared.pending.hold(hold) {
            Ok(held) => held,
            Err(error) => {
                self.send(&Response::Error(error.to_wire())).await;
                self.shared.stats.record(Decision::Deny);
                self.audit(&judgement, &subject, Decision::Deny, None);
                return Flow::Continue;
            }
        };
        let expires_in = pending::millis(held.expires_at.saturating_duration_since(Instant::now()));
        let reply = verdict(&judgement, Some(held.token.clone()), Some(expires_in));
        self.send(&Response::Verdict(reply)).await;
        self.shared.stats.record(Decision::Confirm);
        self.audit(&judgement, &subject, Decision::Confirm, Some(&held.token));
        match held.outcome {
            Some(outcome) => {
                // A waiting connection only ever receives a Cancel: give the packet buffer back
                // while it waits, so a thousand waiting requesters cost little memory.
                self.buf = Vec::new();
                let flow = self
                    .wait(&held.token, held.expires_at, outcome, |decided| {
                        Response::Decided(decided.unwrap_or_else(|_| lost()))
                    })
                    .await;
                self.buf = vec![0; MAX_MESSAGE_LEN + 1];
                flow
            }
            None => Flow::Continue,
        }
    }

    /// Judge every subject of a batch under one policy; hold the held ones under one token.
    async fn check_batch(&mut self, batch: BatchRequest) -> Flow {
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
        let mut judged = Vec::with_capacity(subjects.len());
        for subject in subjects {
            match self
                .judge(Arc::clone(&policy), subject, origin, context.clone())
                .await
            {
                Ok((judgement, subject, _)) => judged.push((judgement, subject)),
                Err(error) => {
                    let wire = error.to_wire();
                    let error = WireError {
                        kind: wire.kind,
                        message: format!("batch item {}: {}", judged.len() + 1, wire.message),
                    };
                    self.send(&Response::Error(error)).await;
                    return Flow::Continue;
                }
            }
        }
        let count = judged.len();
        let any_held = judged
            .iter()
            .any(|(j, _)| j.ruling.decision == Decision::Confirm);
        let mut reply = BatchVerdict {
            items: judged.iter().map(|(j, _)| verdict(j, None, None)).collect(),
            token: None,
            expires_in_ms: None,
        };
        if !any_held {
            fit_batch_verdict(&mut reply);
            self.send(&Response::BatchVerdict(reply)).await;
            for (judgement, subject) in &judged {
                let decision = judgement.ruling.decision;
                self.shared.stats.record(decision);
                self.audit(judgement, subject, decision, None);
            }
            return Flow::Continue;
        }
        let hold = BatchHold {
            owner,
            requester: self.requester(),
            session: context.session.clone(),
            origin: if judged.iter().all(|(j, _)| j.origin == Origin::Tool) {
                Origin::Tool
            } else {
                origin
            },
            items: judged
                .iter()
                .map(|(judgement, subject)| BatchItem {
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
        };
        let held = match self.shared.pending.hold_batch(hold) {
            Ok(held) => held,
            Err(error) => {
                // Refused as a whole: nothing of it is allowed.
                self.send(&Response::Error(error.to_wire())).await;
                for (judgement, subject) in &judged {
                    self.shared.stats.record(Decision::Deny);
                    self.audit(judgement, subject, Decision::Deny, None);
                }
                return Flow::Continue;
            }
        };
        reply.token = Some(held.token.clone());
        reply.expires_in_ms = Some(pending::millis(
            held.expires_at.saturating_duration_since(Instant::now()),
        ));
        fit_batch_verdict(&mut reply);
        self.send(&Response::BatchVerdict(reply)).await;
        for (judgement, subject) in &judged {
            let decision = judgement.ruling.decision;
            self.shared.stats.record(decision);
            self.audit(judgement, subject, decision, Some(&held.token));
        }
        match held.outcome {
            Some(outcome) => {
                self.buf = Vec::new();
                let flow = self
                    .wait(&held.token, held.expires_at, outcome, |items| {
                        Response::BatchDecided(BatchDecided {
                            items: items.unwrap_or_else(|_| vec![lost(); count]),
                        })
                    })
                    .await;
                self.buf = vec![0; MAX_MESSAGE_LEN + 1];
                flow
            }
            None => Flow::Continue,
        }
    }

    /// Wait for a held request or batch to be settled, while watching the connection: a
    /// `Cancel` or the peer leaving withdraws it. `reply` turns the outcome into the response.
    async fn wait<T>(
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
                        Ok(_) => {
                            let error = RequestError::Invalid(
                                "this connection waits for its held request; only Cancel is accepted".into(),
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

    fn audit(
        &self,
        judgement: &Judgement,
        subject: &Subject,
        decision: Decision,
        token: Option<&str>,
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
            by: DecidedBy::Policy,
            reason: judgement.ruling.reason.clone(),
            token: token.map(str::to_string),
        });
    }

    /// This connection's peer as the requester of a held request.
    fn requester(&self) -> Requester {
        Requester {
            uid: self.peer.uid,
            pid: self.peer.pid,
            sid: self.peer.sid,
            conn_id: self.id,
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

fn verdict(judgement: &Judgement, token: Option<String>, expires_in_ms: Option<u64>) -> Verdict {
    Verdict {
        decision: judgement.ruling.decision,
        level: judgement.analysis.level,
        findings: judge::wire_findings(&judgement.analysis.findings),
        reason: judgement.ruling.reason.clone(),
        token,
        expires_in_ms,
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

/// Findings per item of a batch verdict, at most, when the whole does not fit one packet.
const BATCH_FINDINGS_STEPS: [usize; 4] = [16, 4, 1, 0];

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

/// Commands in a pending list are shortened to this many bytes.
const PENDING_SUBJECT_MAX: usize = 4096;
/// Items of a held batch in a pending list are shortened to this many bytes each.
const PENDING_BATCH_SUBJECT_MAX: usize = 512;
/// Findings listed per item of a held batch, at most.
const PENDING_BATCH_FINDINGS_MAX: usize = 8;

/// Cut `text` to at most `max` bytes at a character boundary, marking the cut.
fn shorten(text: &mut String, max: usize) {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
}

/// As many held requests as fit in one packet, with long commands shortened, and a count of the
/// rest: a list is never cut silently.
fn pending_list(mut items: Vec<PendingItem>) -> PendingList {
    for item in &mut items {
        shorten(&mut item.subject, PENDING_SUBJECT_MAX);
        for held in &mut item.items {
            shorten(&mut held.subject, PENDING_BATCH_SUBJECT_MAX);
            held.findings.truncate(PENDING_BATCH_FINDINGS_MAX);
        }
    }
    let total = items.len();
    let fits = |n: usize| {
        let list = PendingList {
            items: items[..n].to_vec(),
            omitted: u32::try_from(total - n).unwrap_or(u32::MAX),
        };
        codec::encode_response(&Response::Pending(list)).is_ok()
    };
    // The largest prefix that fits: a binary search, since encoding is the cost.
    let (mut lo, mut hi) = (0, total);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    items.truncate(lo);
    PendingList {
        items,
        omitted: u32::try_from(total - lo).unwrap_or(u32::MAX),
    }
}

fn done_or_error(result: Result<(), RequestError>) -> Response {
    match result {
        Ok(()) => Response::Done,
        Err(error) => Response::Error(error.to_wire()),
    }
}
