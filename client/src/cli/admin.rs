//! `assent pending`, `approve`, `deny`, `status`, `log`.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, UNIX_EPOCH};

use assent_client::protocol::{ErrorKind, Remember, Request, Response};
use assent_client::shown::one_line;
use clap::Args;

use super::{colour, exit, messages};

/// `assent approve` / `assent deny`.
#[derive(Debug, Args)]
pub struct AnswerArgs {
    /// The held request's token (`pa_…`, from `assent pending` or the notification).
    token: String,
    /// Answer only if the request belongs to this session label.
    #[arg(long, value_name = "LABEL")]
    session: Option<String>,
    /// For a batch token: answer only item N (as `assent pending` lists it); without it,
    /// every held item of the batch is answered at once.
    #[arg(long, value_name = "N")]
    item: Option<u32>,
}

/// `assent approve`: an answer, and how long to remember it.
#[derive(Debug, Args)]
pub struct ApproveArgs {
    #[command(flatten)]
    answer: AnswerArgs,
    /// Also allow later requests with the same signature (the command and its directory, or
    /// the tool and its path or URL): `once` (the default: nothing remembered), `session` (the
    /// requester's session), `always` (until `assent forget`), or a duration such as `1h`,
    /// `30m`, `2days`.
    #[arg(long, value_name = "HOW", value_parser = parse_remember, default_value = "once")]
    remember: Remember,
}

/// `once`, `session`, `always`, or a whole number of seconds or more as a humantime duration.
fn parse_remember(text: &str) -> Result<Remember, String> {
    match text {
        "once" => Ok(Remember::Once),
        "session" => Ok(Remember::Session),
        "always" => Ok(Remember::Always),
        _ => {
            let duration = humantime::parse_duration(text).map_err(|error| {
                format!("expected once, session, always or a duration such as 1h ({error})")
            })?;
            match duration.as_secs() {
                0 => Err("a remembered approval lasts at least 1s".into()),
                secs => Ok(Remember::For { secs }),
            }
        }
    }
}

/// How long an approval may take to be accepted: polkit's two minutes for the password, and
/// some.
const ANSWER_DEADLINE: Duration = Duration::from_secs(150);

/// Send one request and return its reply, or the exit code after printing why not.
pub(super) fn ask(socket: Option<PathBuf>, request: &Request) -> Result<Response, u8> {
    let mut conn = super::connect(socket)?;
    conn.request(request).map_err(|error| {
        messages::error(&error);
        match error {
            assent_client::Error::Refused(_) => exit::DENY,
            _ => exit::UNAVAILABLE,
        }
    })
}

pub(super) fn print_json<T: serde::Serialize>(value: &T) {
    match serde_json::to_string(value) {
        Ok(text) => println!("{text}"),
        Err(error) => messages::say(&format!("could not print JSON: {error}")),
    }
}

/// `assent approve TOKEN [--remember HOW]`.
pub fn approve(socket: Option<PathBuf>, args: ApproveArgs) -> u8 {
    send_answer(socket, args.answer, true, args.remember)
}

/// `assent deny TOKEN` (a deny is never remembered).
pub fn deny(socket: Option<PathBuf>, args: AnswerArgs) -> u8 {
    send_answer(socket, args, false, Remember::Once)
}

