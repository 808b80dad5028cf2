//! What `assent sh` and `assent run` run is confined by the kernel (Landlock) to what the line
//! was judged to do: the real daemon, the real client, real Landlock. Each harmful case must
//! fail with the access refused and its target intact; each everyday twin must still work.
//! The traps write and read in a temporary home, never delete: they prove the kernel refuses,
//! without anything destructive for a shell to run.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use assent_tests::confined::{DOCUMENT, Home, landlock, stderr};
use assent_tests::{TestDaemon, binary};

/// A home with a secret and a document outside the project, and a project (a git repository)
/// inside it, with a subdirectory to stand in. It lies in a temporary directory in the
/// requester's real home (the daemon's `~`): not in `/tmp`, which every confined run may
/// change, and not inside this repository, which would be the project.
struct Machine {
    base: Home,
}

const SECRET: &str = "-----BEGIN KEY----- not for the run";

impl std::ops::Deref for Machine {
    type Target = Home;
    fn deref(&self) -> &Home {
        &self.base
    }
}

impl Machine {
    fn new() -> Machine {
        let base = Home::new("assent-confine-", &[".ssh", "src/app/crates/a"]);
        std::fs::write(base.home.join(".ssh/id_ed25519"), SECRET).expect("secret");
        Machine { base }
    }

    /// A script in the project, as an agent's file tool would write it.
    fn script(&self, name: &str, text: &str) {
        self.program(name, &format!("#!/bin/bash\n{text}\n"));
    }

    /// A daemon whose policy says this home's `.ssh` is secret: the daemon places `~` from the
    /// user database, where this home is not.
    fn daemon(&self, no_approver: Option<assentd::policy::NoApprover>) -> TestDaemon {
        TestDaemon::with(assent_tests::Options {
            policy: Some(format!(
                "sensitive_paths = [\"{}/.ssh/**\"]\n",
                self.home.display()
            )),
            no_approver,
            ..assent_tests::Options::default()
        })
    }
}

