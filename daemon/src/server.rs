//! The accept loop and the state every connection shares.
//!
//! `run` owns the daemon's life: it accepts until `shutdown` resolves, then stops accepting,
//! denies every held request with "gate stopping", gives connections a moment to deliver that,
//! and drains the audit queue. An error on one connection never reaches this loop.

use std::collections::HashMap;
use std::future::Future;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use assent_client::protocol::{Decided, DecidedBy, Response};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_seqpacket::{UnixSeqpacket, UnixSeqpacketListener};
use tracing::Instrument;

use crate::approvers::Approvers;
use crate::audit::Audit;
use crate::config::Config;
use crate::conn::Conn;
use crate::error::Error;
use crate::error::RequestError;
use crate::peer;
use crate::pending::Pending;
use crate::policy::Live;
use crate::remember::Remembered;
use crate::stats::Stats;
use crate::systemd::Notifier;

mod limits;
mod policy_change;

pub use limits::{Buffers, ConnLimits};
use limits::{ConnSlot, Connections};

/// A uid's home directory and user name, as the user database says.
type HomeAndName = (Option<String>, Option<String>);

/// How long connections get to deliver "gate stopping" before they are dropped.
const DRAIN_GRACE: Duration = Duration::from_millis(500);
/// How often held requests nobody waits on are checked for expiry.
const SWEEP_EVERY: Duration = Duration::from_secs(1);
/// The systemd watchdog is fed only while the sweeper ticked within this long: it runs every
/// [`SWEEP_EVERY`] on the runtime and takes the pending store's lock, so a stale heartbeat
/// means stuck workers, stopped timers or a lock that is never released.
const HEARTBEAT_STALE: Duration = Duration::from_secs(3);

/// What every connection shares.
#[derive(Debug)]
pub struct Shared {
    /// The configuration the daemon started with.
    pub config: Config,
    /// The policy in force.
    pub policy: Live,
    /// Checks per uid in the current second, for the policy's `rate_limit`.
    rates: Mutex<HashMap<u32, (Instant, u32)>>,
    /// Held requests.
    pub pending: Pending,
    /// One-time grants to run an allowed line confined (`assent sh --grant`).
    pub grants: crate::grants::Grants,
    /// What the kernel refused to confined runs, as its audit records say.
    pub denials: crate::denials::Denials,
    /// Remembered approvals.
    pub remembered: Remembered,
    /// The audit trail.
    pub audit: Arc<Audit>,
    /// Counters.
    pub stats: Arc<Stats>,
    /// When the daemon started.
    pub started: Instant,
    next_conn: AtomicU64,
    /// Open connections per uid, and in all.
    connections: Mutex<Connections>,
    /// What the process's descriptors allow.
    limits: ConnLimits,
    /// Connections being refused right now (each holds a descriptor for a moment).
    refusing: std::sync::atomic::AtomicUsize,
    /// Receive buffers lent to connections while they read a packet.
    pub buffers: Buffers,
    homes: Mutex<HashMap<u32, HomeAndName>>,
    /// The repositories found lately around working directories (`project.rs`).
    pub projects: crate::project::Cache,
    /// Landlock rulesets kept ready for the doors' confined runs.
    pub rulesets: crate::rulesets::Rulesets,
    /// What lines judged lately wanted read from the disk (`request/wanted.rs`).
    pub wanted: crate::request::Wanted,
    /// Milliseconds after `started` of the sweeper's last round (the watchdog's evidence).
    heartbeat: AtomicU64,
}

/// What the daemon keeps between runs, read before it serves: the remembered approvals and the
/// audit trail's tail (for `assent log`). Loading is linear in the files' sizes, which are
/// capped; `main` loads before it binds the socket, so no client waits on a socket nobody
/// accepts on while the state is read.
#[derive(Debug)]
pub struct Loaded {
    remembered: Remembered,
    audit: Audit,
    writer: crate::audit::Writer,
}

