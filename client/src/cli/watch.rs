//! `assent watch`: an approval agent in a terminal, for when there is no desktop (SSH, tmux, a
//! headless box, a second terminal beside the agent).
//!
//! It registers as an approval agent for its login session, as `assent-notify` does, shows
//! each held request as it arrives (who asks, what, where, the findings, the time left,
//! ticking) and answers the one on screen with a single key: `y` once, `s` for the session,
//! `a` always, `d` or `n` deny. Requests that arrive meanwhile wait their turn; one answered or
//! withdrawn elsewhere (another `assent watch`, the desktop) leaves the screen. `q` or Ctrl-C
//! quits and restores the terminal.
//!
//! Keys typed before a request is on the screen never answer it: input waiting when a request
//! is shown is discarded, and keys in the first [`SETTLE`] after it appears are dropped.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use assent_client::Connection;
use assent_client::protocol::{ApproverHello, PendingItem, Remember, Request, Response};
use clap::Args;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::termios::{
    FlushArg, LocalFlags, SetArg, SpecialCharacterIndices, Termios, tcflush, tcgetattr, tcsetattr,
};

use super::{exit, messages};

/// Keys pressed this soon after a request appears are dropped: they were meant for something
/// else.
const SETTLE: Duration = Duration::from_millis(300);

/// The longest part of a command shown on one line.
const SHOWN_MAX: usize = 400;

/// `assent watch`.
#[derive(Debug, Args)]
pub struct WatchArgs {}

/// A held request on the queue, with when it arrived.
struct Held {
    item: PendingItem,
    arrived: Instant,
}

impl Held {
    fn left(&self) -> Duration {
        Duration::from_millis(self.item.expires_in_ms).saturating_sub(self.arrived.elapsed())
    }
}

/// An answer sent, waiting for its reply.
struct Sent {
    held: Held,
    verb: &'static str,
    /// The request ended meanwhile (answered elsewhere, expired): not asked again.
    ended: bool,
}

/// The terminal in one-key mode until dropped.
struct Keys {
    tty: File,
    saved: Termios,
}

impl Keys {
    fn take(tty: File) -> Result<Keys, String> {
        let saved = tcgetattr(&tty).map_err(|e| format!("the terminal cannot be read: {e}"))?;
        let mut raw = saved.clone();
        // One key at a time, no echo; Ctrl-C and Ctrl-\ are keys (quit), so the terminal is
        // always restored.
        raw.local_flags
            .remove(LocalFlags::ICANON | LocalFlags::ECHO | LocalFlags::ISIG);
        raw.control_chars[SpecialCharacterIndices::VMIN as usize] = 1;
        raw.control_chars[SpecialCharacterIndices::VTIME as usize] = 0;
        tcsetattr(&tty, SetArg::TCSAFLUSH, &raw)
            .map_err(|e| format!("the terminal cannot be set up: {e}"))?;
        Ok(Keys { tty, saved })
    }

    fn discard_typed_ahead(&self) {
        let _ = tcflush(&self.tty, FlushArg::TCIFLUSH);
    }
}

impl Drop for Keys {
    fn drop(&mut self) {
        let _ = tcsetattr(&self.tty, SetArg::TCSANOW, &self.saved);
    }
}

/// `assent watch`.
pub fn watch(socket: Option<PathBuf>, _args: WatchArgs) -> u8 {
    let Some(tty) = super::prompt::terminal() else {
        messages::say(
            "assent watch answers with keys at a terminal: run it in a terminal (an SSH session, a tmux window)",
        );
        return exit::USAGE;
    };
    let mut conn = match super::connect(socket) {
        Ok(conn) => conn,
        Err(code) => return code,
    };
    let hello = Request::RegisterApprover(ApproverHello {
        name: format!("assent watch {}", env!("CARGO_PKG_VERSION")),
    });
    match conn.request(&hello) {
        Ok(Response::Done) => {}
        Ok(other) => {
            messages::say(&format!("unexpected reply: {other:?}"));
            return exit::UNAVAILABLE;
        }
        Err(error) => {
            messages::error(&error);
            messages::say("not registered as an approval agent");
            return exit::DENY;
        }
    }
    let keys = match Keys::take(tty) {
        Ok(keys) => keys,
        Err(why) => {
            messages::say(&why);
            return exit::USAGE;
        }
    };
    let mut screen = Screen {
        out: std::io::stderr(),
    };
    screen.say("watching for held requests; q quits");
    let code = run(&mut conn, &keys, &mut screen);
    drop(keys);
    code
}

