//! `assent sh --grant TOKEN [--dir-fd FD] -c LINE`: run a line an agent's hook was allowed,
//! confined as the gate said, without judging it again.
//!
//! The hook (`cli/hook.rs`) rewrites an allowed shell call to this form ([`rewrite`]). The
//! daemon gave the hook, with the allow, a one-time grant bound to the uid, the exact line and
//! working directory and the confinement; redeeming it here is the check. A grant that is spent,
//! expired, or for another line, directory or uid is refused and nothing runs.
//!
//! The agent's own shell tracks its working directory across calls (Claude Code records `pwd
//! -P` after each), but the confined line runs in a shell of its own. So the line's shell
//! reports its final directory (an EXIT trap, on a pipe back to this door, read after it ended
//! so that a job left in the background cannot hold it), this door writes it to `--dir-fd`,
//! and the rewritten command `cd`s there afterwards and ends with the line's status.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::path::PathBuf;

use assent_client::protocol::{GrantRequest, Origin, Request, Response, Subject};
use nix::fcntl::{FcntlArg, FdFlag, OFlag, fcntl};

use super::check::working_dir;
use super::{confine, exit, messages};

/// The shell a granted line runs in (as `assent sh`).
const SHELL: &str = "/bin/bash";
/// The descriptor the line's shell reports its final directory on is the first free one from
/// here: above those scripts use (`exec 3>log`) and below bash's own (255).
const REPORT_FD_FROM: i32 = 90;
/// The most of a directory report read.
const MAX_REPORT: u64 = 8 * 1024;

/// The arguments of a granted run.
#[derive(Debug, PartialEq)]
struct Granted {
    token: String,
    dir_fd: Option<u32>,
    line: String,
}

/// Whether `args` ask for a granted run (`--grant` first).
pub fn asks(args: &[OsString]) -> bool {
    args.first().is_some_and(|a| a == "--grant")
}

/// `assent sh --grant TOKEN [--dir-fd FD] -c LINE`; the exit code is the line's.
pub fn run(socket: Option<PathBuf>, args: &[OsString]) -> u8 {
    let Some(granted) = parse(args) else {
        messages::say("usage: assent sh --grant TOKEN [--dir-fd FD] -c LINE; not running");
        return exit::USAGE;
    };
    // The agent's side of the directory report, taken before anything runs: the line's own
    // shell must not hold it (the agent reads it to its end).
    let report = match granted.dir_fd.map(take_fd).transpose() {
        Ok(report) => report,
        Err(error) => {
            messages::say(&format!("cannot use --dir-fd: {error}; not running"));
            return exit::USAGE;
        }
    };
    let cwd = match working_dir(None) {
        Ok(cwd) => cwd,
        Err(code) => return code,
    };
    let after = confine::After {
        socket: socket.clone(),
        subject: Subject::shell(&granted.line, cwd.clone()),
        origin: Origin::Agent,
    };
    let answer = super::connect_door(socket).and_then(|mut conn| {
        let request = Request::Grant(GrantRequest {
            token: granted.token.clone(),
            subject: Subject::shell(&granted.line, cwd),
        });
        let reply = conn.request(&request).map_err(|error| {
            match error {
                assent_client::Error::Refused(error) => {
                    messages::say(&format!("the line was not run: {error}"))
                }
                error => messages::error(&error),
            }
            exit::UNAVAILABLE
        })?;
        Ok((reply, conn.take_passed()))
    });
    let granted_run = match answer {
        Ok((Response::Granted(run), kept)) => confine::Confined {
            confine: run.confine,
            approved: run.approved,
            kept,
        },
        Ok((other, _)) => {
            messages::say(&format!("unexpected reply: {other:?}; not running"));
            return exit::UNAVAILABLE;
        }
        Err(code) => return code,
    };
    // A line of one program with literal words is started without bash, as bash would have
    // started it: it cannot change directory, so the directory to report is this one.
    if let Some(mut direct) = super::shell::direct::command(&granted.line) {
        // The agent's descriptor is closed in the program (the door reports on its own copy):
        // a program the line leaves running must not hold the agent's read open.
        let agents = granted.dir_fd.and_then(|fd| i32::try_from(fd).ok());
        let code = confine::run(
            &mut direct.command,
            direct.name.as_ref(),
            Some(&granted.line),
            granted_run,
            after,
            agents,
        );
        if let (Some(mut report), Ok(dir)) = (report, std::env::current_dir())
            && let Some(dir) = dir.to_str()
        {
            let _ = report.write_all(format!("{dir}\n").as_bytes());
        }
        return code;
    }
    let mut command = std::process::Command::new(SHELL);
    let pipe = match report.as_ref().map(|_| directory_pipe()).transpose() {
        Ok(pipe) => pipe,
        Err(error) => {
            messages::say(&format!(
                "cannot report the directory: {error}; not running"
            ));
            return exit::UNAVAILABLE;
        }
    };
    match (&pipe, granted.dir_fd) {
        (Some((_, fd)), Some(agents)) => {
            command.arg("-c").arg(reporting(*fd, agents, &granted.line))
        }
        _ => command.arg("-c").arg(&granted.line),
    };
    let code = confine::run(&mut command, SHELL.as_ref(), None, granted_run, after, None);
    if let (Some(mut report), Some((read, _))) = (report, pipe)
        && let Some(dir) = final_dir(read)
    {
        let _ = report.write_all(dir.as_bytes());
    }
    code
}

