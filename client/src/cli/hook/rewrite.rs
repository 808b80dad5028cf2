//! An allowed shell call rewritten to run confined: the agent runs `assent sh --grant TOKEN
//! -c LINE` in its place (see `cli/grant.rs` for the command and how the agent's working
//! directory follows the line's `cd`).

use std::path::Path;

use assent_client::protocol::{Outcome, Verdict};
use serde_json::Value;

use super::Answer;
use crate::cli::grant;

/// The answer to a call the gate allowed (`verdict`: now, or after a hold a person answered),
/// whose `input` the agent lets the hook rewrite: run confined under the verdict's grant, or a
/// held line's token (which the daemon made its grant when the person allowed it). A verdict
/// with no confinement gave no grant: the plain allow, as without a rewrite. `socket` is the
/// daemon that gave it, where the door redeems it.
pub(super) fn allowed(
    reason: String,
    input: &Value,
    line: &str,
    verdict: &Verdict,
    socket: &Path,
    follow_dir: bool,
) -> Answer {
    let held = match verdict.outcome() {
        Outcome::Held(token) if verdict.confine.is_some() => Some(token),
        _ => None,
    };
    match verdict.grant.as_deref().or(held) {
        Some(grant) => answer(reason, input, line, grant, socket, follow_dir),
        None => Answer::Allow(reason),
    }
}

/// The answer to a call put to the agent's own prompt (an ask) whose `input` the agent lets
/// the hook rewrite, and that the daemon gave a grant for that prompt: the ask, with the call
/// rewritten, so what the person approves there runs confined to what the line names (with
/// what a person's approval adds). Without a grant (no agent above the hook, or the line runs
/// unconfined anyway) the plain ask: approved there, the call runs as the agent got it.
pub(super) fn asked(
    reason: String,
    input: &Value,
    line: &str,
    verdict: &Verdict,
    socket: &Path,
    follow_dir: bool,
) -> Answer {
    let Some(grant) = verdict.grant.as_deref() else {
        return Answer::Ask(reason);
    };
    match answer(reason, input, line, grant, socket, follow_dir) {
        Answer::Rewrite { reason, input, .. } => Answer::Rewrite {
            reason: format!("{reason} if you approve it"),
            input,
            ask: true,
        },
        other => other,
    }
}

/// The answer to an allowed call `line` that the agent lets the hook rewrite (`input`, its tool
/// input with a `command`): the same input with the command run through `assent sh --grant`.
/// A call that cannot be rewritten faithfully is denied: it was allowed to run confined only.
/// `follow_dir`: the agent's shell keeps the line's final directory ([`grant::rewrite`]).
pub(super) fn answer(
    reason: String,
    input: &Value,
    line: &str,
    grant: &str,
    socket: &Path,
    follow_dir: bool,
) -> Answer {
    if line.contains('\0') {
        return Answer::Deny(
            "assent: the command holds a NUL byte, which a shell cannot run confined; not allowed"
                .into(),
        );
    }
    let Some(assent) = std::env::current_exe()
        .ok()
        .and_then(|path| path.into_os_string().into_string().ok())
    else {
        return Answer::Deny(
            "assent: the hook cannot name its own program to run the call confined; not allowed"
                .into(),
        );
    };
    // The builtin loads into bash only: Gemini CLI runs its calls with bash; Claude Code (the
    // agent that follows the directory) with the shell it picks.
    let builtin = builtin_library(&assent).filter(|_| !follow_dir || claude_runs_bash());
    let call = Call {
        line,
        grant,
        socket,
        follow_dir,
    };
    answer_with(reason, input, &call, &assent, builtin.as_deref())
}

/// An allowed call's line, its grant, and the daemon that gave it.
struct Call<'a> {
    line: &'a str,
    grant: &'a str,
    socket: &'a Path,
    follow_dir: bool,
}

/// [`answer`] with this program's path `assent` and the bash builtin to load, if any.
fn answer_with(
    reason: String,
    input: &Value,
    call: &Call<'_>,
    assent: &str,
    builtin: Option<&str>,
) -> Answer {
    let Call {
        line,
        grant,
        socket,
        follow_dir,
    } = *call;
    // The agent may hand its tools an environment of its own (Gemini CLI filters it): the door
    // is told the daemon that gave the grant, by a path that does not depend on the directory
    // the agent runs the call in (a relative one would reach whatever listens there).
    let Ok(socket) = std::path::absolute(socket) else {
        return Answer::Deny(
            "assent: the hook cannot make its socket's path absolute, so the call cannot run confined; not allowed"
                .into(),
        );
    };
    let Some(socket) = socket.to_str() else {
        return Answer::Deny(
            "assent: the gate's socket path is not UTF-8, so the call cannot run confined; not allowed"
                .into(),
        );
    };
    let mut input = input.clone();
    let Some(fields) = input.as_object_mut() else {
        return Answer::Deny("assent: the tool input is not an object; not allowed".into());
    };
    fields.insert(
        "command".into(),
        Value::String(grant::rewrite(
            assent, socket, grant, line, follow_dir, builtin,
        )),
    );
    Answer::Rewrite {
        reason: format!("{reason}; runs confined"),
        input,
        ask: false,
    }
}

