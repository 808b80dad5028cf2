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
        let reversed = |p: &str| p.chars().rev().collect::<String>();
        base.program(
            "cleanup.py",
            &format!(
                "import os\nbase = {base:?}\nopen(os.path.join(base, ''.join(reversed({notes:?}))), 'w').write('overwritten')\nopen(os.path.join(base, ''.join(reversed({keys:?}))), 'a').write(' evil')\n",
                base = base.home.display().to_string(),
                notes = reversed("Documents/old/notes.txt"),
                keys = reversed(".ssh/authorized_keys"),
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
/// prompt. The run is started in a session of its own, without one.
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
         print('controlling-terminal', fields[4], 'own-session', os.getsid(0) == os.getpid())\n\
         import fcntl, termios\n\
         try:\n    fcntl.ioctl(0, termios.TIOCSTI, b'#')\n    print('typed-into-the-terminal')\n\
         except OSError as e:\n    print('typing-refused', e.errno)\n\
         try:\n    open('/dev/tty', 'w').write('reached /dev/tty')\n    print('dev-tty-opened')\n\
         except OSError as e:\n    print('dev-tty-refused', e.errno)",
    );
    let door = assent(daemon.socket());
    let mut argv: Vec<String> = vec!["/usr/bin/env".into(), "-C".into()];
    argv.push(m.project.display().to_string());
    argv.extend(
        std::iter::once(door.get_program())
            .chain(door.get_args())
            .map(|a| a.to_string_lossy().into_owned()),
    );
    argv.extend(["sh", "-c", "/usr/bin/python3 tty.py"].map(String::from));
    let env: Vec<(String, String)> = [
        ("HOME", m.home.display().to_string()),
        ("PATH", "/usr/bin:/bin".to_owned()),
        ("TERM", "xterm".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let panes = tempfile::tempdir().expect("a directory for the pane");
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let pane = Pane::start(panes.path(), &env, &argv);
    let screen = pane.wait_for("the run's words", SCREEN_TIMEOUT, |s| {
        s.contains("dev-tty-") || s.contains("Pane is dead")
    });
    assert!(
        screen.contains("controlling-terminal 0 own-session True"),
        "the run kept the terminal as its controlling one:\n{screen}"
    );
    assert!(
        screen.contains("dev-tty-refused 6"),
        "the run opened /dev/tty (ENXIO expected):\n{screen}"
    );
    assert!(!screen.contains("reached /dev/tty"), "{screen}");
    // Nor, even as root, push bytes into the terminal it was given as its standard input.
    assert!(
        screen.contains("typing-refused 1"),
        "the run typed into its terminal (EPERM expected):\n{screen}"
    );
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
