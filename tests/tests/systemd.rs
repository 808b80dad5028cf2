//! The systemd side of installing assentd: the units in `packaging/systemd/` verify
//! and stay hardened, and the built `assentd` speaks the notify protocol (`READY=1`,
//! `WATCHDOG=1`, `STOPPING=1`) and serves on a socket handed over by socket activation.
//!
//! The unit checks need `systemd-analyze`, socket activation `systemd-socket-activate` (both in
//! Debian's `systemd` package); without them those tests print a note and pass.

use assent_tests::needs::{SYSTEMD_ANALYZE, SYSTEMD_SOCKET_ACTIVATE, needs};
use std::fs::File;
use std::os::unix::net::{SocketAddr, UnixDatagram};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use assent_client::protocol::{Request, Response};
use assent_tests::{
    KillOnDrop, OUR_ENV, RECV_TIMEOUT, SYSTEMD_ENV, binary, connect, our_command, run_bounded,
    wait_bounded, wait_until,
};
use nix::sys::signal::{Signal, kill};

/// The highest `systemd-analyze security` exposure the hardened units may have.
const MAX_EXPOSURE: f64 = 2.0;

/// `packaging/systemd` in the workspace.
fn units_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the workspace")
        .join("packaging")
        .join("systemd")
}

/// The unit files directly in `dir`.
fn units_in(dir: &Path) -> Vec<PathBuf> {
    let mut units: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the units directory is readable")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| {
            path.extension()
                .is_some_and(|ext| ext == "service" || ext == "socket")
        })
        .collect();
    units.sort();
    units
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Copy `units` into `into`, pointing `ExecStart=` at the built binaries: `verify` checks that
/// the command exists, and nothing is installed under `/usr/bin` here. Returns the copies and
/// the complaints to tolerate: `assent-notify` may not be built yet, so then its
/// unit keeps `/usr/bin/assent-notify` and only that path check is let through.
fn staged(units: &[PathBuf], into: &Path) -> (Vec<PathBuf>, Vec<String>) {
    let assentd = binary("assentd");
    let notify = assentd.with_file_name("assent-notify");
    let mut tolerated = Vec::new();
    let mut copies = Vec::new();
    for unit in units {
        let mut body = std::fs::read_to_string(unit).expect("the unit is readable");
        body = body.replace(
            "ExecStart=/usr/bin/assentd",
            &format!("ExecStart={}", assentd.display()),
        );
        if body.contains("ExecStart=/usr/bin/assent-notify") {
            if notify.is_file() {
                body = body.replace(
                    "ExecStart=/usr/bin/assent-notify",
                    &format!("ExecStart={}", notify.display()),
                );
            } else {
                eprintln!(
                    "note: assent-notify is not built yet; its ExecStart path is not checked"
                );
                tolerated.push("Command /usr/bin/assent-notify is not executable".to_string());
            }
        }
        let copy = into.join(unit.file_name().expect("a unit has a file name"));
        std::fs::write(&copy, body).expect("the staged unit can be written");
        copies.push(copy);
    }
    (copies, tolerated)
}

/// `systemd-analyze verify` on every unit, system units with the system manager's rules and
/// user units with the user manager's (`%t` and friends).
#[test]
fn every_unit_verifies() {
    if !needs(&[SYSTEMD_ANALYZE]) {
        return;
    }
    for user in [false, true] {
        let dir = if user {
            units_dir().join("user")
        } else {
            units_dir()
        };
        let units = units_in(&dir);
        assert!(!units.is_empty(), "no units in {}", dir.display());
        let tmp = tempfile::tempdir().expect("a temporary directory");
        let (copies, tolerated) = staged(&units, tmp.path());
        let mut command = Command::new("systemd-analyze");
        if user {
            // The user manager resolves %t from XDG_RUNTIME_DIR, and needs one to start.
            let runtime = tmp.path().join("runtime");
            std::fs::create_dir(&runtime).expect("the runtime directory can be made");
            command.arg("--user").env("XDG_RUNTIME_DIR", runtime);
        }
        command
            .args(["verify", "--man=no", "--generators=no"])
            .args(&copies)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let output = run_bounded(&mut command);
        let said = format!("{}{}", text(&output.stdout), text(&output.stderr));
        // Complaints about the host's own units are not ours to fix; ours name "assent".
        let complaints: Vec<&str> = said
            .lines()
            .filter(|line| line.contains("assent"))
            .filter(|line| !tolerated.iter().any(|t| line.contains(t.as_str())))
            .collect();
        assert!(
            complaints.is_empty(),
            "systemd-analyze verify {}:\n{said}",
            dir.display()
        );
        assert!(
            output.status.success() || !tolerated.is_empty(),
            "systemd-analyze verify {} failed ({:?}):\n{said}",
            dir.display(),
            output.status
        );
    }
}

