//! `assentd`: parse flags, set up logging, bind the socket (or take the one systemd passed),
//! serve until SIGTERM or SIGINT.
//!
//! Exit codes: 0 after a clean stop; 1 when the daemon could not start (the reason is printed);
//! 2 for a usage error.

mod docs;

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;
use assentd::config::{Config, Mode};
use clap::Parser;
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// The assent daemon: judges every shell command and tool call sent to it, lets safe ones run,
/// holds risky ones for a person's approval, and refuses catastrophic ones.
///
/// System mode (the default, as root): socket /run/assent/socket (mode 0666; callers are
/// identified by the kernel), state in /var/lib/assent, configuration in /etc/assent, audit to
/// the journal.
///
/// User mode (--user, no root needed): socket $XDG_RUNTIME_DIR/assent/socket (mode 0600), state
/// in $XDG_STATE_HOME/assent, configuration in $XDG_CONFIG_HOME/assent, audit to
/// $XDG_STATE_HOME/assent/audit.jsonl.
///
/// Logging goes to the journal when its socket exists, else to stderr; set the filter with
/// ASSENT_LOG (e.g. ASSENT_LOG=debug).
///
/// Under systemd: with NOTIFY_SOCKET set it reports READY=1, WATCHDOG=1 (when WATCHDOG_USEC
/// asks) and STOPPING=1; with LISTEN_FDS=1 for its pid it serves on the socket systemd passed
/// (socket activation) instead of binding one.
#[derive(Debug, Parser)]
#[command(name = "assentd", version, max_term_width = 100)]
struct Args {
    /// Run as one user's daemon, without root.
    #[arg(long)]
    user: bool,
    /// Listen on this socket instead of the mode's default.
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// Keep state (audit file, remembered approvals) here instead of the mode's default.
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
    /// How long a held request waits for an answer before it is denied (e.g. 300s, 5m, 500ms).
    /// Overrides the policy's hold_ttl; default 300s.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    hold_ttl: Option<Duration>,
    /// How many requests one user may have held at once. Overrides the policy's pending_limit;
    /// default 32.
    #[arg(long, value_name = "N")]
    max_pending: Option<usize>,
    /// The policy file (default: policy.toml in the mode's configuration directory; the
    /// embedded default when there is none).
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
    /// Validate a policy file (FILE, else the one the daemon would use), print the effective
    /// policy and its warnings, and exit: 0 when it is valid, 1 when not.
    #[arg(long, value_name = "FILE", num_args = 0..=1)]
    check_policy: Option<Option<PathBuf>>,
    /// What to do with an agent's request that needs a person when no approval agent
    /// (assent-notify) is running for its user: deny (the embedded default), hold (wait for
    /// `assent approve` until it expires) or ask (let the agent's own prompt decide). Overrides
    /// the policy's no_approver.
    #[arg(long, value_name = "deny|hold|ask", value_parser = parse_no_approver)]
    no_approver: Option<assentd::policy::NoApprover>,
    /// An executable that may register as an approval agent (system mode; repeat it for
    /// several; default /usr/bin/assent-notify and /usr/bin/assent, for `assent watch`). User
    /// mode accepts any process of the user.
    #[arg(long, value_name = "PATH")]
    approver_exe: Vec<PathBuf>,
    /// Act as if the kernel's Landlock ABI were at most N (0: no Landlock): what the doors
    /// run is then not confined, and what would have run confined instead of held is held.
    #[arg(long, value_name = "N")]
    landlock_abi: Option<u32>,
    /// Print shell completions for bash, zsh or fish and exit (for packaging).
    #[arg(long, value_name = "SHELL", hide = true)]
    completions: Option<docs::Shell>,
    /// Write the man pages assentd.8 and assent-policy.5 into DIR and exit (for packaging).
    #[arg(long, value_name = "DIR", hide = true)]
    man: Option<PathBuf>,
}

