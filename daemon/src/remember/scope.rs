//! Where a remembered approval applies, and whether a login session still lasts.

use nix::unistd::{Pid, getsid};

use super::SessionKey;
use assent_client::protocol::RememberedScope;

/// Where one rule applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Scope {
    Label(String),
    /// The session leader's start time (clock ticks after boot, `/proc/SID/stat`), when it
    /// could be read, tells its pid reused by another process from the session itself.
    Login {
        sid: i32,
        start: Option<u64>,
    },
    Until(u64),
    Always,
}

impl Scope {
    pub(super) fn persisted(&self) -> bool {
        matches!(self, Scope::Until(_) | Scope::Always)
    }

    pub(super) fn to_wire(&self) -> RememberedScope {
        match self {
            Scope::Label(label) => RememberedScope::SessionLabel {
                label: label.clone(),
            },
            Scope::Login { sid, .. } => RememberedScope::LoginSession { sid: *sid },
            Scope::Until(ms) => RememberedScope::Until { ms: *ms },
            Scope::Always => RememberedScope::Always,
        }
    }

    /// Whether it still lasts at `now` (ms). Costs a syscall for a login session.
    pub(super) fn in_force(&self, now: u64) -> bool {
        match self {
            Scope::Until(ms) => now < *ms,
            Scope::Login { sid, start } => session_alive(*sid, *start),
            Scope::Label(_) | Scope::Always => true,
        }
    }

    /// Whether a request from `session` is in it (not whether it still lasts).
    pub(super) fn covers(&self, session: &SessionKey) -> bool {
        match (self, session) {
            (Scope::Label(l), SessionKey::Label(k)) => l == k,
            (Scope::Login { sid, .. }, SessionKey::Login(k)) => sid == k,
            (Scope::Label(_) | Scope::Login { .. }, _) => false,
            (Scope::Until(_) | Scope::Always, _) => true,
        }
    }
}

/// Whether login session `sid` still lasts: its leader still exists and still leads it
/// (`getsid`, which works where the system daemon's `ProtectProc=invisible` hides other
/// users' `/proc` entries), and, when both are known, it is the process that led it when the
/// rule was made (same start time), not another that got its pid.
fn session_alive(sid: i32, start: Option<u64>) -> bool {
    if getsid(Some(Pid::from_raw(sid))).map(Pid::as_raw) != Ok(sid) {
        return false;
    }
    match (start, start_time(sid)) {
        (Some(then), Some(now)) => then == now,
        _ => true,
    }
}

/// A process's start time (field 22 of `/proc/PID/stat`), if it can be read.
pub(super) fn start_time(pid: i32) -> Option<u64> {
    if pid <= 0 {
        return None;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold anything, spaces included.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(19)?.parse().ok()
}
