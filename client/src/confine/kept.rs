//! Confining this process with the ruleset the daemon kept ready for this confinement and
//! passed with its reply: the plan and its rules were made by the daemon, as the requester,
//! before the line came; this process only adds its own terminal, when the run has one, and
//! says `no_new_privs` and `landlock_restrict_self`.
//!
//! The ruleset is this process's alone: the daemon makes a new one for every reply, so nothing
//! a process adds to the one it was passed reaches another run.

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;

use crate::connection::Passed;

/// `LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON` (ABI 7): what the started program is refused is
/// logged, so the daemon can name it after a failed run.
const LOG_NEW_EXEC_ON: u32 = 1 << 1;

/// `LANDLOCK_RULE_PATH_BENEATH`.
const RULE_PATH_BENEATH: u32 = 1;

/// `struct landlock_path_beneath_attr`, packed as the kernel declares it.
#[repr(C, packed)]
struct PathBeneath {
    allowed_access: u64,
    parent_fd: i32,
}

/// Confines this process with `ruleset`, after granting the run its own `terminal` in it (the
/// daemon, planning before the line came, cannot know which). An error leaves the process as
/// it was (but for `no_new_privs`, which a confined run has anyway); the caller then plans for
/// itself.
pub fn restrict(
    ruleset: &Passed,
    terminal: Option<&Path>,
    log_denials: bool,
) -> Result<(), String> {
    if let Some(terminal) = terminal {
        allow_terminal(ruleset, terminal)?;
    }
    nix::sys::prctl::set_no_new_privs().map_err(|e| format!("no_new_privs: {e}"))?;
    let flags = if log_denials { LOG_NEW_EXEC_ON } else { 0 };
    // SAFETY: `landlock_restrict_self(int ruleset_fd, u32 flags)` takes two integers and
    // reads no memory of ours; the descriptor is open while `ruleset` lives.
    let done =
        unsafe { nix::libc::syscall(nix::libc::SYS_landlock_restrict_self, ruleset.raw(), flags) };
    if done == 0 {
        Ok(())
    } else {
        Err(format!(
            "the kept ruleset was refused: {}",
            nix::errno::Errno::last()
        ))
    }
}

/// Adds to `ruleset` the rule a plan gives the run's terminal
/// ([`crate::plan::terminal_rights`]). Refused (a kernel that handles fewer rights than that
/// asks for), the caller plans for itself.
fn allow_terminal(ruleset: &Passed, terminal: &Path) -> Result<(), String> {
    use nix::fcntl::{OFlag, open};
    use nix::sys::stat::Mode;
    let fd: OwnedFd = open(terminal, OFlag::O_PATH | OFlag::O_CLOEXEC, Mode::empty())
        .map_err(|e| format!("the terminal {}: {e}", terminal.display()))?;
    let attr = PathBeneath {
        allowed_access: crate::plan::terminal_rights().bits(),
        parent_fd: fd.as_raw_fd(),
    };
    // SAFETY: `landlock_add_rule(int ruleset_fd, enum landlock_rule_type, const void *attr,
    // u32 flags)` reads `size_of::<PathBeneath>()` bytes at `attr`, which lives on this stack
    // until the call returns; both descriptors are open for its duration.
    let done = unsafe {
        nix::libc::syscall(
            nix::libc::SYS_landlock_add_rule,
            ruleset.raw(),
            RULE_PATH_BENEATH,
            std::ptr::from_ref(&attr),
            0u32,
        )
    };
    if done == 0 {
        Ok(())
    } else {
        Err(format!(
            "the terminal could not be added to the kept ruleset: {}",
            nix::errno::Errno::last()
        ))
    }
}
