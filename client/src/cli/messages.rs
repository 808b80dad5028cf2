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
    let text = assent_client::say::verdict(what, verdict);
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}
