//! `assent run` and `assent sh`: check, then become the command.
//!
//! The client executes after an allow (`exec`), so the daemon never holds anyone's process.

use std::ffi::OsString;
use std::io::{IsTerminal, Read};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;

use assent_client::protocol::{CheckRequest, Context, Origin, Subject};

use super::check::{Outcome, RequestArgs, gate_confining, working_dir};
use super::confine::{self, Confined};
use super::{exit, messages};

mod args;
pub(super) mod direct;

use args::Invocation;

/// The shell `assent sh` runs an allowed command with.
const SHELL: &str = "/bin/bash";
/// The most of a script read from stdin; more is checked as truncated (opaque) and refused.
const MAX_STDIN_SCRIPT: u64 = 1024 * 1024;

/// `assent run -- PROG ARGS...`.
pub fn run(socket: Option<PathBuf>, request: RequestArgs, argv: Vec<OsString>) -> u8 {
    let words: Option<Vec<String>> = argv.iter().map(|a| a.clone().into_string().ok()).collect();
    let Some(words) = words else {
        messages::say("arguments that are not valid UTF-8 cannot be checked; not running");
        return exit::UNAVAILABLE;
    };
    let line = shell_words::join(&words);
    let cwd = match working_dir(request.cwd.as_deref()) {
        Ok(cwd) => cwd,
        Err(code) => return code,
    };
    let after = confine::After {
        socket: socket.clone(),
        subject: Subject::shell(&line, cwd.clone()),
        origin: request.origin.into(),
    };
    let check = CheckRequest {
        subject: Subject::shell(&line, cwd),
        origin: request.origin.into(),
        context: Context {
            session: request.session,
            agent: std::env::var("ASSENT_AGENT").ok(),
            confines: true,
            ..Context::default()
        },
        wait: true,
    };
    let confinement = match allowed(gate_confining(socket, check)) {
        Ok(confinement) => confinement,
        Err(code) => return code,
    };
    let (program, args) = argv.split_first().expect("clap requires at least one word");
    start(
        std::process::Command::new(program).args(args),
        program,
        confinement,
        after,
    )
}

/// `assent sh ARGS...` (also `assent-sh ARGS...`).
pub fn sh(socket: Option<PathBuf>, args: Vec<OsString>) -> u8 {
    // A line an agent's hook was allowed and rewrote: redeemed, not judged again.
    if super::grant::asks(&args) {
        return super::grant::run(socket, &args);
    }
    let command = match args::parse(&args) {
        Ok(Invocation::Command(command)) => command,
        Err(why) => {
            messages::say(&format!("sh: {why} (nothing was checked or run)"));
            return exit::USAGE;
        }
        // A script file is judged by its name, like any command.
        Ok(Invocation::Script) => {
            let words: Vec<String> = std::iter::once("bash".to_string())
                .chain(args.iter().map(|a| a.to_string_lossy().into_owned()))
                .collect();
            let (confinement, after) = match check_agent_line(socket, &shell_words::join(&words)) {
                Ok(checked) => checked,
                Err(code) => return code,
            };
            return start(
                std::process::Command::new(SHELL).args(&args),
                SHELL.as_ref(),
                confinement,
                after,
            );
        }
        // No -c and no script: an interactive shell for a person, or a script on stdin.
        Ok(Invocation::Stdin) if std::io::stdin().is_terminal() => {
            return exec(
                std::process::Command::new(SHELL).args(&args),
                SHELL.as_ref(),
            );
        }
        Ok(Invocation::Stdin) => return stdin_script(socket, args),
    };
    let Ok(command) = command.into_string() else {
        messages::say("a command that is not valid UTF-8 cannot be checked; not running");
        return exit::UNAVAILABLE;
    };
    let (confinement, after) = match check_agent_line(socket, &command) {
        Ok(checked) => checked,
        Err(code) => return code,
    };
    // `-c LINE` alone (no login shell, no `$0`): a line of one program with literal words is
    // started without bash, as bash would have started it.
    if let [flag, _] = args.as_slice()
        && flag == "-c"
        && let Some(mut direct) = direct::command(&command)
    {
        return match confinement {
            Some(confined) => confine::run(
                &mut direct.command,
                direct.name.as_ref(),
                Some(&command),
                confined,
                after,
                None,
            ),
            None => exec_direct(&direct, &command),
        };
    }
    start(
        std::process::Command::new(SHELL).args(&args),
        SHELL.as_ref(),
        confinement,
        after,
    )
}