/// The overall exposure from `systemd-analyze security` output.
fn exposure(output: &str) -> Option<f64> {
    let line = output
        .lines()
        .find(|line| line.contains("Overall exposure level"))?;
    let (_, rest) = line.rsplit_once(": ")?;
    rest.split_whitespace().next()?.parse().ok()
}

/// `systemd-analyze security --offline` of the unit file `unit`: its overall exposure.
fn exposure_of(unit: &Path) -> f64 {
    let output = run_bounded(
        Command::new("systemd-analyze")
            .args(["security", "--offline=true", "--no-pager"])
            .arg(unit)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    );
    let said = format!("{}{}", text(&output.stdout), text(&output.stderr));
    let level = exposure(&said)
        .unwrap_or_else(|| panic!("no overall exposure in systemd-analyze's output:\n{said}"));
    println!("{} exposure: {level}", unit.display());
    assert!(
        level <= MAX_EXPOSURE,
        "{} exposure {level} is above {MAX_EXPOSURE}:\n{said}",
        unit.display()
    );
    level
}

#[test]
fn the_system_unit_is_hardened() {
    if !needs(&[SYSTEMD_ANALYZE]) {
        return;
    }
    exposure_of(&units_dir().join("assentd.service"));
}

/// The desktop agent's user unit scores as well as the system daemon's (offline, the analysis
/// reads it as a system unit run as root, so it is scored stricter than a user manager would),
/// and keeps what the agent cannot work without: Unix sockets, and `/run/user`, where the
/// session bus and the user daemon's socket are (`ProtectHome=yes` or `tmpfs` would hide it).
#[test]
fn the_notify_user_unit_is_hardened_and_keeps_its_sockets() {
    let unit = units_dir().join("user").join("assent-notify.service");
    let body = std::fs::read_to_string(&unit).expect("the notify unit is readable");
    let settings: Vec<&str> = body
        .lines()
        .filter(|line| !line.starts_with('#') && line.contains('='))
        .collect();
    for needed in ["RestrictAddressFamilies=AF_UNIX", "ProtectHome=read-only"] {
        assert!(
            settings.contains(&needed),
            "{needed} is not in the unit:\n{body}"
        );
    }
    for hides in [
        "/run/user",
        "InaccessiblePaths=",
        "TemporaryFileSystem=",
        "BindPaths=",
    ] {
        assert!(
            !settings.iter().any(|line| line.contains(hides)),
            "the unit touches {hides}, where the session bus is:\n{body}"
        );
    }
    if !needs(&[SYSTEMD_ANALYZE]) {
        return;
    }
    exposure_of(&unit);
}

#[test]
fn exposure_is_read_from_the_summary_line() {
    let said = "✗ PrivateUsers=   Service has access to other users   0.2\n\n\
                → Overall exposure level for assentd.service: 0.7 SAFE 😀\n";
    assert_eq!(exposure(said), Some(0.7));
    assert_eq!(exposure("nothing"), None);
}

/// `assentd --user` with everything inside `dir` and its socket at `dir/assent.sock`.
fn user_assentd(dir: &Path) -> Command {
    let mut command = our_command("assentd");
    command
        .arg("--user")
        .arg("--socket")
        .arg(dir.join("assent.sock"))
        .arg("--state-dir")
        .arg(dir.join("state"))
        .env("XDG_RUNTIME_DIR", dir.join("xdg-run"))
        .env("XDG_STATE_HOME", dir.join("xdg-state"))
        .env("XDG_CONFIG_HOME", dir.join("xdg-config"))
        .env("HOME", dir)
        .stdout(Stdio::null())
        .stderr(File::create(dir.join("assentd.log")).expect("the log file can be made"));
    command
}

