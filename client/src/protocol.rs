//! The wire protocol between clients and `assentd`: one request enum, one response enum and
//! the types they carry.
//!
//! Every packet is one message: the protocol version as a varint, then one [`Request`] (client to
//! daemon) or one [`Response`] (daemon to client), encoded by [`crate::codec`]. Carrying the
//! version on every packet costs one byte and lets either side name both versions when they
//! disagree, even when the rest of the packet no longer decodes.
//!
//! bincode encodes enum variants by position: append new variants and fields at the end of a
//! new protocol version, never reorder. `PROTOCOL_VERSION` is defined here and nowhere else.

mod approval;
mod reports;
mod verdict;

use serde::{Deserialize, Serialize};

pub use approval::{
    ApproverHello, Remember, RememberedApproval, RememberedList, RememberedScope, Withdrawn,
};
pub use reports::{AuditEvent, LogPage, PendingBatchItem, PendingItem, PendingList, StatusInfo};
pub use verdict::{
    CommandInfo, Confinement, Decided, DecidedBy, Decision, Explanation, Finding, Level, Outcome,
    Span, Verdict,
};

/// The protocol version spoken by this build. Bumped on any change to the types below.
pub const PROTOCOL_VERSION: u32 = 15;

/// The largest packet either side sends or accepts, in bytes.
pub const MAX_MESSAGE_LEN: usize = 128 * 1024;

/// A shell command longer than this is sent as its first `TRUNCATE_COMMAND_AT` bytes with
/// `truncated: true`; the daemon then treats it as opaque, never as safe.
pub const TRUNCATE_COMMAND_AT: usize = 16 * 1024;

/// The number of variants of [`Request`], so the daemon can tell an unknown request (a newer
/// client) from a malformed one before decoding the body.
pub const REQUEST_VARIANTS: u32 = 15;

/// The most subjects one [`Request::CheckBatch`] may carry; more is refused as `invalid`.
pub const MAX_BATCH_ITEMS: usize = 64;