/// `--grant TOKEN [--dir-fd FD] -c LINE`, exactly.
fn parse(args: &[OsString]) -> Option<Granted> {
    let words: Option<Vec<&str>> = args.iter().map(|a| a.to_str()).collect();
    match words?.as_slice() {
        ["--grant", token, "-c", line] => Some(Granted {
            token: token.to_string(),
            dir_fd: None,
            line: line.to_string(),
        }),
        ["--grant", token, "--dir-fd", fd, "-c", line] => Some(Granted {
            token: token.to_string(),
            dir_fd: Some(fd.parse().ok().filter(|fd| *fd > 2)?),
            line: line.to_string(),
        }),
        _ => None,
    }
}

/// Our own handle on the inherited descriptor `fd` (a reopened pipe: close-on-exec, so the
/// line's shell cannot keep the agent waiting), opened before the run is confined.
fn take_fd(fd: u32) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(format!("/proc/self/fd/{fd}"))
}

/// A pipe for the line's shell to report on: our read end, and the number of the write end the
/// shell inherits (left open in this short-lived door, which reads only what is there once the
/// line ended).
fn directory_pipe() -> nix::Result<(OwnedFd, i32)> {
    let (read, write) = nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK)?;
    // F_DUPFD's copy is inherited (no close-on-exec); the number is all the shell needs.
    let inherited = fcntl(write.as_fd(), FcntlArg::F_DUPFD(REPORT_FD_FROM))?;
    drop(write);
    let _ = fcntl(read.as_fd(), FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC));
    Ok((read, inherited))
}

/// The line, run by a shell that reports its final directory on `fd` as it exits. The
/// descriptor the agent reads (`agents`, `--dir-fd`) is closed first, so nothing the line
/// starts holds it.
fn reporting(fd: i32, agents: u32, line: &str) -> String {
    format!("exec {agents}>&-; trap 'builtin pwd -P >&{fd}' EXIT\n{line}")
}

/// The directory the line's shell ended in, if it said.
fn final_dir(read: OwnedFd) -> Option<String> {
    let mut text = String::new();
    let _ = std::fs::File::from(read)
        .take(MAX_REPORT)
        .read_to_string(&mut text);
    let dir = text.strip_suffix('\n')?;
    (dir.starts_with('/') && !dir.contains('\n')).then(|| dir.to_string())
}

/// The command an agent's hook runs instead of `line`, to run it confined.
///
/// With the bash builtin (`builtin`, the path of `libassent_bash.so`), the agent's own shell
/// loads it, and the builtin redeems the grant, confines the shell and runs the line there, as
/// the agent would have run it without the gate (its `cd` stays the agent's); where the shell
/// cannot be confined in place, the builtin has the door run it (`--door`). Without the
/// builtin, the door runs it ([`door_form`]). The command is one simple and-list with the line
/// written out in full: Claude Code reads the shell scripts a call passes, refuses one that
/// removes files it cannot check, and checks none inside a compound command or read from a
/// variable.
pub fn rewrite(
    assent: &str,
    socket: &str,
    token: &str,
    line: &str,
    follow_dir: bool,
    builtin: Option<&str>,
) -> String {
    let line_word = quote(line);
    let Some(builtin) = builtin else {
        return door_form(assent, socket, token, &line_word, line, follow_dir);
    };
    format!(
        "enable -f {} assent_confine && assent_confine --socket {} --grant {} --door {} -c {line_word}",
        quote(builtin),
        quote(socket),
        quote(token),
        quote(assent),
    )
}