/// The next notification, failing the test after [`RECV_TIMEOUT`].
fn next_message(receiver: &UnixDatagram, dir: &Path) -> String {
    let mut buf = [0u8; 4096];
    match receiver.recv(&mut buf) {
        Ok(n) => text(&buf[..n]),
        Err(error) => {
            let log = std::fs::read_to_string(dir.join("assentd.log")).unwrap_or_default();
            panic!("no notification from assentd ({error}); its log:\n{log}")
        }
    }
}

/// The next notification that is not a watchdog ping.
fn next_state(receiver: &UnixDatagram, dir: &Path) -> String {
    loop {
        let message = next_message(receiver, dir);
        if message != "WATCHDOG=1" {
            return message;
        }
    }
}

fn terminate(child: &mut KillOnDrop) -> Output {
    kill(child.pid(), Signal::SIGTERM).expect("SIGTERM reaches assentd");
    wait_bounded(child.take(), RECV_TIMEOUT)
}

#[test]
fn assentd_says_ready_feeds_the_watchdog_and_says_stopping() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let notify = dir.path().join("notify");
    let receiver = UnixDatagram::bind(&notify).expect("the notify socket binds");
    receiver
        .set_read_timeout(Some(RECV_TIMEOUT))
        .expect("a read timeout can be set");
    let child = user_assentd(dir.path())
        .env("NOTIFY_SOCKET", &notify)
        // Pings every 150 ms; the sweeper's heartbeat (1 s) stays fresh throughout.
        .env("WATCHDOG_USEC", "300000")
        .spawn()
        .expect("assentd starts");
    let mut child = KillOnDrop(Some(child));

    let ready = next_state(&receiver, dir.path());
    let socket = dir.path().join("assent.sock");
    assert_eq!(
        ready,
        format!("READY=1\nSTATUS=serving on {}", socket.display())
    );
    // READY=1 means it accepts: no polling needed.
    let mut conn = connect(&socket);
    assert!(matches!(
        conn.request(&Request::Status),
        Ok(Response::Status(_))
    ));
    for _ in 0..3 {
        assert_eq!(next_message(&receiver, dir.path()), "WATCHDOG=1");
    }

    let output_after = {
        kill(child.pid(), Signal::SIGTERM).expect("SIGTERM reaches assentd");
        let stopping = next_state(&receiver, dir.path());
        assert_eq!(stopping, "STOPPING=1\nSTATUS=stopping");
        wait_bounded(child.take(), RECV_TIMEOUT)
    };
    assert_eq!(output_after.status.code(), Some(0));
}

/// An abstract `@name` socket works, and `WATCHDOG_USEC` meant for another process
/// (`WATCHDOG_PID`) is ignored.
#[test]
fn assentd_notifies_an_abstract_socket_and_honours_watchdog_pid() {
    use std::os::linux::net::SocketAddrExt as _;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let name = format!(
        "assent-test-notify-{}-{}",
        std::process::id(),
        dir.path().display()
    );
    let address = SocketAddr::from_abstract_name(name.as_bytes()).expect("a valid name");
    let receiver = UnixDatagram::bind_addr(&address).expect("the abstract name is free");
    receiver
        .set_read_timeout(Some(RECV_TIMEOUT))
        .expect("a read timeout can be set");
    let child = user_assentd(dir.path())
        .env("NOTIFY_SOCKET", format!("@{name}"))
        .env("WATCHDOG_USEC", "100000")
        .env("WATCHDOG_PID", "1")
        .spawn()
        .expect("assentd starts");
    let mut child = KillOnDrop(Some(child));
    assert!(next_message(&receiver, dir.path()).starts_with("READY=1\n"));
    receiver
        .set_read_timeout(Some(Duration::from_millis(600)))
        .expect("a read timeout can be set");
    let mut buf = [0u8; 64];
    assert!(
        receiver.recv(&mut buf).is_err(),
        "a watchdog ping although WATCHDOG_PID names another process"
    );
    receiver
        .set_read_timeout(Some(RECV_TIMEOUT))
        .expect("a read timeout can be set");
    kill(child.pid(), Signal::SIGTERM).expect("SIGTERM reaches assentd");
    assert!(next_message(&receiver, dir.path()).starts_with("STOPPING=1\n"));
    assert_eq!(
        wait_bounded(child.take(), RECV_TIMEOUT).status.code(),
        Some(0)
    );
}

