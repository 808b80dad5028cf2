//! The gate end to end: round-trip latency and throughput against the real daemon running
//! in-process on a temp socket, and the memory of the real `assentd` binary idle and with 1,000
//! held requests.
//!
//! `cargo bench -p assentd --bench gate`. The memory part spawns `target/release/assentd`
//! (found next to this bench's executable, or at `$ASSENTD_BIN`); build it first with `cargo
//! build --release --bins`, or that part is skipped with a message. Targets: round
//! trip p99 ≤ 100 µs, ≥ 20,000 checks/s over 64 connections, RSS ≤ 30 MB idle and
//! ≤ 60 MB with 1,000 held. Whole run: well under two minutes, Unix sockets only.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Barrier};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use assent_client::Connection;
use assent_client::protocol::{
    CheckRequest, Context, Decision, Origin, Request, Response, Subject, Verdict,
};
use tokio::sync::oneshot;

/// Round trips before the latency sample, so the allocator and caches are warm.
const WARMUP: usize = 10_000;
/// Round trips measured on one connection.
const ROUND_TRIPS: usize = 100_000;
/// Connect, check, close cycles measured (what one `assent check` costs the daemon).
const CONNECT_CYCLES: usize = 10_000;
/// Concurrent clients for throughput and latency under load, one thread each.
const THREADS: usize = 64;
/// Checks per thread for throughput.
const PER_THREAD: usize = 3_000;
/// Held requests for the memory measurement.
const HELD: usize = 1_000;

fn main() {
    let rows = gate_rows();
    print_table("assentd in-process (round trip and throughput)", &rows);
    match memory_rows() {
        Ok(rows) => print_table("assentd binary (memory)", &rows),
        Err(why) => println!("\nmemory: skipped: {why}"),
    }
}

/// One line of output: what, result, target, pass.
struct Row {
    what: String,
    result: String,
    target: &'static str,
    pass: Option<bool>,
}

fn row(what: impl Into<String>, result: String, target: &'static str, pass: Option<bool>) -> Row {
    Row {
        what: what.into(),
        result,
        target,
        pass,
    }
}

fn print_table(title: &str, rows: &[Row]) {
    println!("\n{title}");
    println!(
        "{:<56} {:>12} {:>12} {:>5}",
        "what", "result", "target", "pass"
    );
    println!("{}", "-".repeat(88));
    for r in rows {
        let pass = match r.pass {
            Some(true) => "yes",
            Some(false) => "NO",
            None => "",
        };
        println!(
            "{:<56} {:>12} {:>12} {:>5}",
            r.what, r.result, r.target, pass
        );
    }
}

/// A safe agent command, allowed by the default policy.
fn safe_check() -> Request {
    check(
        Subject::Shell {
            command: "ls -la".into(),
            cwd: "/tmp".into(),
            truncated: false,
        },
        false,
    )
}

fn check(subject: Subject, wait: bool) -> Request {
    Request::Check(CheckRequest {
        subject,
        origin: Origin::Agent,
        context: Context::default(),
        wait,
    })
}

