//! `assent watch`: an approval agent in a terminal, for when there is no desktop (SSH, tmux, a
//! headless box, a second terminal beside the agent).
//!
//! It registers as an approval agent for its login session, as `assent-notify` does, shows
//! each held request as it arrives (who asks, what, where, the highest level and every
//! finding, the time left) and answers the one on screen with a single key: `y` once, `s` for
//! the session, `a` always, `d` or `n` deny. Requests that arrive meanwhile wait their turn;
//! one answered or withdrawn elsewhere (another `assent watch`, the desktop) leaves the screen.
//! `q`, Ctrl-C, SIGTERM or SIGHUP quit and restore the terminal.
//!
//! What is on the screen is only ever this program's: it draws on the alternate screen and
//! redraws all of it (clear, home, the whole card: `card.rs`) every tick, so text another
//! process wrote on the terminal lasts a second at most. A key answers only the card a person
//! has had time to read: for [`SETTLE`] after the request on screen changes (the first arrives,
//! one is swapped for another, one is asked again) keys are read and dropped, and the card says
//! so; what is still unread when it ends is discarded. After an answer, the screen says which
//! request the key answered.

mod card;

use std::collections::VecDeque;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use assent_client::Connection;
use assent_client::protocol::{ApproverHello, PendingItem, Remember, Request, Response};
use assent_client::shown::one_line;
use clap::Args;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::signal::{SigSet, SigmaskHow, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use nix::sys::termios::{
    FlushArg, LocalFlags, SetArg, SpecialCharacterIndices, Termios, tcflush, tcgetattr, tcsetattr,
};

use super::{exit, messages};

/// Keys pressed this soon after the request on screen changes are dropped: they were meant for
/// something else, or typed before the person could read what they answer.
const SETTLE: Duration = Duration::from_secs(1);

/// How many lines of what happened lately stay under the card.
const SAID_KEPT: usize = 4;

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

/// The terminal in one-key mode on the alternate screen until dropped.
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
        let mut keys = Keys { tty, saved };
        keys.write("\x1b[?1049h");
        Ok(keys)
    }

    fn discard_typed_ahead(&self) {
        let _ = tcflush(&self.tty, FlushArg::TCIFLUSH);
    }

    fn write(&mut self, text: &str) {
        let _ = (&self.tty).write_all(text.as_bytes());
        let _ = (&self.tty).flush();
    }

    /// Clear the screen and draw `lines` from its top.
    fn draw(&mut self, lines: &[String]) {
        let mut text = String::from("\x1b[H\x1b[2J");
        text.push_str(&lines.join("\r\n"));
        self.write(&text);
    }

    /// The terminal's columns and rows ([`super::term::size`]).
    fn size(&self) -> (usize, usize) {
        super::term::size(std::os::fd::AsFd::as_fd(&self.tty))
    }
}

impl Drop for Keys {
    fn drop(&mut self) {
        self.write("\x1b[?1049l");
        let _ = tcsetattr(&self.tty, SetArg::TCSANOW, &self.saved);
    }
}

/// Blocks SIGINT, SIGTERM, SIGHUP and SIGWINCH while watching (read from a signalfd instead,
/// so a quit restores the terminal), and restores the mask when dropped.
struct Signals {
    fd: Option<SignalFd>,
    old: Option<SigSet>,
}

impl Signals {
    fn take() -> Signals {
        let mut set = SigSet::empty();
        for signal in [
            Signal::SIGINT,
            Signal::SIGTERM,
            Signal::SIGHUP,
            Signal::SIGWINCH,
        ] {
            set.add(signal);
        }
        let old = set.thread_swap_mask(SigmaskHow::SIG_BLOCK).ok();
        let fd = SignalFd::with_flags(&set, SfdFlags::SFD_CLOEXEC | SfdFlags::SFD_NONBLOCK).ok();
        Signals { fd, old }
    }

    /// The signals that arrived: whether one quits, and whether the terminal was resized.
    fn read(&self) -> (bool, bool) {
        let (mut quit, mut resized) = (false, false);
        if let Some(fd) = &self.fd {
            while let Ok(Some(info)) = fd.read_signal() {
                if info.ssi_signo == Signal::SIGWINCH as u32 {
                    resized = true;
                } else {
                    quit = true;
                }
            }
        }
        (quit, resized)
    }
}

