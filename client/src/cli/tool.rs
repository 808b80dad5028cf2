//! `assent tool NAME`: put an agent's tool call through the gate. Exit codes as `assent check`.
//!
//! The caller's `--confidence` and `--requires-confirmation` are claims: the daemon lets them
//! raise a decision, never lower one. There is deliberately no flag that allows more.

use std::io::Read;
use std::path::PathBuf;

use assent_client::protocol::{
    CheckRequest, Context, MAX_MESSAGE_LEN, Origin, RedeemRequest, Subject,
};
use clap::Args;

use super::check::{gate, redeem};
use super::{exit, messages};

mod batch;

/// Arguments past this size cannot travel in one packet with the rest of the request.
const MAX_ARGS_LEN: usize = MAX_MESSAGE_LEN - 4096;

/// `assent tool`.
#[derive(Debug, Args)]
pub struct ToolArgs {
    /// The tool's name (`file.delete`, `mcp__github__create_issue`).
    #[arg(required_unless_present = "batch")]
    name: Option<String>,
    /// Read a batch on stdin instead: JSON Lines of tool calls `{"tool": NAME, "args": {…},
    /// "cwd": …}` (or shell lines `{"command": …, "cwd": …}`), judged together; held items share one
    /// batch token. Prints one line per item.
    #[arg(long, conflicts_with_all = ["name", "args", "args_file"])]
    batch: bool,
    /// The tool's arguments as a JSON document (default `{}`).
    #[arg(long, value_name = "JSON", conflicts_with = "args_file")]
    args: Option<String>,
    /// Read the arguments from FILE (`-` for stdin).
    #[arg(long, value_name = "FILE")]
    args_file: Option<PathBuf>,
    /// The caller's confidence in the action, 0 to 1: below the policy's threshold a change is
    /// held.
    #[arg(long, value_name = "X")]
    confidence: Option<f32>,
    /// The caller's own view: true holds the call; false changes nothing.
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set)]
    requires_confirmation: Option<bool>,
    /// A session label (an agent's conversation id), shown to the approver.
    #[arg(long, value_name = "LABEL")]
    session: Option<String>,
    /// The agent's working directory, where the call's relative paths are and whose project
    /// it works in (default: the current directory).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Do not wait for a held request: print its token and exit 2.
    #[arg(long)]
    no_wait: bool,
    /// Redeem the token a `--no-wait` call printed, after a person answered it: exit 0 if
    /// approved (once, for exactly this tool and these arguments, in the same session), 1 if
    /// denied or refused, 2 with the token again while nobody has answered.
    #[arg(long, value_name = "TOKEN", conflicts_with_all = ["no_wait", "batch"])]
    token: Option<String>,
    /// Print the outcome as JSON on stdout.
    #[arg(long)]
    json: bool,
}

fn read_args(args: &ToolArgs) -> Result<String, u8> {
    let text = match (&args.args, &args.args_file) {
        (Some(json), _) => json.clone(),
        (None, Some(file)) => {
            let mut text = String::new();
            let read = if file.as_os_str() == "-" {
                std::io::stdin()
                    .take(MAX_MESSAGE_LEN as u64 + 1)
                    .read_to_string(&mut text)
            } else {
                std::fs::File::open(file)
                    .and_then(|f| f.take(MAX_MESSAGE_LEN as u64 + 1).read_to_string(&mut text))
            };
            if let Err(error) = read {
                messages::say(&format!("could not read {}: {error}", file.display()));
                return Err(exit::USAGE);
            }
            text
        }
        (None, None) => "{}".to_string(),
    };
    if text.len() > MAX_ARGS_LEN {
        messages::say(&format!(
            "the tool's arguments are larger than {MAX_ARGS_LEN} bytes: not sent, not allowed"
        ));
        return Err(exit::DENY);
    }
    // Arguments that are not JSON are the caller's mistake, told at once: sent on, they would
    // be held as opaque and wait for a person who cannot read them either.
    if let Err(error) = serde_json::from_str::<serde::de::IgnoredAny>(&text) {
        messages::say(&format!(
            "the tool's arguments are not JSON ({error}): nothing was checked"
        ));
        return Err(exit::USAGE);
    }
    Ok(text)
}

/// `assent tool`.
pub fn tool(socket: Option<PathBuf>, args: ToolArgs) -> u8 {
    if let Some(x) = args.confidence
        && !(0.0..=1.0).contains(&x)
    {
        messages::say("--confidence must be between 0 and 1");
        return exit::USAGE;
    }
    if args.batch {
        return batch::batch(socket, args);
    }
    let args_json = match read_args(&args) {
        Ok(text) => text,
        Err(code) => return code,
    };
    let name = args.name.clone().unwrap_or_default();
    let summary = format!("tool {name} {args_json}");
    let cwd = match super::check::working_dir(args.cwd.as_deref()) {
        Ok(cwd) => Some(cwd),
        Err(code) => return code,
    };
    if let Some(token) = args.token {
        let request = RedeemRequest {
            token,
            subject: Subject::Tool {
                name,
                args_json,
                cwd,
            },
            origin: Origin::Tool,
            context: Context {
                session: args.session,
                ..Context::default()
            },
        };
        return redeem(socket, request, args.json.then_some(summary.as_str())).exit_code(args.json);
    }
    let request = CheckRequest {
        subject: Subject::Tool {
            name,
            args_json,
            cwd,
        },
        origin: Origin::Tool,
        context: Context {
            session: args.session,
            requires_confirmation: args.requires_confirmation,
            confidence: args.confidence,
            prompt: false,
            agent: None,
            confines: false,
            grant: false,
            asks_when_held: false,
        },
        wait: !args.no_wait,
    };
    gate(socket, request, args.json.then_some(summary.as_str())).exit_code(args.json)
}
