//! What reading a line's files from the disk costs a check: round trips against the real
//! daemon in-process, for lines that read nothing (which must cost what they did) and lines
//! that read a script, a Makefile, `package.json`, git's configuration and hooks, or resolve a
//! link, interleaved round by round so the machine's noise falls on all of them alike.
//!
//! `cargo bench -p assentd --bench reading`. The project is a temporary repository in the
//! bench user's home (where projects are, so its paths are the project's, not temp's). Nothing
//! is run: the daemon only reads the files. Every check first looks for the project around its
//! directory (`project.rs`), kept a moment per directory: `ls -la` from a directory not seen
//! before measures that look.

use std::path::PathBuf;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use assent_client::Connection;
use assent_client::protocol::{CheckRequest, Context, Origin, Request, Response, Subject};
use tokio::sync::oneshot;

/// Rounds; each checks every line once.
const ROUNDS: usize = 3_000;
/// Rounds before measuring.
const WARMUP: usize = 300;

/// The lines measured, and whether they read anything.
const LINES: &[(&str, &str)] = &[
    ("ls -la", "reads nothing"),
    ("ls -la", "reads nothing, from a directory not seen before"),
    ("cargo build --release", "reads nothing"),
    ("grep -rn TODO src", "reads nothing (a read)"),
    ("rm -rf build/", "resolves a link"),
    ("bash build.sh", "reads a script"),
    ("make", "reads a Makefile"),
    ("npm test", "reads package.json"),
    ("git status", "reads .git/config up the tree"),
    ("git commit -m x", "and the commit hooks"),
];

fn main() {
    let home = nix::unistd::User::from_uid(nix::unistd::getuid())
        .ok()
        .flatten()
        .map(|u| u.dir)
        .expect("a home in the user database");
    let project = tempfile::Builder::new()
        .prefix("assent-bench-")
        .tempdir_in(&home)
        .expect("a project directory in the home");
    let p = project.path();
    // A repository: in the home only a repository is a project.
    std::fs::create_dir_all(p.join(".git")).expect("the .git directory");
    let write = |rel: &str, text: &str| {
        let path = p.join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("directories");
        std::fs::write(path, text).expect("written");
    };
    write(
        "build.sh",
        "#!/bin/sh\nmkdir -p build\ncc -o build/app main.c\n",
    );
    write(
        "Makefile",
        "CC = cc\nall: app\napp: main.o\n\t$(CC) -o $@ $^\n",
    );
    write("package.json", r#"{"scripts": {"test": "jest"}}"#);
    write(".git/config", "[core]\n\tbare = false\n");
    write(".git/hooks/pre-commit", "#!/bin/sh\ncargo fmt --check\n");
    std::fs::create_dir_all(p.join("src")).expect("src");
    std::fs::create_dir_all(p.join("build")).expect("build");
    let cwd = p.to_str().expect("UTF-8").to_owned();

    let daemon = InProcess::start();
    let mut conn = Connection::connect(&daemon.socket).expect("the bench connects");
    // `ASSENT_BENCH_NOTHING=1`: only the lines that read nothing, to see them apart from the
    // blocking threads the others wake.
    let only_nothing = std::env::var_os("ASSENT_BENCH_NOTHING").is_some();
    let lines: Vec<(&str, &str)> = LINES
        .iter()
        .copied()
        .filter(|(_, what)| !only_nothing || what.starts_with("reads nothing"))
        .collect();
    let requests: Vec<Request> = lines.iter().map(|(l, _)| check(l, &cwd)).collect();
    let mut samples: Vec<Vec<Duration>> = vec![Vec::with_capacity(ROUNDS); lines.len()];
    for round in 0..WARMUP + ROUNDS {
        for (i, request) in requests.iter().enumerate() {
            // The project is looked for once per directory and kept a moment: a directory
            // never seen before pays the look (`project.rs`) every time.
            let fresh;
            let request = if lines[i].1.ends_with("not seen before") {
                fresh = check(lines[i].0, &format!("{cwd}/src/n{round}"));
                &fresh
            } else {
                request
            };
            let start = Instant::now();
            match conn.request(request) {
                Ok(Response::Verdict(_)) => {}
                other => panic!("a check is answered with a verdict, got {other:?}"),
            }
            if round >= WARMUP {
                samples[i].push(start.elapsed());
            }
        }
    }
    println!("\n{ROUNDS} rounds after {WARMUP} warm-up, one connection, lines interleaved\n");
    println!("| Line | What | p50 | p99 |");
    println!("|---|---|---:|---:|");
    for ((line, what), mut s) in lines.iter().zip(samples) {
        s.sort_unstable();
        let at = |q: f64| s[((s.len() as f64 * q) as usize).min(s.len() - 1)];
        println!(
            "| `{line}` | {what} | {:.1} µs | {:.1} µs |",
            micros(at(0.5)),
            micros(at(0.99))
        );
    }
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn check(command: &str, cwd: &str) -> Request {
    Request::Check(CheckRequest {
        subject: Subject::Shell {
            command: command.into(),
            cwd: cwd.into(),
            truncated: false,
        },
        origin: Origin::Interactive,
        context: Context::default(),
        wait: false,
    })
}

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
