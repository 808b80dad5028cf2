//! The `assent` command line: flags, dispatch, exit codes.

pub mod admin;
pub mod check;
mod child;
pub mod colour;
pub mod confine;
pub mod docs;
pub mod explain;
pub mod fast;
mod grant;
pub mod hook;
pub mod init;
mod lines;
pub mod messages;
mod polkit;
pub mod prompt;
pub mod remembered;
pub mod resume;
pub mod setup;
pub mod shell;
mod term;
pub mod tool;
pub mod wait;
pub mod watch;

use std::path::PathBuf;

use assent_client::Connection;
use assent_client::paths::resolve_socket;
use assent_client::protocol::Origin;
use clap::{Parser, Subcommand, ValueEnum};

/// Exit codes, shared by every subcommand.
pub mod exit {
    /// Allowed (check), or the request succeeded.
    pub const ALLOW: u8 = 0;
    /// Denied (by policy, by a person, by expiry), or an answer was refused.
    pub const DENY: u8 = 1;
    /// Held, with `--no-wait`: the token is on stdout.
    pub const HELD: u8 = 2;
    /// A usage error.
    pub const USAGE: u8 = 64;
    /// The gate is unavailable (no daemon, wrong protocol): nothing was allowed.
    pub const UNAVAILABLE: u8 = 126;
    /// `run`/`sh`: the program was not found.
    pub const NOT_FOUND: u8 = 127;
    /// The person pressed Ctrl-C while the request was held; it was withdrawn.
    pub const CANCELLED: u8 = 130;
}

const AFTER_HELP: &str = "\
EXIT CODES (check, and approve/deny/pending/status/log where they apply):
    0    allowed (or the request succeeded)
    1    denied: by policy, by a person, by expiry; or an answer was refused
    2    held, with --no-wait (the token is printed on stdout)
    64   usage error
    126  the gate is unavailable (no daemon, wrong protocol version): nothing is allowed
    130  cancelled with Ctrl-C while held
  run and sh exit with the program's own status when allowed, 126 when denied or the gate is
  unavailable, 127 when the program is not found.

SOCKET: --socket PATH, else $ASSENT_SOCKET, else /run/assent/socket if it exists, else
$XDG_RUNTIME_DIR/assent/socket (a user daemon: `assentd --user`).";

/// Put commands through the assent gate: safe ones run at once, risky ones wait for a person's
/// approval, catastrophic ones are refused.
#[derive(Debug, Parser)]
#[command(name = "assent", version, after_help = AFTER_HELP, max_term_width = 100)]
pub struct Cli {
    /// The daemon's socket.
    #[arg(long, global = true, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// Levels and decisions in colour: auto (on a terminal, unless NO_COLOR is set), always,
    /// never.
    #[arg(long, global = true, value_name = "WHEN", default_value = "auto")]
    color: colour::When,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Ask whether a shell command may run (exit 0 allow, 1 deny, 2 held with --no-wait).
    ///
    /// The words after `--` are joined with spaces into one command line, as `sh -c "$*"`
    /// would see it. A held request waits for an answer (the desktop, or `assent approve` from
    /// another terminal) and shows the time left on stderr; Ctrl-C withdraws it.
    Check(check::CheckArgs),
    /// Wait for a request the bash builtin left held; its connection is on stdout.
    #[command(name = "__resume", hide = true)]
    Resume(resume::ResumeArgs),
    /// Check a program and its arguments, then run it in place of this process if allowed.
    Run {
        #[command(flatten)]
        request: check::RequestArgs,
        /// The program and its arguments (shell-quoted into the line that is checked).
        #[arg(required = true, trailing_var_arg = true, value_name = "PROG")]
        argv: Vec<std::ffi::OsString>,
    },
    /// A shell for agents: `assent sh -c STRING` checks STRING, then runs `/bin/bash -c STRING`.
    ///
    /// Set an agent's $SHELL to the `assent-sh` link to gate everything it runs through its
    /// shell. Without -c, commands read from a non-terminal stdin are checked as one script.
    Sh {
        /// Arguments as a shell would take them (`-c STRING [NAME [ARGS...]]`).
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "ARGS"
        )]
        args: Vec<std::ffi::OsString>,
    },
    /// Show how a command is analysed and what would be decided; holds nothing.
    #[command(after_help = explain::AFTER_HELP)]
    Explain(explain::ExplainArgs),
    /// Print the interactive shell hook: `eval "$(assent init bash)"` in ~/.bashrc (or zsh).
    Init {
        /// The shell.
        #[arg(value_enum)]
        shell: init::Shell,
    },
    /// Ask whether an agent's tool call may run (exit codes as `check`).
    ///
    /// The arguments travel as JSON; `--confidence` and `--requires-confirmation` are the
    /// caller's claims, which can hold a call but never allow more.
    Tool(tool::ToolArgs),
    /// Install the gate's hook for an agent or your shell, remove it, or check it.
    ///
    /// `assent setup claude-code|codex|gemini [--project DIR | --managed]` merges the hook into
    /// the agent's settings; `assent setup bash|zsh` adds the shell hook to your start-up file.
    /// Nothing else in the file changes, a second run changes nothing, and the original is kept
    /// as FILE.assent-backup. `--uninstall` takes the hook out; `--check` says whether each hook
    /// is installed and the gate answers (exit 0 when all are).
    Setup(setup::SetupArgs),
    /// Answer held requests from this terminal, one key each (for SSH, tmux, no desktop).
    ///
    /// Registers as an approval agent for this login session, like assent-notify, and shows
    /// each held request as it arrives: who asks, the command, where, why it was held, the time
    /// left. Keys: y allow once, s allow for the session, a always, d or n deny, q quit.
    Watch(watch::WatchArgs),
    /// List held requests you may answer.
    Pending {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Allow a held request (from another terminal than the one that asked).
    Approve(admin::ApproveArgs),
    /// Deny a held request.
    Deny(admin::AnswerArgs),
    /// List remembered approvals (your own; everyone's for root).
    #[command(alias = "rules")]
    Remembered {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove a remembered approval by id, or all of yours with --all.
    Forget(remembered::ForgetArgs),
    /// Show the daemon's version, mode, uptime and counters.
    Status {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show recent decisions (your own; all of them for root).
    Log {
        /// How many events.
        #[arg(short = 'n', long = "lines", default_value_t = 20, value_name = "N")]
        count: u32,
        /// Print JSON Lines.
        #[arg(long)]
        json: bool,
    },
    /// An agent's pre-tool hook: `assent hook claude-code|codex|gemini` (exit 0 allow, 2 deny).
    ///
    /// Reads the agent's hook JSON on stdin and answers in its format; see `assent hook --help`.
    #[command(disable_help_flag = true)]
    Hook {
        /// The agent and the hook's flags (parsed by the hook, so a usage error blocks too).
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "AGENT"
        )]
        args: Vec<std::ffi::OsString>,
    },
    /// Print shell completions for bash, zsh or fish (the Debian package installs them).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: docs::Shell,
    },
    /// Write the man pages into DIR (for packaging).
    #[command(hide = true)]
    Man {
        /// The directory to write assent.1 and one page per subcommand into.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
}

