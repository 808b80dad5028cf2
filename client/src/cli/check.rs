//! `assent check`, and the gate every executing subcommand goes through.

use std::path::{Path, PathBuf};

use assent_client::protocol::{
    self, CheckRequest, Context, Decided, Decision, Origin, RedeemRequest, Request, Response,
    Subject, Verdict,
};
use clap::Args;
use serde::Serialize;

use super::{OriginArg, exit, messages, prompt, wait};

/// Flags shared by everything that checks a command.
#[derive(Debug, Args)]
pub struct RequestArgs {
    /// Who is asking: a person at a shell, or automation.
    #[arg(long, value_enum, default_value = "agent")]
    pub origin: OriginArg,
    /// A session label (an agent's conversation id), shown to the approver.
    #[arg(long, value_name = "LABEL")]
    pub session: Option<String>,
    /// The directory the command runs in (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
}

/// `assent check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    request: RequestArgs,
    /// Do not wait for a held request: print its token and exit 2.
    #[arg(long)]
    no_wait: bool,
    /// Redeem the token a `--no-wait` check printed, after a person answered it: exit 0 if
    /// approved (once, for exactly this command, in the same directory and session), 1 if
    /// denied or refused, 2 with the token again while nobody has answered.
    #[arg(long, value_name = "TOKEN", conflicts_with = "no_wait")]
    token: Option<String>,
    /// Print the outcome as JSON on stdout.
    #[arg(long)]
    json: bool,
    /// The command line (bytes that are not UTF-8 are checked as U+FFFD).
    #[arg(
        required = true,
        trailing_var_arg = true,
        value_name = "COMMAND",
        value_parser = lossy_text()
    )]
    command: Vec<String>,
}

impl CheckArgs {
    /// The arguments of a check, for callers that parsed them without clap (`fast`).
    pub fn new(request: RequestArgs, no_wait: bool, json: bool, command: Vec<String>) -> Self {
        CheckArgs {
            request,
            no_wait,
            token: None,
            json,
            command,
        }
    }
}

/// How a check ended.
#[derive(Debug)]
pub enum Outcome {
    /// Run it.
    Allowed,
    /// Don't.
    Denied,
    /// Held, not waited for.
    Held(String),
    /// Withdrawn with Ctrl-C.
    Cancelled,
    /// No answer could be had; exit with this code.
    Failed(u8),
}

/// What `--json` prints.
#[derive(Debug, Serialize)]
struct JsonOutcome<'a> {
    command: &'a str,
    decision: Decision,
    /// The token of a request held and not waited for (also in `verdict`).
    #[serde(skip_serializing_if = "Option::is_none")]
    token: Option<&'a str>,
    verdict: &'a Verdict,
    decided: Option<&'a Decided>,
}

/// The working directory to send ([`assent_client::paths::working_dir`]), or the usage exit
/// code after saying why not.
pub fn working_dir(flag: Option<&Path>) -> Result<String, u8> {
    assent_client::paths::working_dir(flag).map_err(|why| {
        messages::say(&why);
        exit::USAGE
    })
}

/// `assent check`.
pub fn check(socket: Option<PathBuf>, args: CheckArgs) -> u8 {
    let command = args.command.join(" ");
    let cwd = match working_dir(args.request.cwd.as_deref()) {
        Ok(cwd) => cwd,
        Err(code) => return code,
    };
    let origin: Origin = args.request.origin.into();
    if let Some(token) = args.token {
        let json = args.json.then_some(command.as_str());
        let request = RedeemRequest {
            token,
            subject: Subject::shell(&command, cwd),
            origin,
            context: Context {
                session: args.request.session,
                ..Context::default()
            },
        };
        return redeem(socket, request, json).exit_code(json.is_some());
    }
    // A person's own line, waited for in words on a terminal: ask there too.
    let tty = (origin == Origin::Interactive && !args.no_wait && !args.json)
        .then(prompt::terminal)
        .flatten();
    let request = CheckRequest {
        subject: Subject::shell(&command, cwd),
        origin,
        context: Context {
            session: args.request.session,
            prompt: tty.is_some(),
            ..Context::default()
        },
        wait: !args.no_wait,
    };
    gate_prompting(socket, request, args.json.then_some(command.as_str()), tty)
        .0
        .exit_code(args.json)
}

