//! `assent`: the thin client. Puts a command through the gate, then runs it or not.
//!
//! Exit codes are part of the contract with hooks and agents (see `EXIT CODES` in `--help`).
//! Start-up is the user's wait on every command, so the allow path does one connect, one send,
//! one receive, and nothing else.

#![forbid(unsafe_code)]

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os();
    let argv0 = args.next().unwrap_or_default();
    // Invoked as `assent-sh` (a symlink), it is a shell: `assent-sh -c STRING`.
    let name = std::path::Path::new(&argv0)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let code = if name == "assent-sh" {
        cli::shell::as_shell(args.collect())
    } else {
        cli::main()
    };
    ExitCode::from(code)
}
