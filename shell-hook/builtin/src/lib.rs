//! `assent_check`: a bash loadable builtin that puts a typed line through the assent gate
//! without starting a process.
//!
//! The bash hook (`shell-hook/assent.bash`) loads it with `enable -f libassent_bash.so
//! assent_check` when it finds it, and otherwise runs `assent check` as before. Forking and
//! executing a program from an interactive bash costs about a millisecond on its own, more than
//! the gate's whole budget for a safe line; this builtin makes the same request over the same
//! socket from inside the shell (see BENCHMARKS.md, "Shell hook").
//!
//! ```text
//! assent_check [--socket PATH] [--session LABEL] [--cwd DIR] -- COMMAND...
//! assent_check --ping [--socket PATH]
//! ```
//!
//! It sends what `assent check --origin interactive --session LABEL --cwd DIR -- COMMAND` sends
//! (same socket discovery, same subject, waiting requested) and returns:
//!
//! - 0: allowed, at once.
//! - 1: denied; the reason is on stderr as the client prints it (also a request the daemon
//!   refused to judge, and a held request that could not be handed to the shell).
//! - 3 ([`status::HELD`]): held. The connection stays open in the shell: its descriptor number
//!   is in `$__assent_fd` (close-on-exec, 10 or above), the token in `$__assent_token`, the
//!   milliseconds left in `$__assent_expires`. The hook hands the descriptor to
//!   `assent __resume TOKEN MS >&$__assent_fd`, which waits on it exactly as `assent check`
//!   waits, and then closes it. Nothing waits inside bash, and the requester the daemon sees is
//!   the shell itself.
//! - 64: a usage error (an unknown flag, a word that is not UTF-8), as the client's.
//! - 126: the gate is unavailable (no socket, no daemon, a protocol error); the reason is on
//!   stderr. Also what a panic inside the builtin becomes: none crosses into bash.
//! - 130: Ctrl-C while waiting for the verdict.
//!
//! `--ping` asks for the daemon's status and prints nothing: 0 if it answers, 126 if not (the
//! hook's quiet look while the gate is down).
//!
//! The C interface (the `struct builtin` bash looks up, the entry point, bash's variables) is
//! in one module, `ffi`, the only place with `unsafe`.

#![deny(unsafe_code)]

mod confine;
#[allow(unsafe_code)]
mod ffi;