fn verdict_of(conn: &mut Connection, request: &Request) -> Verdict {
    match conn.request(request).expect("the daemon answers a check") {
        Response::Verdict(verdict) => verdict,
        other => panic!("a check is answered with a verdict, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// In-process daemon: latency and throughput.

/// The real daemon on its own runtime thread; dropping it stops the daemon.
struct InProcess {
    socket: PathBuf,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl InProcess {
    fn start() -> InProcess {
        let dir = tempfile::tempdir().expect("a temp dir for the socket");
        let socket = dir.path().join("socket");
        let state = dir.path().join("state");
        std::fs::create_dir_all(&state).expect("the state dir can be created");
        let config = assentd::Config::for_user_dirs(socket.clone(), state, dir.path().join("cfg"));
        let (stop, stopped) = oneshot::channel::<()>();
        let (bound_tx, bound_rx) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            // Like `assentd`'s main: a multi-thread runtime with one worker per core.
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .expect("a tokio runtime starts");
            runtime.block_on(async move {
                let listener = assentd::bind(&config.socket, 0o600).expect("the socket binds");
                bound_tx.send(()).expect("the bench waits for the bind");
                assentd::run(listener, config, async {
                    let _ = stopped.await;
                })
                .await;
            });
        });
        bound_rx.recv().expect("the daemon thread binds the socket");
        InProcess {
            socket,
            stop: Some(stop),
            thread: Some(thread),
            _dir: dir,
        }
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn gate_rows() -> Vec<Row> {
    let daemon = InProcess::start();
    let mut rows = round_trip_rows(&daemon.socket);
    rows.extend(connect_cycle_rows(&daemon.socket));
    rows.extend(throughput_rows(&daemon.socket));
    rows.push(audit_row(&daemon.socket));
    rows
}

/// After every check above: what the audit writer lost (it applies backpressure instead).
fn audit_row(socket: &Path) -> Row {
    let mut conn = Connection::connect(socket).expect("the bench connects to the daemon");
    let status = |conn: &mut Connection| match conn.request(&Request::Status) {
        Ok(Response::Status(status)) => status,
        other => panic!("a status, not {other:?}"),
    };
    let started = Instant::now();
    while status(&mut conn).audit_waiting > 0 && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = status(&mut conn);
    let made = status.allowed + status.denied + status.held;
    row(
        format!(
            "audit events lost of {made} (waiting {})",
            status.audit_waiting
        ),
        status.audit_lost.to_string(),
        "0",
        Some(status.audit_lost == 0 && status.audit_waiting == 0),
    )
}

fn round_trip_rows(socket: &Path) -> Vec<Row> {
    let mut conn = Connection::connect(socket).expect("the bench connects to the daemon");
    let request = safe_check();
    let first = verdict_of(&mut conn, &request);
    assert_eq!(
        first.decision,
        Decision::Allow,
        "`ls -la` from an agent is allowed"
    );
    for _ in 0..WARMUP {
        verdict_of(&mut conn, &request);
    }
    let mut samples = Vec::with_capacity(ROUND_TRIPS);
    for _ in 0..ROUND_TRIPS {
        let start = Instant::now();
        verdict_of(&mut conn, &request);
        samples.push(start.elapsed());
    }
    samples.sort_unstable();
    let p99 = percentile(&samples, 99.0);
    let name = |p: &str| format!("check `ls -la`, one connection, {p} (n={ROUND_TRIPS})");
    vec![
        row(name("p50"), micros(percentile(&samples, 50.0)), "", None),
        row(
            name("p99"),
            micros(p99),
            "<= 100 us",
            Some(p99 <= Duration::from_micros(100)),
        ),
        row(name("p99.9"), micros(percentile(&samples, 99.9)), "", None),
    ]
}

/// What the daemon side of one `assent check` costs: connect, identify, check, close.
fn connect_cycle_rows(socket: &Path) -> Vec<Row> {
    let request = safe_check();
    let mut samples = Vec::with_capacity(CONNECT_CYCLES);
    for i in 0..CONNECT_CYCLES + CONNECT_CYCLES / 10 {
        let start = Instant::now();
        let mut conn = Connection::connect(socket).expect("the bench connects to the daemon");
        verdict_of(&mut conn, &request);
        drop(conn);
        if i >= CONNECT_CYCLES / 10 {
            samples.push(start.elapsed());
        }
    }
    samples.sort_unstable();
    let name = |p: &str| format!("connect + check + close, {p} (n={CONNECT_CYCLES})");
    vec![
        row(name("p50"), micros(percentile(&samples, 50.0)), "", None),
        row(name("p99"), micros(percentile(&samples, 99.0)), "", None),
    ]
}

/// Checks from [`THREADS`] clients at once, each on its own connection (what a busy machine's
/// shells and agents do together): the rate, and every check's latency as its client saw it.
/// Then the same clients each connecting, checking and closing, as one `assent check` does.
fn throughput_rows(socket: &Path) -> Vec<Row> {
    let (elapsed, mut latencies) = concurrently(
        socket,
        |conn, _, request| {
            let start = Instant::now();
            verdict_of(conn.expect("a kept connection"), request);
            start.elapsed()
        },
        PER_THREAD,
        true,
    );
    latencies.sort_unstable();
    let total = latencies.len();
    let rate = total as f64 / elapsed.as_secs_f64();
    let (short_elapsed, mut short) = concurrently(
        socket,
        |_, socket, request| {
            let start = Instant::now();
            let mut conn = Connection::connect(socket).expect("a thread connects");
            verdict_of(&mut conn, request);
            drop(conn);
            start.elapsed()
        },
        PER_THREAD / 10,
        false,
    );
    short.sort_unstable();
    let short_rate = short.len() as f64 / short_elapsed.as_secs_f64();
    vec![
        row(
            format!("throughput, {THREADS} connections x {PER_THREAD} checks"),
            format!("{rate:.0} /s"),
            ">= 20000 /s",
            Some(rate >= 20_000.0),
        ),
        row(
            "  a check's latency among them, p50 / p99",
            format!(
                "{} / {}",
                micros(percentile(&latencies, 50.0)),
                micros(percentile(&latencies, 99.0))
            ),
            "",
            None,
        ),
        row(
            format!(
                "connect + check + close, {THREADS} clients at once x {}",
                PER_THREAD / 10
            ),
            format!("{short_rate:.0} /s"),
            "",
            None,
        ),
        row(
            "  one cycle's latency among them, p50 / p99",
            format!(
                "{} / {}",
                micros(percentile(&short, 50.0)),
                micros(percentile(&short, 99.0))
            ),
            "",
            None,
        ),
    ]
}

/// Runs `one` `runs` times on each of [`THREADS`] threads started together (with a connection
/// each kept open when `keep` is set): the time from the start to the last thread's end, and
/// every run's result.
fn concurrently(
    socket: &Path,
    one: fn(Option<&mut Connection>, &Path, &Request) -> Duration,
    runs: usize,
    keep: bool,
) -> (Duration, Vec<Duration>) {
    let barrier = Arc::new(Barrier::new(THREADS + 1));
    let threads: Vec<_> = (0..THREADS)
        .map(|_| {
            let barrier = Arc::clone(&barrier);
            let socket = socket.to_path_buf();
            std::thread::spawn(move || {
                let request = safe_check();
                let mut conn =
                    keep.then(|| Connection::connect(&socket).expect("a thread connects"));
                for _ in 0..100 {
                    one(conn.as_mut(), &socket, &request);
                }
                let mut times = Vec::with_capacity(runs);
                barrier.wait();
                for _ in 0..runs {
                    times.push(one(conn.as_mut(), &socket, &request));
                }
                times
            })
        })
        .collect();
    barrier.wait();
    let start = Instant::now();
    let mut all = Vec::with_capacity(THREADS * runs);
    for thread in threads {
        all.extend(thread.join().expect("a throughput thread finishes"));
    }
    (start.elapsed(), all)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn micros(d: Duration) -> String {
    format!("{:.1} us", d.as_secs_f64() * 1e6)
}

// ---------------------------------------------------------------------------------------------
// The real binary: memory.

/// A spawned `assentd --user`; dropping it stops it with SIGTERM.
struct Spawned {
    child: Child,
    socket: PathBuf,
    _dir: tempfile::TempDir,
}

impl Spawned {
    fn start(binary: &Path) -> Result<Spawned, String> {
        let dir = tempfile::tempdir().map_err(|e| format!("no temp dir: {e}"))?;
        let socket = dir.path().join("socket");
        let child = Command::new(binary)
            .args([
                "--user",
                "--max-pending",
                "2000",
                "--no-approver",
                "hold",
                "--socket",
            ])
            .arg(&socket)
            .arg("--state-dir")
            .arg(dir.path().join("state"))
            .env_clear()
            .env("XDG_RUNTIME_DIR", dir.path())
            .env("HOME", dir.path())
            .env("XDG_STATE_HOME", dir.path())
            .env("XDG_CONFIG_HOME", dir.path())
            .env("ASSENT_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("could not start {}: {e}", binary.display()))?;
        let spawned = Spawned {
            child,
            socket,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while Connection::connect(&spawned.socket).is_err() {
            if Instant::now() > deadline {
                return Err("assentd did not open its socket within 10 s".into());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(spawned)
    }

    /// Resident memory in KiB, from `/proc/PID/status`.
    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the daemon's /proc status is readable");
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("/proc status has a VmRSS line in kB")
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        let pid = nix::unistd::Pid::from_raw(
            i32::try_from(self.child.id()).expect("a pid fits in an i32"),
        );
        if nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).is_err() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

fn assentd_binary() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("ASSENTD_BIN") {
        return Ok(PathBuf::from(path));
    }
    // This bench runs as target/release/deps/gate-HASH; the daemon is target/release/assentd.
    let exe = std::env::current_exe().map_err(|e| format!("no current exe: {e}"))?;
    let release = exe
        .parent()
        .and_then(Path::parent)
        .ok_or("the bench executable has no target dir")?;
    let binary = release.join("assentd");
    if binary.is_file() {
        Ok(binary)
    } else {
        Err(format!(
            "{} is missing: run `cargo build --release --bins` first (or set ASSENTD_BIN)",
            binary.display()
        ))
    }
}

/// A request the daemon holds for an agent (`--no-approver hold` keeps it held with no
/// approval agent running): the first of a few destructive commands the analyser rates so.
fn held_request(conn: &mut Connection) -> (Request, &'static str) {
    for (command, kind) in [
        ("rm -rf src", "`rm -rf src`"),
        ("git push --force origin main", "`git push --force`"),
    ] {
        let shell = check(
            Subject::Shell {
                command: command.into(),
                cwd: "/home/u/proj".into(),
                truncated: false,
            },
            false,
        );
        if verdict_of(conn, &shell).decision == Decision::Confirm {
            return (shell, kind);
        }
    }
    panic!("none of the bench's destructive commands is held any more: pick one that is");
}

fn with_wait(request: &Request) -> Request {
    match request {
        Request::Check(check) => Request::Check(CheckRequest {
            wait: true,
            ..check.clone()
        }),
        other => other.clone(),
    }
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

fn memory_rows() -> Result<Vec<Row>, String> {
    let binary = assentd_binary()?;
    let mut rows = Vec::new();

    // Idle: started, one safe check served.
    let daemon = Spawned::start(&binary)?;
    let mut conn = Connection::connect(&daemon.socket).map_err(|e| e.to_string())?;
    verdict_of(&mut conn, &safe_check());
    drop(conn);
    std::thread::sleep(Duration::from_millis(200));
    let idle = daemon.rss_kib();
    rows.push(row(
        "RSS idle (one check served)",
        mib(idle),
        "<= 30 MB",
        Some(idle * 1024 <= 30_000_000),
    ));

    // 1,000 held on one connection, not waited for.
    let mut conn = Connection::connect(&daemon.socket).map_err(|e| e.to_string())?;
    let (request, kind) = held_request(&mut conn);
    let mut held = 1; // held_request's probe is held too
    while held < HELD {
        let verdict = verdict_of(&mut conn, &request);
        assert_eq!(verdict.decision, Decision::Confirm, "the request is held");
        held += 1;
    }
    std::thread::sleep(Duration::from_millis(200));
    let one_conn = daemon.rss_kib();
    rows.push(row(
        format!("RSS, {HELD} held ({kind}), wait=false, 1 conn"),
        mib(one_conn),
        "<= 60 MB",
        Some(one_conn * 1024 <= 60_000_000),
    ));
    drop(conn);
    drop(daemon);

    // 1,000 idle connections (connected, nothing sent): they hold no receive buffer.
    let daemon = Spawned::start(&binary)?;
    let before = daemon.rss_kib();
    let idle_conns: Vec<Connection> = (0..HELD)
        .map(|_| Connection::connect(&daemon.socket).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    std::thread::sleep(Duration::from_millis(500));
    let with_idle = daemon.rss_kib();
    rows.push(row(
        format!("RSS, {HELD} idle connections (growth over no connections)"),
        mib(with_idle.saturating_sub(before)),
        "<= 16 MB",
        Some(with_idle.saturating_sub(before) * 1024 <= 16_000_000),
    ));
    drop(idle_conns);
    drop(daemon);

    // 1,000 held, each on its own waiting connection: the realistic case.
    let daemon = Spawned::start(&binary)?;
    let wait_request = with_wait(&request);
    let mut waiting = Vec::with_capacity(HELD);
    for _ in 0..HELD {
        let mut conn = Connection::connect(&daemon.socket).map_err(|e| e.to_string())?;
        let verdict = verdict_of(&mut conn, &wait_request);
        assert_eq!(verdict.decision, Decision::Confirm, "the request is held");
        waiting.push(conn);
    }
    std::thread::sleep(Duration::from_millis(200));
    let many = daemon.rss_kib();
    rows.push(row(
        format!("RSS, {HELD} held ({kind}), wait=true, {HELD} conns"),
        mib(many),
        "<= 60 MB",
        Some(many * 1024 <= 60_000_000),
    ));
    drop(waiting);
    std::thread::sleep(Duration::from_millis(500));
    rows.push(row(
        format!("RSS after those {HELD} connections closed"),
        mib(daemon.rss_kib()),
        "",
        None,
    ));
    Ok(rows)
}
