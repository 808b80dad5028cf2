//! `assent hook AGENT`: the gate behind an agent's own pre-tool hook (Claude Code, Codex,
//! Gemini CLI).
//!
//! The agent runs this once per tool call with a JSON document on stdin; we turn it into a
//! check, wait for a held request inside the hook, and answer in the agent's format. Agents
//! treat a crashed, slow or odd hook as "allow", so everything here fails closed by the agent's
//! own means: a deny is the agent's explicit deny JSON on stdout, and for Claude Code and Codex
//! also a one-line reason on stderr with exit 2 (which blocks there whatever they make of
//! stdout). Gemini CLI counts any exit but 0 as a failed hook (and says so to the person on
//! every deny), so its deny is the JSON alone, exit 0, which it takes as the hook's decision. We
//! never exit 1, never panic on input, never print anything but the one JSON document on stdout,
//! and our own wait ends before the agent's hook timeout. The per-agent input and output formats
//! live in `hook/{claude,codex,gemini}.rs`; this module owns reading, waiting and exit codes.
//!
//! It must not run anything: the agent runs the tool after an allow. An allowed shell call
//! is handed back rewritten (`hook/rewrite.rs`) so that what the agent runs is `assent sh
//! --grant`, confined as the gate said; so is one put to the agent's own prompt (an ask), under
//! a grant the daemon binds to the agent, since it is given before the person answers.

mod claude;
mod codex;
mod gemini;
mod parse;
mod rewrite;

use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use assent_client::Connection;
use assent_client::protocol::{
    CheckRequest, Context, Origin, Outcome, Request, Response, Subject, Verdict,
};
use clap::{Parser, ValueEnum};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use serde_json::Value;

use parse::{
    check_event, pre_tool_use_output, rewritten_output, run_dir, shell_call, string_field,
    tool_call,
};

/// The exit code of a deny for Claude Code and Codex: blocks the call (with the reason on
/// stderr). Any other non-zero code lets the call run, so none is ever used.
const BLOCK: u8 = 2;
/// The most we read from stdin; a larger input is denied.
const MAX_INPUT: usize = 1024 * 1024;
/// How the gate's own allow (not a person's, after a hold) begins.
const ALLOWED: &str = "assent: allowed ";
/// Tool arguments above this are shortened (long strings cut) and the call held for a person,
/// so the request fits one packet ([`assent_client::protocol::MAX_MESSAGE_LEN`]).
const MAX_TOOL_ARGS: usize = 64 * 1024;
/// Strings in shortened tool arguments keep this many bytes.
const SHORTENED_STRING: usize = 2 * 1024;

const AFTER_HELP: &str = "\
Reads the agent's pre-tool hook JSON on stdin and answers on stdout in the agent's format.
Exit 0 with the allow (or ask) JSON, or with nothing for an allow under --defer; a deny is the
deny JSON on stdout, with exit 2 and the reason on stderr for claude-code and codex, exit 0 for
gemini (which counts any other exit as a failed hook). Held requests wait inside the hook until a person answers (desktop notification, or
`assent approve TOKEN` from another terminal), the request expires, or --timeout passes; then
the call is denied. No daemon, bad input, or any other trouble: denied (fail closed).

Defaults for --timeout stay under each agent's default hook timeout: claude-code 590 s (600),
codex 590 s (600), gemini 55 s (60000 ms). Set the agent's timeout above assent's hold TTL
(300 s) and --timeout between the two; see the README's \"Agents\" section for each snippet.";

// `assent hook`'s own flags, parsed here rather than by the main parser so that even a usage
// error blocks (exit 2): a usage error's 64 would let the agent run the call.
#[derive(Debug, Parser)]
#[command(
    name = "assent hook",
    about = "An agent's pre-tool hook: check the tool call on stdin, answer in the agent's format.",
    long_about = None,
    after_help = AFTER_HELP,
    max_term_width = 100
)]
struct HookCli {
    /// Whose hook protocol to speak.
    #[arg(value_enum)]
    agent: Agent,
    /// Stop waiting for a held request after SECS and deny it; keep it under the agent's own
    /// hook timeout.
    #[arg(long, value_name = "SECS")]
    timeout: Option<u64>,
    /// Claude Code and Gemini CLI: answer "ask" for what would be held, so the agent's own
    /// prompt decides instead of the desktop or `assent approve` (nothing is held); a shell
    /// call goes there rewritten to run confined, as an allow is.
    #[arg(long)]
    ask_when_held: bool,
    /// Claude Code only: say nothing on allow, so Claude's own permission rules still decide
    /// whether to ask; deny and held calls are answered as without it.
    #[arg(long)]
    defer: bool,
    /// The daemon's socket.
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
}