/// Entry point for the `assent-sh` link.
pub fn as_shell(args: Vec<OsString>) -> u8 {
    let socket = std::env::var_os(assent_client::paths::SOCKET_ENV).map(PathBuf::from);
    sh(socket, args)
}

/// A script piped to the shell: read it, check it whole, run it with `-c`.
fn stdin_script(socket: Option<PathBuf>, args: Vec<OsString>) -> u8 {
    let mut script = Vec::new();
    if let Err(error) = std::io::stdin()
        .take(MAX_STDIN_SCRIPT)
        .read_to_end(&mut script)
    {
        messages::say(&format!("could not read the script on stdin: {error}"));
        return exit::UNAVAILABLE;
    }
    let Ok(script) = String::from_utf8(script) else {
        messages::say("a script that is not valid UTF-8 cannot be checked; not running");
        return exit::UNAVAILABLE;
    };
    let (confinement, after) = match check_agent_line(socket, &script) {
        Ok(checked) => checked,
        Err(code) => return code,
    };
    let mut command = std::process::Command::new(SHELL);
    command.args(&args).arg("-c").arg(&script);
    start(&mut command, SHELL.as_ref(), confinement, after)
}

/// Check a line on an agent's behalf (a shell spawned by a program is automation): the
/// confinement to run it in (and what to ask after a failed run), or the exit code for a line
/// that will not run.
fn check_agent_line(
    socket: Option<PathBuf>,
    line: &str,
) -> Result<(Option<Confined>, confine::After), u8> {
    let cwd = working_dir(None)?;
    let after = confine::After {
        socket: socket.clone(),
        subject: Subject::shell(line, cwd.clone()),
        origin: Origin::Agent,
    };
    let check = CheckRequest {
        subject: Subject::shell(line, cwd),
        origin: Origin::Agent,
        context: Context {
            session: std::env::var("ASSENT_SESSION").ok(),
            agent: std::env::var("ASSENT_AGENT").ok(),
            confines: true,
            ..Context::default()
        },
        wait: true,
    };
    allowed(gate_confining(socket, check)).map(|confinement| (confinement, after))
}

/// The confinement to run in when allowed; otherwise the exit code for a command that will
/// not run.
fn allowed(gated: (Outcome, Option<Confined>)) -> Result<Option<Confined>, u8> {
    match gated {
        (Outcome::Allowed, confinement) => Ok(confinement),
        (Outcome::Cancelled, _) => Err(exit::CANCELLED),
        (Outcome::Denied | Outcome::Held(_) | Outcome::Failed(_), _) => Err(exit::UNAVAILABLE),
    }
}

/// Runs an allowed command: confined and waited for when the verdict says so, else by
/// becoming it.
fn start(
    command: &mut std::process::Command,
    program: &std::ffi::OsStr,
    confinement: Option<Confined>,
    after: confine::After,
) -> u8 {
    match confinement {
        Some(confined) => confine::run(command, program, None, confined, after, None),
        None => exec(command, program),
    }
}

/// Becomes the program of a line started without bash (`execve` of the file found, never the
/// C library's `execvp`, which runs a file the kernel refuses with `/bin/sh`), or, where it
/// cannot be started, `/bin/bash -c LINE`, which then answers as it would have.
fn exec_direct(direct: &direct::Direct, line: &str) -> u8 {
    let words = super::child::words(&direct.command, direct.name.as_ref());
    let bash = super::child::bash_argv(line);
    let error = match (words, bash) {
        (Ok(words), Ok(bash)) => {
            let _ = nix::unistd::execve(&words.program, &words.argv, &words.env);
            nix::unistd::execve(c"/bin/bash", &bash, &words.env)
                .map_or_else(std::io::Error::from, |never| match never {})
        }
        (Err(error), _) | (_, Err(error)) => error,
    };
    messages::say(&format!("could not run {}: {error}", direct.name));
    exit::UNAVAILABLE
}

fn exec(command: &mut std::process::Command, program: &std::ffi::OsStr) -> u8 {
    let error = command.exec();
    messages::say(&format!(
        "could not run {}: {error}",
        program.to_string_lossy()
    ));
    if error.kind() == std::io::ErrorKind::NotFound {
        exit::NOT_FOUND
    } else {
        exit::UNAVAILABLE
    }
}