/// `systemd-socket-activate` binds `socket` and execs `assentd --user` (no `--socket`) on the
/// first connection, with `LISTEN_FDS=1` and `LISTEN_PID` set to that same process.
fn activated_assentd(dir: &Path, socket: &Path, seqpacket: bool) -> Command {
    let mut command = Command::new("systemd-socket-activate");
    if seqpacket {
        command.arg("--seqpacket");
    }
    command.arg("--listen").arg(socket);
    for (var, value) in [
        ("XDG_RUNTIME_DIR", dir.join("xdg-run")),
        ("XDG_STATE_HOME", dir.join("xdg-state")),
        ("XDG_CONFIG_HOME", dir.join("xdg-config")),
        ("HOME", dir.to_path_buf()),
    ] {
        command
            .arg("--setenv")
            .arg(format!("{var}={}", value.display()));
    }
    command
        .arg("--")
        .arg(binary("assentd"))
        .arg("--user")
        .arg("--state-dir")
        .arg(dir.join("state"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(File::create(dir.join("assentd.log")).expect("the log file can be made"));
    for var in OUR_ENV.iter().chain(&SYSTEMD_ENV) {
        command.env_remove(var);
    }
    command
}

#[test]
fn assentd_serves_on_a_socket_handed_over_by_socket_activation() {
    if !needs(&[SYSTEMD_SOCKET_ACTIVATE]) {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let socket = dir.path().join("activated.sock");
    let child = activated_assentd(dir.path(), &socket, true)
        .spawn()
        .expect("systemd-socket-activate starts");
    let mut child = KillOnDrop(Some(child));
    assert!(
        wait_until(RECV_TIMEOUT, || socket.exists()),
        "systemd-socket-activate did not bind {}",
        socket.display()
    );
    // This connection starts the daemon, which then answers it.
    let mut conn = connect(&socket);
    let status = match conn.request(&Request::Status) {
        Ok(Response::Status(status)) => status,
        other => {
            let log = std::fs::read_to_string(dir.path().join("assentd.log")).unwrap_or_default();
            panic!("expected a status, got {other:?}; log:\n{log}")
        }
    };
    assert_eq!(status.mode, "user");
    assert_eq!(status.socket, socket.display().to_string());
    let own = dir.path().join("xdg-run").join("assent").join("socket");
    assert!(!own.exists(), "assentd bound {} as well", own.display());

    let output = terminate(&mut child);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        socket.exists(),
        "assentd removed a socket it did not bind; systemd owns it"
    );
}

#[test]
fn assentd_refuses_a_stream_socket_from_socket_activation() {
    if !needs(&[SYSTEMD_SOCKET_ACTIVATE]) {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let socket = dir.path().join("stream.sock");
    let child = activated_assentd(dir.path(), &socket, false)
        .spawn()
        .expect("systemd-socket-activate starts");
    let child = KillOnDrop(Some(child));
    assert!(
        wait_until(RECV_TIMEOUT, || socket.exists()),
        "systemd-socket-activate did not bind {}",
        socket.display()
    );
    let _trigger = std::os::unix::net::UnixStream::connect(&socket).expect("the stream connects");
    let mut child = child;
    let output = wait_bounded(child.take(), RECV_TIMEOUT);
    let log = std::fs::read_to_string(dir.path().join("assentd.log")).unwrap_or_default();
    assert_eq!(output.status.code(), Some(1), "log:\n{log}");
    assert!(log.contains("ListenSequentialPacket="), "log:\n{log}");
}