/// The agents whose hook protocol we speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Agent {
    /// Claude Code's PreToolUse hook.
    ClaudeCode,
    /// Codex CLI's PreToolUse hook.
    Codex,
    /// Gemini CLI's BeforeTool hook.
    Gemini,
}

impl Agent {
    /// The agent's name, as its users know it.
    fn display(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex",
            Agent::Gemini => "Gemini CLI",
        }
    }

    /// Whether the agent takes "ask" from its hook and puts the call to its own prompt (Codex
    /// takes it and then runs the call).
    fn can_ask(self) -> bool {
        matches!(self, Agent::ClaudeCode | Agent::Gemini)
    }

    /// The exit code that goes with a deny: the one the agent blocks on.
    fn deny_exit(self) -> u8 {
        match self {
            Agent::ClaudeCode | Agent::Codex => BLOCK,
            // Its deny JSON at exit 0 is a decision; exit 2 is "the hook failed" as well.
            Agent::Gemini => 0,
        }
    }

    /// Whether the person can be told of a hold on stderr. Codex hands the model a deny's whole
    /// stderr (a hold's line, token and `assent approve` included), so it gets only the one-line
    /// reason: the person has the token where they answer (the notification, `assent watch`,
    /// `assent pending`), and none of the agents shows a hook's stderr while it runs.
    fn says_held(self) -> bool {
        !matches!(self, Agent::Codex)
    }

    /// Our wait, kept under the agent's default hook timeout.
    fn default_timeout(self) -> Duration {
        match self {
            Agent::ClaudeCode | Agent::Codex => Duration::from_secs(590),
            Agent::Gemini => Duration::from_secs(55),
        }
    }

    fn parse(self, input: &Value) -> Result<Call, String> {
        match self {
            Agent::ClaudeCode => claude::parse(input),
            Agent::Codex => codex::parse(input),
            Agent::Gemini => gemini::parse(input),
        }
    }

    fn render(self, answer: &Answer) -> String {
        match self {
            Agent::ClaudeCode => claude::render(answer),
            Agent::Codex => codex::render(answer),
            Agent::Gemini => gemini::render(answer),
        }
    }
}

/// One tool call, ready to check.
#[derive(Debug, Clone, PartialEq)]
struct Call {
    subject: Subject,
    origin: Origin,
    context: Context,
    /// A shell call's input, when the agent runs the command the hook hands back in its place
    /// (Claude Code's `updatedInput`): an allow then rewrites it to run confined.
    rewritable: Option<Value>,
}

/// What the hook answers.
#[derive(Debug, Clone, PartialEq)]
enum Answer {
    /// Let the call run.
    Allow(String),
    /// Block it, with a reason for the agent (never empty).
    Deny(String),
    /// Let the agent's own permission prompt decide (Claude Code, Gemini CLI).
    Ask(String),
    /// Allowed by the gate, and nothing said: the agent's own permission rules decide as if
    /// there were no hook (Claude Code's `--defer`).
    Defer(String),
    /// Let the call run with this tool input instead: the line through `assent sh --grant`,
    /// confined as the gate said ([`rewrite`]).
    Rewrite {
        /// Why it is allowed (or asked).
        reason: String,
        /// The agent's tool input, its command rewritten.
        input: Value,
        /// Put to the agent's own prompt first (Claude Code, Gemini CLI), which shows the
        /// rewritten call: the grant is for that prompt.
        ask: bool,
    },
}

