//! Colour for a person at a terminal: levels and decisions in the colours people read them by
//! (forbidden and deny red, destructive red, opaque and confirm yellow, moderate cyan, safe and
//! allow green), as `check`, `explain`, `pending`, `log`, `status` and `watch` show them.
//!
//! `--color=auto` (the default) colours a stream only when it is a terminal, `NO_COLOR` is
//! unset or empty (<https://no-color.org>) and `TERM` is not `dumb`; `always` and `never` say
//! so whatever the stream. Only the client's own words are painted (a level, a decision), never
//! text a requester wrote, which stays cleaned by [`assent_client::shown`] as before.

use std::io::IsTerminal;
use std::sync::OnceLock;

use assent_client::protocol::{Decision, Level};
use clap::ValueEnum;

/// When to colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum When {
    /// On a terminal, unless NO_COLOR is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

static WHEN: OnceLock<When> = OnceLock::new();

/// Set once from `--color`; unset means `auto` (the plain check read without clap).
pub fn set(when: When) {
    let _ = WHEN.set(when);
}

/// Whether a stream that is (`terminal`) a terminal is coloured, given `--color`, `NO_COLOR`
/// and `TERM`.
fn decide(when: When, terminal: bool, no_color: Option<&str>, term: Option<&str>) -> bool {
    match when {
        When::Always => true,
        When::Never => false,
        When::Auto => terminal && no_color.is_none_or(str::is_empty) && term != Some("dumb"),
    }
}

fn on(terminal: bool) -> bool {
    let when = WHEN.get().copied().unwrap_or(When::Auto);
    let no_color = std::env::var("NO_COLOR").ok();
    let term = std::env::var("TERM").ok();
    decide(when, terminal, no_color.as_deref(), term.as_deref())
}

/// Whether standard output is coloured.
pub fn stdout() -> bool {
    on(std::io::stdout().is_terminal())
}

/// Whether standard error is coloured.
pub fn stderr() -> bool {
    on(std::io::stderr().is_terminal())
}

/// Whether a terminal opened for drawing (`assent watch`) is coloured.
pub fn terminal() -> bool {
    on(true)
}

/// The SGR colour of a level.
fn level_sgr(level: Level) -> &'static str {
    match level {
        Level::Safe => "32",
        Level::Moderate => "36",
        Level::Opaque => "33",
        Level::Destructive => "31",
        Level::Forbidden => "1;31",
    }
}

/// The SGR colour of a decision.
fn decision_sgr(decision: Decision) -> &'static str {
    match decision {
        Decision::Allow => "32",
        Decision::Confirm => "33",
        Decision::Deny => "1;31",
    }
}

fn paint(text: &str, sgr: &str, on: bool) -> String {
    if on {
        format!("\x1b[{sgr}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// `text` (a level's name, padded as the caller lays it out) in `level`'s colour when `on`.
pub fn level(level: Level, text: &str, on: bool) -> String {
    paint(text, level_sgr(level), on)
}

/// `text` (a decision's name, padded) in `decision`'s colour when `on`.
pub fn decision(decision: Decision, text: &str, on: bool) -> String {
    paint(text, decision_sgr(decision), on)
}

/// A warning the person must not read past (observe mode), bold yellow when `on`.
pub fn warning(text: &str, on: bool) -> String {
    paint(text, "1;33", on)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_only_where_a_person_reads_it_and_no_color_is_not_set() {
        use When::{Always, Auto, Never};
        let cases = [
            (Auto, true, None, Some("xterm-256color"), true),
            (Auto, false, None, Some("xterm"), false),
            (Auto, true, Some("1"), Some("xterm"), false),
            // no-color.org: set and not empty.
            (Auto, true, Some(""), Some("xterm"), true),
            (Auto, true, None, Some("dumb"), false),
            (Auto, true, None, None, true),
            (Always, false, Some("1"), Some("dumb"), true),
            (Never, true, None, Some("xterm"), false),
        ];
        for (when, terminal, no_color, term, want) in cases {
            assert_eq!(
                decide(when, terminal, no_color, term),
                want,
                "{when:?} terminal={terminal} NO_COLOR={no_color:?} TERM={term:?}"
            );
        }
    }

    #[test]
    fn painted_text_keeps_its_words_and_plain_text_has_no_escape() {
        assert_eq!(
            level(Level::Forbidden, "forbidden  ", true),
            "\x1b[1;31mforbidden  \x1b[0m"
        );
        assert_eq!(level(Level::Safe, "safe", false), "safe");
        assert_eq!(
            decision(Decision::Allow, "allow", true),
            "\x1b[32mallow\x1b[0m"
        );
    }
}
