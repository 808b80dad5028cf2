//! assent-notify's errors.

use std::path::PathBuf;

use assent_client::protocol::WireError;

/// What can go wrong between the agent, the daemon and the session bus.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The session bus could not be reached, or failed.
    #[error("could not use the session bus: {0} (is DBUS_SESSION_BUS_ADDRESS set?)")]
    Bus(String),
    /// Another assent-notify already serves this session bus.
    #[error(
        "another assent-notify is already running on this session bus (it owns {})",
        crate::desktop::AGENT_NAME
    )]
    AlreadyRunning,
    /// The daemon's socket could not be reached.
    #[error("could not connect to assentd at {path}: {source}")]
    Connect {
        /// The socket.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Sending to or receiving from the daemon failed.
    #[error("could not talk to assentd: {0}")]
    Io(#[from] std::io::Error),
    /// A packet could not be encoded or decoded.
    #[error("could not understand assentd: {0}")]
    Codec(#[from] assent_client::CodecError),
    /// The daemon refused to register this agent.
    #[error("assentd refused this approval agent: {0}")]
    Refused(WireError),
    /// The daemon closed the connection.
    #[error("assentd closed the connection")]
    Closed,
    /// The daemon sent something the protocol does not allow here.
    #[error("unexpected reply from assentd: {0}")]
    Unexpected(String),
}