/// `assentd --check-policy [FILE]`.
fn check_policy(
    file: Option<PathBuf>,
    config_file: PathBuf,
    required: bool,
) -> std::process::ExitCode {
    let (file, required) = match file {
        Some(file) => (file, true),
        None => (config_file, required),
    };
    let loaded = if !required && !file.exists() {
        println!(
            "# no {}: the embedded default policy applies",
            file.display()
        );
        assentd::policy::parse(assentd::policy::DEFAULT_POLICY, "embedded default")
    } else {
        assentd::policy::load(&file)
    };
    match loaded {
        Ok(loaded) => {
            for warning in &loaded.warnings {
                eprintln!("assentd: warning: {warning}");
            }
            print!("{}", loaded.policy.text);
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("assentd: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn parse_no_approver(text: &str) -> Result<assentd::policy::NoApprover, String> {
    use assentd::policy::NoApprover;
    match text {
        "deny" => Ok(NoApprover::Deny),
        "hold" => Ok(NoApprover::Hold),
        "ask" => Ok(NoApprover::Ask),
        other => Err(format!("{other:?} is not one of deny, hold, ask")),
    }
}

fn parse_duration(text: &str) -> Result<Duration, String> {
    let duration = humantime::parse_duration(text).map_err(|e| e.to_string())?;
    if duration.is_zero() {
        return Err("must be longer than zero".into());
    }
    Ok(duration)
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    if let Some(code) = docs::generate(args.completions, args.man.as_deref()) {
        return code;
    }
    match start(args) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("assentd: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn start(args: Args) -> anyhow::Result<std::process::ExitCode> {
    // Before anything opens a file (the journal's socket, the policy), so that a descriptor 3
    // that is not systemd's cannot be one of our own.
    let inherited = assentd::systemd::listen_fd()?;
    let mut config = if args.user {
        Config::user_with(args.socket, args.state_dir)?
    } else {
        let mut config = Config::system();
        if let Some(socket) = args.socket {
            config.socket = socket;
        }
        if let Some(state_dir) = args.state_dir {
            if config.audit.jsonl.is_some() {
                config.audit.jsonl = Some(state_dir.join("audit.jsonl"));
            }
            config.state_dir = state_dir;
        }
        config
    };
    if let Some(ttl) = args.hold_ttl {
        config.hold_ttl = ttl;
        config.hold_ttl_fixed = true;
    }
    if let Some(max) = args.max_pending {
        config.max_pending_per_uid = max;
        config.max_pending_fixed = true;
    }
    if let Some(file) = args.policy {
        config.policy_file = file;
        config.policy_required = true;
    }
    if let Some(abi) = args.landlock_abi {
        assentd::landlock::limit(abi);
    }
    if args.no_approver.is_some() {
        config.no_approver = args.no_approver;
    }
    if !args.approver_exe.is_empty() {
        config.approver_exes = args.approver_exe;
    }
    if let Some(file) = args.check_policy {
        return Ok(check_policy(
            file,
            config.policy_file,
            config.policy_required,
        ));
    }
    init_logging(&config);
    // A policy that does not load stops the start: better no gate than a silently different one.
    assentd::policy::live::initial(&config.policy_file, config.policy_required)
        .map_err(|error| anyhow::anyhow!("could not load the policy: {error}"))?;
    config.reload_on_sighup = true;
    config.sd_notify = true;
    prepare_state_dir(&config)?;
    // The state is read before the socket is bound (or, under socket activation, before the
    // first accept): a client never waits on a daemon that is still reading.
    let loaded = assentd::Loaded::load(&config);

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("assentd")
        .build()
        .context("could not start the async runtime")?;
    // The daemon runs as a task on the runtime's workers, not on this thread: a future that
    // `block_on` drives is polled here, so every accepted connection would cost a wake-up of
    // this thread and a hand-over to a worker. Spawned, the accept loop and the connections it
    // starts run on the worker that heard the socket (BENCHMARKS.md, "Whole process").
    runtime.block_on(async move {
        match tokio::spawn(run(config, loaded, inherited)).await {
            Ok(result) => result,
            Err(error) => Err(anyhow::anyhow!(
                "the daemon's task ended abnormally: {error}"
            )),
        }
    })
}

/// Serve on the socket: bound here, or inherited from systemd.
async fn run(
    mut config: Config,
    loaded: assentd::Loaded,
    inherited: Option<std::os::fd::OwnedFd>,
) -> anyhow::Result<std::process::ExitCode> {
    let mode = match config.mode {
        Mode::System => 0o666,
        Mode::User => 0o600,
    };
    let Some(inherited) = inherited else {
        let socket = config.socket.clone();
        let listener = assentd::bind(&socket, mode)?;
        assentd::serve(listener, config, loaded, stop_signal()).await;
        // Leave no socket behind for the next start to probe.
        let _ = std::fs::remove_file(&socket);
        return Ok(std::process::ExitCode::SUCCESS);
    };
    // Socket activation: systemd bound the socket, owns its file and keeps listening after
    // we stop, so it is neither bound nor removed here.
    let listener = tokio_seqpacket::UnixSeqpacketListener::try_from(inherited)
        .context("could not serve on the socket systemd passed")?;
    if let Ok(path) = listener.local_addr() {
        config.socket = path;
    }
    assentd::serve(listener, config, loaded, stop_signal()).await;
    Ok(std::process::ExitCode::SUCCESS)
}

fn prepare_state_dir(config: &Config) -> anyhow::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&config.state_dir)
        .with_context(|| format!("could not create {}", config.state_dir.display()))
}

/// Resolves on SIGTERM or SIGINT.
async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        tracing::error!("could not install signal handlers; stop with SIGKILL");
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}

/// Logs to the journal when there is one, else stderr, filtered by `ASSENT_LOG`. Audit events
/// (target `assent::audit`) go to the journal whenever the audit config says so, whatever the
/// log filter, and never to stderr.
fn init_logging(config: &Config) {
    use tracing_subscriber::filter::{EnvFilter, Targets};
    let filter = || {
        EnvFilter::try_from_env("ASSENT_LOG")
            .unwrap_or_else(|_| EnvFilter::new("info"))
            .add_directive(
                "assent::audit=off"
                    .parse()
                    .expect("a constant directive parses"),
            )
    };
    let journal = std::path::Path::new("/run/systemd/journal/socket")
        .exists()
        .then(|| tracing_journald::layer().ok())
        .flatten();
    let audit_layer = if config.audit.journald {
        tracing_journald::layer().ok().map(|layer| {
            layer
                .with_field_prefix(None)
                .with_syslog_identifier("assentd".into())
                .with_filter(Targets::new().with_target("assent::audit", tracing::Level::INFO))
        })
    } else {
        None
    };
    let (journal_log, stderr_log) = match journal {
        Some(layer) => (Some(layer.with_filter(filter())), None),
        None => (
            None,
            Some(
                tracing_subscriber::fmt::layer()
                    .with_writer(std::io::stderr)
                    .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
                    .with_filter(filter()),
            ),
        ),
    };
    let _ = tracing_subscriber::registry()
        .with(journal_log)
        .with(stderr_log)
        .with(audit_layer)
        .try_init();
}