/// `assent hook ARGS...`; returns the exit code (0 or 2, never anything else after parsing).
pub fn hook(socket: Option<PathBuf>, args: Vec<OsString>) -> u8 {
    let started = Instant::now();
    let plain = parse_plain(&args);
    let argv = std::iter::once(OsString::from("assent hook")).chain(args);
    let cli = match plain.map_or_else(|| HookCli::try_parse_from(argv), Ok) {
        Ok(cli) => cli,
        Err(error) if !error.use_stderr() => {
            // --help: for a person, not an agent.
            let _ = error.print();
            return 0;
        }
        Err(error) => {
            let _ = error.print();
            say("the hook is misconfigured (see above); not allowed");
            return BLOCK;
        }
    };
    let agent = cli.agent;
    // A panic would exit 101, which every agent treats as "go ahead": turn it into a deny.
    let answer = std::panic::catch_unwind(|| {
        let deadline = started
            + cli
                .timeout
                .map_or(agent.default_timeout(), Duration::from_secs);
        decide(&cli, socket, deadline)
    })
    .unwrap_or_else(|_| Answer::Deny("assent: internal error in the hook; not allowed".into()));
    emit(agent, &answer)
}

/// The hook's flags as agents' settings write them (`AGENT [--timeout SECS] [--ask-when-held]
/// [--socket PATH]`), read without clap: the hook runs before every tool call, and building
/// clap's parser is a measurable part of its start. Anything else (help, a typo, a bad value)
/// is `None`, and clap reads it, so errors read the same either way.
fn parse_plain(args: &[OsString]) -> Option<HookCli> {
    let mut words = args.iter().map(|a| a.to_str());
    let agent = match words.next()?? {
        "claude-code" => Agent::ClaudeCode,
        "codex" => Agent::Codex,
        "gemini" => Agent::Gemini,
        _ => return None,
    };
    let mut cli = HookCli {
        agent,
        timeout: None,
        ask_when_held: false,
        defer: false,
        socket: None,
    };
    while let Some(word) = words.next() {
        match word? {
            "--timeout" => cli.timeout = Some(words.next()??.parse().ok()?),
            "--ask-when-held" => cli.ask_when_held = true,
            "--defer" => cli.defer = true,
            "--socket" => cli.socket = Some(PathBuf::from(words.next()??)),
            _ => return None,
        }
    }
    Some(cli)
}

/// Read, parse, check.
fn decide(cli: &HookCli, socket: Option<PathBuf>, deadline: Instant) -> Answer {
    if cli.ask_when_held && !cli.agent.can_ask() {
        return Answer::Deny(
            "assent: --ask-when-held is for claude-code and gemini only (this agent cannot ask); the hook is misconfigured, not allowed".into(),
        );
    }
    if cli.defer && cli.agent != Agent::ClaudeCode {
        return Answer::Deny(
            "assent: --defer is for claude-code only; the hook is misconfigured, not allowed"
                .into(),
        );
    }
    let input = match read_input(deadline) {
        Ok(input) => input,
        Err(reason) => return Answer::Deny(format!("assent: {reason}; not allowed")),
    };
    let mut call = match cli.agent.parse(&input) {
        Ok(call) => call,
        Err(reason) => return Answer::Deny(format!("assent: {reason}; not allowed")),
    };
    // Which agent this hook serves: people see it as the agent's own claim.
    call.context.agent = Some(cli.agent.display().to_string());
    // Under --defer the agent's own rules decide after us, and take no rewritten input.
    if cli.defer {
        call.rewritable = None;
    }
    // A call we can rewrite runs confined: the gate may then let an opaque line run confined
    // instead of holding it, and gives a grant with the allow.
    if call.rewritable.is_some() {
        call.context.confines = true;
        call.context.grant = true;
    }
    // What would be held goes to the agent's own prompt: the daemon holds nothing.
    call.context.asks_when_held = cli.ask_when_held;
    let answer = gate(
        cli.agent,
        cli.socket.clone().or(socket),
        call,
        deadline,
        cli.ask_when_held,
    );
    match answer {
        // Only the gate's own allow defers: a held call a person allowed keeps its allow.
        Answer::Allow(reason) if cli.defer && reason.starts_with(ALLOWED) => Answer::Defer(reason),
        answer => answer,
    }
}

