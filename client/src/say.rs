//! What a person at a terminal reads about a held line: short, in words, no policy jargon.
//!
//! The client's terminal prompt and the bash builtin both print a held line this way, so the
//! person sees the same three lines whichever does the asking: what the line does ([`held`]),
//! where else it can be answered ([`elsewhere`]), and the prompt with the time left. A denied
//! or held verdict in full ([`verdict`]) reads the same from both too.

use crate::protocol::Verdict;
use crate::shown::one_line;

/// The widest line these functions write: a terminal is at least this wide.
pub const WIDTH: usize = 80;

/// A finding's message in plain words: the backticks that quote its words go, and so does
/// the cost explained after its first colon-space, which the level already says.
fn plain(message: &str) -> String {
    let what = message
        .split_once("): ")
        .map_or(message.to_string(), |(what, _)| format!("{what})"));
    let what = what
        .split_once(": ")
        .map_or(what.clone(), |(what, _)| what.to_string());
    unquoted(&what)
}

/// `message` without the backticks that quote its words, where a word reads as itself without
/// them; a word with a space in it (or none at all) keeps them, since without them it would run
/// into the sentence (`rm` deletes `target dir`). An odd backtick leaves the message as it is.
pub fn unquoted(message: &str) -> String {
    if !message.matches('`').count().is_multiple_of(2) {
        return message.to_string();
    }
    let mut out = String::with_capacity(message.len());
    for (i, part) in message.split('`').enumerate() {
        let quoted = i % 2 == 1;
        // A control character is shown as its escape (`\n`), which has no space in it.
        let spaced = part
            .chars()
            .any(|c| c.is_whitespace() && !crate::shown::is_hidden(c));
        if quoted && (part.is_empty() || spaced) {
            out.push('`');
            out.push_str(part);
            out.push('`');
        } else {
            out.push_str(part);
        }
    }
    out
}

/// Cut `text` to `width` characters, marking the cut.
fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut out: String = text.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The first line: `assent: destructive: rm deletes src (your files outside the project)`,
/// with `(+N more)` for further findings; the policy's reason when there are none.
pub fn held(verdict: &Verdict) -> String {
    let mut seen: Vec<String> = Vec::new();
    for finding in &verdict.findings {
        let text = one_line(&plain(&finding.message));
        if !seen.contains(&text) {
            seen.push(text);
        }
    }
    let what = match seen.split_first() {
        Some((first, [])) => first.clone(),
        Some((first, rest)) => format!("{first} (+{} more)", rest.len()),
        None => one_line(&verdict.reason),
    };
    fit(
        &format!("assent: {}: {what}", verdict.level.as_str()),
        WIDTH,
    )
}

/// The second line: where else the request can be answered.
pub fn elsewhere(token: &str) -> String {
    fit(&format!("  or elsewhere: assent approve {token}"), WIDTH)
}

/// A denied or held verdict in full, as the client and the bash builtin print it before
/// anything else: `assent: WHAT (LEVEL): REASON`, then each finding on a line of its own.
pub fn verdict(what: &str, verdict: &Verdict) -> String {
    let mut text = format!(
        "assent: {what} ({}): {}\n",
        verdict.level.as_str(),
        one_line(&verdict.reason)
    );
    for finding in &verdict.findings {
        text.push_str(&format!(
            "  - {} [{}]: {}\n",
            finding.level.as_str(),
            one_line(&finding.id),
            one_line(&finding.message)
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Decision, Finding, Level, Span};

    fn verdict(messages: &[&str]) -> Verdict {
        Verdict {
            decision: Decision::Confirm,
            level: Level::Destructive,
            findings: messages
                .iter()
                .map(|m| Finding {
                    id: "delete.data".into(),
                    level: Level::Destructive,
                    message: (*m).into(),
                    span: Span::default(),
                })
                .collect(),
            reason: "default policy: destructive from interactive".into(),
            token: Some("pa_0123456789abcdef0123456789abcdef".into()),
            expires_in_ms: Some(300_000),
            confine: None,
            grant: None,
            another_answers: false,
        }
    }

    #[test]
    fn words_lose_their_backticks_unless_they_hold_a_space() {
        assert_eq!(
            unquoted("`rm` deletes `target dir`, `src` (x)"),
            "rm deletes `target dir`, src (x)"
        );
        assert_eq!(unquoted("an odd ` one"), "an odd ` one");
    }

    #[test]
    fn a_held_line_is_said_in_words_within_the_width() {
        let one = verdict(&[
            "`rm` deletes `src` (your files outside the project): deleted files do not go to a trash and cannot be recovered",
        ]);
        assert_eq!(
            held(&one),
            "assent: destructive: rm deletes src (your files outside the project)"
        );
        let two = verdict(&[
            "`rm` deletes `src` (the project): gone",
            "`git push` with `--force` rewrites published history that others may have pulled",
        ]);
        assert_eq!(
            held(&two),
            "assent: destructive: rm deletes src (the project) (+1 more)"
        );
        let forged = verdict(&["`rm` deletes `x\n\u{1b}[2J\u{2028}`"]);
        assert_eq!(
            held(&forged),
            "assent: destructive: rm deletes x\\n\\e[2J<U+2028>"
        );
        let long = verdict(&[&"x".repeat(200)]);
        assert_eq!(held(&long).chars().count(), WIDTH);
        assert!(!held(&one).contains("policy") && !held(&one).contains('['));
        let line = elsewhere("pa_0123456789abcdef0123456789abcdef");
        assert!(line.chars().count() <= WIDTH, "{line}");
    }

    #[test]
    fn a_verdict_reads_the_same_from_the_client_and_the_builtin() {
        let verdict = Verdict {
            decision: Decision::Deny,
            level: Level::Forbidden,
            findings: vec![Finding {
                id: "fs.rm_root".into(),
                level: Level::Forbidden,
                message: "deletes everything".into(),
                span: Span::default(),
            }],
            reason: "default policy".into(),
            token: None,
            expires_in_ms: None,
            confine: None,
            grant: None,
            another_answers: false,
        };
        assert_eq!(
            super::verdict("denied", &verdict),
            "assent: denied (forbidden): default policy\n  - forbidden [fs.rm_root]: deletes everything\n"
        );
    }
}
