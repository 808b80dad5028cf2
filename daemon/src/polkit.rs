//! The password step of an approval, through polkit.
//!
//! Where the policy says an approval must be given with the user's password, the daemon asks
//! polkit whether the answering process may perform [`ACTION`], and lets polkit interact with
//! the user: the user's authentication agent (a desktop's dialog, or the `pkttyagent` that
//! `assent approve` starts on its own terminal) asks for the password, which an agent running
//! as the user does not know. Only polkit's plain yes accepts the answer; no polkit, no
//! authentication agent, a wrong password, a dismissed dialog or a timeout refuse it.
//!
//! The daemon runs polkit's own `pkcheck` rather than speaking D-Bus (only `assent-notify`
//! links a D-Bus library). The subject is named by pid, start time and uid, so a process that
//! took the answerer's pid meanwhile is not the one polkit asks about; the caller pins the
//! answerer with its pidfd while it reads the start time.

use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

use crate::error::RequestError;

/// The polkit action an approval with a password is checked against (shipped as
/// `/usr/share/polkit-1/actions/org.assent.approve.policy`).
pub const ACTION: &str = "org.assent.approve";

/// How long the person has to type the password.
pub const TIMEOUT: Duration = Duration::from_secs(120);

/// What the daemon runs to ask polkit; `ASSENT_PKCHECK` names another (tests, odd layouts).
fn pkcheck() -> std::ffi::OsString {
    std::env::var_os("ASSENT_PKCHECK").unwrap_or_else(|| "pkcheck".into())
}

/// Ask polkit, with user interaction, whether the process `pid` (started at `start`, in clock
/// ticks after boot, running as `uid`) may approve. `Ok` only when polkit says yes.
pub async fn authorise(pid: i32, start: u64, uid: u32) -> Result<(), RequestError> {
    let refused = |why: String| {
        RequestError::NotAuthorized(format!(
            "this approval needs your password (polkit action {ACTION}): {why}"
        ))
    };
    let mut command = Command::new(pkcheck());
    command
        .arg("--action-id")
        .arg(ACTION)
        .arg("--process")
        .arg(format!("{pid},{start},{uid}"))
        .arg("--allow-user-interaction")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let child = command.spawn().map_err(|e| {
        refused(format!(
            "polkit's pkcheck could not be run ({e}); install polkitd, or set approval = \"click\" in the policy"
        ))
    })?;
    let output = match tokio::time::timeout(TIMEOUT, child.wait_with_output()).await {
        Ok(Ok(output)) => output,
        Ok(Err(e)) => return Err(refused(format!("pkcheck failed: {e}"))),
        Err(_) => {
            return Err(refused(format!(
                "no password was given within {} s",
                TIMEOUT.as_secs()
            )));
        }
    };
    if output.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&output.stderr);
    let said: String = said
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
        .chars()
        .take(300)
        .collect();
    let why = match output.status.code() {
        Some(1) if said.is_empty() => "polkit did not authorise it".to_owned(),
        Some(2) => "polkit wants a password but no authentication agent answered; run `assent approve` on a terminal, or from a desktop session".to_owned(),
        Some(3) => "the password dialog was dismissed".to_owned(),
        _ if said.is_empty() => format!("pkcheck ended with {}", output.status),
        _ => format!("polkit refused ({said})"),
    };
    Err(refused(why))
}

/// The start time of `pid` (field 22 of `/proc/PID/stat`, clock ticks after boot).
pub fn start_time(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    // rest: state(3) ppid(4) … starttime(22): the 20th field after the name.
    rest.split_whitespace().nth(19)?.parse().ok()
}
