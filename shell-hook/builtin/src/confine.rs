//! `assent_confine`: confines the agent's own shell in place and runs there a line an agent's
//! hook was allowed and rewrote, instead of starting a door that confines itself and then the
//! line.
//!
//! Claude Code and Gemini CLI run each shell call in a `bash -c` of their own, and let the
//! hook rewrite the call. Rewritten to `assent sh --grant TOKEN -c LINE`, every call cost a
//! process more than the agent's own (the door, which redeems the grant, confines itself and
//! starts the line under it): about 1.5 ms here, half an agent's call. Rewritten to
//!
//! ```text
//! enable -f SO assent_confine && assent_confine --socket S --grant TOKEN --door ASSENT -c LINE
//! ```
//!
//! the agent's shell loads this builtin, which redeems the grant (bound to the uid, the exact
//! line, this directory and the confinement: one that is spent, expired or for another line is
//! refused, and nothing runs), confines this process and what it starts
//! (`assent_client::confine`: the ruleset the daemon kept, else the plan from the disk; the
//! seccomp filter on terminal typing; the controlling terminal given up), and then has bash
//! run LINE as `eval` would, in the shell the agent would have run it in without the gate (its
//! `cd` stays, as the agent expects). After a line that failed it says what the kernel refused
//! it, as the door does. The status is the line's.
//!
//! A shell that leads its session on a pseudo-terminal (an agent that runs its calls on a
//! terminal of its own: Gemini CLI on node-pty) cannot give the terminal up without hanging up
//! the session's foreground. Where that terminal is the one on its standard streams it keeps
//! it: the run may write there anyway, and the seccomp filter refuses the typing a controlling
//! terminal would allow. Where it is another (the streams elsewhere), the builtin has the door
//! (`--door`, `assent sh --grant`) run the line instead, and waits for it. So it does in a shell
//! that confined itself before (a shell an agent keeps across calls): the line runs in both
//! domains either way, and the door says what the kernel refused it with the second. Anything
//! else that goes wrong is said on stderr and the line does not run.
//!
//! The rest of that shell runs inside the domain too (Claude Code's `pwd -P` into its temporary
//! file): what the door left unconfined. The line runs with the functions of the agent's own
//! snapshot of the user's shell, as the agent runs its calls, where the door ran it in a fresh
//! bash; aliases are off while it runs (`ffi.rs`), as in the `bash -c` the gate judged it for.
//!
//! The hook writes the command as one simple and-list with the line in full: Claude Code reads
//! the shell scripts a call passes and refuses one that removes files it cannot check, and it
//! checks none inside a compound command (`if … else … fi`).

use std::ffi::{CStr, CString};
use std::path::PathBuf;
use std::sync::Mutex;

use assent_client::confine::{Domain, failed_confined, refused, restrict_self, terminal};
use assent_client::paths::resolve_door_socket;
use assent_client::protocol::{
    Confinement, GrantRequest, Origin, RefusedRequest, Request, Response, Subject,
};
use assent_client::{Connection, Error};

use crate::{print_error, say, status};

/// What the builtin was asked to do.
#[derive(Debug, PartialEq)]
struct Call {
    socket: Option<PathBuf>,
    token: String,
    door: Option<PathBuf>,
    line: String,
}

/// What the entry point does next.
#[derive(Debug, PartialEq)]
pub enum Next {
    /// Return this status: the line ran elsewhere (the door), or will not run.
    Status(u8),
    /// The shell is confined: run the line in it, then [`after`] its status.
    Run(CString),
}

/// What [`after`] needs of the confinement this shell made: set once, by the call that
/// confined it.
struct Confined {
    socket: Option<PathBuf>,
    subject: Subject,
    confine: Confinement,
    project: Option<PathBuf>,
}

static CONFINED: Mutex<Option<Confined>> = Mutex::new(None);

