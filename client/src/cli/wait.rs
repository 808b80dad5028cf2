//! Waiting for a held request: the time left on stderr, Ctrl-C to withdraw it, and for a
//! person's own line the terminal prompt (`prompt.rs`).
//!
//! SIGINT, SIGTERM and SIGHUP are blocked only while waiting and read through a signalfd, so
//! the wait is one `poll` on two descriptors and no signal handler (no unsafe). The previous
//! mask is restored before returning, because `run` and `sh` exec the command next and a mask
//! is inherited across exec.
//!
//! With a prompt, the terminal is a third descriptor in the same `poll`: the first of a key, the
//! daemon's outcome (answered elsewhere) and Ctrl-C wins. A key is sent as
//! [`Request::Prompted`] on this connection, and the outcome follows as for any answer; if the
//! daemon refuses the terminal's answer, the refusal is printed and the wait goes on for the
//! others.

use std::io::{IsTerminal, Write};
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use assent_client::protocol::{Decided, Request, Response};

use super::prompt::{Asking, Key, Prompt};
use assent_client::{Connection, Error};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::signal::{SigSet, SigmaskHow, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};

/// How long to wait for the daemon to confirm a cancel before giving up on it.
const CANCEL_GRACE: Duration = Duration::from_secs(2);

/// How a wait ended.
pub enum Waited<T = Decided> {
    /// Settled (allowed, denied, expired, stopped).
    Decided(T),
    /// Withdrawn with Ctrl-C (or SIGTERM/SIGHUP).
    Cancelled,
    /// The connection broke.
    Lost(Error),
}

/// Restores the signal mask when the wait ends, however it ends.
struct MaskGuard(Option<SigSet>);

impl Drop for MaskGuard {
    fn drop(&mut self) {
        if let Some(old) = self.0.take() {
            let _ = old.thread_set_mask();
        }
    }
}

/// Wait for the outcome of `token` on `conn`, asking at the terminal too when `prompt` is given
/// (the request must have been sent with `Context::prompt` set). `another`: another person
/// must answer it ([`assent_client::protocol::Verdict::another_answers`]).
pub fn wait_prompting(
    conn: &mut Connection,
    token: &str,
    expires_in_ms: Option<u64>,
    show: bool,
    another: bool,
    prompt: Option<Prompt>,
) -> Waited {
    wait_for(
        conn,
        token,
        expires_in_ms,
        show.then_some(another),
        prompt,
        |response| match response {
            Response::Decided(decided) => Ok(decided),
            other => Err(format!("{other:?}")),
        },
    )
}

/// Wait for the outcome of a batch on `conn`: every item's, in order. `another`: another
/// person must answer it (a held item's `another_answers`).
pub fn wait_batch(
    conn: &mut Connection,
    token: &str,
    expires_in_ms: Option<u64>,
    show: bool,
    another: bool,
) -> Waited<Vec<Decided>> {
    wait_for(
        conn,
        token,
        expires_in_ms,
        show.then_some(another),
        None,
        |response| match response {
            Response::BatchDecided(batch) => Ok(batch.items),
            other => Err(format!("{other:?}")),
        },
    )
}

