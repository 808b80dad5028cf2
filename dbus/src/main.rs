//! `assent-notify`: parse flags, set up logging, run the agent until SIGTERM or SIGINT.
//!
//! Exit codes: 0 after SIGTERM or SIGINT, or at once when another assent-notify already runs on
//! this session bus; 1 when the session bus cannot be used (at start, or
//! lost later: the graphical session ended); 2 for a usage error.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::Parser;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// assent's desktop approval agent: shows each of your held requests as a notification with
/// the buttons Allow once, Allow for this session, Always allow and Deny, and sends your answer
/// to assentd.
///
/// Run it in your graphical session (the packaged user unit `assent-notify.service` and the
/// XDG autostart entry do that). It registers with the daemon as the approver for your uid and
/// reconnects when the daemon restarts. Its notifications go to org.freedesktop.Notifications on
/// the session bus ($DBUS_SESSION_BUS_ADDRESS). One runs per session bus: a second start exits
/// at once with status 0.
///
/// Allow once runs the command this time. Allow for this session also allows the same command
/// in the same directory for the rest of the requester's session. Always allow remembers it
/// until `assent forget`. Deny refuses it this time. Dismissing a notification answers
/// nothing: the request stays held until it expires, which denies it once (a "missed request"
/// notification then says what was denied). Identical requests share one notification; a batch
/// shows Allow all, Deny all, and Review (one notification per item).
///
/// The daemon's socket: --socket, else $ASSENT_SOCKET, else /run/assent/socket if it exists,
/// else $XDG_RUNTIME_DIR/assent/socket (a user daemon).
///
/// Logging goes to the journal when started by systemd (JOURNAL_STREAM set), else to stderr;
/// set the filter with ASSENT_LOG (e.g. ASSENT_LOG=debug).
#[derive(Debug, Parser)]
#[command(name = "assent-notify", version, max_term_width = 100)]
struct Args {
    /// The daemon's socket.
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// Write the man page assent-notify.1 into DIR and exit (for packaging).
    #[arg(long, value_name = "DIR", hide = true)]
    man: Option<PathBuf>,
    /// Print shell completions for bash, zsh or fish and exit (for packaging).
    #[arg(long, value_name = "SHELL", hide = true)]
    completions: Option<clap_complete::Shell>,
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    if let Some(shell) = args.completions {
        use clap::CommandFactory as _;
        clap_complete::generate(
            shell,
            &mut Args::command(),
            "assent-notify",
            &mut std::io::stdout(),
        );
        return std::process::ExitCode::SUCCESS;
    }
    if let Some(dir) = &args.man {
        return match write_page(dir) {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("assent-notify: could not write the man page: {error}");
                std::process::ExitCode::FAILURE
            }
        };
    }
    init_logging();
    match start(args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error)
            if matches!(
                error.downcast_ref::<assent_notify::Error>(),
                Some(assent_notify::Error::AlreadyRunning)
            ) =>
        {
            // Not a failure: the session already has its agent (and systemd must not restart).
            tracing::info!("{error}");
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            tracing::error!("{error:#}");
            eprintln!("assent-notify: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// `assent-notify.1`, generated from the clap definition so the page cannot drift from the
/// flags, with the sections the definition cannot give.
fn write_page(dir: &std::path::Path) -> std::io::Result<()> {
    use assent_client::man::{Section, see_also, statuses, tagged, with_sections};
    use clap::CommandFactory as _;
    let man = clap_mangen::Man::new(Args::command());
    let mut page = Vec::new();
    man.render(&mut page)?;
    let status = statuses(&[
        (
            0,
            "Stopped by SIGTERM or SIGINT, or another assent-notify already runs on this session bus.",
        ),
        (
            1,
            "The session bus cannot be used, at start or later (the graphical session ended).",
        ),
        (2, "Usage error."),
    ]);
    let environment = tagged(&[
        (
            "DBUS_SESSION_BUS_ADDRESS",
            "The session bus, where the notification server is.",
        ),
        (
            "ASSENT_SOCKET",
            "The daemon's socket when --socket is not given.",
        ),
        ("ASSENT_LOG", "The log filter (ASSENT_LOG=debug)."),
    ]);
    let files = tagged(&[
        (
            "/usr/lib/systemd/user/assent-notify.service",
            "The user unit: systemctl --user enable --now assent-notify.",
        ),
        (
            "/etc/xdg/autostart/assent-notify.desktop",
            "Starts it at desktop login where there is no systemd user session.",
        ),
    ]);
    let see = see_also(&[("assent", "1"), ("assentd", "8"), ("assent-policy", "5")]);
    let page = with_sections(
        &String::from_utf8_lossy(&page),
        &[
            Section {
                title: "EXIT STATUS",
                body: &status,
            },
            Section {
                title: "ENVIRONMENT",
                body: &environment,
            },
            Section {
                title: "FILES",
                body: &files,
            },
            Section {
                title: "SEE ALSO",
                body: &see,
            },
        ],
    );
    std::fs::write(dir.join(man.get_filename()), page)
}

fn start(args: Args) -> anyhow::Result<()> {
    let socket = assent_client::paths::resolve_socket(args.socket.as_deref())
        .context("could not find the daemon's socket")?;
    let config = assent_notify::Config {
        socket,
        name: format!("assent-notify {}", env!("CARGO_PKG_VERSION")),
    };
    // One thread is plenty for one user's notifications, and zbus runs on it.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    runtime.block_on(assent_notify::run(config, stop_signal()))?;
    Ok(())
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

/// To the journal when systemd connected stderr to it, else stderr; filtered by `ASSENT_LOG`.
fn init_logging() {
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::filter::EnvFilter;
    let filter =
        || EnvFilter::try_from_env("ASSENT_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    let journal = std::env::var_os("JOURNAL_STREAM")
        .is_some()
        .then(|| {
            tracing_journald::layer()
                .ok()
                .map(|layer| layer.with_syslog_identifier("assent-notify".into()))
        })
        .flatten();
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
        .try_init();
}