impl Loaded {
    /// Read the state directory and start the writers.
    pub fn load(config: &Config) -> Loaded {
        let (audit, writer) = Audit::start(&config.audit, crate::config::DEFAULT_LOG_MEMORY);
        Loaded {
            remembered: Remembered::open(Some(&config.state_dir)),
            audit,
            writer,
        }
    }
}

/// Load the state, then serve on `listener` until `shutdown` resolves. The listener is bound
/// (or inherited) by the caller, so tests bind before they spawn and never sleep.
pub async fn run(
    listener: UnixSeqpacketListener,
    config: Config,
    shutdown: impl Future<Output = ()>,
) {
    let loaded = Loaded::load(&config);
    serve(listener, config, loaded, shutdown).await;
}

/// Serve on `listener` with state already loaded until `shutdown` resolves.
pub async fn serve(
    mut listener: UnixSeqpacketListener,
    config: Config,
    loaded: Loaded,
    shutdown: impl Future<Output = ()>,
) {
    let Loaded {
        remembered,
        audit,
        writer,
    } = loaded;
    crate::places::running::add(&[
        (config.policy_file.as_path(), false),
        (config.state_dir.as_path(), true),
        (config.config_dir.as_path(), true),
        (config.socket.as_path(), false),
    ]);
    let audit = Arc::new(audit);
    let stats = Arc::new(Stats::default());
    let config_limit = config.max_connections_per_uid;
    let limits = ConnLimits::derive(config_limit);
    let shared = Arc::new(Shared {
        grants: crate::grants::Grants::default(),
        denials: crate::denials::Denials::start(),
        pending: Pending::new(
            config.hold_ttl,
            config.max_pending_per_uid,
            Arc::clone(&audit),
            Arc::clone(&stats),
            Arc::new(Approvers::default()),
        ),
        remembered,
        policy: Live::watching(config.policy_file.clone(), config.policy_required),
        rates: Mutex::new(HashMap::new()),
        config,
        audit,
        stats,
        started: Instant::now(),
        next_conn: AtomicU64::new(1),
        connections: Mutex::new(Connections::default()),
        rulesets: crate::rulesets::Rulesets::new(limits.kept_fds),
        limits,
        refusing: std::sync::atomic::AtomicUsize::new(0),
        buffers: Buffers::default(),
        homes: Mutex::new(HashMap::new()),
        projects: crate::project::Cache::default(),
        wanted: crate::request::Wanted::default(),
        heartbeat: AtomicU64::new(0),
    });
    shared.apply_policy_limits();
    if shared.config.mode == crate::config::Mode::User {
        shared.policy.guard_weakening();
    }
    let watcher = tokio::spawn(watch_policy(Arc::clone(&shared)));
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut tasks = JoinSet::new();
    let sweeper = {
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(SWEEP_EVERY);
            loop {
                tick.tick().await;
                shared.pending.sweep();
                shared.beat();
            }
        })
    };
    keep_rulesets_ahead(Arc::downgrade(&shared));
    let notifier = Arc::new(if shared.config.sd_notify {
        Notifier::from_env()
    } else {
        Notifier::none()
    });
    let watchdog = notifier.watchdog().map(|timeout| {
        tokio::spawn(feed_watchdog(
            Arc::clone(&shared),
            Arc::clone(&notifier),
            timeout,
        ))
    });
    tokio::pin!(shutdown);
    tracing::info!(socket = %shared.config.socket.display(), mode = shared.config.mode.as_str(), "assentd serving");
    // The listener was bound (or inherited) before `run`, so connections queue from here on.
    notifier.notify(&format!(
        "READY=1\nSTATUS=serving on {}",
        shared.config.socket.display()
    ));
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(socket) => {
                    let shared = Arc::clone(&shared);
                    let stop = stop_rx.clone();
                    tasks.spawn(connection(socket, shared, stop));
                }
                Err(error) => {
                    // Out of descriptors or memory: back off instead of spinning.
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
        }
    }
    tracing::info!(pending = shared.pending.len(), "assentd stopping");
    notifier.notify("STOPPING=1\nSTATUS=stopping");
    drop(listener);
    sweeper.abort();
    watcher.abort();
    if let Some(watchdog) = watchdog {
        watchdog.abort();
    }
    let _ = stop_tx.send(true);
    shared.pending.drain(&Decided {
        allow: false,
        by: DecidedBy::Shutdown,
        reason: "gate stopping".into(),
    });
    let drained = tokio::time::timeout(DRAIN_GRACE, async {
        while tasks.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tasks.abort_all();
    }
    // Remembered approvals' last use counts reach the disk before the process goes.
    let remembered = Arc::clone(&shared);
    let synced = tokio::task::spawn_blocking(move || remembered.remembered.sync()).await;
    if let Ok(Err(error)) = synced {
        tracing::error!(%error, "could not write the remembered approvals");
    }
    shared.audit.close();
    // The writer finishes its queue on its own thread; wait for it off the runtime.
    let _ = tokio::task::spawn_blocking(move || writer.join()).await;
}

