//! Text for the person on stderr. Not logging: the client logs nothing.

use std::io::Write;

use assent_client::Error;
use assent_client::protocol::{Decided, ErrorKind, Finding, Verdict};

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
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "assent: denied ({}): {}",
        verdict.level.as_str(),
        verdict.reason
    );
    findings(&mut err, &verdict.findings);
}

/// Explain a hold.
pub fn held(verdict: &Verdict) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "assent: held for approval ({}): {}",
        verdict.level.as_str(),
        verdict.reason
    );
    findings(&mut err, &verdict.findings);
}

/// The final word on a held request.
pub fn decided(decided: &Decided) {
    let verb = if decided.allow { "allowed" } else { "denied" };
    say(&format!("{verb}: {}", decided.reason));
}

fn findings(out: &mut impl Write, findings: &[Finding]) {
    for finding in findings {
        let _ = writeln!(
            out,
            "  - {} [{}]: {}",
            finding.level.as_str(),
            finding.id,
            finding.message
        );
    }
}