fn send_answer(socket: Option<PathBuf>, args: AnswerArgs, allow: bool, remember: Remember) -> u8 {
    // What is being answered, to say so afterwards; a request this user cannot see is
    // answered (and refused) by the daemon all the same.
    let what = answered_subject(socket.clone(), &args.token, args.item);
    let token = args.token.clone();
    let request = Request::Answer {
        token: args.token,
        allow,
        session: args.session,
        item: args.item,
        remember,
    };
    // An allow the policy wants given with a password is put to polkit by the daemon; its
    // text agent, on this terminal, asks for the password (a deny needs no password).
    let mut agent = allow.then(super::polkit::TextAgent::start).flatten();
    let reply = match super::connect(socket) {
        Ok(mut conn) => {
            if allow {
                // The daemon may put the answer to polkit, which waits up to two minutes for
                // the person to type a password.
                conn.set_deadline(ANSWER_DEADLINE);
            }
            conn.request(&request)
        }
        Err(code) => return code,
    };
    // polkit's own words (no polkit to register with, say) matter only when the daemon wanted
    // the password and did not get it.
    if let (Err(assent_client::Error::Refused(wire)), Some(agent)) = (&reply, agent.as_mut())
        && wire.kind == ErrorKind::NotAuthorized
    {
        let told = agent.told();
        if !told.is_empty() {
            messages::say(&format!("pkttyagent said: {}", one_line(&told)));
        }
    }
    let item = args.item.map(|n| format!(" item {n}")).unwrap_or_default();
    let what = what
        .map(|w| format!(": {}", one_line(&w)))
        .unwrap_or_default();
    let said = answer_said(allow, remember, reply, &format!("{token}{item}{what}"));
    if let Some(line) = &said.out {
        let _ = writeln!(std::io::stdout().lock(), "{line}");
    }
    match said.error {
        Some(Said::Error(error)) => messages::error(&error),
        Some(Said::Text(text)) => messages::say(&text),
        None => {}
    }
    said.code
}

/// What `approve`/`deny` say about the daemon's reply: a line on stdout, a word on stderr, and
/// the exit code.
struct AnswerSaid {
    out: Option<String>,
    error: Option<Said>,
    code: u8,
}

enum Said {
    Error(assent_client::Error),
    Text(String),
}

/// The reply to an answer, in words. An approval that could not be remembered (the state's
/// disk is full) still allowed the request this once, so it says that, warns that nothing was
/// remembered, and exits 0 as the allow it was.
fn answer_said(
    allow: bool,
    remember: Remember,
    reply: Result<Response, assent_client::Error>,
    what: &str,
) -> AnswerSaid {
    use assent_client::protocol::ErrorKind;
    match reply {
        Ok(Response::Done) => {
            let verb = match (allow, remember) {
                (false, _) => "denied".to_string(),
                (true, Remember::Once) => "approved once".to_string(),
                (true, how) => format!("approved, remembered {}", how.describe()),
            };
            AnswerSaid {
                out: Some(format!("{verb} {what}")),
                error: None,
                code: exit::ALLOW,
            }
        }
        Err(assent_client::Error::Refused(wire)) if allow && wire.kind == ErrorKind::NotSaved => {
            AnswerSaid {
                out: Some(format!("approved once {what}")),
                error: Some(Said::Text(format!(
                    "not remembered ({}): {}",
                    remember.describe(),
                    one_line(&wire.message)
                ))),
                code: exit::ALLOW,
            }
        }
        Ok(other) => AnswerSaid {
            out: None,
            error: Some(Said::Text(format!("unexpected reply: {other:?}"))),
            code: exit::UNAVAILABLE,
        },
        Err(error) => {
            let code = match error {
                assent_client::Error::Refused(_) => exit::DENY,
                _ => exit::UNAVAILABLE,
            };
            AnswerSaid {
                out: None,
                error: Some(Said::Error(error)),
                code,
            }
        }
    }
}

/// The held request's command or tool call as `assent pending` shows it, if this user sees it.
fn answered_subject(socket: Option<PathBuf>, token: &str, item: Option<u32>) -> Option<String> {
    let path = assent_client::paths::resolve_socket(socket.as_deref()).ok()?;
    let mut conn = assent_client::Connection::connect(&path).ok()?;
    let held = conn
        .pending()
        .ok()?
        .into_iter()
        .find(|p| p.token == token)?;
    match item {
        Some(n) => held
            .items
            .into_iter()
            .find(|i| i.item == n)
            .map(|i| i.subject),
        None if held.items.is_empty() => Some(held.subject),
        None => Some(format!("{} items", held.items.len())),
    }
}

