//! The terminal prompt: a person's own held line, answered with one key at the
//! terminal that typed it.
//!
//! Only for origin interactive, and only when there is a terminal to ask on: `/dev/tty` opens,
//! stdin or stderr is a terminal, and this process is in the terminal's foreground process
//! group (a background job reading it would be stopped). Agents never get it: their requests
//! are not of origin interactive, and the daemon refuses a terminal answer for any other (the
//! request also says `prompt: true`, so the daemon knows a person can answer even with no
//! approval agent).
//!
//! While asking, the terminal is in non-canonical mode without echo, one key at a time; Ctrl-C
//! still raises SIGINT (read by the wait's signalfd: it withdraws the request), and Ctrl-\ and
//! Ctrl-Z are plain keys (a deny) so nothing can kill or stop the client with the terminal
//! left that way. The previous mode is restored when the prompt ends, however it ends ([`Drop`]).
//!
//! Keys typed ahead must never answer: a person still typing (the next line of a multi-line
//! command in zsh, say) would otherwise allow with whatever letter comes next. So input already
//! waiting is discarded when the terminal is taken (`TCSAFLUSH`), and the prompt appears only
//! once the keyboard has been quiet for [`QUIET`]: keys before that are read and dropped, each
//! one restarting the quiet time. Only a key pressed while the prompt is on the screen answers.

use std::fs::{File, OpenOptions};
use std::io::{IsTerminal, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::time::{Duration, Instant};

use assent_client::protocol::Remember;
use nix::fcntl::OFlag;
use nix::sys::termios::{
    LocalFlags, SetArg, SpecialCharacterIndices, Termios, tcgetattr, tcsetattr,
};
use nix::unistd::{getpgrp, tcgetpgrp};

/// How long the keyboard must be quiet before the prompt appears (module doc).
pub const QUIET: Duration = Duration::from_millis(500);

/// What the person answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// Run it.
    pub allow: bool,
    /// For how long.
    pub remember: Remember,
}

impl Choice {
    /// The answer a key gives: `y` once, `s` for the session, `a` always; anything else (Enter
    /// included) is the default, deny.
    pub fn from_key(key: u8) -> Choice {
        let (allow, remember) = match key.to_ascii_lowercase() {
            b'y' => (true, Remember::Once),
            b's' => (true, Remember::Session),
            b'a' => (true, Remember::Always),
            _ => (false, Remember::Once),
        };
        Choice { allow, remember }
    }

    fn words(self) -> &'static str {
        match (self.allow, self.remember) {
            (false, _) => "deny",
            (true, Remember::Session) => "allow for this session",
            (true, Remember::Always) => "allow always",
            (true, _) => "allow once",
        }
    }
}

/// The terminal to ask on, if this process may ask there (module doc).
pub fn terminal() -> Option<File> {
    if !(std::io::stdin().is_terminal() || std::io::stderr().is_terminal()) {
        return None;
    }
    let tty = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags((OFlag::O_NOCTTY | OFlag::O_CLOEXEC).bits())
        .open("/dev/tty")
        .ok()?;
    (tcgetpgrp(&tty).ok()? == getpgrp()).then_some(tty)
}

/// What to show in the prompt.
#[derive(Debug)]
pub struct Prompt {
    /// The terminal, from [`terminal`].
    pub tty: File,
    /// When the request expires, for the time left the prompt shows.
    pub deadline: Option<Instant>,
}

/// What a key did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// Typed before the prompt was shown: dropped.
    Ignored,
    /// The answer.
    Answer(Choice),
    /// The terminal is gone (end of file, or an error): stop asking there.
    Gone,
}

/// A prompt, with the terminal in one-key mode until it is dropped; shown once the keyboard is
/// quiet.
pub struct Asking {
    tty: File,
    saved: Termios,
    deadline: Option<Instant>,
    /// The seconds left the prompt shows now; `None` until it is drawn.
    shown_left: Option<Option<u64>>,
    /// When the prompt is due, until it is shown.
    due: Option<Instant>,
}

