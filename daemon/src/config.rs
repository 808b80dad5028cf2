//! The daemon's configuration: where it listens, where it keeps state, and its limits.
//!
//! Precedence: the named defaults below, then the policy file (hold TTL, pending limit), then
//! the mode's locations (system: `/run/assent`,
//! `/var/lib/assent`, `/etc/assent`; user: the XDG directories), then command-line flags.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::Error;

/// How long a held request waits for an answer before it is denied.
pub const DEFAULT_HOLD_TTL: Duration = Duration::from_secs(300);
/// How many requests one uid may have held at once.
pub const DEFAULT_MAX_PENDING_PER_UID: usize = 32;
/// How many connections one uid may have open at once.
pub const DEFAULT_MAX_CONNECTIONS_PER_UID: usize = 1024;
/// How long a connection may sit with no request before it is closed. Clients send their
/// request at once; only a forgotten or hostile one stays open doing nothing. (Approval agents
/// and requesters waiting on a held request are not idle: they wait elsewhere.)
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// How many recent audit events are kept in memory for `assent log`.
pub const DEFAULT_LOG_MEMORY: usize = 1000;
/// How often the policy file is looked at for changes.
pub const DEFAULT_POLICY_POLL: Duration = Duration::from_secs(2);
/// The policy file's name in the configuration directory.
pub const POLICY_FILE_NAME: &str = "policy.toml";
/// System-mode locations.
pub const SYSTEM_SOCKET: &str = assent_client::paths::SYSTEM_SOCKET;
/// System-mode state directory.
pub const SYSTEM_STATE_DIR: &str = "/var/lib/assent";
/// System-mode configuration directory.
pub const SYSTEM_CONFIG_DIR: &str = "/etc/assent";
/// The approval agent that may register in system mode.
pub const SYSTEM_NOTIFY_EXE: &str = "/usr/bin/assent-notify";
/// The client, which registers as an approval agent for `assent watch` in system mode.
pub const SYSTEM_CLIENT_EXE: &str = "/usr/bin/assent";

/// System daemon for every user, or one user's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Root-owned, socket open to everyone (0666), identity from the kernel.
    System,
    /// One user's, socket 0600, no root.
    User,
}

impl Mode {
    /// Lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::System => "system",
            Mode::User => "user",
        }
    }
}

/// Where audit events go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditConfig {
    /// Send events to the journal (system mode, when the journal socket exists).
    pub journald: bool,
    /// Append events as JSON Lines here (user mode, or no journal).
    pub jsonl: Option<PathBuf>,
}

/// Everything `run` needs.
#[derive(Debug, Clone)]
pub struct Config {
    /// System or user.
    pub mode: Mode,
    /// The socket path (for status; the listener is passed separately).
    pub socket: PathBuf,
    /// Where remembered state and the user-mode audit file live.
    pub state_dir: PathBuf,
    /// Where the policy file is looked for.
    pub config_dir: PathBuf,
    /// Held-request time to live.
    pub hold_ttl: Duration,
    /// Held requests per uid.
    pub max_pending_per_uid: usize,
    /// Open connections per uid (the most; the daemon lowers it to what its descriptor limit
    /// allows).
    pub max_connections_per_uid: usize,
    /// How long a connection may sit with no request before it is closed.
    pub idle_timeout: Duration,
    /// Audit sinks.
    pub audit: AuditConfig,
    /// The policy file: `--policy`, else `policy.toml` in `config_dir`.
    pub policy_file: PathBuf,
    /// The policy file was named explicitly: a missing file is an error, not the default.
    pub policy_required: bool,
    /// How often the policy file is looked at for changes.
    pub policy_poll: Duration,
    /// Speak the systemd notify protocol (`READY=1`, `WATCHDOG=1`, `STOPPING=1`) when
    /// `NOTIFY_SOCKET` is set (the real daemon; not in-process tests).
    pub sd_notify: bool,
    /// Reload the policy on SIGHUP (the real daemon; not in-process tests).
    pub reload_on_sighup: bool,
    /// `hold_ttl` came from a flag and overrides the policy's.
    pub hold_ttl_fixed: bool,
    /// `max_pending_per_uid` came from a flag and overrides the policy's.
    pub max_pending_fixed: bool,
    /// The only executables allowed to register as an approval agent (system mode:
    /// [`SYSTEM_NOTIFY_EXE`] and [`SYSTEM_CLIENT_EXE`]); empty lets any process of the owner's
    /// uid register (user mode, where every process of the user is equally trusted anyway).
    pub approver_exes: Vec<PathBuf>,
    /// Overrides the policy's `no_approver` (`assentd --no-approver`, and tests).
    pub no_approver: Option<crate::policy::NoApprover>,
}