/// Print the answer in the agent's format; mirror a deny on stderr. Returns the exit code.
fn emit(agent: Agent, answer: &Answer) -> u8 {
    let json = agent.render(answer);
    // Never println!: it panics on a closed stdout. Nothing at all for a deferred allow.
    if !json.is_empty() {
        let _ = writeln!(std::io::stdout().lock(), "{json}");
    }
    match answer {
        Answer::Allow(_) | Answer::Ask(_) | Answer::Defer(_) | Answer::Rewrite { .. } => 0,
        Answer::Deny(reason) => {
            let _ = writeln!(std::io::stderr().lock(), "{}", one_line(reason));
            agent.deny_exit()
        }
    }
}

/// Text for a person on stderr, without eprintln!'s panic on a closed stream.
fn say(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "assent: {text}");
}

/// Read stdin as one JSON document: bounded in size and in time.
fn read_input(deadline: Instant) -> Result<Value, String> {
    let stdin = std::io::stdin();
    let mut input = Vec::new();
    // How much of `input` the reads filled; the rest is room, zeroed once.
    let mut filled = 0;
    loop {
        if !wait_readable(stdin.as_fd(), deadline) {
            return Err("no complete hook input on stdin before the timeout".into());
        }
        // Read straight into the input, its room doubled from 4 KiB when it is full: a buffer of
        // its own, 64 KiB on the stack, was sixteen pages the stack probe touched, a page fault
        // each, on every tool call (BENCHMARKS.md, "The hooks' own start"); a typical call's
        // JSON fits the first page. One byte past the limit is room enough to see it passed.
        if filled == input.len() {
            let room = filled.max(4096).min(MAX_INPUT + 1 - filled);
            input.resize(filled + room, 0);
        }
        let n = match stdin.lock().read(&mut input[filled..]) {
            Ok(n) => n,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(format!("could not read the hook input: {error}")),
        };
        if n == 0 {
            break;
        }
        filled += n;
        if filled > MAX_INPUT {
            return Err(format!("the hook input is larger than {MAX_INPUT} bytes"));
        }
    }
    input.truncate(filled);
    if input.iter().all(u8::is_ascii_whitespace) {
        return Err("no hook input on stdin".into());
    }
    serde_json::from_slice(&input).map_err(|error| format!("the hook input is not JSON: {error}"))
}

/// Wait until `fd` is readable (or closed), at most until `deadline`.
fn wait_readable(fd: std::os::fd::BorrowedFd<'_>, deadline: Instant) -> bool {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        let timeout =
            PollTimeout::try_from(left.min(Duration::from_secs(30))).unwrap_or(PollTimeout::MAX);
        let mut fds = [PollFd::new(fd, PollFlags::POLLIN)];
        match poll(&mut fds, timeout) {
            Ok(0) | Err(nix::errno::Errno::EINTR) => continue,
            // Readable, hung up or in error: the next read tells which.
            Ok(_) => return true,
            Err(_) => return true,
        }
    }
}