use std::ffi::{CStr, CString};
use std::io::Write;
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use assent_client::paths::resolve_socket;
use assent_client::protocol::{
    CheckRequest, Context, ErrorKind, Origin, Outcome, Request, Response, Subject, Verdict,
};
use assent_client::{CodecError, Connection, Error};
use nix::errno::Errno;
use nix::fcntl::{FcntlArg, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

/// The builtin's return statuses.
pub mod status {
    /// Allowed.
    pub const ALLOW: u8 = 0;
    /// Denied (the reason was printed).
    pub const DENY: u8 = 1;
    /// Held: the connection is in `$__assent_fd`, for `assent __resume`.
    pub const HELD: u8 = 3;
    /// A usage error.
    pub const USAGE: u8 = 64;
    /// The gate is unavailable, or the builtin failed.
    pub const UNAVAILABLE: u8 = 126;
    /// Interrupted (Ctrl-C) before the verdict came.
    pub const INTERRUPTED: u8 = 130;
}

/// The shell variables a held request is handed over in.
pub const FD_VAR: &CStr = c"__assent_fd";
/// The held request's token.
pub const TOKEN_VAR: &CStr = c"__assent_token";
/// Milliseconds until it expires (empty when the daemon gave no deadline).
pub const EXPIRES_VAR: &CStr = c"__assent_expires";
/// The variable that receives a held request's level, for the terminal prompt.
pub const LEVEL_VAR: &CStr = c"__assent_level";
/// `1` when another person must answer the held request (`[approvers]`), else empty: then
/// `assent __resume --another` asks nothing at the terminal and says who answers.
pub const ANOTHER_VAR: &CStr = c"__assent_another";

/// The lowest descriptor a held connection is moved to: bash keeps 0 to 9 for the user's
/// redirections and takes its own from 10 up the same way, so neither lands on the other.
const FD_BASE: i32 = 10;

/// What the builtin needs from the shell it runs in.
pub trait Shell {
    /// Set a (global) shell variable; false if the shell refused.
    fn set_var(&mut self, name: &CStr, value: &CStr) -> bool;
    /// Whether Ctrl-C (or a terminating signal) arrived while the builtin was blocked.
    fn interrupted(&self) -> bool;
}

/// What the builtin was asked to do.
#[derive(Debug, PartialEq)]
enum Call {
    Check {
        socket: Option<PathBuf>,
        session: Option<String>,
        cwd: Option<PathBuf>,
        command: String,
    },
    Ping {
        socket: Option<PathBuf>,
    },
}

/// Run the builtin on its arguments (the words after its name).
pub fn run(words: &[&CStr], shell: &mut dyn Shell) -> u8 {
    match parse(words) {
        Ok(Call::Check {
            socket,
            session,
            cwd,
            command,
        }) => check(socket.as_deref(), session, cwd.as_deref(), &command, shell),
        Ok(Call::Ping { socket }) => ping(socket.as_deref(), shell),
        Err(text) => {
            say(&format!(
                "assent_check: {text}\nusage: assent_check [--socket PATH] [--session LABEL] [--cwd DIR] -- COMMAND...\n       assent_check --ping [--socket PATH]"
            ));
            status::USAGE
        }
    }
}

fn parse(words: &[&CStr]) -> Result<Call, String> {
    // Bytes that are not UTF-8 become U+FFFD: such a line is still checked, where an error
    // would let the hook run it unchecked (it reads usage errors as "the gate is unavailable").
    let mut words = words.iter().map(|w| w.to_string_lossy().into_owned());
    let mut value = |flag: &str| words.next().ok_or_else(|| format!("{flag} needs a value"));
    let (mut socket, mut session, mut cwd, mut ping) = (None, None, None, false);
    loop {
        let word = match value("") {
            Ok(word) => word,
            Err(_) if ping => return Ok(Call::Ping { socket }),
            Err(_) => return Err("missing `-- COMMAND`".into()),
        };
        match word.as_str() {
            "--" => break,
            "--socket" => socket = Some(PathBuf::from(value("--socket")?)),
            "--session" => session = Some(value("--session")?),
            "--cwd" => cwd = Some(PathBuf::from(value("--cwd")?)),
            "--origin" => match value("--origin")?.as_str() {
                "interactive" => {}
                other => return Err(format!("origin {other:?}: only `interactive` is allowed")),
            },
            "--ping" => ping = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if ping {
        return Err("--ping takes no command".into());
    }
    let command: Vec<String> = std::iter::from_fn(|| value("").ok()).collect();
    if command.is_empty() {
        return Err("no command after `--`".into());
    }
    Ok(Call::Check {
        socket,
        session,
        cwd,
        command: command.join(" "),
    })
}

/// Ask about one line.
fn check(
    socket: Option<&Path>,
    session: Option<String>,
    cwd: Option<&Path>,
    command: &str,
    shell: &mut dyn Shell,
) -> u8 {
    let cwd = match working_dir(cwd) {
        Ok(cwd) => cwd,
        Err(code) => return code,
    };
    let request = Request::Check(CheckRequest {
        subject: Subject::shell(command, cwd),
        origin: Origin::Interactive,
        context: Context {
            session,
            // `assent __resume` will ask at the terminal, as `assent check` would.
            prompt: on_terminal(),
            ..Context::default()
        },
        wait: true,
    });
    let mut conn = match connect(socket) {
        Ok(conn) => conn,
        Err(code) => return code,
    };
    let verdict = match exchange(&mut conn, &request, shell) {
        Ok(Response::Verdict(verdict)) => verdict,
        Ok(Response::Error(error)) => {
            // The daemon refused to judge (bad input, a limit): nothing is allowed.
            say(&format!("refused: {error}"));
            return status::DENY;
        }
        Ok(other) => {
            say(&format!("unexpected reply: {other:?}"));
            return status::UNAVAILABLE;
        }
        Err(Exchange::Interrupted) => return status::INTERRUPTED,
        Err(Exchange::Failed(error)) => {
            print_error(&error);
            return status::UNAVAILABLE;
        }
    };
    match verdict.outcome() {
        Outcome::Allow => status::ALLOW,
        // Ask (needs a person, nothing held) only comes for agents; a shell has no other prompt.
        Outcome::Deny | Outcome::Ask => {
            verdict_text("denied", &verdict);
            status::DENY
        }
        Outcome::Held(token) => {
            // `assent __resume` asks at the terminal: what the line does, in one line.
            let _ = writeln!(
                std::io::stderr().lock(),
                "{}",
                assent_client::say::held(&verdict)
            );
            hand_over(conn, &verdict, token, shell)
        }
    }
}

/// Leave a held request's connection open in the shell, for `assent __resume`.
fn hand_over(conn: Connection, verdict: &Verdict, token: &str, shell: &mut dyn Shell) -> u8 {
    // A duplicate at 10 or above, close-on-exec: only the `__resume` it is redirected to gets it.
    let fd = match fcntl(conn.as_fd(), FcntlArg::F_DUPFD_CLOEXEC(FD_BASE)) {
        Ok(fd) => fd,
        Err(errno) => {
            say(&format!(
                "could not keep the held request's connection ({errno}): not allowed"
            ));
            return status::DENY;
        }
    };
    drop(conn);
    let expires = verdict
        .expires_in_ms
        .map(|ms| ms.to_string())
        .unwrap_or_default();
    let set = |shell: &mut dyn Shell, name: &CStr, value: &str| {
        CString::new(value).is_ok_and(|value| shell.set_var(name, &value))
    };
    if set(shell, FD_VAR, &fd.to_string())
        && set(shell, TOKEN_VAR, token)
        && set(shell, EXPIRES_VAR, &expires)
        && set(shell, LEVEL_VAR, verdict.level.as_str())
        && set(
            shell,
            ANOTHER_VAR,
            if verdict.another_answers { "1" } else { "" },
        )
    {
        return status::HELD;
    }
    // Closing the last descriptor withdraws the request.
    let _ = nix::unistd::close(fd);
    say("could not hand the held request to the shell: not allowed");
    status::DENY
}

/// Whether a held line can be answered at this shell's terminal: stdin or stderr is one, and
/// the shell is its foreground process group (the client's `prompt::terminal` makes the same
/// test before it asks).
fn on_terminal() -> bool {
    use std::io::IsTerminal as _;
    if !(std::io::stdin().is_terminal() || std::io::stderr().is_terminal()) {
        return false;
    }
    let Ok(tty) = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NOCTTY.bits() | nix::fcntl::OFlag::O_CLOEXEC.bits())
        .open("/dev/tty")
    else {
        return false;
    };
    nix::unistd::tcgetpgrp(&tty).is_ok_and(|group| group == nix::unistd::getpgrp())
}

/// `--ping`: does the daemon answer? Prints nothing.
fn ping(socket: Option<&Path>, shell: &mut dyn Shell) -> u8 {
    let Ok(path) = resolve_socket(socket) else {
        return status::UNAVAILABLE;
    };
    let Ok(mut conn) = Connection::connect(&path) else {
        return status::UNAVAILABLE;
    };
    match exchange(&mut conn, &Request::Status, shell) {
        Ok(Response::Status(_)) => status::ALLOW,
        Err(Exchange::Interrupted) => status::INTERRUPTED,
        _ => status::UNAVAILABLE,
    }
}

fn connect(socket: Option<&Path>) -> Result<Connection, u8> {
    let path = resolve_socket(socket).map_err(|error| {
        print_error(&error);
        status::UNAVAILABLE
    })?;
    Connection::connect(&path).map_err(|error| {
        print_error(&error);
        status::UNAVAILABLE
    })
}

enum Exchange {
    Interrupted,
    Failed(Error),
}

/// Send one request and receive its reply (an error reply included). The wait for the reply
/// is a `poll` that gives up when the person presses Ctrl-C: bash's handler only notes the
/// signal, so without this a wedged daemon would hang the shell.
fn exchange(
    conn: &mut Connection,
    request: &Request,
    shell: &dyn Shell,
) -> Result<Response, Exchange> {
    conn.send(request).map_err(Exchange::Failed)?;
    loop {
        let mut fds = [PollFd::new(conn.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, PollTimeout::NONE) {
            Ok(_) => break,
            // Also SIGCHLD from a background job, SIGWINCH: only Ctrl-C gives up.
            Err(Errno::EINTR) if shell.interrupted() => return Err(Exchange::Interrupted),
            Err(Errno::EINTR) => continue,
            Err(errno) => return Err(Exchange::Failed(Error::Io(errno.into()))),
        }
    }
    conn.recv().map_err(Exchange::Failed)
}

/// The working directory to send, as `assent check` works it out: `--cwd` made absolute, else
/// the current directory.
fn working_dir(flag: Option<&Path>) -> Result<String, u8> {
    assent_client::paths::working_dir(flag).map_err(|why| {
        say(&why);
        status::USAGE
    })
}

/// A plain line on stderr, as the client prints it.
fn say(text: &str) {
    let _ = std::io::stderr()
        .lock()
        .write_all(format!("assent: {text}\n").as_bytes());
}

/// An error, worded as the client words it.
fn print_error(error: &Error) {
    let text = match error {
        Error::Refused(wire) if wire.kind == ErrorKind::VersionMismatch => format!(
            "{}: install the assent client and assentd from the same release",
            wire.message
        ),
        Error::Codec(CodecError::Version { .. }) => {
            format!("{error}: install the assent client and assentd from the same release")
        }
        other => other.to_string(),
    };
    say(&text);
}

/// A verdict with its findings, in one write, as the client prints it.
fn verdict_text(what: &str, verdict: &Verdict) {
    let _ = std::io::stderr()
        .lock()
        .write_all(assent_client::say::verdict(what, verdict).as_bytes());
}

/// A builtin's words as bash hands them over (C strings), for a test of its parser.
#[cfg(test)]
fn as_bash_words<T>(words: &[&str], parse: impl FnOnce(&[&CStr]) -> T) -> T {
    let owned: Vec<CString> = words
        .iter()
        .map(|w| CString::new(*w).expect("no NUL in a test word"))
        .collect();
    let borrowed: Vec<&CStr> = owned.iter().map(CString::as_c_str).collect();
    parse(&borrowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_words(words: &[&str]) -> Result<Call, String> {
        as_bash_words(words, parse)
    }

    #[test]
    fn the_hooks_form_is_read() {
        assert_eq!(
            parse_words(&[
                "--session",
                "bash-1",
                "--cwd",
                "/w",
                "--",
                "rm -rf x",
                "--not-a-flag"
            ]),
            Ok(Call::Check {
                socket: None,
                session: Some("bash-1".into()),
                cwd: Some("/w".into()),
                command: "rm -rf x --not-a-flag".into(),
            })
        );
        assert_eq!(
            parse_words(&["--socket", "/s", "--origin", "interactive", "--", "ls"]),
            Ok(Call::Check {
                socket: Some("/s".into()),
                session: None,
                cwd: None,
                command: "ls".into(),
            })
        );
        assert_eq!(
            parse_words(&["--ping", "--socket", "/s"]),
            Ok(Call::Ping {
                socket: Some("/s".into())
            })
        );
    }

    #[test]
    fn a_line_that_is_not_utf8_is_still_checked() {
        let words = [c"--", c"rm -rf /\xff"];
        match parse(&words) {
            Ok(Call::Check { command, .. }) => assert_eq!(command, "rm -rf /\u{fffd}"),
            other => panic!("expected a check, got {other:?}"),
        }
    }

    #[test]
    fn anything_else_is_a_usage_error() {
        for words in [
            &[][..],
            &["ls"],
            &["--"],
            &["--session"],
            &["--origin", "agent", "--", "ls"],
            &["--bogus", "--", "ls"],
            &["--ping", "--", "ls"],
        ] {
            assert!(parse_words(words).is_err(), "{words:?}");
        }
    }

    #[test]
    fn a_relative_cwd_is_made_absolute() {
        let dir = working_dir(Some(Path::new("sub"))).expect("a UTF-8 working directory");
        assert!(
            Path::new(&dir).is_absolute() && dir.ends_with("/sub"),
            "{dir}"
        );
        assert_eq!(working_dir(Some(Path::new("/abs"))), Ok("/abs".into()));
    }

    struct NoShell;
    impl Shell for NoShell {
        fn set_var(&mut self, _: &CStr, _: &CStr) -> bool {
            false
        }
        fn interrupted(&self) -> bool {
            false
        }
    }

    #[test]
    fn no_daemon_is_unavailable() {
        let dir = std::env::temp_dir().join("assent-bash-no-daemon.sock");
        let socket = CString::new(dir.to_str().expect("a UTF-8 temp dir")).expect("no NUL");
        let words = [c"--socket", socket.as_c_str(), c"--", c"ls"];
        assert_eq!(run(&words, &mut NoShell), status::UNAVAILABLE);
        let words = [c"--ping", c"--socket", socket.as_c_str()];
        assert_eq!(run(&words, &mut NoShell), status::UNAVAILABLE);
    }
}