/// A message from a client to the daemon.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// Judge a command or tool call. Replies: [`Response::Verdict`]; when the verdict is
    /// `Confirm` and `wait` was set, a [`Response::Decided`] follows on the same connection once
    /// the request is answered, expires, is cancelled or the daemon stops. While waiting, the
    /// client may send [`Request::Cancel`] or simply close the connection to cancel.
    Check(CheckRequest),
    /// Analyse and decide as `Check` would, but hold nothing and audit nothing.
    /// Reply: [`Response::Explained`].
    Explain(ExplainRequest),
    /// Withdraw a held request. Only the requester (same uid) may cancel.
    /// Reply: [`Response::Done`] or [`Response::Error`].
    Cancel {
        /// The held request's token.
        token: String,
    },
    /// Answer a held request as an approver. Reply: [`Response::Done`] or [`Response::Error`]
    /// with one of the token error kinds.
    ///
    /// For a batch token, `item: None` answers every item of the batch still held, and
    /// `item: Some(n)` answers item `n` alone (numbered from 1 in the order the batch was sent,
    /// as `assent pending` lists it). An item out of range, or not held (allowed or denied by
    /// policy, or answered already), is `not_found`; `item` with a single request's token is
    /// `invalid`.
    Answer {
        /// The held request's token.
        token: String,
        /// True to allow, false to deny.
        allow: bool,
        /// The session label the approver answers for, if it is scoped to one; a request of
        /// another label is refused with `session_mismatch`.
        session: Option<String>,
        /// One item of a batch (from 1), or the whole batch / a single request when `None`.
        item: Option<u32>,
        /// How long an allow is remembered for requests with the same signature (ignored for
        /// a deny: a deny is always once).
        remember: Remember,
    },
    /// List the held requests the caller may answer (its own uid's; all of them for root),
    /// one page at a time: the page starting at index `from` of the list (0 for the first).
    /// Reply: [`Response::Pending`], whose `next` is where the following page starts, `None`
    /// after the last. A page holds as many as fit in one packet, so any number can be listed.
    ListPending {
        /// Index of the first item wanted.
        from: u32,
    },
    /// Report the daemon's state. Reply: [`Response::Status`].
    Status,
    /// Return recent audit events the caller may see (its own uid's; all for root), newest
    /// last: of the `limit` most recent, the page starting at index `from` (0 for the first,
    /// the oldest of them). Reply: [`Response::Log`], paged as [`Request::ListPending`] is.
    Log {
        /// How many events at most, over all pages.
        limit: u32,
        /// Index of the first event wanted.
        from: u32,
    },
    /// Judge several commands or tool calls at once (an agent's turn, seed 003). Reply:
    /// [`Response::BatchVerdict`] with a decision per item; when any item is held, its held
    /// items share one batch token, answered as a whole or item by item (see
    /// [`Request::Answer`]). With `wait`, a [`Response::BatchDecided`] follows on the same
    /// connection once every held item is settled, the batch expires, is cancelled (a
    /// [`Request::Cancel`] with the batch token, or closing the connection) or the daemon stops.
    CheckBatch(BatchRequest),
    /// Make this connection an approval agent (assent-notify) for the caller's uid. Reply:
    /// [`Response::Done`] or [`Response::Error`]; then the daemon pushes a
    /// [`Response::Held`] for every request the caller may answer (those already held first,
    /// oldest first) and a [`Response::Withdrawn`] when one ends. The agent answers with
    /// [`Request::Answer`] on the same connection; each answer gets its `Done` or `Error` in
    /// order, between the pushes. In system mode only the installed `assent-notify` may
    /// register, one per login session.
    RegisterApprover(ApproverHello),
    /// List the remembered approvals the caller may see (its own uid's; all for root), paged
    /// as [`Request::ListPending`] is. Reply: [`Response::Remembered`].
    ListRemembered {
        /// Index of the first remembered approval wanted.
        from: u32,
    },
    /// Remove one remembered approval by id, or all of the caller's (all for root) when `id`
    /// is `None`. Reply: [`Response::Forgot`], or `not_found` for an unknown id.
    Forget {
        /// Its id as `assent remembered` lists it.
        id: Option<String>,
    },
    /// The terminal prompt's answer, sent by the requesting client itself on the connection
    /// that holds the request. Accepted only for a request of origin interactive whose
    /// requester has a controlling terminal and is its owner; anything else is
    /// `self_approval`. No reply of its own: the [`Response::Decided`] follows (or a
    /// [`Response::Error`] when refused).
    Prompted {
        /// The held request's token.
        token: String,
        /// True to allow.
        allow: bool,
        /// How long an allow is remembered.
        remember: Remember,
    },
    /// Redeem the token of a request held without waiting (`check --no-wait`), once a person
    /// answered it: the pause-then-run flow of an agent framework. Only the requester's uid,
    /// with the same session label and exactly the same subject, may redeem it, once: it is
    /// consumed as it is read. Reply: [`Response::Verdict`], `allow` (approved; consumed),
    /// `deny` (denied; consumed) or `confirm` with the token when nobody has answered yet;
    /// or [`Response::Error`]: `not_found` (unknown, or already redeemed), `expired` (not
    /// answered, or not redeemed, within the hold TTL), `user_mismatch`, `session_mismatch`, or
    /// `invalid` for another subject or a batch's token.
    Redeem(RedeemRequest),
    /// Redeem a one-time grant ([`Verdict::grant`]): the door that runs a line an agent's hook
    /// was allowed (`assent sh --grant TOKEN -c LINE`) takes the confinement the gate gave it,
    /// instead of judging the line again. Only the uid that was given it, for exactly the
    /// subject it was given for, once, within seconds. Reply: [`Response::Granted`], or
    /// [`Response::Error`] (`invalid`: unknown, spent, expired, another uid or another
    /// subject); a refused grant is spent all the same.
    Grant(GrantRequest),
    /// What the kernel refused to the confined run this client made (`assent sh`, `assent
    /// run`), asked after the run failed. The daemon reads the kernel audit's Landlock denial
    /// records and takes those of the domains this peer's pid made (the socket's peer
    /// credentials, never a field); it records them in the audit trail. Reply:
    /// [`Response::Refusals`].
    Refused(RefusedRequest),
}