/// Put the call through the gate and wait, until `deadline` at most, for a held one.
fn gate(
    agent: Agent,
    socket: Option<PathBuf>,
    call: Call,
    deadline: Instant,
    ask_when_held: bool,
) -> Answer {
    let socket = match assent_client::paths::resolve_door_socket(socket.as_deref()) {
        Ok(socket) => socket,
        Err(error) => return Answer::Deny(unavailable(&error.to_string())),
    };
    let mut conn = match Connection::connect(&socket) {
        Ok(conn) => conn,
        Err(error) => return Answer::Deny(unavailable(&error.to_string())),
    };
    let rewritable = call.rewritable;
    let line = match &call.subject {
        Subject::Shell { command, .. } => command.clone(),
        Subject::Tool { .. } => String::new(),
    };
    let request = Request::Check(CheckRequest {
        subject: call.subject,
        origin: call.origin,
        context: call.context,
        wait: true,
    });
    if let Err(error) = conn.send(&request) {
        return Answer::Deny(unavailable(&error.to_string()));
    }
    let verdict = match recv_by(&mut conn, deadline) {
        Some(Ok(Response::Verdict(verdict))) => verdict,
        Some(Ok(Response::Error(error))) => {
            return Answer::Deny(format!(
                "assent: assentd refused to judge this call ({error}); not allowed"
            ));
        }
        Some(Ok(other)) => {
            return Answer::Deny(unavailable(&format!("unexpected reply {other:?}")));
        }
        Some(Err(error)) => return Answer::Deny(unavailable(&error.to_string())),
        None => {
            return Answer::Deny(
                "assent: assentd did not answer before the hook's timeout; not allowed".into(),
            );
        }
    };
    let answer = match verdict.outcome() {
        Outcome::Allow => Answer::Allow(format!("{ALLOWED}({})", verdict.reason)),
        Outcome::Deny => Answer::Deny(format!("assent: denied {}", verdict_text(&verdict))),
        Outcome::Ask if agent.can_ask() && ask_when_held => Answer::Ask(format!(
            "assent would hold this for approval {}",
            verdict_text(&verdict)
        )),
        // An agent without a prompt of its own for hooks cannot ask: a deny.
        Outcome::Ask if agent.can_ask() => Answer::Ask(format!(
            "assent asks you to confirm this call {}",
            verdict_text(&verdict)
        )),
        // The verdict says the agent's own prompt decides; this one has none a hook can use.
        Outcome::Ask => Answer::Deny(format!(
            "assent: denied: this call needs a person's approval and the gate left it to the agent's own prompt, but {} takes no \"ask\" from a hook {}",
            agent.display(),
            verdict_text(&verdict)
        )),
        Outcome::Held(token) if ask_when_held => {
            withdraw(&mut conn, token);
            Answer::Ask(format!(
                "assent would hold this for approval {}",
                verdict_text(&verdict)
            ))
        }
        Outcome::Held(token) => {
            if agent.says_held() {
                say(&held_text(&verdict, token));
            }
            wait_held(&mut conn, &verdict, token, deadline)
        }
    };
    let follow_dir = agent == Agent::ClaudeCode;
    match (answer, rewritable) {
        (Answer::Allow(reason), Some(input)) => {
            rewrite::allowed(reason, &input, &line, &verdict, &socket, follow_dir)
        }
        (Answer::Ask(reason), Some(input)) => {
            rewrite::asked(reason, &input, &line, &verdict, &socket, follow_dir)
        }
        (answer, _) => answer,
    }
}

/// What an agent's hook says while a request waits: how to answer it, or, when another person
/// must (the policy's `[approvers]`), only that.
fn held_text(verdict: &Verdict, token: &str) -> String {
    if verdict.another_answers {
        format!(
            "held for approval {}; waiting for another person to answer",
            verdict_text(verdict)
        )
    } else {
        format!(
            "held for approval {}; waiting (approve from the desktop or with `assent approve {token}` in another terminal)",
            verdict_text(verdict)
        )
    }
}

/// Wait for the final word on a held request; withdraw it if `deadline` comes first.
fn wait_held(conn: &mut Connection, verdict: &Verdict, token: &str, deadline: Instant) -> Answer {
    match recv_by(conn, deadline) {
        Some(Ok(Response::Decided(decided))) if decided.allow => {
            Answer::Allow(format!("assent: held, then allowed: {}", decided.reason))
        }
        Some(Ok(Response::Decided(decided))) => Answer::Deny(format!(
            "assent: held for approval {}, then denied: {}. Do not retry it unchanged; ask the user",
            verdict_text(verdict),
            decided.reason
        )),
        Some(Ok(other)) => Answer::Deny(format!(
            "assent: unexpected reply while held ({other:?}); not allowed"
        )),
        Some(Err(error)) => Answer::Deny(format!(
            "assent: the gate went away while the call was held ({error}); not allowed"
        )),
        None => {
            withdraw(conn, token);
            Answer::Deny(format!(
                "assent: held for approval {}, but nobody answered before the hook's own timeout; the request was withdrawn and the call did not run. Ask the user to approve it, then retry",
                verdict_text(verdict)
            ))
        }
    }
}

/// Withdraw a held request (closing the connection would too; this says so at once).
fn withdraw(conn: &mut Connection, token: &str) {
    let _ = conn.send(&Request::Cancel {
        token: token.to_string(),
    });
    // The daemon's reply is not needed: dropping the connection withdraws it as well.
}

/// Receive one response, giving up at `deadline` (`None`).
fn recv_by(
    conn: &mut Connection,
    deadline: Instant,
) -> Option<Result<Response, assent_client::Error>> {
    if !wait_readable(conn.as_fd(), deadline) {
        return None;
    }
    // An error reply stays a `Response::Error` here (`recv`, unlike `request`, keeps it).
    Some(conn.recv())
}