/// The command that runs the line through the door, `assent sh --grant`: `line_word` is the
/// line as one shell word. For an agent whose shell keeps its working directory across calls
/// (`follow_dir`: Claude Code), the door reports the line's final directory, the agent's shell
/// `cd`s there, and the line's exit status is the command's (returned by a function that
/// removes itself: a `( exit N )` subshell was a fork of the agent's shell on every call);
/// otherwise (Gemini CLI starts each call afresh, and refuses a command substitution), and for
/// a line that only runs a program, it is the door alone. `assent` is this program's path,
/// `socket` that of the daemon that gave the grant.
fn door_form(
    assent: &str,
    socket: &str,
    token: &str,
    line_word: &str,
    line: &str,
    follow_dir: bool,
) -> String {
    let door = format!(
        "{} --socket {} sh --grant {}",
        quote(assent),
        quote(socket),
        quote(token)
    );
    // A line that only runs a program cannot move the agent's shell: it ends where it began,
    // and the door alone is the command (no command substitution, a fork of the agent's shell).
    if !follow_dir || super::shell::direct::only_a_program(line) {
        return format!("{door} -c {line_word}");
    }
    format!(
        "{{ __assent_dir=$({door} --dir-fd 3 -c {line_word} 3>&1 1>&4 4>&-); __assent_status=$?; }} 4>&1; \
         if [[ -n $__assent_dir ]]; then builtin cd -- \"$__assent_dir\" 2>/dev/null; fi; \
         __assent_return() {{ builtin unset -f __assent_return; builtin return \"$1\"; }}; \
         __assent_return \"$__assent_status\""
    )
}

/// `text` as one shell word, whatever bytes it holds: single quotes, each `'` written `'\''`.
pub fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn words(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn only_the_exact_forms_are_read() {
        assert_eq!(
            parse(&words(&["--grant", "pg_1", "-c", "make"])),
            Some(Granted {
                token: "pg_1".into(),
                dir_fd: None,
                line: "make".into()
            })
        );
        assert_eq!(
            parse(&words(&["--grant", "pg_1", "--dir-fd", "3", "-c", "cd a"])).map(|g| g.dir_fd),
            Some(Some(3))
        );
        for args in [
            &["--grant", "pg_1"][..],
            &["--grant", "pg_1", "-c", "make", "extra"],
            &["--grant", "pg_1", "--dir-fd", "1", "-c", "make"],
            &["--grant", "pg_1", "--dir-fd", "x", "-c", "make"],
            &["--grant", "pg_1", "make"],
            &["-c", "make"],
        ] {
            assert_eq!(parse(&words(args)), None, "{args:?}");
        }
    }

    #[test]
    fn the_directory_report_is_one_absolute_path() {
        for (said, dir) in [
            ("/home/u/p/sub\n", Some("/home/u/p/sub")),
            ("/a b/c'd\n", Some("/a b/c'd")),
            ("", None),
            ("relative\n", None),
            ("/a\n/b\n", None),
            ("/no-newline", None),
        ] {
            let (read, write) = nix::unistd::pipe().expect("a pipe");
            std::fs::File::from(write)
                .write_all(said.as_bytes())
                .expect("written");
            assert_eq!(final_dir(read).as_deref(), dir, "{said:?}");
        }
    }

    #[test]
    fn the_rewrite_carries_the_line_token_and_program_as_single_words() {
        let rewritten = rewrite(
            "/usr/bin/assent",
            "/run/s",
            "pg_1",
            "cd sub && make",
            true,
            None,
        );
        assert!(rewritten.contains(
            "'/usr/bin/assent' --socket '/run/s' sh --grant 'pg_1' --dir-fd 3 -c 'cd sub && make' 3>&1 1>&4 4>&-"
        ));
        assert!(rewritten.ends_with("__assent_return \"$__assent_status\""));
        assert_eq!(
            rewrite("/usr/bin/assent", "/run/s", "pg_1", "it's", false, None),
            r"'/usr/bin/assent' --socket '/run/s' sh --grant 'pg_1' -c 'it'\''s'"
        );
        // Only a program: it cannot move the agent's shell, so nothing is reported back.
        assert_eq!(
            rewrite(
                "/usr/bin/assent",
                "/run/s",
                "pg_1",
                "cargo test",
                true,
                None
            ),
            "'/usr/bin/assent' --socket '/run/s' sh --grant 'pg_1' -c 'cargo test'"
        );
    }

    proptest! {
        /// Any line, whatever characters it holds, reads back as exactly one word.
        #[test]
        fn quoting_round_trips(line in any::<String>().prop_filter("no NUL", |s| !s.contains('\0'))) {
            let quoted = quote(&line);
            let back = shell_words::split(&quoted).expect("a quoted word parses");
            prop_assert_eq!(back, vec![line]);
        }

        /// The same for the bytes a shell line is made of most often, quotes and escapes
        /// among them.
        #[test]
        fn quoting_round_trips_shell_characters(line in r#"['"\\$`!;&|(){}<> \n\t*?~#a-z]{0,40}"#) {
            let back = shell_words::split(&quote(&line)).expect("a quoted word parses");
            prop_assert_eq!(back, vec![line]);
        }
    }
}
