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
//!
//! The dialog names what the password allows: polkit replaces `$(command)` in the action's
//! message with the `command` detail given to `pkcheck --detail` (`expand_properties` in
//! polkitd), cleaned here of whatever could forge a line or redraw the terminal of a text
//! agent ([`assent_client::shown`]). polkit takes details only from root or the action's
//! owner, so the system daemon gives it; a user daemon cannot (polkit would refuse the check),
//! and its dialog shows the message without the command.

use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

use crate::error::RequestError;

/// The polkit action an approval with a password is checked against (shipped as
/// `/usr/share/polkit-1/actions/org.assent.approve.policy`).
pub const ACTION: &str = "org.assent.approve";

/// How long the person has to type the password.
pub const TIMEOUT: Duration = Duration::from_secs(120);

/// The longest text the dialog names (characters): a command longer is cut, saying so.
const NAMED_MAX: usize = 600;

/// What the dialog names: the command (or each item of a batch, joined by ` ; `), cleaned to
/// one line and cut at `NAMED_MAX` characters.
pub fn named(subjects: &[String]) -> String {
    let cleaned: Vec<String> = subjects
        .iter()
        .map(|s| assent_client::shown::one_line(s))
        .collect();
    let text = match cleaned.len() {
        0 | 1 => cleaned.concat(),
        n => format!("{n} items: {}", cleaned.join(" ; ")),
    };
    if text.chars().count() <= NAMED_MAX {
        return text;
    }
    let mut cut: String = text.chars().take(NAMED_MAX).collect();
    cut.push_str("… (cut: `assent pending` shows it whole)");
    cut
}

/// What the daemon runs to ask polkit; `ASSENT_PKCHECK` names another (tests, odd layouts).
fn pkcheck() -> std::ffi::OsString {
    std::env::var_os("ASSENT_PKCHECK").unwrap_or_else(|| "pkcheck".into())
}

/// Ask polkit, with user interaction, whether the process `pid` (started at `start`, in clock
/// ticks after boot, running as `uid`) may approve what `named` names (from [`named`]). `Ok` only when
/// polkit says yes.
pub async fn authorise(pid: i32, start: u64, uid: u32, named: &str) -> Result<(), RequestError> {
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
        .arg("--allow-user-interaction");
    if nix::unistd::geteuid().is_root() {
        command.arg("--detail").arg("command").arg(named);
    }
    command
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dialog_names_the_command_cleaned_and_cut() {
        let one = vec!["git push --force\n\u{1b}[2Jls\u{2028}".to_string()];
        assert_eq!(named(&one), "git push --force\\n\\e[2Jls<U+2028>");
        let two = vec!["rm -rf build".to_string(), "git push -f".to_string()];
        assert_eq!(named(&two), "2 items: rm -rf build ; git push -f");
        let long = vec!["x".repeat(5000)];
        let shown = named(&long);
        assert!(shown.starts_with(&"x".repeat(NAMED_MAX)), "{shown}");
        assert!(
            shown.ends_with("`assent pending` shows it whole)"),
            "{shown}"
        );
        assert!(shown.chars().count() < NAMED_MAX + 50);
    }
}