/// Where the bash builtin that confines the agent's shell in place is: `$ASSENT_BUILTIN`
/// when it is the full path of a file (anything else, `off` among them: never, the door runs
/// every call), else `libassent_bash.so` next to this program,
/// else where the package puts it; as the bash hook finds its own builtin. `None` when there is
/// none (the rewritten call is then the door alone).
fn builtin_library(assent: &str) -> Option<String> {
    const PACKAGED: &str = "/usr/lib/assent/libassent_bash.so";
    if let Some(named) = std::env::var_os("ASSENT_BUILTIN") {
        // Only a full path: bash looks a bare name up along `BASH_LOADABLES_PATH`.
        return named
            .into_string()
            .ok()
            .filter(|named| Path::new(named).is_absolute() && Path::new(named).is_file());
    }
    let beside = Path::new(assent).parent()?.join("libassent_bash.so");
    [beside.as_path(), Path::new(PACKAGED)]
        .into_iter()
        .find(|path| path.is_file())
        .and_then(|path| path.to_str().map(str::to_owned))
}

/// Whether Claude Code runs its calls with bash, as it picks its shell: the first of
/// `$CLAUDE_CODE_SHELL` and `$SHELL` that names bash or zsh; with neither, it prefers zsh where
/// there is one, so bash is not known then (the door works in either).
fn claude_runs_bash() -> bool {
    ["CLAUDE_CODE_SHELL", "SHELL"]
        .into_iter()
        .filter_map(std::env::var_os)
        .find(|shell| {
            let shell = shell.as_encoded_bytes();
            shell.windows(4).any(|w| w == b"bash") || shell.windows(3).any(|w| w == b"zsh")
        })
        .is_some_and(|shell| Path::new(&shell).file_name() == Some("bash".as_ref()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_command_is_rewritten_and_the_rest_kept() {
        let input = json!({"command": "cd sub && make", "description": "build", "timeout": 5});
        let call = Call {
            line: "cd sub && make",
            grant: "pg_1",
            socket: Path::new("/run/s"),
            follow_dir: true,
        };
        let Answer::Rewrite {
            input: out, reason, ..
        } = answer_with("ok".into(), &input, &call, "/usr/bin/assent", None)
        else {
            panic!("a rewrite");
        };
        assert!(reason.contains("confined"));
        assert_eq!(out["description"], "build");
        assert_eq!(out["timeout"], 5);
        let command = out["command"].as_str().expect("a command");
        assert!(
            command
                .contains(" --socket '/run/s' sh --grant 'pg_1' --dir-fd 3 -c 'cd sub && make' ")
        );
        // With the bash builtin beside the client, the agent's shell loads it and confines
        // itself; the door is named for what the builtin cannot do itself.
        let Answer::Rewrite { input: out, .. } = answer_with(
            "ok".into(),
            &input,
            &call,
            "/usr/bin/assent",
            Some("/usr/lib/assent/libassent_bash.so"),
        ) else {
            panic!("a rewrite");
        };
        assert_eq!(
            out["command"],
            "enable -f '/usr/lib/assent/libassent_bash.so' assent_confine && assent_confine \
             --socket '/run/s' --grant 'pg_1' --door '/usr/bin/assent' -c 'cd sub && make'"
        );
    }

    /// A socket the hook was given as a relative path is named absolute in the rewrite: the
    /// door runs in whatever directory the agent stands in, where anything may listen.
    #[test]
    fn a_relative_socket_is_named_from_the_hooks_own_directory() {
        let input = json!({"command": "make"});
        let Answer::Rewrite { input: out, .. } = answer(
            "ok".into(),
            &input,
            "make",
            "pg_1",
            Path::new("gate/s"),
            false,
        ) else {
            panic!("a rewrite");
        };
        let here = std::env::current_dir().expect("a working directory");
        let expected = format!(" --socket '{}' ", here.join("gate/s").display());
        let command = out["command"].as_str().expect("a command");
        assert!(command.contains(&expected), "{command}");
    }

    /// An ask is rewritten only under the grant the daemon gave for the agent's prompt;
    /// without one (no agent above the hook) it is the plain ask.
    #[test]
    fn an_ask_is_rewritten_only_under_a_grant() {
        let mut verdict = Verdict {
            decision: assent_client::protocol::Decision::Confirm,
            level: assent_client::protocol::Level::Destructive,
            findings: Vec::new(),
            reason: "r".into(),
            token: None,
            expires_in_ms: None,
            confine: Some(assent_client::protocol::Confinement::default()),
            grant: None,
            another_answers: false,
        };
        let input = json!({"command": "rm -rf src"});
        let ask = |verdict: &Verdict| {
            asked(
                "asks".into(),
                &input,
                "rm -rf src",
                verdict,
                Path::new("/run/s"),
                false,
            )
        };
        assert_eq!(ask(&verdict), Answer::Ask("asks".into()));
        verdict.grant = Some("pg_2".into());
        let Answer::Rewrite {
            input: out, ask, ..
        } = ask(&verdict)
        else {
            panic!("a rewrite");
        };
        assert!(ask, "put to the agent's prompt");
        // The door's form or the builtin's, as this test binary finds the builtin beside it.
        let command = out["command"].as_str().expect("a command");
        assert!(
            command.contains(" --grant 'pg_2' ") && command.ends_with(" -c 'rm -rf src'"),
            "{command}"
        );
    }

    #[test]
    fn a_nul_byte_is_denied() {
        let input = json!({"command": "ls\u{0}"});
        assert!(matches!(
            answer(
                "ok".into(),
                &input,
                "ls\u{0}",
                "pg_1",
                Path::new("/run/s"),
                true
            ),
            Answer::Deny(_)
        ));
    }
}
