//! Starting a command and waiting for it, as a door that stays to report on it does: the
//! signals a parent is sent (SIGTERM from an agent that gives up on its tool, SIGHUP from a
//! closed terminal, SIGINT and SIGQUIT, and SIGWINCH when the window is resized) are passed on
//! to the command instead of killing the door and leaving the command running.
//!
//! The command runs without a controlling terminal: what an agent or a repository chose to run
//! must not reach the terminal it came from beyond the standard streams it was given (opening
//! `/dev/tty` to type into it with `TIOCSTI`, to read what the person types, or to pass for a
//! person's shell at the gate's terminal prompt). The door gives its own up before it starts the
//! command (`confine/tiocsti.rs`), which then stays in the door's process group, where an agent
//! that ends its tool by killing the group reaches it; a door that leads its session starts the
//! command in a session of its own instead (`own_session`: the signals go to its group, and a
//! stop from the terminal, Ctrl-Z, stops the door, not the command). Either way a program that
//! asks for a password on `/dev/tty` (`sudo`, `ssh`) cannot.
//!
//! The door blocks those signals to hear them on a descriptor; the command must not inherit
//! that. The standard library's `Command` gives a child its parent's mask as it is at the spawn
//! (so a command started under `nohup`'s blocked SIGHUP keeps it), which here would be the
//! door's blocked set: the command would never see the SIGTERM passed on to it. So the command
//! is started (`start.rs`, as `posix_spawn` would) with the mask the door had before it
//! blocked anything, and SIGPIPE's default action back (in case the door's parent ignored it).

use std::ffi::{CString, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus};

use nix::sys::signal::{SigSet, SigmaskHow, Signal, kill, killpg};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

mod start;

/// How the command ended, and whether the door passed on a signal meant to end it (the run
/// was then ended from outside, not refused).
#[derive(Debug, Clone, Copy)]
pub struct Ended {
    pub status: ExitStatus,
    pub signalled: bool,
}

/// Runs `command` (its program, arguments and environment; the door's working directory)
/// with `argv0` as its `argv[0]`, and waits for it, passing on the signals meant to end it.
/// `or_bash`: the line a command started without bash came from, which `/bin/bash -c` runs
/// instead when the program cannot be started (bash then answers as it would have). `close`:
/// a descriptor the door holds that the command must not inherit.
pub fn run(
    command: &Command,
    argv0: &OsStr,
    or_bash: Option<&str>,
    own_session: bool,
    close: Option<i32>,
) -> std::io::Result<Ended> {
    if command.get_current_dir().is_some() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "a door runs its command where it stands",
        ));
    }
    let mut passed = SigSet::empty();
    for signal in [
        Signal::SIGTERM,
        Signal::SIGHUP,
        Signal::SIGINT,
        Signal::SIGQUIT,
        Signal::SIGWINCH,
        Signal::SIGCHLD,
    ] {
        passed.add(signal);
    }
    // Blocked before the command starts, so none is lost in between.
    let mut old = SigSet::empty();
    nix::sys::signal::pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&passed), Some(&mut old))
        .map_err(std::io::Error::from)?;
    let result = wait_passing(command, argv0, or_bash, &passed, &old, own_session, close);
    let _ = nix::sys::signal::pthread_sigmask(SigmaskHow::SIG_SETMASK, Some(&old), None);
    result
}

fn wait_passing(
    command: &Command,
    argv0: &OsStr,
    or_bash: Option<&str>,
    passed: &SigSet,
    old: &SigSet,
    own_session: bool,
    close: Option<i32>,
) -> std::io::Result<Ended> {
    let signals =
        SignalFd::with_flags(passed, SfdFlags::SFD_CLOEXEC).map_err(std::io::Error::from)?;
    let pid = spawn(command, argv0, or_bash, old, own_session, close)?;
    let mut signalled = false;
    loop {
        if let Some(status) = finished(waitpid(pid, Some(WaitPidFlag::WNOHANG)))? {
            return Ok(Ended { status, signalled });
        }
        match signals.read_signal() {
            Ok(Some(info)) => {
                let signal = i32::try_from(info.ssi_signo)
                    .ok()
                    .and_then(|n| Signal::try_from(n).ok());
                if let Some(signal) = signal
                    && signal != Signal::SIGCHLD
                {
                    // A resized window ends nothing.
                    signalled |= signal != Signal::SIGWINCH;
                    // In a session of its own, its whole group, as a terminal would signal a
                    // foreground job (the command leads it); else the command.
                    if !own_session || killpg(pid, signal).is_err() {
                        let _ = kill(pid, signal);
                    }
                }
            }
            Ok(None) | Err(nix::errno::Errno::EINTR) => {}
            // No way to hear signals any more: wait plainly.
            Err(_) => {
                return wait_plainly(pid).map(|status| Ended { status, signalled });
            }
        }
    }
}