/// Where the watch writes: stderr, line by line, with `\r` for the ticking prompt.
struct Screen {
    out: std::io::Stderr,
}

impl Screen {
    fn say(&mut self, line: &str) {
        let _ = write!(self.out, "\r\x1b[K{line}\r\n");
        let _ = self.out.flush();
    }

    fn prompt(&mut self, held: &Held, waiting: usize) {
        let left = held.left().as_secs();
        let more = match waiting {
            0 => String::new(),
            n => format!(" · {n} more waiting"),
        };
        let _ = write!(
            self.out,
            "\r\x1b[K[y] once  [s] session  [a] always  [d] deny  · {}:{:02} left{more} ",
            left / 60,
            left % 60
        );
        let _ = self.out.flush();
    }

    /// The request in full: who, what, where, why, and what remembering it would cover.
    fn card(&mut self, held: &Held) {
        let item = &held.item;
        let who = match &item.agent {
            Some(agent) => format!(
                "{} (by its own account), program {}, pid {}",
                clean(agent),
                clean(&item.program),
                item.pid
            ),
            None => format!("program {}, pid {}", clean(&item.program), item.pid),
        };
        self.say("");
        self.say(&format!(
            "── {} · {} · uid {} · {who}",
            item.token,
            item.level.as_str(),
            item.uid
        ));
        if let Some(session) = &item.session {
            self.say(&format!("   session {}", clean(session)));
        }
        if item.items.is_empty() {
            self.say(&format!("   {}", shown(&item.subject)));
        } else {
            for entry in &item.items {
                self.say(&format!(
                    "   {}. {} ({})",
                    entry.item,
                    shown(&entry.subject),
                    entry.level.as_str()
                ));
            }
        }
        if let Some(cwd) = &item.cwd {
            self.say(&format!("   in {}", clean(cwd)));
        }
        for finding in &item.findings {
            self.say(&format!("   - {}", clean(&finding.message)));
        }
        self.say(&format!(
            "   [s] and [a] remember: {}",
            shown(&item.signature)
        ));
    }
}

