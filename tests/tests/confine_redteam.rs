//! Findings of a red-team pass on kernel confinement (`assent sh`): lines the gate allowed
//! whose run reached past what confinement promises, each kept as the promise it broke. The
//! traps are Python programs that compute their paths when they run (the analyser reads
//! scripts, so a shell script would be refused before it ran) and only write a decoy document
//! and an `authorized_keys` decoy; nothing is deleted. The machine lies in a temporary
//! directory in the requester's real home (the daemon's `~`), outside any repository and
//! outside `/tmp`, which every confined run may change.

use std::path::Path;
use std::process::{Output, Stdio};

use assent_tests::confined::{DOCUMENT, Home, landlock};
use assent_tests::{TestDaemon, assent, run_bounded};

const KEYS: &str = "ssh-ed25519 AAAA person";

/// A home (outside `/tmp`) with a document, an `.ssh` the policy calls secret and a project
/// (a git repository) holding the agent's script, which writes to the document and the keys.
struct Machine {
    base: Home,
}

impl std::ops::Deref for Machine {
    type Target = Home;
    fn deref(&self) -> &Home {
        &self.base
    }
}

impl Machine {
    fn new() -> Machine {
        let base = Home::new("assent-confine-", &[".ssh"]);
        std::fs::write(base.home.join(".ssh/authorized_keys"), KEYS).expect("keys");
        let unreadable = assent_tests::confined::unreadable;
        base.program(
            "cleanup.py",
            &format!(
                "import os\nbase = {base:?}\nopen(os.path.join(base, {notes}), 'w').write('overwritten')\nopen(os.path.join(base, {keys}), 'a').write(' evil')\n",
                base = base.home.display().to_string(),
                notes = unreadable("Documents/old/notes.txt"),
                keys = unreadable(".ssh/authorized_keys"),
            ),
        );
        Machine { base }
    }

    fn daemon(&self) -> TestDaemon {
        TestDaemon::with(assent_tests::Options {
            policy: Some(format!(
                "sensitive_paths = [\"{}/.ssh/**\"]\n",
                self.home.display()
            )),
            no_approver: Some(assentd::policy::NoApprover::Deny),
            ..assent_tests::Options::default()
        })
    }

    /// `assent sh -c LINE` from `cwd`, with `home` as `$HOME` (`None`: unset).
    fn sh(&self, socket: &Path, cwd: &Path, home: Option<&Path>, line: &str) -> Output {
        let mut command = assent(socket);
        command
            .args(["sh", "-c", line])
            .current_dir(cwd)
            .env("TMPDIR", "/tmp")
            .stdin(Stdio::null());
        match home {
            Some(home) => command.env("HOME", home),
            None => command.env_remove("HOME"),
        };
        run_bounded(&mut command)
    }

    /// The line ran (the gate let it through) and the document and the keys are as the person
    /// left them.
    fn intact(&self, out: &Output) {
        assert_ne!(
            out.status.code(),
            Some(126),
            "the gate refused the line: {out:?}"
        );
        let notes = std::fs::read_to_string(self.home.join("Documents/old/notes.txt"));
        let keys = std::fs::read_to_string(self.home.join(".ssh/authorized_keys"));
        assert_eq!(notes.ok().as_deref(), Some(DOCUMENT), "document: {out:?}");
        assert_eq!(keys.ok().as_deref(), Some(KEYS), "authorized_keys: {out:?}");
    }
}

/// A harmless mention of a program that raises privileges (`mount` listing mounts, `sudo -n
/// true`) drops confinement for the whole line, so the script beside it runs unconfined.
#[test]
fn a_privilege_program_on_the_line_does_not_unconfine_the_rest() {
    if !landlock() {
        return;
    }
    let m = Machine::new();
    let daemon = m.daemon();
    for line in [
        "mount >/dev/null 2>&1; /usr/bin/python3 cleanup.py",
        "sudo -n true 2>/dev/null; /usr/bin/python3 cleanup.py",
    ] {
        let out = m.sh(daemon.socket(), &m.project, Some(&m.home), line);
        m.intact(&out);
    }
}

/// Without a `.git` above, the working directory is the project: an agent standing in
/// `~/.ssh` (or `~/.config`, `~/Documents`) makes that whole directory writable.
#[test]
fn a_working_directory_among_the_homes_places_is_no_project() {
    if !landlock() {
        return;
    }
    let m = Machine::new();
    let daemon = m.daemon();
    let line = format!(
        "/usr/bin/python3 {}",
        m.project.join("cleanup.py").display()
    );
    for cwd in [m.home.join(".ssh"), m.home.join("Documents")] {
        let out = m.sh(daemon.socket(), &cwd, Some(&m.home), &line);
        m.intact(&out);
    }
}

