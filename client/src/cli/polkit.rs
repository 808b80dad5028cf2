//! The password step, from a terminal: `assent approve` starts polkit's text authentication
//! agent (`pkttyagent`) for its own process before it answers, so that when the policy wants
//! the user's password for this approval, polkit asks for it right here. Where no terminal or
//! no `pkttyagent` is at hand nothing is started: a desktop's own authentication agent asks
//! instead, or the daemon refuses the approval and says why.

use std::io::{IsTerminal, Read};
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::Duration;

use nix::fcntl::{FcntlArg, FdFlag, OFlag, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

/// How long `pkttyagent` may take to register with polkit.
const REGISTER_TIMEOUT: Duration = Duration::from_secs(5);

/// A running `pkttyagent`, stopped when dropped.
pub struct TextAgent {
    child: Child,
}

impl TextAgent {
    /// Start `pkttyagent` for this process and wait until it has registered, when standard
    /// input is a terminal and the program is installed; `None` otherwise.
    pub fn start() -> Option<TextAgent> {
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
            .spawn()
            .ok()?;
        drop(write);
        let mut agent = TextAgent { child };
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
        let alive = matches!(agent.child.try_wait(), Ok(None));
        if registered && alive {
            Some(agent)
        } else {
            agent.stop();
            None
        }
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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