/// Statuses a signal the agent sent ends a line with (SIGHUP, SIGINT, SIGQUIT, SIGTERM): the
/// run was stopped from outside, not refused, so nothing is said after it.
const ENDED_FROM_OUTSIDE: [u8; 4] = [129, 130, 131, 143];

const USAGE: &str = "usage: assent_confine [--socket PATH] --grant TOKEN [--door ASSENT] -c LINE";

/// Run the builtin on its arguments (the words after its name), up to the line's run.
pub fn run(words: &[&CStr]) -> Next {
    match parse(words) {
        Ok(call) => confine(call),
        Err(text) => {
            say(&format!("assent_confine: {text}\n{USAGE}"));
            Next::Status(status::USAGE)
        }
    }
}

fn parse(words: &[&CStr]) -> Result<Call, String> {
    let words: Option<Vec<&str>> = words.iter().map(|w| w.to_str().ok()).collect();
    let mut words = words.ok_or("an argument that is not UTF-8")?.into_iter();
    let (mut socket, mut token, mut door) = (None, None, None);
    while let Some(word) = words.next() {
        let mut value = || words.next().ok_or(format!("{word} needs a value"));
        match word {
            "--socket" => socket = Some(PathBuf::from(value()?)),
            "--grant" => token = Some(value()?.to_owned()),
            "--door" => door = Some(PathBuf::from(value()?)),
            "-c" => {
                let line = value()?.to_owned();
                if words.next().is_some() {
                    return Err("nothing may follow the line".into());
                }
                let token = token.ok_or("no --grant")?;
                return Ok(Call {
                    socket,
                    token,
                    door,
                    line,
                });
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Err("no -c LINE".into())
}

/// Whether this process has a controlling terminal.
fn controlling_terminal() -> bool {
    use nix::fcntl::{OFlag, open};
    use nix::sys::stat::Mode;
    open(
        "/dev/tty",
        OFlag::O_RDWR | OFlag::O_NOCTTY | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .is_ok()
}

/// What the shell confined in place does with its controlling terminal.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Terminal {
    /// Gives it up (`TIOCNOTTY`), as a door's command has none.
    GiveUp,
    /// Keeps it: the shell leads its session on the terminal on its own standard streams.
    Keep,
}

/// Whether this shell can be confined in place, and what it then does with its terminal; None
/// when the door must run the line: it confined itself before, or it leads its session and
/// holds a controlling terminal that is not the one on its streams (giving it up would hang up
/// the session's foreground, keeping it would let the run reach another terminal).
fn confine_here() -> Option<Terminal> {
    if CONFINED.lock().map_or(true, |c| c.is_some()) {
        return None;
    }
    let leads = nix::unistd::getsid(None).ok() == Some(nix::unistd::getpid());
    if !leads || !controlling_terminal() {
        return Some(Terminal::GiveUp);
    }
    terminal::own_terminal()
        .is_some_and(|own| terminal::controlling_is(&own))
        .then_some(Terminal::Keep)
}

/// Redeems the grant for the line here and confines this process (or has the door run it).
fn confine(call: Call) -> Next {
    let Call {
        socket,
        token,
        door,
        line,
    } = call;
    let Ok(run_here) = CString::new(line.as_bytes()) else {
        say("not running: the line holds a NUL byte");
        return Next::Status(status::USAGE);
    };
    let Some(held_terminal) = confine_here() else {
        return Next::Status(match door {
            Some(door) => through_the_door(&door, socket, &token, &line),
            None => {
                say("not running: this shell cannot be confined in place, and no --door was given");
                status::UNAVAILABLE
            }
        });
    };
    let cwd = match assent_client::paths::working_dir(None) {
        Ok(cwd) => cwd,
        Err(why) => {
            say(&why);
            return Next::Status(status::USAGE);
        }
    };
    let subject = Subject::shell(&line, cwd);
    let path = match resolve_door_socket(socket.as_deref()) {
        Ok(path) => path,
        Err(error) => {
            print_error(&error);
            return Next::Status(status::UNAVAILABLE);
        }
    };
    let granted = Connection::connect(&path).and_then(|mut conn| {
        let reply = conn.request(&Request::Grant(GrantRequest {
            token,
            subject: subject.clone(),
        }))?;
        Ok((reply, conn.take_passed()))
    });
    let (run, kept) = match granted {
        Ok((Response::Granted(run), kept)) => (run, kept),
        Ok((other, _)) => {
            say(&format!("unexpected reply: {other:?}; not running"));
            return Next::Status(status::UNAVAILABLE);
        }
        Err(Error::Refused(error)) => {
            say(&format!("the line was not run: {error}"));
            return Next::Status(status::UNAVAILABLE);
        }
        Err(error) => {
            print_error(&error);
            return Next::Status(status::UNAVAILABLE);
        }
    };
    let confine = run.confine;
    let Domain { enforced, project } =
        restrict_self(&confine, run.approved, kept, terminal::own_terminal());
    match enforced {
        // Nothing the line starts may type into a terminal it holds.
        Ok(()) => {
            if let Err(error) = terminal::refuse_terminal_typing() {
                say(&format!(
                    "not running: the run could not be kept from typing into a terminal ({error})"
                ));
                return Next::Status(status::UNAVAILABLE);
            }
        }
        Err(error) if confine.required => {
            say(&format!(
                "not running: the gate let this line through only to run confined, and {error}"
            ));
            return Next::Status(status::UNAVAILABLE);
        }
        Err(error) => say(&format!("running unconfined: {error}")),
    }
    // Without a controlling terminal, as a door's command runs, unless the shell leads its
    // session on the terminal it writes to (`confine_here`).
    if held_terminal == Terminal::GiveUp && !terminal::give_up_terminal() && controlling_terminal()
    {
        say("not running: the shell could not give up its terminal");
        return Next::Status(status::UNAVAILABLE);
    }
    match CONFINED.lock() {
        Ok(mut confined) => {
            *confined = Some(Confined {
                socket,
                subject,
                confine,
                project,
            })
        }
        Err(_) => return Next::Status(status::UNAVAILABLE),
    }
    Next::Run(run_here)
}

/// The door runs the line (`ASSENT --socket S sh --grant TOKEN -c LINE`), confined as it does;
/// its status. SIGCHLD is blocked while it runs, so that bash's own handler does not reap it
/// first; the door starts with the signal mask the shell had.
fn through_the_door(
    door: &std::path::Path,
    socket: Option<PathBuf>,
    token: &str,
    line: &str,
) -> u8 {
    use nix::sys::signal::{SigSet, SigmaskHow, Signal, pthread_sigmask};
    use nix::sys::wait::{WaitStatus, waitpid};
    let mut args: Vec<String> = Vec::new();
    if let Some(socket) = &socket {
        args.push("--socket".into());
        args.push(socket.to_string_lossy().into_owned());
    }
    args.extend(["sh", "--grant", token, "-c", line].map(str::to_owned));
    let mut chld = SigSet::empty();
    chld.add(Signal::SIGCHLD);
    let mut old = SigSet::empty();
    if pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&chld), Some(&mut old)).is_err() {
        say("not running: the door could not be waited for");
        return status::UNAVAILABLE;
    }
    let spawned = spawn_with_mask(door, &args, &old);
    let code = match spawned {
        Ok(pid) => loop {
            match waitpid(pid, None) {
                Ok(WaitStatus::Exited(_, code)) => break u8::try_from(code).unwrap_or(1),
                Ok(WaitStatus::Signaled(_, signal, _)) => {
                    break u8::try_from(128 + signal as i32).unwrap_or(1);
                }
                Ok(_) | Err(nix::errno::Errno::EINTR) => continue,
                Err(error) => {
                    say(&format!("the door was lost: {error}"));
                    break status::UNAVAILABLE;
                }
            }
        },
        Err(error) => {
            say(&format!(
                "could not start the door {}: {error}",
                door.display()
            ));
            status::UNAVAILABLE
        }
    };
    let _ = pthread_sigmask(SigmaskHow::SIG_SETMASK, Some(&old), None);
    code
}

/// `door ARGS` started with the signal mask `mask`.
fn spawn_with_mask(
    door: &std::path::Path,
    args: &[String],
    mask: &nix::sys::signal::SigSet,
) -> nix::Result<nix::unistd::Pid> {
    use nix::spawn::{PosixSpawnAttr, PosixSpawnFileActions, PosixSpawnFlags, posix_spawn};
    use std::os::unix::ffi::OsStrExt;
    let program =
        CString::new(door.as_os_str().as_bytes()).map_err(|_| nix::errno::Errno::EINVAL)?;
    let mut argv = vec![program.clone()];
    for arg in args {
        argv.push(CString::new(arg.as_bytes()).map_err(|_| nix::errno::Errno::EINVAL)?);
    }
    let env: Vec<CString> = std::env::vars_os()
        .filter_map(|(key, value)| {
            let mut pair = key.into_encoded_bytes();
            pair.push(b'=');
            pair.extend_from_slice(value.as_bytes());
            CString::new(pair).ok()
        })
        .collect();
    let mut attr = PosixSpawnAttr::init()?;
    attr.set_sigmask(mask)?;
    attr.set_flags(PosixSpawnFlags::POSIX_SPAWN_SETSIGMASK)?;
    posix_spawn(
        program.as_c_str(),
        &PosixSpawnFileActions::init()?,
        &attr,
        &argv,
        &env,
    )
}

/// The line ended with `status`: said what the kernel refused it, when it failed, and
/// `status` returned.
pub fn after(status: u8) -> u8 {
    if status == 0 || ENDED_FROM_OUTSIDE.contains(&status) {
        return status;
    }
    let Ok(confined) = CONFINED.lock() else {
        return status;
    };
    let Some(confined) = confined.as_ref() else {
        return status;
    };
    if confined.confine.log_denials {
        refused::barrier();
    }
    let fallback = failed_confined(&confined.confine, confined.project.as_deref());
    let asked = RefusedRequest {
        subject: confined.subject.clone(),
        origin: Origin::Agent,
    };
    let said = match refused::ask(confined.socket.as_deref(), asked) {
        Ok(refusals) => refused::text(&refusals, &fallback),
        Err(why) => Some(format!("{fallback} (what was refused is not known: {why})")),
    };
    if let Some(said) = said {
        say(&said);
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_words(words: &[&str]) -> Result<Call, String> {
        crate::as_bash_words(words, parse)
    }

    #[test]
    fn the_hooks_form_is_read_and_nothing_else() {
        assert_eq!(
            parse_words(&[
                "--socket",
                "/s",
                "--grant",
                "pg_1",
                "--door",
                "/usr/bin/assent",
                "-c",
                "make -j2"
            ]),
            Ok(Call {
                socket: Some("/s".into()),
                token: "pg_1".into(),
                door: Some("/usr/bin/assent".into()),
                line: "make -j2".into()
            })
        );
        assert_eq!(
            parse_words(&["--grant", "pg_1", "-c", "-c"]).map(|c| c.line),
            Ok("-c".into()),
            "the word after -c is the line, whatever it is"
        );
        for words in [
            &["--grant", "pg_1", "make"][..],
            &["--grant", "pg_1", "-c", "make", "extra"],
            &["-c", "make"],
            &["--grant"],
            &["--grant", "pg_1", "--door"],
            &["--grant", "pg_1", "--what", "x", "-c", "make"],
            &[],
        ] {
            assert!(parse_words(words).is_err(), "{words:?}");
        }
    }

    #[test]
    fn a_status_is_returned_as_it_came_when_nothing_was_confined() {
        for status in [0, 1, 2, 127, 130, 255] {
            assert_eq!(after(status), status);
        }
    }
}