/// The door finds the home in `$HOME`: unset (or pointing elsewhere), the real home is no
/// longer "the home or above it", and standing in it makes all of it the project.
#[test]
fn the_home_is_no_project_when_home_is_unset() {
    if !landlock() {
        return;
    }
    let m = Machine::new();
    let daemon = m.daemon();
    let line = format!(
        "/usr/bin/python3 {}",
        m.project.join("cleanup.py").display()
    );
    let out = m.sh(daemon.socket(), &m.home, None, &line);
    m.intact(&out);
}

/// A place the line names that does not exist yet is granted as its nearest existing
/// directory: `mkdir -p ~/Documents/new` opens all of `~/Documents` (`~/.config/x`: all of
/// `~/.config`) to the script beside it.
#[test]
fn a_new_place_the_line_names_does_not_open_its_parent() {
    if !landlock() {
        return;
    }
    let m = Machine::new();
    let daemon = m.daemon();
    let line = format!(
        "mkdir -p {} ; /usr/bin/python3 cleanup.py",
        m.home.join("Documents/new").display()
    );
    let out = m.sh(daemon.socket(), &m.project, Some(&m.home), &line);
    assert_ne!(
        out.status.code(),
        Some(126),
        "the gate let the line run: {out:?}"
    );
    m.intact(&out);
}

