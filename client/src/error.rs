//! The client library's errors.

use std::path::PathBuf;

use crate::protocol::{PROTOCOL_VERSION, WireError};

/// A packet could not be encoded or decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    /// An empty packet: on a SEQPACKET socket it is indistinguishable from end of connection.
    #[error("empty packet")]
    Empty,
    /// The packet exceeds the protocol's limit.
    #[error(
        "message of {len} bytes is larger than the limit of {} bytes",
        crate::protocol::MAX_MESSAGE_LEN
    )]
    TooLarge {
        /// Its size.
        len: usize,
    },
    /// The peer speaks another protocol version.
    #[error("peer speaks protocol version {theirs}, this build speaks {PROTOCOL_VERSION}")]
    Version {
        /// The peer's version.
        theirs: u32,
    },
    /// A request variant this build does not know.
    #[error("unknown request (variant {tag})")]
    UnknownRequest {
        /// The variant index received.
        tag: u32,
    },
    /// The packet does not decode.
    #[error("malformed message: {0}")]
    Malformed(String),
    /// The message could not be encoded.
    #[error("could not encode message: {0}")]
    Encode(String),
}

/// Talking to the daemon failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No socket path could be worked out.
    #[error("could not find the assentd socket: {0}")]
    NoSocket(String),
    /// Connecting failed.
    #[error(
        "could not connect to assentd at {path}: {source} (is assentd running? start it with `assentd --user`)"
    )]
    Connect {
        /// The socket path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The socket is served by a process of another uid than root or this user: its answers
    /// are not the gate's.
    #[error(
        "the socket {path} is served by uid {uid}, which is neither root nor you: its answers are not the gate's (check --socket and ASSENT_SOCKET; the system gate's socket is /run/assent/socket)"
    )]
    UntrustedServer {
        /// The socket path.
        path: PathBuf,
        /// The serving process's uid, from the kernel.
        uid: u32,
    },
    /// The daemon did not accept the connection, or did not answer, in time.
    #[error(
        "assentd at {path} did not {what} within {} s: it is overloaded or stuck (see `assent status` from another terminal, or `journalctl -u assentd`)",
        .waited.as_secs()
    )]
    Timeout {
        /// The socket path.
        path: PathBuf,
        /// "accept the connection" or "answer".
        what: &'static str,
        /// How long the client waited.
        waited: std::time::Duration,
    },
    /// Sending or receiving failed.
    #[error("could not talk to assentd: {0}")]
    Io(#[from] std::io::Error),
    /// The daemon closed the connection before answering.
    #[error("assentd closed the connection before answering")]
    Closed,
    /// The daemon's packet could not be understood.
    #[error("could not understand assentd: {0}")]
    Codec(#[from] CodecError),
    /// The daemon refused the request.
    #[error("assentd refused the request: {0}")]
    Refused(WireError),
    /// The daemon answered with something that does not fit the request.
    #[error("unexpected reply from assentd: {0}")]
    Unexpected(String),
}
