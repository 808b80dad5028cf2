//! `assent __resume [--expires MS] [--level LEVEL] [--another] TOKEN [-- LINE]` (hidden): wait for a
//! request the bash builtin left held, asking at the terminal when given the level and line.
//!
//! The `assent_check` builtin (`shell-hook/builtin/`) sends the line's check from inside bash;
//! when it is held, it keeps the connection open in the shell instead of waiting there, and the
//! hook runs `assent __resume … TOKEN -- LINE >&FD`. The connection arrives on stdout because that is
//! the one way to take over an inherited descriptor without `unsafe` (this binary forbids it).
//! From then on it is `assent check`'s wait, with the same code: the time left on stderr,
//! Ctrl-C withdraws the request, and the same exit codes (0 allowed, 1 denied, 130 cancelled,
//! 126 the gate went away, 64 stdout is not a connection).

use std::os::fd::AsFd;

use assent_client::Connection;
use assent_client::protocol::Level;
use clap::Args;
use nix::sys::socket::{SockType, getsockopt, sockopt};

use super::{exit, messages, prompt, wait};

/// `assent __resume`.
#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// Milliseconds until the request expires, as the verdict said.
    #[arg(long = "expires", value_name = "MS")]
    expires_ms: Option<u64>,
    /// The request's level, for the terminal prompt.
    #[arg(long, value_name = "LEVEL")]
    level: Option<String>,
    /// Another person must answer (the policy's `[approvers]`): no prompt here, and the wait
    /// says so.
    #[arg(long)]
    another: bool,
    /// The held request's token.
    token: String,
    /// The command line, for the terminal prompt (the builtin sent the request with `prompt`
    /// set when the shell was on a terminal).
    #[arg(last = true, value_name = "LINE")]
    line: Vec<String>,
}

/// Wait on the connection on stdout for the held request's outcome.
pub fn resume(args: ResumeArgs) -> u8 {
    let socket = match std::io::stdout().as_fd().try_clone_to_owned() {
        Ok(fd) => fd,
        Err(error) => {
            messages::say(&format!("__resume: no connection on stdout ({error})"));
            return exit::USAGE;
        }
    };
    if !matches!(
        getsockopt(&socket, sockopt::SockType),
        Ok(SockType::SeqPacket)
    ) {
        messages::say("__resume: stdout is not a connection to assentd");
        return exit::USAGE;
    }
    // Anything printed on stdout from here would be a packet to the daemon: point it at stderr.
    if let Err(errno) = nix::unistd::dup2_stdout(std::io::stderr()) {
        messages::say(&format!("__resume: could not move stdout ({errno})"));
        return exit::USAGE;
    }
    let mut conn = Connection::from_fd(socket);
    // The same terminal prompt as `assent check --origin interactive`, when the builtin says
    // the level and the line, and this process may ask at the terminal.
    let ask = match (args.level.as_deref().and_then(level), args.line.is_empty()) {
        (Some(level), false) if !args.another => prompt::terminal().map(|tty| prompt::Prompt {
            tty,
            deadline: None,
            forbidden: level == Level::Forbidden,
        }),
        _ => None,
    };
    match wait::wait_prompting(
        &mut conn,
        &args.token,
        args.expires_ms,
        true,
        args.another,
        ask,
    ) {
        wait::Waited::Decided(decided) => {
            messages::decided(&decided);
            if decided.allow {
                exit::ALLOW
            } else {
                exit::DENY
            }
        }
        wait::Waited::Cancelled => exit::CANCELLED,
        wait::Waited::Lost(error) => {
            messages::error(&error);
            messages::say("the gate went away while the request was held: not allowed");
            exit::UNAVAILABLE
        }
    }
}

/// A level by its name, as the builtin passes it.
fn level(name: &str) -> Option<Level> {
    [
        Level::Safe,
        Level::Moderate,
        Level::Opaque,
        Level::Destructive,
        Level::Forbidden,
    ]
    .into_iter()
    .find(|level| level.as_str() == name)
}