impl Outcome {
    /// The exit code of `check` and `tool` for this outcome; a held token goes to stdout,
    /// unless the outcome was printed as `json` (the token is in it: stdout stays one
    /// document a script can parse).
    pub fn exit_code(self, json: bool) -> u8 {
        match self {
            Outcome::Allowed => exit::ALLOW,
            Outcome::Denied => exit::DENY,
            Outcome::Held(token) => {
                if !json {
                    println!("{token}");
                }
                exit::HELD
            }
            Outcome::Cancelled => exit::CANCELLED,
            Outcome::Failed(code) => code,
        }
    }
}

/// Put one request through the gate and, if it is held and `wait` is set, wait for its
/// outcome. With `json` (the command text), the outcome is printed as JSON on stdout instead of
/// words on stderr.
pub fn gate(socket: Option<PathBuf>, request: CheckRequest, json: Option<&str>) -> Outcome {
    gate_prompting(socket, request, json, None).0
}

/// [`gate`] for a door that runs the command: with the confinement the verdict gives it when
/// it is allowed (also when a person allowed it after a hold: the held verdict says what it
/// runs with), and whether a person allowed it.
pub fn gate_confining(
    socket: Option<PathBuf>,
    request: CheckRequest,
) -> (Outcome, Option<super::confine::Confined>) {
    gate_prompting(socket, request, None, None)
}

/// Redeem a token a `--no-wait` check or tool call got: the person's answer, once; or the
/// token again while it is still held. A refused redeem (unknown, spent, expired, another
/// user, session or subject) allows nothing.
pub fn redeem(socket: Option<PathBuf>, request: RedeemRequest, json: Option<&str>) -> Outcome {
    let mut conn = match super::connect_door(socket) {
        Ok(conn) => conn,
        Err(code) => return Outcome::Failed(code),
    };
    let token = request.token.clone();
    let verdict = match conn.request(&Request::Redeem(request)) {
        Ok(Response::Verdict(verdict)) => verdict,
        Ok(other) => {
            messages::say(&format!("unexpected reply: {other:?}"));
            return Outcome::Failed(exit::UNAVAILABLE);
        }
        Err(assent_client::Error::Refused(error)) => {
            messages::say(&format!("token {token} was not redeemed: {error}"));
            return Outcome::Denied;
        }
        Err(error) => {
            messages::error(&error);
            return Outcome::Failed(exit::UNAVAILABLE);
        }
    };
    let outcome = match verdict.outcome() {
        protocol::Outcome::Allow => Outcome::Allowed,
        protocol::Outcome::Deny | protocol::Outcome::Ask => {
            if json.is_none() {
                messages::denied(&verdict);
            }
            Outcome::Denied
        }
        protocol::Outcome::Held(held) => {
            if json.is_none() {
                messages::held(&verdict);
            }
            Outcome::Held(held.to_string())
        }
    };
    if let Some(command) = json {
        let printed = JsonOutcome {
            command,
            decision: verdict.decision,
            token: match &outcome {
                Outcome::Held(token) => Some(token),
                _ => None,
            },
            verdict: &verdict,
            decided: None,
        };
        if let Ok(text) = serde_json::to_string(&printed) {
            println!("{text}");
        }
    }
    outcome
}