/// The reason for a call that could not be checked, with how to start the daemon.
fn unavailable(why: &str) -> String {
    // A connect error already names the fix.
    let fix = if why.contains("assentd --user") {
        ""
    } else {
        " Start assentd (`assentd --user`, or the system service) and retry."
    };
    format!("assent: the gate is unavailable: {why}. Nothing is allowed without it.{fix}")
}

/// `(level): reason [finding-id: message; ...]`, on one line.
fn verdict_text(verdict: &Verdict) -> String {
    let mut text = format!("({}): {}", verdict.level.as_str(), verdict.reason);
    let findings: Vec<String> = verdict
        .findings
        .iter()
        .map(|f| format!("{}: {}", f.id, f.message))
        .collect();
    if !findings.is_empty() {
        text.push_str(&format!(" [{}]", findings.join("; ")));
    }
    text
}

/// Collapse a reason to one line (agents show stderr as one message).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request another person must answer: the agent's hook says so, not how to answer.
    #[test]
    fn a_hook_waiting_for_another_person_says_only_that() {
        let mut verdict = Verdict {
            decision: assent_client::protocol::Decision::Confirm,
            level: assent_client::protocol::Level::Destructive,
            findings: Vec::new(),
            reason: "default policy: destructive from agent".into(),
            token: Some("pa_1".into()),
            expires_in_ms: Some(1000),
            confine: None,
            grant: None,
            another_answers: false,
        };
        assert!(held_text(&verdict, "pa_1").contains("assent approve pa_1"));
        verdict.another_answers = true;
        let text = held_text(&verdict, "pa_1");
        assert!(text.contains("waiting for another person"), "{text}");
        assert!(!text.contains("assent approve"), "{text}");
    }

    /// The plain reading agrees with clap on every form it takes, and leaves the rest to it.
    #[test]
    fn plain_hook_flags_read_as_clap_reads_them() {
        let words = |args: &[&str]| args.iter().map(OsString::from).collect::<Vec<_>>();
        for args in [
            &["claude-code"][..],
            &["codex", "--timeout", "30"],
            &["gemini", "--socket", "/run/s", "--timeout", "55"],
            &["claude-code", "--ask-when-held", "--socket", "/s"],
            &["claude-code", "--defer"],
        ] {
            let plain = parse_plain(&words(args)).expect("a plain form");
            let argv = std::iter::once(OsString::from("assent hook")).chain(words(args));
            let clap = HookCli::try_parse_from(argv).expect("clap reads it too");
            assert_eq!(format!("{plain:?}"), format!("{clap:?}"), "{args:?}");
        }
        for args in [
            &[][..],
            &["--help"],
            &["claude"],
            &["codex", "--timeout"],
            &["codex", "--timeout", "soon"],
            &["codex", "--timeout=5"],
            &["gemini", "--bogus"],
        ] {
            assert!(parse_plain(&words(args)).is_none(), "{args:?}");
        }
    }

    #[test]
    fn long_tool_arguments_are_shortened_and_held() {
        let content = "x".repeat(MAX_TOOL_ARGS * 2);
        let args = serde_json::json!({"file_path": "/p/.env", "content": content});
        let call = tool_call("Write", &args, &serde_json::json!({}));
        let Subject::Tool { args_json, .. } = &call.subject else {
            panic!("a tool subject");
        };
        assert!(args_json.len() < MAX_TOOL_ARGS, "{}", args_json.len());
        assert!(args_json.contains("/p/.env"));
        assert_eq!(call.context.requires_confirmation, Some(true));
    }

    #[test]
    fn the_wrong_event_is_refused() {
        let input = serde_json::json!({"hook_event_name": "PostToolUse"});
        assert!(check_event(&input, "PreToolUse").is_err());
        assert!(check_event(&serde_json::json!([1]), "PreToolUse").is_err());
        assert!(check_event(&serde_json::json!({}), "PreToolUse").is_ok());
    }

    #[test]
    fn a_relative_cwd_is_refused() {
        let input = serde_json::json!({});
        assert!(shell_call("ls", "project", &input).is_err());
        assert!(shell_call("  ", "/p", &input).is_err());
        assert!(shell_call("ls", "/p", &input).is_ok());
    }
}