#[test]
fn a_script_the_agent_wrote_cannot_change_the_home_but_works_in_the_project() {
    if !landlock() {
        return;
    }
    let m = Machine::new();
    let daemon = m.daemon(None);
    m.python(
        "cleanup.py",
        "Documents/old/notes.txt",
        "open(p, 'w').write('overwritten by the script')",
    );
    let out = m.assent(
        daemon.socket(),
        &m.project,
        &["sh", "-c", "/usr/bin/python3 cleanup.py"],
    );
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        m.notes(),
        DOCUMENT,
        "the document outside the project is intact"
    );
    assert!(stderr(&out).contains("Permission denied"), "{out:?}");
    assert!(stderr(&out).contains("ran confined"), "{out:?}");

    // A `cd` to a directory only known when it runs leaves the writes where they were: only a
    // person's approval grants a change to a place the line does not name.
    let out = m.assent(
        daemon.socket(),
        &m.project,
        &[
            "sh",
            "-c",
            "cd \"$APP_DIR\" && touch made-here && /usr/bin/python3 cleanup.py",
        ],
    );
    assert!(stderr(&out).contains("ran confined"), "{out:?}");
    assert_eq!(m.notes(), DOCUMENT, "{out:?}");

    // Its everyday twin: building in the project (the repository, from a subdirectory of it)
    // and in temp, by paths the program computes as it runs.
    let tmp = tempfile::tempdir().expect("tempdir");
    let build = format!(
        "#!/usr/bin/python3\nimport os\nroot = os.path.join(os.getcwd(), '..', '..')\nopen(os.path.join(root, 'out.txt'), 'w').write('ok')\nos.makedirs(os.path.join(root, 'build'), exist_ok=True)\nopen(os.path.join(root, 'build', 'a.o'), 'w').write('obj')\nopen(os.path.join({:?}, 'scratch'), 'w').write('t')\nprint(open(os.path.join(root, 'out.txt')).read(), end='')\n",
        tmp.path().display().to_string()
    );
    std::fs::write(m.project.join("build.py"), build).expect("build.py");
    let out = m.assent(
        daemon.socket(),
        &m.project.join("crates/a"),
        &["sh", "-c", "/usr/bin/python3 ../../build.py"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ok");
    assert_eq!(
        std::fs::read_to_string(m.project.join("build/a.o")).expect("built"),
        "obj"
    );
    assert!(tmp.path().join("scratch").exists(), "temp is writable");
}

#[test]
fn a_confined_run_reads_no_secret_and_reads_everything_else() {
    if !landlock() {
        return;
    }
    let m = Machine::new();
    let daemon = m.daemon(None);
    m.python(
        "leak.py",
        ".ssh/id_ed25519",
        "open('leaked.txt', 'w').write(open(p).read())",
    );
    let out = m.assent(
        daemon.socket(),
        &m.project,
        &["sh", "-c", "/usr/bin/python3 leak.py"],
    );
    assert!(stderr(&out).contains("ran confined"), "{out:?}");
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    let leaked = std::fs::read_to_string(m.project.join("leaked.txt")).unwrap_or_default();
    assert!(
        !leaked.contains("BEGIN KEY"),
        "the secret was read: {leaked}"
    );

    m.script(
        "read.sh",
        "cat \"$HOME/Documents/old/notes.txt\" && head -c 5 /etc/passwd >/dev/null && ls \"$HOME/.ssh\"",
    );
    let out = m.assent(daemon.socket(), &m.project, &["sh", "-c", "bash read.sh"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(DOCUMENT), "{out:?}");
    assert!(
        stdout.contains("id_ed25519"),
        "names are listed, contents not: {out:?}"
    );
}

#[test]
fn assent_run_is_confined_too_and_a_line_that_names_a_place_may_change_it() {
    if !landlock() {
        return;
    }
    let m = Machine::new();
    let daemon = m.daemon(None);
    // A program the line names, writing where the line does not say: refused.
    m.python(
        "tool.py",
        "Documents/old/notes.txt",
        "open(p, 'w').write('x')",
    );
    let out = m.assent(daemon.socket(), &m.project, &["run", "--", "./tool.py"]);
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    assert!(stderr(&out).contains("ran confined"), "{out:?}");
    assert_eq!(m.notes(), DOCUMENT);

    // The same write written on the line is judged (and allowed: a file outside the project
    // the person keeps is held, so use temp), and the run may do what the line says.
    let tmp = tempfile::tempdir().expect("tempdir");
    let target = tmp.path().join("named.txt");
    let line = format!("printf named > {}", target.display());
    let out = m.assent(daemon.socket(), &m.project, &["sh", "-c", &line]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(std::fs::read_to_string(&target).expect("written"), "named");
}

#[test]
fn a_line_judged_to_send_nothing_cannot_open_a_tcp_connection() {
    if !landlock() {
        return;
    }
    let m = Machine::new();
    let daemon = m.daemon(None);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listener");
    let port = listener.local_addr().expect("addr").port();
    // `cat` sends nothing; what it is given to read is a bash TCP path bash itself opens, so
    // the line is not what opens the socket: the kernel decides.
    let line = format!("ls >/dev/null && cat < /dev/tcp/127.0.0.1/{port}");
    let out = m.assent(daemon.socket(), &m.project, &["sh", "-c", &line]);
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    assert!(
        stderr(&out).contains("ran confined"),
        "the gate let it run: {out:?}"
    );
    listener
        .set_nonblocking(true)
        .expect("nonblocking listener");
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        listener.accept().is_err(),
        "the confined line connected: {out:?}"
    );
}

#[test]
fn an_opaque_agent_line_runs_confined_instead_of_held_and_is_held_without_landlock() {
    if !landlock() {
        return;
    }
    let m = Machine::new();
    std::fs::write(m.project.join("cmd.txt"), "printf ran > ran.txt").expect("cmd");
    let line = "eval \"$(cat cmd.txt)\"";

    // No approval agent and `no_approver = deny`: held would mean refused at once.
    let daemon = m.daemon(Some(assentd::policy::NoApprover::Deny));
    let out = m.assent(daemon.socket(), &m.project, &["sh", "-c", line]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(m.project.join("ran.txt")).expect("ran"),
        "ran"
    );
    std::fs::remove_file(m.project.join("ran.txt")).expect("rm marker");

    // The same line, confined, cannot reach past the project.
    std::fs::write(
        m.project.join("cmd.txt"),
        "printf gone > \"$HOME/Documents/old/notes.txt\"",
    )
    .expect("cmd");
    let out = m.assent(daemon.socket(), &m.project, &["sh", "-c", line]);
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(m.notes(), DOCUMENT);

    // A daemon that may not confine holds it (here: refuses, nobody to ask), never pretends.
    std::fs::write(m.project.join("cmd.txt"), "printf ran > ran.txt").expect("cmd");
    let real = RealDaemon::start(&["--landlock-abi", "0", "--no-approver", "deny"]);
    let out = m.assent(&real.socket, &m.project, &["sh", "-c", line]);
    assert_eq!(out.status.code(), Some(126), "{out:?}");
    assert!(!m.project.join("ran.txt").exists(), "{out:?}");
    let status = m.assent(&real.socket, &m.project, &["status"]);
    assert!(
        String::from_utf8_lossy(&status.stdout)
            .contains("confinement: none (this kernel has no Landlock)"),
        "{status:?}"
    );
}

/// The door stays beside a confined run and blocks the signals that end it, to pass them on;
/// the command must not inherit that mask, or the SIGTERM of an agent giving up on its tool
/// (or a terminal's Ctrl-C) would wait in the command's queue for ever and the door with it.
#[test]
fn a_confined_run_hears_the_signal_its_door_is_sent() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    if !landlock() {
        return;
    }
    let m = Machine::new();
    let daemon = m.daemon(None);
    let mut door = assent_tests::assent(daemon.socket())
        .args(["sh", "-c", "sleep 60"])
        .current_dir(&m.project)
        .env("HOME", &m.home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the door starts");
    let children = format!("/proc/{0}/task/{0}/children", door.id());
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    // The command once it runs `sleep` (bash runs a lone command in its own process): before
    // its `execve` a spawned child still has everything blocked.
    let command = loop {
        let listed = std::fs::read_to_string(&children).unwrap_or_default();
        if let Some(pid) = listed.split_whitespace().next()
            && std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|comm| comm.trim() == "sleep")
        {
            break pid.to_owned();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the door started no sleep: {listed:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let status = std::fs::read_to_string(format!("/proc/{command}/status")).expect("status");
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(str::trim)
            .map(|hex| u64::from_str_radix(hex, 16).expect("hex"))
            .expect(name)
    };
    assert_eq!(
        field("SigBlk:"),
        0,
        "the command starts with nothing blocked"
    );
    assert_eq!(
        field("SigIgn:") & (1 << (Signal::SIGPIPE as u64 - 1)),
        0,
        "SIGPIPE has its default action"
    );

    let pid = i32::try_from(door.id()).expect("pid");
    kill(Pid::from_raw(pid), Signal::SIGTERM).expect("SIGTERM");
    let started = std::time::Instant::now();
    let ended = loop {
        if let Some(status) = door.try_wait().expect("wait") {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the command did not end on the SIGTERM passed on"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(ended.code(), Some(128 + 15), "{ended:?}");
    let mut said = String::new();
    std::io::Read::read_to_string(&mut door.stderr.take().expect("stderr"), &mut said)
        .expect("stderr");
    assert!(
        !said.contains("ran confined"),
        "a run ended from outside was not refused anything: {said}"
    );
}

/// The real `assentd` binary in user mode with extra flags, on a socket of its own.
struct RealDaemon {
    _dir: tempfile::TempDir,
    socket: PathBuf,
    child: std::process::Child,
}

impl RealDaemon {
    fn start(extra: &[&str]) -> RealDaemon {
        let dir = tempfile::tempdir().expect("tempdir");
        let socket = dir.path().join("socket");
        let child = Command::new(binary("assentd"))
            .arg("--user")
            .arg("--socket")
            .arg(&socket)
            .arg("--state-dir")
            .arg(dir.path().join("state"))
            .args(extra)
            .env("XDG_CONFIG_HOME", dir.path().join("config"))
            .env("XDG_STATE_HOME", dir.path())
            .env("XDG_RUNTIME_DIR", dir.path())
            .env("ASSENT_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("assentd starts");
        assert!(
            assent_tests::wait_for_socket(&socket, Duration::from_secs(20)),
            "assentd listens"
        );
        RealDaemon {
            _dir: dir,
            socket,
            child,
        }
    }
}

impl Drop for RealDaemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
