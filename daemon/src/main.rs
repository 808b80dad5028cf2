//! `assentd`: parse flags, set up logging, bind the socket, serve until SIGTERM or SIGINT.
//!
//! Exit codes: 0 after a clean stop; 1 when the daemon could not start (the reason is printed);
//! 2 for a usage error.

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
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "300s")]
    hold_ttl: Duration,
    /// How many requests one user may have held at once.
    #[arg(long, value_name = "N", default_value_t = assentd::config::DEFAULT_MAX_PENDING_PER_UID)]
    max_pending: usize,
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
    match start(args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("assentd: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn start(args: Args) -> anyhow::Result<()> {
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
    config.hold_ttl = args.hold_ttl;
    config.max_pending_per_uid = args.max_pending;
    init_logging(&config);
    prepare_state_dir(&config)?;

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("assentd")
        .build()
        .context("could not start the async runtime")?;
    runtime.block_on(async move {
        let mode = match config.mode {
            Mode::System => 0o666,
            Mode::User => 0o600,
        };
        let socket = config.socket.clone();
        let listener = assentd::bind(&socket, mode)?;
        assentd::run(listener, config, stop_signal()).await;
        // Leave no socket behind for the next start to probe.
        let _ = std::fs::remove_file(&socket);
        Ok(())
    })
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