/// The body of [`Request::Refused`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RefusedRequest {
    /// The line that ran confined, as it was checked: the requester's own word, kept in the
    /// audit record beside what the kernel refused.
    pub subject: Subject,
    /// Who asked for the line, as the check said.
    pub origin: Origin,
}

/// The reply to [`Request::Refused`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusals {
    /// Why the daemon cannot tell what was refused (the kernel's audit is off, or the daemon
    /// may not read it); `None` when it read the kernel's records.
    pub unknown: Option<String>,
    /// What the kernel refused, in the order it refused it; at most a few.
    pub refused: Vec<Refusal>,
}

/// One access the kernel refused to a confined run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    /// The kernel's name for it: `fs.write_file`, `fs.make_reg`, `fs.remove_file`,
    /// `fs.read_file`, `net.connect_tcp`, `scope.signal`.
    pub access: String,
    /// The file or directory the kernel named (for a new file, the directory it was to be
    /// made in), when it named one: a path anyone may have chosen, to be shown escaped.
    pub path: Option<String>,
    /// What the place is, in the vocabulary's words (`files outside the project`).
    pub place: String,
}

/// The body of [`Request::Grant`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GrantRequest {
    /// The grant's token, from the verdict.
    pub token: String,
    /// The command, exactly as it was checked (its working directory included).
    pub subject: Subject,
}

/// What a redeemed grant lets the door run with: the reply to [`Request::Grant`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Granted {
    /// The Landlock domain to build, as the check's verdict gave it (for a line the policy
    /// let through by itself, without `write_anywhere`).
    pub confine: Confinement,
    /// A person allowed the line (after a hold): what only a person grants is granted.
    pub approved: bool,
}

/// The body of [`Request::Redeem`]: the token and what it must have been given for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RedeemRequest {
    /// The token `check --no-wait` printed.
    pub token: String,
    /// The command or tool call, exactly as it was held.
    pub subject: Subject,
    /// Who is asking, as when it was held.
    pub origin: Origin,
    /// The session label must be the held request's.
    pub context: Context,
}

/// Several subjects judged together: the body of [`Request::CheckBatch`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchRequest {
    /// The commands and tool calls, in order; at most [`MAX_BATCH_ITEMS`], at least one.
    pub subjects: Vec<Subject>,
    /// Who is asking, for every item.
    pub origin: Origin,
    /// Context for every item, as for a check.
    pub context: Context,
    /// Keep the connection open for the final [`Response::BatchDecided`].
    pub wait: bool,
}

/// The daemon's answer to a batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchVerdict {
    /// One verdict per subject, in order (their own `token` and `expires_in_ms` are `None`).
    pub items: Vec<Verdict>,
    /// The batch token, when any item is held.
    pub token: Option<String>,
    /// Milliseconds until the held items expire.
    pub expires_in_ms: Option<u64>,
}

/// The final outcome of every item of a batch, in order: the policy's for the items it
/// decided, the answer (or expiry, cancel, stop) for the held ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchDecided {
    /// One outcome per subject.
    pub items: Vec<Decided>,
}

/// What is being judged, and on whose behalf.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckRequest {
    /// The command or tool call.
    pub subject: Subject,
    /// Who is asking: a person at a shell, or automation.
    pub origin: Origin,
    /// What the caller says about itself. Claims can raise a decision, never lower it.
    pub context: Context,
    /// Keep the connection open for the final [`Response::Decided`] of a held request. When
    /// false the request stays held and the client gets its token to hand on.
    pub wait: bool,
}

/// Analyse and decide without holding: the body of [`Request::Explain`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExplainRequest {
    /// The command or tool call.
    pub subject: Subject,
    /// The origin to decide for.
    pub origin: Origin,
    /// Context as for a check.
    pub context: Context,
}