/// Wait for the response `accept` takes as the outcome, showing the wait when `show` says
/// whether another person must answer.
fn wait_for<T>(
    conn: &mut Connection,
    token: &str,
    expires_in_ms: Option<u64>,
    show: Option<bool>,
    prompt: Option<Prompt>,
    accept: impl Fn(Response) -> Result<T, String>,
) -> Waited<T> {
    let mut stop = SigSet::empty();
    stop.add(Signal::SIGINT);
    stop.add(Signal::SIGTERM);
    stop.add(Signal::SIGHUP);
    let guard = MaskGuard(stop.thread_swap_mask(SigmaskHow::SIG_BLOCK).ok());
    let signals = SignalFd::with_flags(&stop, SfdFlags::SFD_CLOEXEC | SfdFlags::SFD_NONBLOCK).ok();
    let deadline = expires_in_ms.map(|ms| Instant::now() + Duration::from_millis(ms));
    let terminal = show.is_some() && std::io::stderr().is_terminal();
    let mut waiting = show.map(|another| Waiting {
        another,
        deadline,
        columns: if terminal {
            super::term::size(std::io::stderr().as_fd()).0
        } else {
            usize::MAX
        },
    });
    if let Some(waiting) = &waiting {
        if prompt.is_some() {
            // Under a prompt: one line for where else to answer; the prompt line below it is
            // the live one, with the time left.
            eprintln!("{}", assent_client::say::elsewhere(token));
        } else {
            waiting.introduce(token);
            waiting.progress(terminal);
        }
    }
    let mut asking = prompt
        .map(|prompt| Prompt {
            deadline: prompt.deadline.or(deadline),
            ..prompt
        })
        .and_then(Asking::start);
    let mut live = terminal && asking.is_none();
    // A terminal answer was sent; an error reply is its refusal, not the end of the wait.
    let mut prompted = false;
    let outcome = loop {
        // The prompt appears once the keyboard is quiet; poll no longer than that. Once shown,
        // its time left is redrawn as it changes.
        let prompt_due = asking.as_mut().and_then(Asking::tick);
        if prompt_due.is_none()
            && let Some(asking) = asking.as_mut()
        {
            asking.refresh();
        }
        let timeout = prompt_due
            .and_then(|d| u16::try_from(d.as_millis().saturating_add(1)).ok())
            .map_or(1000, |ms| ms.min(1000));
        let (socket_ready, signalled, key_ready) = {
            let mut fds = vec![PollFd::new(conn.as_fd(), PollFlags::POLLIN)];
            let signal_at = signals.as_ref().map(|signals| {
                fds.push(PollFd::new(signals.as_fd(), PollFlags::POLLIN));
                fds.len() - 1
            });
            let tty_at = asking.as_ref().map(|asking| {
                fds.push(PollFd::new(asking.tty().as_fd(), PollFlags::POLLIN));
                fds.len() - 1
            });
            match poll(&mut fds, PollTimeout::from(timeout)) {
                Ok(_) | Err(nix::errno::Errno::EINTR) => {}
                Err(errno) => break Waited::Lost(Error::Io(errno.into())),
            }
            let ready = |at: Option<usize>| {
                at.and_then(|i| fds.get(i))
                    .is_some_and(|fd| fd.revents().is_some_and(|r| !r.is_empty()))
            };
            (ready(Some(0)), ready(signal_at), ready(tty_at))
        };
        if signalled {
            // Consume it: a signal left pending would be delivered, and kill us, the moment the
            // old mask is restored.
            if let Some(signals) = &signals {
                while let Ok(Some(_)) = signals.read_signal() {}
            }
            if let Some(asking) = asking.take() {
                asking.clear();
            }
            break cancel(conn, token);
        }
        if socket_ready {
            let response = match conn.recv() {
                Ok(Response::Error(refused)) if prompted => {
                    prompted = false;
                    eprintln!("assent: the answer at the terminal was refused: {refused}");
                    live = terminal;
                    continue;
                }
                Ok(response) => response,
                Err(error) => break Waited::Lost(error),
            };
            if let Some(asking) = asking.take() {
                asking.settled_elsewhere();
            }
            break match accept(response) {
                Ok(outcome) => Waited::Decided(outcome),
                Err(other) => Waited::Lost(Error::Unexpected(other)),
            };
        }
        if key_ready && let Some(mut current) = asking.take() {
            match current.read_key() {
                Key::Ignored | Key::Typing => asking = Some(current),
                Key::Answer(choice) => {
                    current.answered(choice);
                    let answer = Request::Prompted {
                        token: token.to_string(),
                        allow: choice.allow,
                        remember: choice.remember,
                    };
                    if let Err(error) = conn.send(&answer) {
                        break Waited::Lost(error);
                    }
                    // The outcome follows at once; the time left is shown again only if the
                    // daemon refuses this answer.
                    prompted = true;
                }
                // The terminal went away: keep waiting for the other answers.
                Key::Gone => {
                    current.clear();
                    live = terminal;
                }
            }
        }
        if live && let Some(waiting) = waiting.as_mut() {
            waiting.progress(true);
        }
    };
    if live {
        // End the updating line.
        eprintln!();
    }
    drop(guard);
    outcome
}

/// Withdraw the request and wait briefly for the daemon to confirm.
fn cancel<T>(conn: &mut Connection, token: &str) -> Waited<T> {
    if conn
        .send(&Request::Cancel {
            token: token.to_string(),
        })
        .is_ok()
    {
        let mut fds = [PollFd::new(conn.as_fd(), PollFlags::POLLIN)];
        let grace = PollTimeout::try_from(CANCEL_GRACE).unwrap_or(PollTimeout::NONE);
        if matches!(poll(&mut fds, grace), Ok(n) if n > 0) {
            let _ = conn.recv();
        }
    }
    // Whether or not the daemon confirmed, closing the connection withdraws the request.
    eprintln!("assent: cancelled: the request was withdrawn and the command did not run");
    Waited::Cancelled
}

/// What a wait shows without a prompt: once, who must answer and how (the token once); then
/// one line with the time left, redrawn in place. That line fits the terminal's width (less
/// its last column, where a terminal would wrap), so a redraw never leaves a wrapped copy.
struct Waiting {
    /// Another person must answer: the requester is told so, and not how to answer.
    another: bool,
    deadline: Option<Instant>,
    columns: usize,
}

impl Waiting {
    fn introduce(&self, token: &str) {
        let fit = |text: &str| super::term::fit(text, self.columns.saturating_sub(1));
        let text = if self.another {
            format!(
                "{}\n  its token: {token}\n",
                fit("assent: another person must answer this; you cannot answer it yourself")
            )
        } else {
            format!(
                "{}\n  or in another terminal: assent approve {token}\n",
                fit("assent: answer it from the desktop notification, `assent watch`,")
            )
        };
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }

    /// The time-left line: redrawn in place on a terminal, else written once.
    fn progress(&self, live: bool) {
        let left = self
            .deadline
            .map(|d| d.saturating_duration_since(Instant::now()).as_secs())
            .map(|s| format!("{}:{:02} left", s / 60, s % 60))
            .unwrap_or_else(|| "no deadline".into());
        let who = if self.another {
            "another person"
        } else {
            "an answer"
        };
        let text = super::term::fit(
            &format!("assent: waiting for {who}, {left} \u{b7} Ctrl-C withdraws it"),
            self.columns.saturating_sub(1),
        );
        let mut err = std::io::stderr().lock();
        if live {
            let _ = write!(err, "\r\x1b[2K{text}");
        } else {
            let _ = writeln!(err, "{text}");
        }
        let _ = err.flush();
    }
}
