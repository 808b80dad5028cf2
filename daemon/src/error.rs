//! The daemon's errors, and the one function that turns them into what crosses the wire.

use std::path::PathBuf;

use assent_client::protocol::{ErrorKind, WireError};

/// Everything that can go wrong in the daemon outside of analysis (which never fails).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The socket could not be bound.
    #[error("could not bind {path}: {source}")]
    Bind {
        /// The socket path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Another daemon answers on the socket.
    #[error("could not start: another assentd is already listening on {path}; stop it first")]
    LiveSocket {
        /// The socket path.
        path: PathBuf,
    },
    /// Something that is not a socket is in the way.
    #[error("could not start: {path} exists and is not a socket; remove it or pass --socket")]
    NotASocket {
        /// The path.
        path: PathBuf,
    },
    /// A directory the daemon needs could not be made or secured.
    #[error("could not prepare {path}: {source}")]
    Dir {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The environment does not say where user-mode files go.
    #[error("could not find {0}: set it, or pass --socket and --state-dir")]
    MissingEnv(&'static str),
    /// The peer's identity could not be established.
    #[error("could not establish the caller's identity: {0}")]
    Identity(String),
    /// The socket systemd passed (socket activation) is not one the daemon can serve on.
    #[error("could not use the socket systemd passed: {0}")]
    Activation(String),
}

/// Errors a request can end in; each maps to one stable wire kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    /// No such held request.
    #[error("no held request with this token (unknown, or already answered)")]
    NotFound,
    /// It expired first.
    #[error("the held request expired before this answer")]
    Expired,
    /// Wrong uid.
    #[error("uid {caller} may not answer a request of uid {owner}")]
    UserMismatch {
        /// The caller's uid.
        caller: u32,
        /// The owner's uid.
        owner: u32,
    },
    /// Wrong session label.
    #[error("the request belongs to session {owner:?}, not {caller:?}")]
    SessionMismatch {
        /// The session the caller answers for.
        caller: Option<String>,
        /// The request's session.
        owner: Option<String>,
    },
    /// The approval needs the user's password through polkit, and polkit did not authorise it.
    #[error("{0}")]
    NotAuthorized(String),
    /// The requester answered itself: from its connection, its process, a process it or the
    /// agent above it started, or its session (with what was found, when known).
    #[error(
        "a request cannot be answered by the process, agent or session that made it{}; a person approves it from another login, another terminal not started by the agent, or the desktop",
        .0.as_ref().map(|why| format!(" ({why})")).unwrap_or_default()
    )]
    SelfApproval(Option<String>),
    /// Too many held requests.
    #[error("uid {uid} already has {limit} held requests; answer or cancel some first")]
    LimitReached {
        /// The uid.
        uid: u32,
        /// The limit.
        limit: usize,
    },
    /// Too many checks per second.
    #[error(
        "uid {uid} sent more than {limit} checks in one second (the policy's rate_limit); slow down and retry"
    )]
    RateLimited {
        /// The uid.
        uid: u32,
        /// Checks per second.
        limit: u32,
    },
    /// Too many remembered approvals.
    #[error(
        "uid {uid} already has {limit} remembered approvals; forget some first (assent forget)"
    )]
    TooManyRemembered {
        /// The uid.
        uid: u32,
        /// The limit.
        limit: usize,
    },
    /// Identity lookup failed.
    #[error("could not establish the caller's identity: {0}")]
    Identity(String),
    /// A change the caller asked to keep could not be written to the state directory; what
    /// the message says is what is in force.
    #[error("{0}")]
    NotSaved(String),
    /// A batch has no such held item (out of range, or not held).
    #[error("{0}")]
    NoSuchItem(String),
    /// Invalid request.
    #[error("{0}")]
    Invalid(String),
    /// One item of a batch could not be judged; the batch is refused with the item named.
    #[error("batch item {item}: {error}")]
    InBatch {
        /// The item's number, from 1.
        item: usize,
        /// What went wrong with it.
        error: Box<RequestError>,
    },
    /// The connection was refused: its uid, or everyone, holds as many as the daemon allows.
    #[error("{0}")]
    ConnectionLimit(String),
    /// The client speaks another protocol version.
    #[error(
        "client speaks protocol {theirs}, assentd speaks protocol {ours}: use the assent client from the same release as the daemon"
    )]
    Version {
        /// The client's version.
        theirs: u32,
        /// The daemon's.
        ours: u32,
    },
    /// A request variant this daemon does not know (a newer client).
    #[error("request variant {0} is not known to this assentd")]
    UnknownRequest(u32),
    /// A packet larger than the protocol allows.
    #[error("packet larger than {limit} bytes (got at least {len})")]
    TooLarge {
        /// The protocol's limit.
        limit: usize,
        /// At least this many bytes came.
        len: usize,
    },
    /// A packet that does not decode.
    #[error("{0}")]
    BadMessage(String),
    /// The daemon could not encode its own reply.
    #[error("could not encode the reply: {0}")]
    Internal(String),
}

impl RequestError {
    /// The wire form. The only place daemon errors become protocol errors.
    pub fn to_wire(&self) -> WireError {
        WireError {
            kind: self.kind(),
            message: self.to_string(),
        }
    }

    fn kind(&self) -> ErrorKind {
        match self {
            RequestError::NotFound | RequestError::NoSuchItem(_) => ErrorKind::NotFound,
            RequestError::Expired => ErrorKind::Expired,
            RequestError::UserMismatch { .. } => ErrorKind::UserMismatch,
            RequestError::SessionMismatch { .. } => ErrorKind::SessionMismatch,
            RequestError::SelfApproval(_) => ErrorKind::SelfApproval,
            RequestError::NotAuthorized(_) => ErrorKind::NotAuthorized,
            RequestError::LimitReached { .. }
            | RequestError::RateLimited { .. }
            | RequestError::TooManyRemembered { .. } => ErrorKind::LimitReached,
            RequestError::Identity(_) => ErrorKind::Identity,
            RequestError::Invalid(_) => ErrorKind::Invalid,
            RequestError::NotSaved(_) => ErrorKind::NotSaved,
            RequestError::InBatch { error, .. } => error.kind(),
            RequestError::ConnectionLimit(_) => ErrorKind::LimitReached,
            RequestError::Version { .. } => ErrorKind::VersionMismatch,
            RequestError::UnknownRequest(_) => ErrorKind::UnknownRequest,
            RequestError::TooLarge { .. } => ErrorKind::TooLarge,
            RequestError::BadMessage(_) => ErrorKind::BadMessage,
            RequestError::Internal(_) => ErrorKind::Internal,
        }
    }
}