impl Asking {
    /// Put the terminal in one-key mode, dropping what was typed ahead, and show the prompt
    /// after [`QUIET`]; `None` when the terminal's mode cannot be changed.
    pub fn start(prompt: Prompt) -> Option<Asking> {
        let saved = tcgetattr(&prompt.tty).ok()?;
        let mut raw = saved.clone();
        raw.local_flags
            .remove(LocalFlags::ICANON | LocalFlags::ECHO);
        raw.control_chars[SpecialCharacterIndices::VMIN as usize] = 1;
        raw.control_chars[SpecialCharacterIndices::VTIME as usize] = 0;
        // _POSIX_VDISABLE: these keys become plain input instead of signals.
        raw.control_chars[SpecialCharacterIndices::VQUIT as usize] = 0;
        raw.control_chars[SpecialCharacterIndices::VSUSP as usize] = 0;
        tcsetattr(&prompt.tty, SetArg::TCSAFLUSH, &raw).ok()?;
        Some(Asking {
            tty: prompt.tty,
            saved,
            deadline: prompt.deadline,
            shown_left: None,
            due: Some(Instant::now() + QUIET),
        })
    }

    /// The prompt line, with the time left (the line above says what is asked).
    fn line(&self) -> String {
        let left = self
            .deadline
            .map(|d| d.saturating_duration_since(Instant::now()).as_secs())
            .map(|s| format!(" \u{b7} {}:{:02} left", s / 60, s % 60))
            .unwrap_or_default();
        format!("\r\x1b[2K[y] once  [s] session  [a] always  [N] deny{left} (Ctrl-C withdraws): ")
    }

    /// Redraw the shown prompt when the time left it shows has changed.
    pub fn refresh(&mut self) {
        if self.due.is_some() {
            return;
        }
        let left = self
            .deadline
            .map(|d| d.saturating_duration_since(Instant::now()).as_secs());
        if self.shown_left != Some(left) {
            self.shown_left = Some(left);
            let line = self.line();
            self.write(&line);
        }
    }

    /// Show the prompt if it is due; how long until it is, while it is not shown yet.
    pub fn tick(&mut self) -> Option<Duration> {
        let due = self.due?;
        let left = due.saturating_duration_since(Instant::now());
        if !left.is_zero() {
            return Some(left);
        }
        self.due = None;
        self.refresh();
        None
    }

    /// The terminal, to poll for a key.
    pub fn tty(&self) -> &File {
        &self.tty
    }

    /// Read the key that made the terminal readable.
    pub fn read_key(&mut self) -> Key {
        // An arrow or function key is several bytes; take them all, judge by the first.
        let mut keys = [0u8; 32];
        match self.tty.read(&mut keys) {
            Ok(0) | Err(_) => Key::Gone,
            Ok(_) if self.due.is_some() => {
                self.due = Some(Instant::now() + QUIET);
                Key::Ignored
            }
            Ok(_) => Key::Answer(Choice::from_key(keys[0])),
        }
    }

    /// End the prompt with the person's answer shown after it.
    pub fn answered(mut self, choice: Choice) {
        self.write(&format!("{}\n", choice.words()));
    }

    /// End the prompt because the request was settled elsewhere first.
    pub fn settled_elsewhere(mut self) {
        let clear = if self.due.is_none() { "\r\x1b[2K" } else { "" };
        self.write(&format!("{clear}assent: answered elsewhere\n"));
    }

    /// End the prompt and clear its line.
    pub fn clear(mut self) {
        if self.due.is_none() {
            self.write("\r\x1b[2K");
        }
    }

    fn write(&mut self, text: &str) {
        let _ = self.tty.write_all(text.as_bytes());
        let _ = self.tty.flush();
    }
}

impl Drop for Asking {
    fn drop(&mut self) {
        let _ = tcsetattr(&self.tty, SetArg::TCSANOW, &self.saved);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys() {
        let cases = [
            (b'y', true, Remember::Once),
            (b'Y', true, Remember::Once),
            (b's', true, Remember::Session),
            (b'a', true, Remember::Always),
            (b'A', true, Remember::Always),
            (b'n', false, Remember::Once),
            (b'\r', false, Remember::Once),
            (b'\n', false, Remember::Once),
            (0x1b, false, Remember::Once),
            (0x04, false, Remember::Once),
            (b'q', false, Remember::Once),
        ];
        for (key, allow, remember) in cases {
            assert_eq!(Choice::from_key(key), Choice { allow, remember }, "{key}");
        }
    }
}