/// Bind the daemon's socket at `path` with `mode` (0666 for the system daemon, whose callers
/// are told apart by their kernel credentials; 0600 for a user daemon). Refuses to start over a
/// live daemon; replaces a stale socket left by one that died.
pub fn bind(path: &Path, mode: u32) -> Result<UnixSeqpacketListener, Error> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|source| Error::Dir {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_socket() => {
            if UnixSeqpacket::connect_blocking(path).is_ok() {
                return Err(Error::LiveSocket {
                    path: path.to_path_buf(),
                });
            }
            tracing::info!(socket = %path.display(), "replacing a stale socket");
            std::fs::remove_file(path).map_err(|source| Error::Bind {
                path: path.to_path_buf(),
                source,
            })?;
        }
        Ok(_) => {
            return Err(Error::NotASocket {
                path: path.to_path_buf(),
            });
        }
        Err(_) => {}
    }
    let listener = UnixSeqpacketListener::bind(path).map_err(|source| Error::Bind {
        path: path.to_path_buf(),
        source,
    })?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(|source| {
        Error::Bind {
            path: path.to_path_buf(),
            source,
        }
    })?;
    Ok(listener)
}

/// One accepted connection: establish who it is, then serve it.
async fn connection(socket: UnixSeqpacket, shared: Arc<Shared>, stop: watch::Receiver<bool>) {
    let id = shared.next_conn.fetch_add(1, Ordering::Relaxed);
    let peer = match peer::identify(&socket) {
        Ok(peer) => peer,
        Err(error) => {
            tracing::warn!(%error, "refusing a connection without identity");
            refuse(&socket, RequestError::Identity(error.to_string())).await;
            return;
        }
    };
    let span = tracing::debug_span!("conn", id, uid = peer.uid, pid = peer.pid);
    let _slot = match ConnSlot::take(&shared, peer.uid) {
        Ok(slot) => slot,
        Err(message) => {
            refuse_at_limit(&shared, socket, message).await;
            return;
        }
    };
    let (home, user) = home_of(&shared, peer.uid).await;
    Conn::new(socket, peer, id, Arc::clone(&shared), home, user, stop)
        .serve()
        .instrument(span)
        .await;
}

/// How long a client refused at the connection limit gets to send its request, so that it
/// reads `limit_reached` as the reply to it rather than a reset connection.
const REFUSE_READ: Duration = Duration::from_millis(500);
/// At most this many refusals wait for their client's request at once; past it, a refused
/// connection is closed at once (its client sees the connection closed).
const MAX_REFUSING: usize = 64;

/// Refuse a connection over its uid's limit: read its request (a client that closes a
/// socket with an unread packet in it is told "connection reset", not why), answer
/// `limit_reached`, close.
async fn refuse_at_limit(shared: &Shared, socket: UnixSeqpacket, message: String) {
    tracing::warn!(%message, "refusing a connection at the limit");
    if shared.refusing.fetch_add(1, Ordering::Relaxed) < MAX_REFUSING {
        let mut small = [0u8; 64];
        let _ = tokio::time::timeout(REFUSE_READ, socket.recv(&mut small)).await;
        refuse(&socket, RequestError::ConnectionLimit(message)).await;
    }
    shared.refusing.fetch_sub(1, Ordering::Relaxed);
}