/// Connect and read a whole list, page by page.
pub(super) fn ask_list<T>(
    socket: Option<PathBuf>,
    read: impl FnOnce(&mut assent_client::Connection) -> Result<Vec<T>, assent_client::Error>,
) -> Result<Vec<T>, u8> {
    let mut conn = super::connect(socket)?;
    read(&mut conn).map_err(|error| {
        messages::error(&error);
        match error {
            assent_client::Error::Refused(_) => exit::DENY,
            _ => exit::UNAVAILABLE,
        }
    })
}

/// `assent pending`.
pub fn pending(socket: Option<PathBuf>, json: bool) -> u8 {
    let items = match ask_list(socket, assent_client::Connection::pending) {
        Ok(items) => items,
        Err(code) => return code,
    };
    if json {
        print_json(&assent_client::protocol::PendingList { items, next: None });
        return exit::ALLOW;
    }
    let paint = colour::stdout();
    let mut out = std::io::stdout().lock();
    if items.is_empty() {
        let _ = writeln!(out, "no held requests");
    }
    let viewer = assent_client::whose::own_uid();
    for mut item in items {
        // Another uid's request (`[approvers]`) speaks of that user's files by name.
        assent_client::whose::seen_by(&mut item, viewer);
        // The agent's name is the requester's own claim; the program is what the daemon saw.
        let who = match &item.agent {
            Some(agent) => format!(
                "{} (by its own account), program {}",
                one_line(agent),
                one_line(&item.program)
            ),
            None => format!("program {}", one_line(&item.program)),
        };
        let _ = writeln!(
            out,
            "{}  {}  {who}  uid {} pid {}  {}  {} s left{}",
            item.token,
            colour::level(item.level, item.level.as_str(), paint),
            item.uid,
            item.pid,
            item.origin.as_str(),
            item.expires_in_ms / 1000,
            item.session
                .map(|s| format!("  session {}", one_line(&s)))
                .unwrap_or_default(),
        );
        let _ = writeln!(out, "    {}", one_line(&item.subject));
        if let Some(cwd) = item.cwd {
            let _ = writeln!(out, "    in {}", one_line(&cwd));
        }
        for finding in item.findings {
            let _ = writeln!(
                out,
                "    - [{}] {}",
                one_line(&finding.id),
                one_line(&finding.message)
            );
        }
        for held in item.items {
            let _ = writeln!(
                out,
                "    item {}  {}  {}",
                held.item,
                colour::level(held.level, held.level.as_str(), paint),
                one_line(&held.subject)
            );
            if let Some(cwd) = held.cwd {
                let _ = writeln!(out, "        in {}", one_line(&cwd));
            }
            for finding in held.findings {
                let _ = writeln!(
                    out,
                    "        - [{}] {}",
                    one_line(&finding.id),
                    one_line(&finding.message)
                );
            }
        }
    }
    exit::ALLOW
}

