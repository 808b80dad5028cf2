//! `assent remembered` and `assent forget`: the remembered approvals (an allow answered "session",
//! "always" or for a while) and their removal.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, UNIX_EPOCH};

use assent_client::protocol::{RememberedApproval, RememberedScope, Request, Response};
use assent_client::shown::one_line;
use clap::Args;

use super::admin::{ask, print_json};
use super::{exit, messages};

/// `assent forget`.
#[derive(Debug, Args)]
pub struct ForgetArgs {
    /// The remembered approval's id (`r_…`, from `assent remembered`).
    #[arg(
        required_unless_present = "all",
        conflicts_with = "all",
        value_name = "ID"
    )]
    id: Option<String>,
    /// Forget all of yours (everyone's, as root).
    #[arg(long)]
    all: bool,
}

/// `assent remembered`.
pub fn remembered(socket: Option<PathBuf>, json: bool) -> u8 {
    let approvals = match super::admin::ask_list(socket, assent_client::Connection::remembered) {
        Ok(approvals) => approvals,
        Err(code) => return code,
    };
    if json {
        print_json(&assent_client::protocol::RememberedList {
            approvals,
            next: None,
        });
        return exit::ALLOW;
    }
    let mut out = std::io::stdout().lock();
    if approvals.is_empty() {
        let _ = writeln!(out, "no remembered approvals");
    }
    for approval in &approvals {
        let _ = writeln!(out, "{}", heading(approval));
        let _ = writeln!(out, "    {}", one_line(&approval.signature));
    }
    exit::ALLOW
}

/// `assent forget ID|--all`.
pub fn forget(socket: Option<PathBuf>, args: ForgetArgs) -> u8 {
    let id = if args.all { None } else { args.id };
    match ask(socket, &Request::Forget { id }) {
        Ok(Response::Forgot { removed }) => {
            let noun = if removed == 1 {
                "approval"
            } else {
                "approvals"
            };
            println!("forgot {removed} remembered {noun}");
            exit::ALLOW
        }
        Ok(other) => {
            messages::say(&format!("unexpected reply: {other:?}"));
            exit::UNAVAILABLE
        }
        Err(code) => code,
    }
}

/// `r_0123abcd  always  uid 1000  since 2026-05-01 12:00 UTC  3 uses`.
fn heading(approval: &RememberedApproval) -> String {
    let uses = if approval.uses == 1 { "use" } else { "uses" };
    format!(
        "{}  {}  uid {}  since {}  {} {uses}",
        approval.id,
        scope(&approval.scope),
        approval.uid,
        when(approval.created_ms),
        approval.uses
    )
}

/// The scope in words.
fn scope(scope: &RememberedScope) -> String {
    match scope {
        RememberedScope::SessionLabel { label } => format!("session {}", one_line(label)),
        RememberedScope::LoginSession { sid } => format!("login session {sid}"),
        RememberedScope::Until { ms } => format!("until {}", when(*ms)),
        RememberedScope::Always => "always".to_string(),
    }
}

/// `2026-11-22 14:00 UTC`.
fn when(ms: u64) -> String {
    let rfc = humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_millis(ms)).to_string();
    // 2026-11-22T14:00:00Z
    match (rfc.get(..10), rfc.get(11..16)) {
        (Some(day), Some(time)) => format!("{day} {time} UTC"),
        _ => rfc,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_in_words() {
        let label = RememberedScope::SessionLabel {
            label: "conv-123".into(),
        };
        assert_eq!(scope(&label), "session conv-123");
        assert_eq!(
            scope(&RememberedScope::LoginSession { sid: 4242 }),
            "login session 4242"
        );
        let until = RememberedScope::Until {
            ms: 1_795_356_000_000,
        };
        assert_eq!(scope(&until), "until 2026-11-22 14:00 UTC");
        assert_eq!(scope(&RememberedScope::Always), "always");
    }

    #[test]
    fn a_remembered_approval_is_two_lines() {
        let approval = RememberedApproval {
            id: "r_0123abcd".into(),
            uid: 1000,
            scope: RememberedScope::Always,
            signature: "printf 'a\nb' in /tmp".into(),
            created_ms: 0,
            uses: 1,
        };
        assert_eq!(
            heading(&approval),
            "r_0123abcd  always  uid 1000  since 1970-01-01 00:00 UTC  1 use"
        );
        assert_eq!(one_line(&approval.signature), "printf 'a\\nb' in /tmp");
        let forged = RememberedScope::SessionLabel {
            label: "ci\n\u{1b}[2Jr_ffff  always".into(),
        };
        assert_eq!(scope(&forged), "session ci\\n\\e[2Jr_ffff  always");
    }
}
