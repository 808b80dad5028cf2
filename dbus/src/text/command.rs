//! The command as a notification shows it: whole when it fits; when it does not, the text
//! around every destructive (or worse) finding, so that what makes it dangerous is on screen.
//!
//! Head and tail with the middle elided would let an agent bury `rm -rf ~` in the middle of a
//! long harmless line. The findings carry the byte span of what they found in the command, so
//! the excerpt is built from those: the start of the command (what it is), then a window
//! around the start and the end of each dangerous span, merged where they meet, with " … "
//! where text was left out. Without a dangerous finding (or with spans that do not fit the
//! text, as after the daemon shortened a long listing) it falls back to head and tail.
//!
//! Cleaning comes after cutting, on each piece, so a cut never splits an escape.

use assent_client::protocol::{Finding, Level};
use assent_client::shown;

use super::{MAX_COMMAND_CHARS, MAX_COMMAND_LINES};

/// Characters kept on each side of a dangerous span's start and end.
pub const CONTEXT_CHARS: usize = 60;
/// Characters of the command's start kept before the dangerous parts.
const HEAD_CHARS: usize = 80;
/// Characters of the command's end kept when there is no dangerous span to show.
const TAIL_CHARS: usize = 120;

/// How the pieces are cleaned: keeping newlines (a command in a body of its own) or on one
/// line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lines {
    /// Newlines kept, every other hidden character escaped.
    Kept,
    /// Everything hidden escaped, newlines too.
    One,
}

fn clean(text: &str, lines: Lines) -> String {
    match lines {
        Lines::Kept => shown::lines(text),
        Lines::One => shown::one_line(text),
    }
}

/// The byte offset `chars` characters after (or, negative, before) `at`, within `text`.
fn step(text: &str, at: usize, chars: isize) -> usize {
    if chars >= 0 {
        text[at..]
            .char_indices()
            .nth(chars.unsigned_abs())
            .map_or(text.len(), |(i, _)| at + i)
    } else {
        text[..at]
            .char_indices()
            .rev()
            .nth(chars.unsigned_abs() - 1)
            .map_or(0, |(i, _)| i)
    }
}

/// Whether `text` is short enough to show whole.
fn fits(text: &str) -> bool {
    text.chars().count() <= MAX_COMMAND_CHARS && text.lines().count() <= MAX_COMMAND_LINES
}

/// The byte ranges of `command` to show, sorted and merged.
fn windows(command: &str, findings: &[Finding]) -> Vec<(usize, usize)> {
    let mut windows = vec![(0, step(command, 0, HEAD_CHARS as isize))];
    let context = CONTEXT_CHARS as isize;
    let mut dangerous = false;
    for finding in findings.iter().filter(|f| f.level >= Level::Destructive) {
        let (start, end) = (finding.span.start as usize, finding.span.end as usize);
        let valid = start <= end
            && end <= command.len()
            && command.is_char_boundary(start)
            && command.is_char_boundary(end)
            && end > 0;
        if !valid {
            continue;
        }
        dangerous = true;
        for at in [start, end] {
            windows.push((step(command, at, -context), step(command, at, context)));
        }
    }
    if !dangerous {
        windows.push((
            step(command, command.len(), -(TAIL_CHARS as isize)),
            command.len(),
        ));
    }
    windows.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(windows.len());
    for (start, end) in windows {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

/// `command` fit to show: whole and cleaned when it fits, else the excerpt around its
/// dangerous findings (see the module documentation).
pub fn excerpt(command: &str, findings: &[Finding], lines: Lines) -> String {
    if fits(command) {
        return clean(command, lines);
    }
    let mut out = String::new();
    let mut at = 0;
    for (start, end) in windows(command, findings) {
        if start > at {
            out.push_str(" … ");
        }
        out.push_str(&clean(&command[start..end], lines));
        at = end;
    }
    if at < command.len() {
        out.push_str(" …");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use assent_client::protocol::Span;

    fn finding(level: Level, start: usize, end: usize) -> Finding {
        Finding {
            id: "fs.rm_recursive".into(),
            level,
            message: "`rm` deletes a directory tree".into(),
            span: Span {
                start: u32::try_from(start).unwrap_or(u32::MAX),
                end: u32::try_from(end).unwrap_or(u32::MAX),
            },
        }
    }

    #[test]
    fn short_commands_are_shown_whole_and_cleaned() {
        assert_eq!(excerpt("rm -rf build", &[], Lines::Kept), "rm -rf build");
        assert_eq!(excerpt("a\nb\u{1b}[2J", &[], Lines::Kept), "a\nb\\e[2J");
        assert_eq!(excerpt("a\nb", &[], Lines::One), "a\\nb");
    }

    /// The attack: a long harmless line with `rm -rf ~` in its middle. Head and tail would
    /// hide it; the excerpt shows it.
    #[test]
    fn the_dangerous_middle_of_a_long_command_is_shown() {
        let command = format!(
            "echo {} && rm -rf ~ && echo {}",
            "a".repeat(2000),
            "b".repeat(2000)
        );
        let start = command.find("rm -rf ~").expect("in it");
        let shown = excerpt(
            &command,
            &[finding(Level::Destructive, start, start + 8)],
            Lines::Kept,
        );
        assert!(shown.contains("&& rm -rf ~ &&"), "{shown}");
        assert!(shown.starts_with("echo aaa"), "{shown}");
        assert!(shown.ends_with(" …"), "{shown}");
        assert!(shown.chars().count() < 400, "{}", shown.chars().count());
        // A moderate finding alone gets no window: head and tail, which does not show it.
        let quiet = excerpt(
            &command,
            &[finding(Level::Moderate, start, start + 8)],
            Lines::Kept,
        );
        assert!(!quiet.contains("rm -rf"), "{quiet}");
        assert!(quiet.ends_with("bbb"), "{quiet}");
    }

    #[test]
    fn every_dangerous_span_gets_its_window_and_long_spans_show_both_ends() {
        let command = format!(
            "rm -rf /srv/one {} shred /dev/sda {} tail",
            "x".repeat(1000),
            "y".repeat(1000)
        );
        let shred = command.find("shred").expect("in it");
        let rm = finding(Level::Destructive, 0, 15);
        let long = finding(Level::Forbidden, shred, command.len() - 5);
        let shown = excerpt(&command, &[rm, long], Lines::One);
        assert!(shown.contains("rm -rf /srv/one"), "{shown}");
        assert!(shown.contains("shred /dev/sda"), "{shown}");
        assert!(shown.ends_with("y tail"), "{shown}");
    }

    #[test]
    fn spans_that_do_not_fit_the_text_are_ignored() {
        let command = format!("é{}", "z".repeat(600));
        for (start, end) in [(1, 3), (5, 2), (0, 10_000), (0, 0)] {
            let shown = excerpt(
                &command,
                &[finding(Level::Destructive, start, end)],
                Lines::Kept,
            );
            assert!(shown.starts_with('é') && shown.ends_with('z'), "{shown}");
        }
    }

    #[test]
    fn hidden_characters_in_a_window_are_escaped() {
        let command = format!("{}\u{202e}rm -rf ~\u{1b}[2K", " ".repeat(500));
        let start = command.find("rm").expect("in it");
        let shown = excerpt(
            &command,
            &[finding(Level::Destructive, start, start + 8)],
            Lines::Kept,
        );
        assert!(shown.contains("<U+202E>rm -rf ~\\e[2K"), "{shown}");
    }
}