/// A run on the person's terminal (a door in a terminal, or an agent whose tool calls inherit
/// it) must not reach that terminal beyond the standard streams it was given: with it as its
/// controlling terminal, a run could open `/dev/tty` and type a line into it (`TIOCSTI`) for the
/// person's shell to run unconfined, or pass for the person's shell at the gate's own terminal
/// prompt. A door under a shell gives its terminal up and the run stays in the door's process
/// group (where an agent's kill of the group reaches it); a door that leads its session (the
/// pane's own program) starts the run in a session of its own. Either way, as root too, no
/// typing into the terminal it holds.
#[test]
fn a_confined_run_has_no_controlling_terminal() {
    use assent_tests::needs::{TMUX, needs};
    use assent_tests::tmux::{Pane, SCREEN_TIMEOUT};
    if !landlock() || !needs(&[TMUX]) {
        return;
    }
    let m = Machine::new();
    let daemon = m.daemon();
    m.python(
        "tty.py",
        "unused",
        "fields = open('/proc/self/stat').read().rsplit(')', 1)[1].split()\n\
         print('controlling-terminal', fields[4], 'with-the-door', os.getpgrp() == os.getpgid(os.getppid()))\n\
         import fcntl, termios\n\
         try:\n    fcntl.ioctl(0, termios.TIOCSTI, b'#')\n    print('typed-into-the-terminal')\n\
         except OSError as e:\n    print('typing-refused', e.errno)\n\
         try:\n    open('/dev/tty', 'w').write('reached /dev/tty')\n    print('dev-tty-opened')\n\
         except OSError as e:\n    print('dev-tty-refused', e.errno)",
    );
    let door = assent(daemon.socket());
    let door: Vec<String> = std::iter::once(door.get_program())
        .chain(door.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .chain(["sh", "-c", "/usr/bin/python3 tty.py"].map(String::from))
        .collect();
    let quoted: Vec<String> = door.iter().map(|a| format!("'{a}'")).collect();
    let under_a_shell = format!("{}; exit 0", quoted.join(" "));
    let env: Vec<(String, String)> = [
        ("HOME", m.home.display().to_string()),
        ("PATH", "/usr/bin:/bin".to_owned()),
        ("TERM", "xterm".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let project = m.project.display().to_string();
    for (shape, in_the_doors_group) in [("the pane's program", false), ("under a shell", true)] {
        let mut argv: Vec<&str> = vec!["/usr/bin/env", "-C", project.as_str()];
        if in_the_doors_group {
            argv.extend(["/usr/bin/bash", "-c", under_a_shell.as_str()]);
        } else {
            argv.extend(door.iter().map(String::as_str));
        }
        let panes = tempfile::tempdir().expect("a directory for the pane");
        let pane = Pane::start(panes.path(), &env, &argv);
        let screen = pane.wait_for("the run's words", SCREEN_TIMEOUT, |s| {
            s.contains("dev-tty-") || s.contains("Pane is dead")
        });
        let expected = format!(
            "controlling-terminal 0 with-the-door {}",
            if in_the_doors_group { "True" } else { "False" }
        );
        assert!(
            screen.contains(&expected),
            "{shape}: the run kept the terminal as its controlling one, or its group is not \
             what was meant ({expected}):\n{screen}"
        );
        assert!(
            screen.contains("dev-tty-refused 6"),
            "{shape}: the run opened /dev/tty (ENXIO expected):\n{screen}"
        );
        assert!(!screen.contains("reached /dev/tty"), "{shape}: {screen}");
        // Nor, even as root, push bytes into the terminal it was given as its standard input.
        assert!(
            screen.contains("typing-refused 1"),
            "{shape}: the run typed into its terminal (EPERM expected):\n{screen}"
        );
    }
}

/// A secret directory that is a link (`~/.ssh` leading to `~/dot/ssh`, as a synced or managed
/// home has it): the link beside the rest of the home is granted nothing, so the secret is
/// hidden by either name.
#[test]
fn a_secret_behind_a_link_is_hidden_by_either_name() {
    if !landlock() {
        return;
    }
    let m = Home::new("assent-confine-link-", &["dot/ssh"]);
    std::fs::write(
        m.home.join("dot/ssh/id_ed25519"),
        "-----BEGIN KEY----- linked",
    )
    .expect("secret");
    std::os::unix::fs::symlink(m.home.join("dot/ssh"), m.home.join(".ssh")).expect("link");
    let daemon = TestDaemon::with(assent_tests::Options {
        policy: Some(format!(
            "sensitive_paths = [\"{}/.ssh/**\"]\n",
            m.home.display()
        )),
        ..assent_tests::Options::default()
    });
    for (script, below) in [
        ("by-link.py", ".ssh/id_ed25519"),
        ("by-place.py", "dot/ssh/id_ed25519"),
    ] {
        m.python(script, below, "print(open(p).read())");
        let line = format!("/usr/bin/python3 {script}");
        for _ in 0..3 {
            let out = m.assent(daemon.socket(), &m.project, &["sh", "-c", &line]);
            assert!(
                !String::from_utf8_lossy(&out.stdout).contains("BEGIN KEY"),
                "{script}: the secret behind the link was read: {out:?}"
            );
            assert!(
                String::from_utf8_lossy(&out.stderr).contains("PermissionError"),
                "{script}: {out:?}"
            );
        }
    }
}

/// An agent ends a tool call that runs too long by killing its process group (Codex with
/// SIGKILL; no door can pass that on): the confined run, which has no controlling terminal,
/// must still be in that group and end with it, not run on by itself.
#[test]
fn a_run_ends_with_the_process_group_its_agent_kills() {
    use std::os::unix::process::CommandExt;
    if !landlock() {
        return;
    }
    let m = Machine::new();
    let daemon = m.daemon();
    let marker = format!("assent-group-kill-{}", std::process::id());
    m.python(
        "wait.py",
        "unused",
        &format!("import time\nopen('{marker}', 'w').write(str(os.getpid()))\ntime.sleep(60)"),
    );
    let door = assent(daemon.socket());
    let line: Vec<String> = std::iter::once(door.get_program())
        .chain(door.get_args())
        .map(|a| format!("'{}'", a.to_string_lossy()))
        .chain(["sh", "-c", "'/usr/bin/python3 wait.py'"].map(String::from))
        .collect();
    let mut agent = std::process::Command::new("/usr/bin/bash");
    agent
        .args(["-c", &format!("{}; exit 0", line.join(" "))])
        .current_dir(&m.project)
        .env("HOME", &m.home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    let mut agent = agent.spawn().expect("the agent's shell starts");
    let written = m.project.join(&marker);
    let started = std::time::Instant::now();
    let run: i32 = loop {
        if let Some(pid) = std::fs::read_to_string(&written)
            .ok()
            .and_then(|p| p.trim().parse().ok())
        {
            break pid;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "the run never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let group = nix::unistd::Pid::from_raw(i32::try_from(agent.id()).expect("a pid"));
    nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL).expect("killpg");
    let _ = agent.wait();
    let gone = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        // Gone, or a zombie waiting for its reaper.
        std::fs::read_to_string(format!("/proc/{run}/stat")).map_or(true, |stat| {
            stat.rsplit_once(')')
                .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
        })
    });
    if !gone {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(run),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    assert!(gone, "the run outlived the process group its agent killed");
}