/// Text from the daemon made safe to print: control characters (escapes that could redraw
/// the screen) become `?`.
fn clean(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// [`clean`], cut to [`SHOWN_MAX`] characters.
fn shown(text: &str) -> String {
    let mut out: String = clean(text).chars().take(SHOWN_MAX).collect();
    if text.chars().count() > SHOWN_MAX {
        out.push('…');
    }
    out
}

/// The key's answer: allow and for how long, or deny; `None` for any other key.
fn answer_of(key: u8) -> Option<(bool, Remember)> {
    match key.to_ascii_lowercase() {
        b'y' => Some((true, Remember::Once)),
        b's' => Some((true, Remember::Session)),
        b'a' => Some((true, Remember::Always)),
        b'd' | b'n' => Some((false, Remember::Once)),
        _ => None,
    }
}

/// Serve pushes and keys until the person quits or the daemon goes away.
fn run(conn: &mut Connection, keys: &Keys, screen: &mut Screen) -> u8 {
    let mut queue: VecDeque<Held> = VecDeque::new();
    // The token on the screen, and since when; and the answers sent, oldest first, whose
    // replies (`Done` or an error, in order) are still to come.
    let mut shown_since: Option<(String, Instant)> = None;
    let mut sent: VecDeque<Sent> = VecDeque::new();
    loop {
        // Expired ones leave on their own `Withdrawn`; the front one is what is asked.
        if let Some(front) = queue.front() {
            let token = front.item.token.clone();
            if shown_since.as_ref().is_none_or(|(t, _)| *t != token) {
                keys.discard_typed_ahead();
                screen.card(front);
                shown_since = Some((token, Instant::now()));
            }
            screen.prompt(front, queue.len() - 1);
        }
        let mut fds = [
            PollFd::new(conn.as_fd(), PollFlags::POLLIN),
            PollFd::new(keys.tty.as_fd(), PollFlags::POLLIN),
        ];
        match poll(&mut fds, PollTimeout::from(1000u16)) {
            Ok(_) | Err(nix::errno::Errno::EINTR) => {}
            Err(error) => {
                screen.say(&format!("assent: waiting failed: {error}"));
                return exit::UNAVAILABLE;
            }
        }
        let ready = |fd: &PollFd| {
            fd.revents()
                .is_some_and(|r| r.intersects(PollFlags::POLLIN | PollFlags::POLLHUP))
        };
        let (daemon_ready, key_ready) = (ready(&fds[0]), ready(&fds[1]));
        if daemon_ready {
            match conn.recv() {
                Ok(Response::Held(item)) => queue.push_back(Held {
                    item,
                    arrived: Instant::now(),
                }),
                Ok(Response::Withdrawn(ended)) => {
                    for waiting in sent.iter_mut().filter(|s| s.held.item.token == ended.token) {
                        waiting.ended = true;
                    }
                    if let Some(at) = queue.iter().position(|h| h.item.token == ended.token) {
                        queue.remove(at);
                        screen.say(&format!(
                            "{} ended: {}",
                            ended.token,
                            clean(&ended.outcome.reason)
                        ));
                    }
                }
                Ok(Response::Done) => {
                    if let Some(done) = sent.pop_front() {
                        screen.say(&format!("{} {}", done.verb, done.held.item.token));
                    }
                }
                Ok(Response::Error(error)) => {
                    if let Some(refused) = sent.pop_front() {
                        screen.say(&format!(
                            "assent: {} was not answered: {error}",
                            refused.held.item.token
                        ));
                        // Still held (unless it ended meanwhile): asked again.
                        if !refused.ended {
                            queue.push_front(refused.held);
                            shown_since = None;
                        }
                    }
                }
                Ok(other) => screen.say(&format!("assent: unexpected push: {other:?}")),
                Err(error) => {
                    screen.say(&format!("assent: the gate went away ({error}); stopped"));
                    return exit::UNAVAILABLE;
                }
            }
        }
        if key_ready {
            let mut key = [0u8; 1];
            match (&keys.tty).read(&mut key) {
                Ok(1) => {}
                _ => return exit::ALLOW,
            }
            if matches!(key[0], b'q' | b'Q' | 3 | 4 | 28) {
                screen.say("stopped watching");
                return exit::ALLOW;
            }
            let settled = shown_since
                .as_ref()
                .is_some_and(|(_, at)| at.elapsed() >= SETTLE);
            if let (Some((allow, remember)), true, Some(front)) =
                (answer_of(key[0]), settled, queue.front())
            {
                let answer = Request::Answer {
                    token: front.item.token.clone(),
                    allow,
                    session: None,
                    item: None,
                    remember,
                };
                if let Err(error) = conn.send(&answer) {
                    screen.say(&format!("assent: the answer could not be sent: {error}"));
                    return exit::UNAVAILABLE;
                }
                let verb = match (allow, remember) {
                    (false, _) => "denied",
                    (true, Remember::Once) => "approved once",
                    (true, Remember::Session) => "approved for the session",
                    (true, _) => "approved always",
                };
                // Off the queue while the answer is out; back on it if the answer is refused.
                if let Some(held) = queue.pop_front() {
                    sent.push_back(Sent {
                        held,
                        verb,
                        ended: false,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_answer_and_others_do_not() {
        assert_eq!(answer_of(b'y'), Some((true, Remember::Once)));
        assert_eq!(answer_of(b'S'), Some((true, Remember::Session)));
        assert_eq!(answer_of(b'a'), Some((true, Remember::Always)));
        assert_eq!(answer_of(b'd'), Some((false, Remember::Once)));
        assert_eq!(answer_of(b'n'), Some((false, Remember::Once)));
        assert_eq!(answer_of(b'\r'), None);
        assert_eq!(answer_of(b'x'), None);
    }

    #[test]
    fn text_from_the_daemon_cannot_drive_the_terminal() {
        assert_eq!(clean("rm\x1b[2J -rf\r\n"), "rm?[2J -rf??");
        assert!(shown(&"x".repeat(1000)).ends_with('…'));
    }
}