/// `assent status`.
pub fn status(socket: Option<PathBuf>, json: bool) -> u8 {
    let status = match ask(socket, &Request::Status) {
        Ok(Response::Status(status)) => status,
        Ok(other) => {
            messages::say(&format!("unexpected reply: {other:?}"));
            return exit::UNAVAILABLE;
        }
        Err(code) => return code,
    };
    if json {
        print_json(&status);
        return exit::ALLOW;
    }
    let uptime = humantime::format_duration(Duration::from_secs(status.uptime_secs));
    // First, so that nobody reads on past it: the gate judges but stops nothing.
    if let Some(whom) = &status.observe {
        let warning = format!(
            "OBSERVE MODE for {}: nothing is held or denied, only audited (observe in {})",
            assent_client::shown::one_line(whom),
            assent_client::shown::one_line(&status.policy)
        );
        println!("{}", colour::warning(&warning, colour::stdout()));
    }
    println!(
        "assentd {} (protocol {}), {} mode\nsocket:   {}\nuptime:   {uptime}\nallowed:  {}\ndenied:   {}\nheld:     {}\npending:  {}",
        status.version,
        status.protocol,
        status.mode,
        status.socket,
        status.allowed,
        status.denied,
        status.held,
        status.pending,
    );
    println!("policy:   {}", status.policy);
    println!("hold:     {} s for a person's answer", status.hold_ttl_secs);
    if let Some(waiting) = &status.policy_waiting {
        println!(
            "policy change: {} (see `assent pending`)",
            assent_client::shown::one_line(waiting)
        );
    }
    match status.sessions.as_str() {
        "audit" => println!(
            "sessions: audit sessions (a process cannot leave its own; POSIX sessions where none is set, and for approval agents)"
        ),
        _ => println!("sessions: POSIX sessions (this kernel keeps no audit sessions)"),
    }
    match status.landlock_abi {
        0 => println!(
            "confinement: none (this kernel has no Landlock): what assent run/sh run is not confined, and opaque agent lines are held instead of run confined"
        ),
        abi if abi < 6 => println!(
            "confinement: none (Landlock ABI {abi}; 6 or later confines files, TCP and signals): what assent run/sh run is not confined, and opaque agent lines are held instead of run confined"
        ),
        abi => {
            println!(
                "confinement: Landlock ABI {abi}: what assent run/sh run may change only what its line was judged to, and reads no secrets"
            );
            println!(
                "kept rulesets: {} confinement(s) kept ready for the doors, {} passed to a door since start",
                status.kept_rulesets, status.rulesets_passed
            );
            match &status.refusals_unknown {
                None => println!(
                    "refused places: a confined run that fails is told what the kernel refused it (the kernel's audit)"
                ),
                Some(why) => println!(
                    "refused places: not known after a failed confined run: {}",
                    assent_client::shown::one_line(why)
                ),
            }
        }
    }
    match (status.approvers, status.no_approver.as_str()) {
        (0, "hold") => println!(
            "approval agents: none (agents' requests that need a person are held for `assent approve` until they expire; start `assent watch` in a terminal, or assent-notify to be asked on the desktop)"
        ),
        (0, "ask") => println!(
            "approval agents: none (agents' requests that need a person go back to the agent's own prompt; start `assent watch` in a terminal, or assent-notify to be asked on the desktop)"
        ),
        (0, _) => println!(
            "approval agents: none (agents' requests that need a person are denied; start `assent watch` in a terminal or assent-notify on the desktop, or run assentd --no-approver hold)"
        ),
        (n, _) => println!("approval agents: {n}"),
    }
    // A notification nobody can answer: the server lists no `actions` (the agent asked it).
    match status.approvers_without_buttons {
        0 => {}
        n => println!(
            "warning: {n} of them show requests on a notification server without buttons: answer with `assent watch` or `assent approve TOKEN`"
        ),
    }
    if let Some(error) = &status.policy_error {
        println!("policy reload failed (the running policy is kept): {error}");
    }
    match (
        &status.audit_failing,
        status.audit_waiting,
        status.audit_lost,
    ) {
        (Some(error), waiting, _) => println!(
            "audit:    FAILING: {error}; {waiting} events wait in memory and are written when it works again"
        ),
        (None, waiting, _) if waiting > 0 => println!("audit:    {waiting} events being written"),
        _ => println!("audit:    ok"),
    }
    if status.audit_lost > 0 {
        println!(
            "audit:    {} events LOST (the disk failed for longer than the backlog holds)",
            status.audit_lost
        );
    }
    if let Some(error) = &status.state_error {
        println!("state:    FAILING: remembered approvals could not be written: {error}");
    }
    exit::ALLOW
}

