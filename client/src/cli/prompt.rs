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
//!
//! A forbidden line (`rm -rf ~`) is not run on one key, which a stray `y` or a key meant for
//! something else would give: as molly-guard does before a reboot, the prompt asks for this
//! machine's host name and Enter, echoed as typed. The name typed allows it once; anything
//! else (another name, an empty line, Escape) denies it.

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
    /// The request is forbidden: the host name and Enter allow it, not a key (module doc).
    pub forbidden: bool,
}

/// This machine's host name, as the kernel has it (what `hostname` prints).
fn host_name() -> Option<String> {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
    let name = name.trim();
    (!name.is_empty()).then(|| name.to_string())
}

/// The host name being typed at a forbidden line's prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Guard {
    /// The name that allows; `None` when it cannot be read (then nothing allows).
    host: Option<String>,
    /// What was typed so far.
    typed: String,
}

/// The longest name read at the prompt: a host name is at most 64 bytes.
const TYPED_MAX: usize = 255;

impl Guard {
    /// Take the bytes of one read: `None` while the name is still being typed, else the
    /// answer (Enter ends it; any control character but Backspace denies at once).
    fn take(&mut self, bytes: &[u8]) -> Option<Choice> {
        for &byte in bytes {
            match byte {
                b'\r' | b'\n' => {
                    let allow = self
                        .host
                        .as_deref()
                        .is_some_and(|host| host.eq_ignore_ascii_case(&self.typed));
                    return Some(Choice {
                        allow,
                        remember: Remember::Once,
                    });
                }
                0x7f | 0x08 => {
                    self.typed.pop();
                }
                0x20..=0x7e if self.typed.len() < TYPED_MAX => self.typed.push(char::from(byte)),
                0x20..=0x7e => {}
                _ => {
                    return Some(Choice {
                        allow: false,
                        remember: Remember::Once,
                    });
                }
            }
        }
        None
    }
}

/// What a forbidden line's prompt asks for.
pub const GUARD_ASKS: &str = "host name + Enter runs it, else deny";

/// What a key did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// Typed before the prompt was shown: dropped.
    Ignored,
    /// Part of the host name a forbidden line asks for: no answer yet.
    Typing,
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
    /// For a forbidden line: the host name asked for, and what was typed.
    guard: Option<Guard>,
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
            guard: prompt.forbidden.then(|| Guard {
                host: host_name(),
                typed: String::new(),
            }),
        })
    }

    /// The prompt line, with the time left (the line above says what is asked).
    fn line(&self) -> String {
        let left = self
            .deadline
            .map(|d| d.saturating_duration_since(Instant::now()).as_secs())
            .map(|s| format!(" \u{b7} {}:{:02} left", s / 60, s % 60))
            .unwrap_or_default();
        match &self.guard {
            Some(guard) => format!(
                "\r\x1b[2K{GUARD_ASKS}{left} (Ctrl-C withdraws): {}",
                guard.typed
            ),
            None => format!(
                "\r\x1b[2K[y] once  [s] session  [a] always  [N] deny{left} (Ctrl-C withdraws): "
            ),
        }
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
            Ok(n) => match self.guard.as_mut() {
                None => Key::Answer(Choice::from_key(keys[0])),
                Some(guard) => match guard.take(keys.get(..n).unwrap_or_default()) {
                    Some(choice) => Key::Answer(choice),
                    None => {
                        // Echo what is typed, on the prompt's line.
                        let line = self.line();
                        self.write(&line);
                        Key::Typing
                    }
                },
            },
        }
    }

    /// End the prompt with the person's answer shown after it.
    pub fn answered(mut self, choice: Choice) {
        let words = match (&self.guard, choice.allow) {
            (Some(_), false) => " (not this machine's name): deny",
            (Some(_), true) => ": allow once",
            (None, _) => choice.words(),
        };
        self.write(&format!("{words}\n"));
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
    fn a_forbidden_line_needs_the_host_name_and_enter() {
        let allow = Choice {
            allow: true,
            remember: Remember::Once,
        };
        let deny = Choice {
            allow: false,
            remember: Remember::Once,
        };
        // Reads, in order, and the answer after the last; `None`: still typing.
        let cases: &[(&[&[u8]], Option<Choice>)] = &[
            (&[b"y"], None),
            (&[b"y", b"\r"], Some(deny)),
            (&[b"\r"], Some(deny)),
            (&[b"box1\r"], Some(allow)),
            (&[b"b", b"o", b"x", b"1", b"\r"], Some(allow)),
            (&[b"BOX1\n"], Some(allow)),
            (&[b"box\r"], Some(deny)),
            (&[b"box12\r"], Some(deny)),
            (&[b"box12\x7f\r"], Some(allow)),
            (&[b"box1\x1b"], Some(deny)),
            (&[b"box1\x03"], Some(deny)),
            (&[b"box1 \r"], Some(deny)),
        ];
        for (reads, expected) in cases {
            let mut guard = Guard {
                host: Some("box1".into()),
                typed: String::new(),
            };
            let mut answer = None;
            for read in *reads {
                answer = guard.take(read);
            }
            assert_eq!(answer, *expected, "{reads:?}");
        }
        // No host name: nothing allows.
        let mut guard = Guard {
            host: None,
            typed: String::new(),
        };
        assert_eq!(guard.take(b"\r"), Some(deny));
    }

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
