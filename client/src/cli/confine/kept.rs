//! Confining the door with the ruleset the daemon kept ready for this confinement and passed
//! with its reply: the plan and its rules were made by the daemon, as the requester, before
//! the line came; the door only says `no_new_privs` and `landlock_restrict_self`.
//!
//! The ruleset is the door's alone: the daemon makes a new one for every reply, so nothing a
//! process adds to the one it was passed reaches another run.

use assent_client::connection::Passed;

/// `LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON` (ABI 7): what the started program is refused is
/// logged, so the daemon can name it after a failed run.
const LOG_NEW_EXEC_ON: u32 = 1 << 1;

/// Confines this process with `ruleset`. An error leaves the process as it was (but for
/// `no_new_privs`, which a confined run has anyway).
pub(super) fn restrict(ruleset: &Passed, log_denials: bool) -> Result<(), String> {
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
