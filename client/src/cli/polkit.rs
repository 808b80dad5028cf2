//! The password step, from a terminal: `assent approve` starts polkit's text authentication
//! agent (`pkttyagent`) for its own process before it answers, so that when the policy wants
//! the user's password for this approval, polkit asks for it right here. Where no terminal or
//! no `pkttyagent` is at hand nothing is started: a desktop's own authentication agent asks
//! instead, or the daemon refuses the approval and says why.
//!
//! Most approvals need no password, and most machines without a desktop have no polkit: what
//! `pkttyagent` says on its standard error (that it found no polkit to register with) is kept
//! aside and shown only when the daemon refused the approval for want of the password.

use std::io::{IsTerminal, Read};
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::Duration;

use nix::fcntl::{FcntlArg, FdFlag, OFlag, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

/// How long `pkttyagent` may take to register with polkit.
const REGISTER_TIMEOUT: Duration = Duration::from_secs(5);

/// A `pkttyagent` started for this process, stopped when dropped (it may have stopped
/// already, failing to register).
pub struct TextAgent {
    child: Option<Child>,
    /// The read end of its standard error, not blocking.
    stderr: std::fs::File,
}

impl TextAgent {
    /// Start `pkttyagent` for this process and wait until it has registered, when standard
    /// input is a terminal and the program is installed; `None` otherwise.
    pub fn start() -> Option<TextAgent> {
        let (stderr, stderr_write) =
            nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK).ok()?;
        if !std::io::stdin().is_terminal() {
            return None;
        }
        let program = find("pkttyagent")?;
        // pkttyagent closes the descriptor it is given once it has registered: a pipe whose
        // write end it inherits (the only one without close-on-exec) tells when. It registers
        // for this process only (not `--fallback`, which polkit 122 then never asks), so a
        // desktop's own agent for the session stays as it is.
        let (read, write) = nix::unistd::pipe2(OFlag::O_CLOEXEC).ok()?;
        fcntl(&write, FcntlArg::F_SETFD(FdFlag::empty())).ok()?;
        let child = Command::new(program)
            .arg("--process")
            .arg(std::process::id().to_string())
            .arg("--notify-fd")
            .arg(write.as_raw_fd().to_string())
            .stderr(std::fs::File::from(stderr_write))
            .spawn()
            .ok()?;
        drop(write);
        let mut agent = TextAgent {
            child: Some(child),
            stderr: std::fs::File::from(stderr),
        };
        let registered = {
            let mut fds = [PollFd::new(
                std::os::fd::AsFd::as_fd(&read),
                PollFlags::POLLIN,
            )];
            let timeout = PollTimeout::try_from(REGISTER_TIMEOUT).unwrap_or(PollTimeout::MAX);
            matches!(poll(&mut fds, timeout), Ok(n) if n > 0)
        };
        let mut rest = Vec::new();
        let _ = std::fs::File::from(read).read_to_end(&mut rest);
        let alive = agent
            .child
            .as_mut()
            .is_some_and(|child| matches!(child.try_wait(), Ok(None)));
        if !(registered && alive) {
            agent.stop();
        }
        Some(agent)
    }

    /// What `pkttyagent` has said on its standard error so far (at most a few lines).
    pub fn told(&mut self) -> String {
        let mut said = Vec::new();
        let mut buffer = [0u8; 4096];
        // Not blocking: a pipe that is empty for now ends the reading.
        while said.len() < 4096 {
            match self.stderr.read(&mut buffer) {
                Ok(n) if n > 0 => said.extend_from_slice(&buffer[..n]),
                _ => break,
            }
        }
        String::from_utf8_lossy(&said).trim().to_string()
    }

    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for TextAgent {
    fn drop(&mut self) {
        self.stop();
    }
}

/// `name` on `$PATH`, or in `/usr/bin`.
fn find(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin")])
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}