/// [`gate`], asking at `tty` too while the request is held (the request says `prompt`).
fn gate_prompting(
    socket: Option<PathBuf>,
    request: CheckRequest,
    json: Option<&str>,
    tty: Option<std::fs::File>,
) -> (Outcome, Option<super::confine::Confined>) {
    let prompt = tty;
    let mut conn = match super::connect_door(socket) {
        Ok(conn) => conn,
        Err(code) => return (Outcome::Failed(code), None),
    };
    let wait = request.wait;
    let verdict = match conn.request(&Request::Check(request)) {
        Ok(Response::Verdict(verdict)) => verdict,
        Ok(other) => {
            messages::say(&format!("unexpected reply: {other:?}"));
            return (Outcome::Failed(exit::UNAVAILABLE), None);
        }
        Err(assent_client::Error::Refused(error)) => {
            // The daemon refused to judge (bad input, a limit): nothing is allowed.
            messages::say(&format!("refused: {error}"));
            return (Outcome::Denied, None);
        }
        Err(error) => {
            messages::error(&error);
            return (Outcome::Failed(exit::UNAVAILABLE), None);
        }
    };
    // The ruleset the daemon kept for this confinement, passed with an allow.
    let kept = conn.take_passed();
    // A request another person must answer is not asked at the requester's terminal: the
    // daemon would refuse that answer, so the wait says who answers instead.
    let prompt = prompt.filter(|_| !verdict.another_answers);
    let outcome = match verdict.outcome() {
        protocol::Outcome::Allow => (Outcome::Allowed, None),
        // Ask: it needs a person but nothing was held, and this client has no prompt of its
        // own to hand it to.
        protocol::Outcome::Deny | protocol::Outcome::Ask => {
            if json.is_none() {
                messages::denied(&verdict);
            }
            (Outcome::Denied, None)
        }
        protocol::Outcome::Held(token) => {
            let token = token.to_string();
            if !wait {
                if json.is_none() {
                    messages::held(&verdict);
                }
                (Outcome::Held(token), None)
            } else {
                if json.is_none() {
                    if prompt.is_some() {
                        // Asked at this terminal: what it does, in one line (the prompt and
                        // where else to answer follow).
                        eprintln!("{}", assent_client::say::held(&verdict));
                    } else {
                        messages::held(&verdict);
                    }
                }
                let prompt = prompt.map(|tty| prompt::Prompt {
                    tty,
                    deadline: None,
                    forbidden: verdict.level == protocol::Level::Forbidden,
                });
                let show = json.is_none();
                let another = verdict.another_answers;
                let expires = verdict.expires_in_ms;
                match wait::wait_prompting(&mut conn, &token, expires, show, another, prompt) {
                    wait::Waited::Decided(decided) => {
                        if json.is_none() {
                            messages::decided(&decided);
                        }
                        let outcome = if decided.allow {
                            Outcome::Allowed
                        } else {
                            Outcome::Denied
                        };
                        (outcome, Some(decided))
                    }
                    wait::Waited::Cancelled => (Outcome::Cancelled, None),
                    wait::Waited::Lost(error) => {
                        messages::error(&error);
                        messages::say("the gate went away while the request was held: not allowed");
                        (Outcome::Failed(exit::UNAVAILABLE), None)
                    }
                }
            }
        }
    };
    if let Some(command) = json {
        let decision = match &outcome.0 {
            Outcome::Allowed => Decision::Allow,
            Outcome::Held(_) => Decision::Confirm,
            _ => Decision::Deny,
        };
        let printed = JsonOutcome {
            command,
            decision,
            token: match &outcome.0 {
                Outcome::Held(token) => Some(token),
                _ => None,
            },
            verdict: &verdict,
            decided: outcome.1.as_ref(),
        };
        if let Ok(text) = serde_json::to_string(&printed) {
            println!("{text}");
        }
    }
    // A change to a place only known at run time is granted only when a person approved the
    // line: a line the policy let through by itself keeps its writes to the places it names
    // (`cd "$D" && bash cleanup.sh` gains nothing from the `cd`).
    let by_person = outcome
        .1
        .as_ref()
        .is_some_and(|d| d.allow && d.by == protocol::DecidedBy::User);
    let confine = match outcome.0 {
        Outcome::Allowed => verdict.confine.map(|mut c| {
            c.write_anywhere &= by_person;
            super::confine::Confined {
                confine: c,
                approved: by_person,
                // Kept for the line as the policy let it through; a person's approval adds to
                // what it may do, so the door works that out itself.
                kept: kept.filter(|_| !by_person),
            }
        }),
        _ => None,
    };
    (outcome.0, confine)
}

/// Command words as text, whatever their bytes: a line is checked even when it is not UTF-8
/// (an error would let the shell hook run it unchecked, since it reads usage errors as "the gate
/// is unavailable").
fn lossy_text() -> impl clap::builder::TypedValueParser<Value = String> {
    use clap::builder::TypedValueParser as _;
    clap::builder::OsStringValueParser::new().map(|word| word.to_string_lossy().into_owned())
}