async fn refuse(socket: &UnixSeqpacket, error: RequestError) {
    let response = Response::Error(error.to_wire());
    if let Ok(packet) = assent_client::codec::encode_response(&response) {
        let _ = socket.send(&packet).await;
    }
}

/// The requester's home directory (for `~` in commands) and user name (for policy rules).
/// Looked up once per uid: a user database lookup may block, so it runs off the async workers.
async fn home_of(shared: &Arc<Shared>, uid: u32) -> HomeAndName {
    if let Ok(homes) = shared.homes.lock()
        && let Some(found) = homes.get(&uid)
    {
        return found.clone();
    }
    let found = tokio::task::spawn_blocking(move || {
        match nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid)) {
            Ok(Some(user)) => (user.dir.to_str().map(str::to_string), Some(user.name)),
            _ => (None, None),
        }
    })
    .await
    .unwrap_or((None, None));
    if let Ok(mut homes) = shared.homes.lock() {
        homes.insert(uid, found.clone());
    }
    found
}

impl Shared {
    /// Count one check against `uid`'s rate limit (the policy's `rate_limit`, checks per
    /// second), refusing it when the limit is reached.
    pub fn take_rate(&self, uid: u32, limit: Option<u32>) -> Result<(), RequestError> {
        let Some(limit) = limit else {
            return Ok(());
        };
        let now = Instant::now();
        let Ok(mut rates) = self.rates.lock() else {
            return Ok(());
        };
        // Forget the uids that went quiet, so the map stays as small as the busy uids.
        if rates.len() > 4096 {
            rates.retain(|_, (start, _)| now.duration_since(*start) < Duration::from_secs(1));
        }
        let (start, count) = rates.entry(uid).or_insert((now, 0));
        if now.duration_since(*start) >= Duration::from_secs(1) {
            *start = now;
            *count = 0;
        }
        if *count >= limit {
            return Err(RequestError::RateLimited { uid, limit });
        }
        *count += 1;
        Ok(())
    }

    /// Apply the policy's hold TTL and pending limit, unless flags fixed them.
    pub fn apply_policy_limits(&self) {
        let policy = self.policy.current();
        let ttl = match (self.config.hold_ttl_fixed, policy.settings.hold_ttl) {
            (false, Some(ttl)) => ttl,
            _ => self.config.hold_ttl,
        };
        let max = match (self.config.max_pending_fixed, policy.settings.pending_limit) {
            (false, Some(max)) => max,
            _ => self.config.max_pending_per_uid,
        };
        self.pending.set_limits(ttl, max);
    }
}