/// The thing to judge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Subject {
    /// A shell command line, run by bash in `cwd`.
    Shell {
        /// The command line as typed or passed to `sh -c`.
        command: String,
        /// The working directory it would run in (absolute).
        cwd: String,
        /// The command was cut to its first [`TRUNCATE_COMMAND_AT`] bytes.
        truncated: bool,
    },
    /// An agent's tool call.
    Tool {
        /// The tool's name.
        name: String,
        /// Its arguments as a JSON document.
        args_json: String,
        /// The agent's working directory (absolute), when known: where the call's relative
        /// paths are, and the project it works in. An argument naming a working directory
        /// (`cwd`, `workdir`) takes its place for that call.
        cwd: Option<String>,
    },
}

/// Who is asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// A person typed it at an interactive shell.
    Interactive,
    /// An agent ran a shell command.
    Agent,
    /// An agent called a tool.
    Tool,
}

/// What the caller says about the request. None of it is trusted for authority.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Context {
    /// A session label, such as an agent's conversation id.
    pub session: Option<String>,
    /// The caller's own view: `Some(true)` raises the decision to at least confirm.
    pub requires_confirmation: Option<bool>,
    /// The caller's confidence in the action, 0.0 to 1.0 (seed 001).
    pub confidence: Option<f32>,
    /// The caller will show the terminal prompt while the request is held (origin
    /// interactive on a terminal), so a person can answer even with no approval agent.
    pub prompt: bool,
    /// The agent the caller says it serves (`Claude Code`, from its hook): shown to people as
    /// the agent's own claim, beside the program the daemon itself saw.
    pub agent: Option<String>,
    /// The caller runs the command itself, inside the [`Confinement`] the verdict gives
    /// (`assent run`, `assent sh`). A door's promise about how it runs what it is allowed,
    /// not a claim about the command: it never lowers what the command is judged to be.
    pub confines: bool,
    /// The caller hands an allowed line to a door that runs it confined (an agent's hook that
    /// rewrites the call to `assent sh --grant`): an allow with a [`Confinement`] comes with a
    /// one-time grant ([`Verdict::grant`]; for a held request allowed by a person, its token
    /// becomes the grant). Only with `confines`.
    pub grant: bool,
    /// The caller hands a request that would be held to the agent's own prompt instead (an
    /// agent's hook under `--ask-when-held`): nothing is held, the verdict is a confirm without
    /// a token (an ask), and with `grant` it carries a grant for the agent's prompt, bound to
    /// the agent that asked (version 14).
    pub asks_when_held: bool,
}

/// A message from the daemon to a client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Response {
    /// The answer to a check.
    Verdict(Verdict),
    /// The final outcome of a held request the client waits for.
    Decided(Decided),
    /// The answer to an explain.
    Explained(Explanation),
    /// The request succeeded and there is nothing to return.
    Done,
    /// Held requests.
    Pending(PendingList),
    /// Daemon status.
    Status(StatusInfo),
    /// Recent audit events, oldest first: one page.
    Log(LogPage),
    /// The request failed.
    Error(WireError),
    /// The answer to a batch.
    BatchVerdict(BatchVerdict),
    /// The final outcome of every item of a batch the client waits for.
    BatchDecided(BatchDecided),
    /// Pushed to an approval agent: a request it may answer was held.
    Held(PendingItem),
    /// Pushed to an approval agent: a request it was shown has ended (answered, cancelled,
    /// expired, or the daemon is stopping); close its notification.
    Withdrawn(Withdrawn),
    /// Remembered approvals.
    Remembered(RememberedList),
    /// How many remembered approvals were removed.
    Forgot {
        /// The count.
        removed: u32,
    },
    /// A redeemed grant: what the door runs the line with.
    Granted(Granted),
    /// What the kernel refused to a confined run: the reply to [`Request::Refused`].
    Refusals(Refusals),
}