/// Who is asking, on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum OriginArg {
    /// A person at an interactive shell.
    Interactive,
    /// An agent or other automation.
    Agent,
}

impl From<OriginArg> for Origin {
    fn from(origin: OriginArg) -> Origin {
        match origin {
            OriginArg::Interactive => Origin::Interactive,
            OriginArg::Agent => Origin::Agent,
        }
    }
}

/// Parse flags and run the subcommand; returns the exit code.
/// `argv`: the arguments after the program's name.
pub fn main(argv: Vec<std::ffi::OsString>) -> u8 {
    if let Some((socket, args)) = fast::parse_check(&argv) {
        return check::check(socket, args);
    }
    // An agent's hook reads its own flags (without clap where it can): skip the main parser.
    if let Some((socket, args)) = fast::split_hook(&argv) {
        return hook::hook(socket, args);
    }
    // The line a hook rewrote, run right after the hook: the grant reads its own flags.
    if let Some((socket, args)) = fast::split_grant(&argv) {
        return shell::sh(socket, args);
    }
    let cli = match Cli::try_parse_from(std::iter::once("assent".into()).chain(argv)) {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() {
                exit::USAGE
            } else {
                exit::ALLOW
            };
        }
    };
    colour::set(cli.color);
    let socket = cli.socket;
    match cli.command {
        Command::Check(args) => check::check(socket, args),
        Command::Resume(args) => resume::resume(args),
        Command::Run { request, argv } => shell::run(socket, request, argv),
        Command::Sh { args } => shell::sh(socket, args),
        Command::Explain(args) => explain::explain(socket, args),
        Command::Init { shell } => init::init(shell),
        Command::Tool(args) => tool::tool(socket, args),
        Command::Pending { json } => admin::pending(socket, json),
        Command::Watch(args) => watch::watch(socket, args),
        Command::Setup(args) => setup::setup(socket, args),
        Command::Approve(args) => admin::approve(socket, args),
        Command::Deny(args) => admin::deny(socket, args),
        Command::Remembered { json } => remembered::remembered(socket, json),
        Command::Forget(args) => remembered::forget(socket, args),
        Command::Status { json } => admin::status(socket, json),
        Command::Log { count, json } => admin::log(socket, count, json),
        Command::Hook { args } => hook::hook(socket, args),
        Command::Completions { shell } => docs::completions(shell),
        Command::Man { dir } => docs::man(&dir),
    }
}

/// Connect to the daemon, or print why not.
pub fn connect(socket: Option<PathBuf>) -> Result<Connection, u8> {
    connect_to(resolve_socket(socket.as_deref()))
}

/// Connect a door that runs what the gate allows (`check`, `run`, `sh`) to the daemon: the
/// system gate's socket whenever it exists, unless `--socket` names another
/// ([`assent_client::paths::resolve_door_socket`]).
pub fn connect_door(socket: Option<PathBuf>) -> Result<Connection, u8> {
    connect_to(assent_client::paths::resolve_door_socket(socket.as_deref()))
}

fn connect_to(path: Result<PathBuf, assent_client::Error>) -> Result<Connection, u8> {
    let path = path.map_err(|error| {
        messages::error(&error);
        exit::UNAVAILABLE
    })?;
    Connection::connect(&path).map_err(|error| {
        messages::error(&error);
        exit::UNAVAILABLE
    })
}
