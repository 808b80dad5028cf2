//! Starting a command and waiting for it, as a door that stays to report on it does: the
//! signals a parent is sent (SIGTERM from an agent that gives up on its tool, SIGHUP from a
//! closed terminal, SIGINT and SIGQUIT) are passed on to the command instead of killing the
//! door and leaving the command running. Stop and continue signals are not blocked: the door
//! and the command stop and go on together, as one job.

use std::process::{Command, ExitStatus};

use nix::sys::signal::{SigSet, SigmaskHow, Signal, kill};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use nix::unistd::Pid;

/// Runs `command` and waits for it, passing on the signals meant to end it.
pub fn run(command: &mut Command) -> std::io::Result<ExitStatus> {
    let mut passed = SigSet::empty();
    for signal in [
        Signal::SIGTERM,
        Signal::SIGHUP,
        Signal::SIGINT,
        Signal::SIGQUIT,
        Signal::SIGCHLD,
    ] {
        passed.add(signal);
    }
    // Blocked before the command starts, so none is lost in between; the standard library
    // clears the mask in the child before it runs the command.
    let mut old = SigSet::empty();
    nix::sys::signal::pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&passed), Some(&mut old))
        .map_err(std::io::Error::from)?;
    let result = wait_passing(command, &passed);
    let _ = nix::sys::signal::pthread_sigmask(SigmaskHow::SIG_SETMASK, Some(&old), None);
    result
}

fn wait_passing(command: &mut Command, passed: &SigSet) -> std::io::Result<ExitStatus> {
    let signals =
        SignalFd::with_flags(passed, SfdFlags::SFD_CLOEXEC).map_err(std::io::Error::from)?;
    let mut child = command.spawn()?;
    let pid = i32::try_from(child.id()).map(Pid::from_raw).ok();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        match signals.read_signal() {
            Ok(Some(info)) => {
                let signal = i32::try_from(info.ssi_signo)
                    .ok()
                    .and_then(|n| Signal::try_from(n).ok());
                if let (Some(signal), Some(pid)) = (signal, pid)
                    && signal != Signal::SIGCHLD
                {
                    let _ = kill(pid, signal);
                }
            }
            Ok(None) => {}
            Err(nix::errno::Errno::EINTR) => {}
            Err(error) => {
                // No way to hear signals any more: wait plainly.
                let _ = error;
                return child.wait();
            }
        }
    }
}