/// `assent log`.
pub fn log(socket: Option<PathBuf>, count: u32, json: bool) -> u8 {
    let events = match ask_list(socket, |conn| conn.log(count)) {
        Ok(events) => events,
        Err(code) => return code,
    };
    let paint = colour::stdout();
    let mut out = std::io::stdout().lock();
    for event in events {
        if json {
            if let Ok(text) = serde_json::to_string(&event) {
                let _ = writeln!(out, "{text}");
            }
            continue;
        }
        let time =
            humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_millis(event.time_ms));
        let agent = event
            .agent
            .as_ref()
            .map(|a| format!("  {} (by its own account)", one_line(a)))
            .unwrap_or_default();
        let cwd = event
            .cwd
            .as_ref()
            .map(|cwd| format!("  in {}", one_line(cwd)))
            .unwrap_or_default();
        // An answer the daemon refused decided nothing: the request stays held, and the
        // uid and pid are the answerer's.
        let (decision, by) = match &event.refused {
            Some(why) => ("refused", format!("{:<10}", one_line(why))),
            None => (
                event.decision.as_str(),
                format!("by {:<10}", event.by.as_str()),
            ),
        };
        let _ = writeln!(
            out,
            "{time}  {} {} {:<11} {by} uid {} pid {}{agent}  {}{cwd}",
            // Padded before painting: the escapes take no columns. A refused answer decided
            // nothing, so it is not painted as a decision.
            match &event.refused {
                Some(_) => format!("{decision:<7}"),
                None => colour::decision(event.decision, &format!("{decision:<7}"), paint),
            },
            colour::level(event.level, &format!("{:<11}", event.level.as_str()), paint),
            event.origin.as_str(),
            event.uid,
            event.pid,
            one_line(&event.subject),
        );
    }
    exit::ALLOW
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An approval the full disk could not remember was still given: it says so and exits 0;
    /// a refusal and a deny read as before.
    #[test]
    fn an_approval_not_remembered_is_still_an_approval() {
        use assent_client::protocol::{ErrorKind, WireError};
        let refused = |kind: ErrorKind| {
            Err(assent_client::Error::Refused(WireError {
                kind,
                message: "the request was allowed this once, but the disk is full".into(),
            }))
        };
        let said = answer_said(
            true,
            Remember::Always,
            refused(ErrorKind::NotSaved),
            "pa_1: ls",
        );
        assert_eq!(said.code, exit::ALLOW);
        assert_eq!(said.out.as_deref(), Some("approved once pa_1: ls"));
        assert!(
            matches!(&said.error, Some(Said::Text(t)) if t.starts_with("not remembered (always): ")),
        );
        let said = answer_said(true, Remember::Once, Ok(Response::Done), "pa_1: ls");
        assert_eq!(
            (said.out.as_deref(), said.code),
            (Some("approved once pa_1: ls"), exit::ALLOW)
        );
        let said = answer_said(false, Remember::Once, Ok(Response::Done), "pa_1: ls");
        assert_eq!(said.out.as_deref(), Some("denied pa_1: ls"));
        let said = answer_said(
            true,
            Remember::Once,
            refused(ErrorKind::SelfApproval),
            "pa_1",
        );
        assert_eq!((said.out, said.code), (None, exit::DENY));
    }

    #[test]
    fn remember_flag() {
        assert_eq!(parse_remember("once"), Ok(Remember::Once));
        assert_eq!(parse_remember("session"), Ok(Remember::Session));
        assert_eq!(parse_remember("always"), Ok(Remember::Always));
        assert_eq!(parse_remember("1h"), Ok(Remember::For { secs: 3600 }));
        assert_eq!(parse_remember("30m"), Ok(Remember::For { secs: 1800 }));
        assert_eq!(
            parse_remember("1day 2h"),
            Ok(Remember::For { secs: 93_600 })
        );
        assert!(parse_remember("500ms").is_err());
        assert!(parse_remember("forever").is_err());
        assert!(parse_remember("").is_err());
    }
}