/// Starts `command` as `argv0` (in a session of its own when `own_session`) with the signal
/// mask `mask` and SIGPIPE's default action, or `/bin/bash -c` `or_bash` where it cannot be; the
/// standard streams and every descriptor not closed on exec (but `close`) are shared, as
/// `Command` would.
fn spawn(
    command: &Command,
    argv0: &OsStr,
    or_bash: Option<&str>,
    mask: &SigSet,
    own_session: bool,
    close: Option<i32>,
) -> std::io::Result<Pid> {
    let Words { program, argv, env } = words(command, argv0)?;
    start::spawn(&start::Start {
        candidates: start::candidates(&program),
        argv,
        fallback: or_bash.map(bash_argv).transpose()?,
        envp: env,
        mask: *mask,
        own_session,
        close,
    })
}

/// A command's program, `argv` and environment as the C strings `execve` takes.
pub struct Words {
    pub program: CString,
    pub argv: Vec<CString>,
    pub env: Vec<CString>,
}

/// `command`'s words, with `argv0` first, and the door's environment with `command`'s changes.
pub fn words(command: &Command, argv0: &OsStr) -> std::io::Result<Words> {
    let program = cstring(command.get_program())?;
    let mut argv = vec![cstring(argv0)?];
    for arg in command.get_args() {
        argv.push(cstring(arg)?);
    }
    let mut env: Vec<(std::ffi::OsString, std::ffi::OsString)> = std::env::vars_os().collect();
    for (key, value) in command.get_envs() {
        env.retain(|(k, _)| k != key);
        if let Some(value) = value {
            env.push((key.to_owned(), value.to_owned()));
        }
    }
    let env = env
        .into_iter()
        .map(|(key, value)| {
            let mut pair = key.into_encoded_bytes();
            pair.push(b'=');
            pair.extend_from_slice(value.as_bytes());
            CString::new(pair).map_err(|_| nul())
        })
        .collect::<std::io::Result<Vec<_>>>()?;
    Ok(Words { program, argv, env })
}

/// `/bin/bash -c LINE`'s `argv`, as a door that runs a line through bash gives it.
pub fn bash_argv(line: &str) -> std::io::Result<Vec<CString>> {
    Ok(vec![
        CString::from(c"/bin/bash"),
        CString::from(c"-c"),
        CString::new(line).map_err(|_| nul())?,
    ])
}

fn wait_plainly(pid: Pid) -> std::io::Result<ExitStatus> {
    loop {
        if let Some(status) = finished(waitpid(pid, None))? {
            return Ok(status);
        }
    }
}

/// The command's end, from what `waitpid` said; `None` while it runs (or was interrupted).
fn finished(waited: nix::Result<WaitStatus>) -> std::io::Result<Option<ExitStatus>> {
    match waited {
        Ok(WaitStatus::Exited(_, code)) => Ok(Some(ExitStatus::from_raw((code & 0xff) << 8))),
        Ok(WaitStatus::Signaled(_, signal, core)) => {
            let core = if core { 0x80 } else { 0 };
            Ok(Some(ExitStatus::from_raw(signal as i32 | core)))
        }
        Ok(_) | Err(nix::errno::Errno::EINTR) => Ok(None),
        Err(error) => Err(error.into()),
    }
}

fn cstring(text: &OsStr) -> std::io::Result<CString> {
    CString::new(text.as_bytes()).map_err(|_| nul())
}

fn nul() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        "an argument or the environment holds a NUL byte",
    )
}
