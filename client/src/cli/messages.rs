//! Text for the person on stderr. Not logging: the client logs nothing.

use std::io::Write;

use assent_client::Error;
use assent_client::protocol::{Decided, ErrorKind, Verdict};

/// Print an error with the client's name.
pub fn error(error: &Error) {
    let text = match error {
        Error::Refused(wire) if wire.kind == ErrorKind::VersionMismatch => format!(
            "{}: install the assent client and assentd from the same release",
            wire.message
        ),
        Error::Codec(assent_client::CodecError::Version { .. }) => {
            format!("{error}: install the assent client and assentd from the same release")
        }
        other => other.to_string(),
    };
    eprintln!("assent: {text}");
}

/// Print a plain line.
pub fn say(text: &str) {
    eprintln!("assent: {text}");
}

/// Explain a denial.
pub fn denied(verdict: &Verdict) {
    verdict_text("denied", verdict);
}

/// Explain a hold.
pub fn held(verdict: &Verdict) {
    verdict_text("held for approval", verdict);
}

/// The final word on a held request.
pub fn decided(decided: &Decided) {
    let verb = if decided.allow { "allowed" } else { "denied" };
    say(&format!(
        "{verb}: {}",
        assent_client::shown::one_line(&decided.reason)
    ));
}

/// One write for the whole message: stderr is unbuffered.
fn verdict_text(what: &str, verdict: &Verdict) {
    let text = painted(what, verdict, super::colour::stderr());
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// [`assent_client::say::verdict`], with the levels in colour when `on`: only the words this
/// client wrote at the start of each line are painted, never the reason or a message.
fn painted(what: &str, verdict: &Verdict, on: bool) -> String {
    use super::colour::level;
    let text = assent_client::say::verdict(what, verdict);
    if !on {
        return text;
    }
    let mut lines = text.split_inclusive('\n');
    let mut out = String::new();
    if let Some(first) = lines.next() {
        let prefix = format!("assent: {what} ({})", verdict.level.as_str());
        match first.strip_prefix(&prefix) {
            Some(rest) => out.push_str(&format!(
                "assent: {what} ({}){rest}",
                level(verdict.level, verdict.level.as_str(), true)
            )),
            None => out.push_str(first),
        }
    }
    for (i, line) in lines.enumerate() {
        let found = verdict.findings.get(i).and_then(|finding| {
            let prefix = format!("  - {} [", finding.level.as_str());
            let rest = line.strip_prefix(&prefix)?;
            Some(format!(
                "  - {} [{rest}",
                level(finding.level, finding.level.as_str(), true)
            ))
        });
        out.push_str(found.as_deref().unwrap_or(line));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use assent_client::protocol::{Decision, Finding, Level, Span};

    /// The levels are painted and nothing else: the text without its escapes is the plain text.
    #[test]
    fn a_verdict_in_colour_is_the_plain_verdict_with_its_levels_painted() {
        let verdict = Verdict {
            level: Level::Forbidden,
            decision: Decision::Deny,
            reason: "default policy: forbidden (forbidden) from agent".into(),
            findings: vec![Finding {
                id: "delete.home".into(),
                level: Level::Forbidden,
                message: "`rm` deletes ~ (forbidden)".into(),
                span: Span::default(),
            }],
            token: None,
            expires_in_ms: None,
            confine: None,
            grant: None,
            another_answers: false,
        };
        let plain = painted("denied", &verdict, false);
        let colour = painted("denied", &verdict, true);
        assert_eq!(
            colour.replace("\x1b[1;31m", "").replace("\x1b[0m", ""),
            plain
        );
        assert_eq!(
            colour.matches("\x1b[1;31mforbidden\x1b[0m").count(),
            2,
            "{colour}"
        );
        assert!(!plain.contains('\x1b'));
    }
}