impl Config {
    /// The system daemon's defaults.
    pub fn system() -> Config {
        let state_dir = PathBuf::from(SYSTEM_STATE_DIR);
        let journald = Path::new("/run/systemd/journal/socket").exists();
        Config {
            mode: Mode::System,
            socket: PathBuf::from(SYSTEM_SOCKET),
            audit: AuditConfig {
                journald,
                // Without a journal (containers) the audit trail still has to go somewhere.
                jsonl: (!journald).then(|| state_dir.join("audit.jsonl")),
            },
            state_dir,
            config_dir: PathBuf::from(SYSTEM_CONFIG_DIR),
            policy_file: Path::new(SYSTEM_CONFIG_DIR).join(POLICY_FILE_NAME),
            approver_exes: vec![
                PathBuf::from(SYSTEM_NOTIFY_EXE),
                PathBuf::from(SYSTEM_CLIENT_EXE),
            ],
            ..Config::common(Mode::System)
        }
    }

    /// A user daemon's defaults, from the XDG environment.
    pub fn user() -> Result<Config, Error> {
        Config::user_with(None, None)
    }

    /// A user daemon, with the socket and state directory given where the caller has them
    /// (`--socket`, `--state-dir`), and the XDG environment consulted only for the rest.
    pub fn user_with(socket: Option<PathBuf>, state_dir: Option<PathBuf>) -> Result<Config, Error> {
        let home = std::env::var_os("HOME").filter(|h| !h.is_empty());
        let xdg = |var: &'static str, fallback: &str| -> Result<PathBuf, Error> {
            match std::env::var_os(var).filter(|v| !v.is_empty()) {
                Some(dir) => Ok(PathBuf::from(dir)),
                None => home
                    .as_ref()
                    .map(|h| Path::new(h).join(fallback))
                    .ok_or(Error::MissingEnv("HOME")),
            }
        };
        let socket = match socket {
            Some(socket) => socket,
            None => assent_client::paths::user_socket()
                .map_err(|_| Error::MissingEnv("XDG_RUNTIME_DIR"))?,
        };
        let state_dir = match state_dir {
            Some(dir) => dir,
            None => xdg("XDG_STATE_HOME", ".local/state")?.join("assent"),
        };
        // Without a home, a user daemon given its state directory keeps its configuration
        // beside it rather than refusing to start.
        let config_dir = xdg("XDG_CONFIG_HOME", ".config")
            .map(|dir| dir.join("assent"))
            .unwrap_or_else(|_| state_dir.join("config"));
        Ok(Config::for_user_dirs(socket, state_dir, config_dir))
    }

    /// A user daemon with explicit locations (tests, `--socket`, `--state-dir`).
    pub fn for_user_dirs(socket: PathBuf, state_dir: PathBuf, config_dir: PathBuf) -> Config {
        Config {
            socket,
            audit: AuditConfig {
                journald: false,
                jsonl: Some(state_dir.join("audit.jsonl")),
            },
            state_dir,
            policy_file: config_dir.join(POLICY_FILE_NAME),
            config_dir,
            ..Config::common(Mode::User)
        }
    }

    fn common(mode: Mode) -> Config {
        Config {
            mode,
            socket: PathBuf::new(),
            state_dir: PathBuf::new(),
            config_dir: PathBuf::new(),
            hold_ttl: DEFAULT_HOLD_TTL,
            max_pending_per_uid: DEFAULT_MAX_PENDING_PER_UID,
            max_connections_per_uid: DEFAULT_MAX_CONNECTIONS_PER_UID,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            policy_file: PathBuf::new(),
            policy_required: false,
            policy_poll: DEFAULT_POLICY_POLL,
            sd_notify: false,
            reload_on_sighup: false,
            hold_ttl_fixed: false,
            max_pending_fixed: false,
            approver_exes: Vec::new(),
            no_approver: None,
            audit: AuditConfig {
                journald: false,
                jsonl: None,
            },
        }
    }
}