/// Makes again, before its next door asks, each kept ruleset a change dropped (`rulesets.rs`):
/// a thread of its own waits on the watches' events and on the mount table, and hands the plans
/// to make to the blocking pool. It ends once the daemon's shared state is gone.
fn keep_rulesets_ahead(shared: std::sync::Weak<Shared>) {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use std::os::fd::AsFd;
    let runtime = tokio::runtime::Handle::current();
    let listen = move || {
        let mut ahead = crate::rulesets::Ahead::default();
        // A mount or unmount drops every kept plan (`Rulesets` polls the table before each
        // hand-out, on its own open file: each open file is told of a change once, so this one
        // is ours).
        let mounts = std::fs::File::open("/proc/self/mountinfo").ok();
        // After the instance went (everything dropped), the plans made again make a new one
        // soon: look for it often for a while.
        let mut soon = 0;
        loop {
            let Some(listening) = shared.upgrade().map(|s| s.rulesets.listening()) else {
                return;
            };
            // Nothing planned yet: the first plan makes the watches.
            let Some((instance, events)) = listening else {
                if soon > 0 {
                    soon -= 1;
                    std::thread::sleep(Duration::from_millis(10));
                } else {
                    std::thread::sleep(Duration::from_secs(1));
                }
                continue;
            };
            let changed = |wait: u16| {
                let mut fds = vec![PollFd::new(events.as_fd(), PollFlags::POLLIN)];
                if let Some(mounts) = &mounts {
                    fds.push(PollFd::new(mounts.as_fd(), PollFlags::POLLPRI));
                }
                poll(&mut fds, PollTimeout::from(wait)).is_ok_and(|n| n > 0)
            };
            loop {
                // Woken by a change; else now and then, to see whether the daemon is gone.
                changed(5000);
                // Until the changes settle (a file written, then renamed over another, is a few
                // events a few milliseconds apart), for at most a tenth of a second.
                for _ in 0..20 {
                    if !changed(5) {
                        break;
                    }
                    if let Some(shared) = shared.upgrade() {
                        shared.rulesets.read_changes();
                    }
                }
                let Some(shared) = shared.upgrade() else {
                    return;
                };
                let (dropped, current) = shared.rulesets.changed(instance);
                let again = ahead.admit(dropped);
                if !again.is_empty() {
                    let shared = Arc::clone(&shared);
                    runtime.spawn_blocking(move || {
                        for again in again {
                            shared.rulesets.again(again);
                        }
                    });
                }
                if !current {
                    soon = 100;
                    break;
                }
            }
        }
    };
    let started = std::thread::Builder::new()
        .name("assent-rulesets".into())
        .spawn(listen);
    if let Err(error) = started {
        tracing::warn!(%error, "kept rulesets will not be made again ahead of their doors");
    }
}

/// Send `WATCHDOG=1` every half `timeout`, but only while the sweeper's heartbeat is fresh:
/// this task running shows a runtime worker is free, the heartbeat shows the timers fire and
/// the pending store's lock is taken and released. When either stops, systemd stops hearing
/// from us and restarts the daemon (`Restart=on-failure`).
async fn feed_watchdog(shared: Arc<Shared>, notifier: Arc<Notifier>, timeout: Duration) {
    let mut tick = tokio::time::interval(timeout / 2);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let since = shared.since_beat();
        if since <= HEARTBEAT_STALE {
            notifier.notify("WATCHDOG=1");
        } else {
            tracing::error!(?since, "the sweeper has stalled; not feeding the watchdog");
        }
    }
}

impl Shared {
    /// Record that the sweeper made a round.
    fn beat(&self) {
        let now = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.heartbeat.store(now, Ordering::Relaxed);
    }

    /// How long since the sweeper's last round.
    fn since_beat(&self) -> Duration {
        let last = Duration::from_millis(self.heartbeat.load(Ordering::Relaxed));
        self.started.elapsed().saturating_sub(last)
    }
}

/// Reload the policy when its file changes (polled) or on SIGHUP.
async fn watch_policy(shared: Arc<Shared>) {
    use tokio::signal::unix::{SignalKind, signal};
    let mut hup = if shared.config.reload_on_sighup {
        signal(SignalKind::hangup())
            .map_err(
                |error| tracing::warn!(%error, "could not watch SIGHUP; the file is still polled"),
            )
            .ok()
    } else {
        None
    };
    let mut tick = tokio::time::interval(shared.config.policy_poll);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let changed = tokio::select! {
            _ = tick.tick() => {
                let shared = Arc::clone(&shared);
                tokio::task::spawn_blocking(move || shared.policy.reload_if_changed())
                    .await
                    .unwrap_or(false)
            }
            Some(()) = async { match hup.as_mut() { Some(h) => h.recv().await, None => std::future::pending().await } } => {
                let shared = Arc::clone(&shared);
                tokio::task::spawn_blocking(move || shared.policy.reload("SIGHUP"))
                    .await
                    .unwrap_or(false)
            }
        };
        if changed {
            shared.apply_policy_limits();
            policy_change::ask(&shared);
        }
    }
}