/// An error as it crosses the wire: a stable kind plus a message for a person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireError {
    /// What went wrong, for programs.
    pub kind: ErrorKind,
    /// What went wrong, for people.
    pub message: String,
}

/// Stable error kinds. Append only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The two sides speak different protocol versions; the connection closes.
    VersionMismatch,
    /// The packet could not be decoded; the connection closes.
    BadMessage,
    /// The packet was larger than [`MAX_MESSAGE_LEN`]; the connection closes.
    TooLarge,
    /// A request this daemon does not know (a newer client).
    UnknownRequest,
    /// No held request has this token (never existed, or already answered).
    NotFound,
    /// The held request expired before this answer.
    Expired,
    /// The caller's uid may not answer or cancel this request.
    UserMismatch,
    /// The request belongs to another session label.
    SessionMismatch,
    /// The requester (or a process of its login session) tried to answer its own request.
    SelfApproval,
    /// A per-user limit was reached (held requests).
    LimitReached,
    /// The caller's identity could not be established; nothing is allowed.
    Identity,
    /// The request was understood but is invalid (for example an empty command).
    Invalid,
    /// The daemon failed; the request was not allowed.
    Internal,
    /// The approval needs the user's password (polkit), and it was not given.
    NotAuthorized,
    /// A remembered approval or a forget could not be written to disk; the message says what
    /// is in force.
    NotSaved,
}

impl ErrorKind {
    /// A short stable name, as printed by the client (`not_found`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::VersionMismatch => "version_mismatch",
            ErrorKind::BadMessage => "bad_message",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::UnknownRequest => "unknown_request",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Expired => "expired",
            ErrorKind::UserMismatch => "user_mismatch",
            ErrorKind::SessionMismatch => "session_mismatch",
            ErrorKind::SelfApproval => "self_approval",
            ErrorKind::LimitReached => "limit_reached",
            ErrorKind::Identity => "identity",
            ErrorKind::Invalid => "invalid",
            ErrorKind::Internal => "internal",
            ErrorKind::NotAuthorized => "not_authorized",
            ErrorKind::NotSaved => "not_saved",
        }
    }
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind.as_str(), self.message)
    }
}

impl Origin {
    /// Lowercase name, as in policy files and output.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Interactive => "interactive",
            Origin::Agent => "agent",
            Origin::Tool => "tool",
        }
    }
}

impl Subject {
    /// A shell command line run in `cwd`, cut to [`TRUNCATE_COMMAND_AT`] bytes at a character
    /// boundary (and marked `truncated`, so the daemon never counts it safe) if it is longer.
    pub fn shell(command: &str, cwd: String) -> Subject {
        let truncated = command.len() > TRUNCATE_COMMAND_AT;
        let command = if truncated {
            let mut end = TRUNCATE_COMMAND_AT;
            while !command.is_char_boundary(end) {
                end -= 1;
            }
            &command[..end]
        } else {
            command
        };
        Subject::Shell {
            command: command.to_string(),
            cwd,
            truncated,
        }
    }

    /// Its working directory, when it has one.
    pub fn cwd(&self) -> Option<&str> {
        match self {
            Subject::Shell { cwd, .. } => Some(cwd),
            Subject::Tool { cwd, .. } => cwd.as_deref(),
        }
    }

    /// A one-line description for lists and logs.
    pub fn summary(&self) -> String {
        match self {
            Subject::Shell { command, .. } => command.clone(),
            Subject::Tool {
                name, args_json, ..
            } => format!("tool {name} {args_json}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_cut_at_a_character_boundary() {
        let long = "é".repeat(TRUNCATE_COMMAND_AT);
        match Subject::shell(&long, "/".into()) {
            Subject::Shell {
                command, truncated, ..
            } => {
                assert!(truncated);
                assert!(command.len() <= TRUNCATE_COMMAND_AT);
                assert!(command.len() > TRUNCATE_COMMAND_AT - 2);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            Subject::shell("ls", "/".into()),
            Subject::Shell {
                truncated: false,
                ..
            }
        ));
    }
}