impl Drop for Signals {
    fn drop(&mut self) {
        if let Some(old) = self.old.take() {
            let _ = old.thread_set_mask();
        }
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
        // A terminal: keys, not buttons.
        buttons: None,
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
    let signals = Signals::take();
    let mut keys = match Keys::take(tty) {
        Ok(keys) => keys,
        Err(why) => {
            messages::say(&why);
            return exit::USAGE;
        }
    };
    let (code, last) = run(&mut conn, &mut keys, &signals);
    // Off the alternate screen before the last words, so they stay in the terminal.
    drop(keys);
    drop(signals);
    messages::say(&last);
    code
}

/// What the loop keeps between ticks.
#[derive(Default)]
struct State {
    queue: VecDeque<Held>,
    /// The answers sent, oldest first, whose replies (`Done` or an error, in order) are still
    /// to come.
    sent: VecDeque<Sent>,
    /// The token on screen (`None`: no request), and since when.
    shown: Option<String>,
    changed: Option<Instant>,
    /// Keys were discarded once the settle time ended.
    flushed: bool,
    said: VecDeque<String>,
}

impl State {
    fn say(&mut self, line: String) {
        self.said.push_back(line);
        while self.said.len() > SAID_KEPT {
            self.said.pop_front();
        }
    }

    /// Whether keys are still dropped for the card on screen.
    fn settling(&self) -> bool {
        self.changed.is_some_and(|at| at.elapsed() < SETTLE)
    }
}

/// Serve pushes and keys until the person quits or the daemon goes away; the exit code and
/// the last words.
fn run(conn: &mut Connection, keys: &mut Keys, signals: &Signals) -> (u8, String) {
    let mut state = State::default();
    let mut size = keys.size();
    // The screen is the terminal it opened, so `auto` colours unless NO_COLOR says not to.
    let colour = super::colour::terminal();
    loop {
        // The request on screen changed: keys wait again, and what was typed is dropped.
        let front = state.queue.front().map(|h| h.item.token.clone());
        if front != state.shown {
            state.shown = front;
            state.changed = Some(Instant::now());
            state.flushed = false;
            keys.discard_typed_ahead();
        }
        let settling = state.settling();
        if !settling && !state.flushed {
            keys.discard_typed_ahead();
            state.flushed = true;
        }
        let (width, height) = size;
        let said: Vec<String> = state.said.iter().cloned().collect();
        let front = state.queue.front();
        let view = card::View {
            front: front.map(|h| &h.item),
            left: front.map(Held::left).unwrap_or_default(),
            waiting: state.queue.len().saturating_sub(1),
            settling,
            said: &said,
            width,
            height,
        };
        let mut screen = card::render(&view);
        card::paint(&mut screen, colour);
        keys.draw(&screen);
        // Redraw every second, and as soon as keys are taken.
        let until_settled = state
            .changed
            .map(|at| SETTLE.saturating_sub(at.elapsed()))
            .filter(|d| !d.is_zero());
        let timeout = until_settled
            .and_then(|d| u16::try_from(d.as_millis().saturating_add(1)).ok())
            .map_or(1000, |ms| ms.min(1000));
        let mut fds = vec![
            PollFd::new(conn.as_fd(), PollFlags::POLLIN),
            PollFd::new(keys.tty.as_fd(), PollFlags::POLLIN),
        ];
        if let Some(fd) = &signals.fd {
            fds.push(PollFd::new(fd.as_fd(), PollFlags::POLLIN));
        }
        match poll(&mut fds, PollTimeout::from(timeout)) {
            Ok(_) | Err(nix::errno::Errno::EINTR) => {}
            Err(error) => {
                return (exit::UNAVAILABLE, format!("waiting failed: {error}"));
            }
        }
        let ready = |fd: Option<&PollFd>| {
            fd.and_then(PollFd::revents)
                .is_some_and(|r| r.intersects(PollFlags::POLLIN | PollFlags::POLLHUP))
        };
        let (daemon_ready, key_ready, signalled) =
            (ready(fds.first()), ready(fds.get(1)), ready(fds.get(2)));
        drop(fds);
        if signalled {
            let (quit, resized) = signals.read();
            if quit {
                return (exit::ALLOW, "stopped watching".into());
            }
            if resized {
                size = keys.size();
            }
        }
        if daemon_ready && let Err(why) = pushed(conn, &mut state) {
            return (exit::UNAVAILABLE, why);
        }
        if key_ready {
            let mut key = [0u8; 1];
            match (&keys.tty).read(&mut key) {
                Ok(1) => {}
                _ => {
                    return (
                        exit::ALLOW,
                        "the terminal went away; stopped watching".into(),
                    );
                }
            }
            if matches!(key[0], b'q' | b'Q' | 3 | 4 | 28) {
                return (exit::ALLOW, "stopped watching".into());
            }
            // Typed while the card was not yet readable: dropped.
            if state.settling() {
                continue;
            }
            if let Err(why) = key_answer(conn, &mut state, key[0]) {
                return (exit::UNAVAILABLE, why);
            }
        }
    }
}

/// Read one push from the daemon.
fn pushed(conn: &mut Connection, state: &mut State) -> Result<(), String> {
    match conn.recv() {
        Ok(Response::Held(mut item)) => {
            // Another uid's request (`[approvers]`) speaks of that user's files by name.
            assent_client::whose::seen_by(&mut item, assent_client::whose::own_uid());
            state.queue.push_back(Held {
                item,
                arrived: Instant::now(),
            });
        }
        Ok(Response::Withdrawn(ended)) => {
            for waiting in state
                .sent
                .iter_mut()
                .filter(|s| s.held.item.token == ended.token)
            {
                waiting.ended = true;
            }
            if let Some(at) = state.queue.iter().position(|h| h.item.token == ended.token)
                && let Some(gone) = state.queue.remove(at)
            {
                let line = format!(
                    "ended: {} ({})",
                    card::answered(&gone.item),
                    one_line(&ended.outcome.reason)
                );
                state.say(line);
            }
        }
        Ok(Response::Done) => {
            if let Some(done) = state.sent.pop_front() {
                let line = format!("{} {}", done.verb, card::answered(&done.held.item));
                state.say(line);
            }
        }
        Ok(Response::Error(error)) => {
            if let Some(refused) = state.sent.pop_front() {
                let line = format!(
                    "not answered: {} ({})",
                    card::answered(&refused.held.item),
                    one_line(&error.to_string())
                );
                state.say(line);
                // Still held (unless it ended meanwhile): asked again, as a card that changed.
                if !refused.ended {
                    state.queue.push_front(refused.held);
                    state.shown = None;
                }
            }
        }
        Ok(other) => state.say(one_line(&format!("unexpected push: {other:?}"))),
        Err(error) => return Err(format!("the gate went away ({error}); stopped")),
    }
    Ok(())
}

/// Answer the request on screen with `key`, if it is an answer.
fn key_answer(conn: &mut Connection, state: &mut State, key: u8) -> Result<(), String> {
    let (Some((allow, remember)), Some(front)) = (answer_of(key), state.queue.front()) else {
        return Ok(());
    };
    let answer = Request::Answer {
        token: front.item.token.clone(),
        allow,
        session: None,
        item: None,
        remember,
    };
    conn.send(&answer)
        .map_err(|error| format!("the answer could not be sent: {error}"))?;
    let verb = match (allow, remember) {
        (false, _) => "denied",
        (true, Remember::Once) => "approved once",
        (true, Remember::Session) => "approved for the session",
        (true, _) => "approved always",
    };
    let line = format!(
        "key {} answers {}",
        char::from(key.to_ascii_lowercase()),
        card::answered(&front.item)
    );
    state.say(line);
    // Off the queue while the answer is out; back on it if the answer is refused.
    if let Some(held) = state.queue.pop_front() {
        state.sent.push_back(Sent {
            held,
            verb,
            ended: false,
        });
    }
    Ok(())
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
}
