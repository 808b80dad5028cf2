//! The rulesets the daemon keeps ready for the doors: a door passed one confines its run
//! exactly as one that worked out its own plan, and a change where the kept plan looked (a
//! secret made since) is seen before the next run. The real daemon, the real door, real
//! Landlock; the secret is read by a program the line runs, never given to a shell.

use std::path::Path;
use std::process::Output;

use assent_tests::TestDaemon;
use assent_tests::confined::{DOCUMENT, Home, landlock, stderr};

const SECRET: &str = "-----BEGIN KEY----- not for the run";

/// How many rulesets the daemon has passed to doors (`assent status --json`).
fn passed(home: &Home, socket: &Path) -> u64 {
    let out = home.assent(socket, &home.project, &["status", "--json"]);
    let value: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("status --json prints JSON");
    value
        .get("rulesets_passed")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or_else(|| panic!("no rulesets_passed in {value}"))
}

/// A daemon whose policy makes these places below this home secret (the daemon places `~`
/// from the user database, where this home is not).
fn hiding(home: &Home, below: &[&str]) -> TestDaemon {
    let paths: Vec<String> = below
        .iter()
        .map(|b| format!("\"{}/{b}\"", home.home.display()))
        .collect();
    TestDaemon::with(assent_tests::Options {
        policy: Some(format!("sensitive_paths = [{}]\n", paths.join(", "))),
        ..assent_tests::Options::default()
    })
}

/// `assent sh -c LINE` in the project, until a run was given the daemon's ruleset (the daemon
/// plans a confinement after its first run, and drops the plan whenever a directory it looked
/// at changes, which other tests' scratch directories in the home do); every run's output.
fn until_passed(home: &Home, socket: &Path, line: &str) -> Vec<Output> {
    let mut outs = Vec::new();
    for _ in 0..50 {
        let before = passed(home, socket);
        outs.push(home.assent(socket, &home.project, &["sh", "-c", line]));
        if passed(home, socket) > before {
            eprintln!("passed after {} runs", outs.len());
            return outs;
        }
    }
    panic!("no run was given a kept ruleset: {outs:?}");
}

#[test]
fn a_door_given_the_daemons_ruleset_is_confined_alike_and_a_secret_made_since_is_hidden() {
    if !landlock() {
        return;
    }
    let m = Home::new("assent-kept-", &[".ssh", "Documents/shared"]);
    std::fs::write(m.home.join(".ssh/id_ed25519"), SECRET).expect("secret");
    // `Documents/shared/keys` is secret but does not exist yet: the plan grants
    // `Documents/shared` whole, as nothing secret is in it.
    let daemon = hiding(&m, &[".ssh/**", "Documents/shared/keys/**"]);
    m.python(
        "work.py",
        "Documents/old/notes.txt",
        "import sys\nopen('out.txt', 'w').write('built')\nprint(open(p).read())\ntry:\n    open(p, 'a').write('changed')\n    sys.exit(3)\nexcept PermissionError:\n    pass",
    );
    m.python(
        "leak.py",
        "Documents/shared/keys/id",
        "print(open(p).read())",
    );

    // The everyday run, through a kept ruleset: it writes in the project and reads the home,
    // and it may not change a document outside the project.
    let outs = until_passed(&m, daemon.socket(), "/usr/bin/python3 work.py");
    let last = outs.last().expect("a run");
    assert_eq!(last.status.code(), Some(0), "{last:?}");
    assert!(
        String::from_utf8_lossy(&last.stdout).contains(DOCUMENT),
        "{last:?}"
    );
    assert_eq!(
        std::fs::read_to_string(m.project.join("out.txt")).expect("built"),
        "built"
    );
    assert_eq!(m.notes(), DOCUMENT);

    // A kept ruleset for the leak's line, made while the secret did not exist.
    let outs = until_passed(&m, daemon.socket(), "/usr/bin/python3 leak.py");
    assert_ne!(outs.last().map(|o| o.status.code()), Some(Some(0)));
    std::fs::create_dir(m.home.join("Documents/shared/keys")).expect("mkdir");
    std::fs::write(m.home.join("Documents/shared/keys/id"), SECRET).expect("secret");
    for _ in 0..3 {
        let out = m.assent(
            daemon.socket(),
            &m.project,
            &["sh", "-c", "/usr/bin/python3 leak.py"],
        );
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("BEGIN KEY"),
            "the secret made after the plan was read: {out:?}"
        );
        assert!(stderr(&out).contains("ran confined"), "{out:?}");
    }
    // And once planned again, the ruleset passed hides it too.
    let outs = until_passed(&m, daemon.socket(), "/usr/bin/python3 leak.py");
    for out in &outs {
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("BEGIN KEY"),
            "{out:?}"
        );
    }
}

#[test]
fn a_file_made_in_the_home_between_runs_leaves_the_next_door_its_ruleset() {
    if !landlock() {
        return;
    }
    let m = Home::new("assent-kept-ahead-", &[".ssh"]);
    std::fs::write(m.home.join(".ssh/id_ed25519"), SECRET).expect("secret");
    let daemon = hiding(&m, &[".ssh/**"]);
    until_passed(&m, daemon.socket(), "true");
    // Between an agent's runs its own files change in the home (a history, a settings file
    // written by rename). The plan lists the home, so each change drops it; the daemon makes it
    // again as the change comes, and the next door is passed a ruleset, not left to plan.
    let mut given = 0;
    for i in 0..8 {
        std::fs::write(m.home.join(format!(".history-{i}")), "x").expect("write");
        std::thread::sleep(std::time::Duration::from_millis(300));
        let before = passed(&m, daemon.socket());
        let out = m.assent(daemon.socket(), &m.project, &["sh", "-c", "true"]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        given += u64::from(passed(&m, daemon.socket()) > before);
    }
    // Other tests change the real home meanwhile (their scratch directories), which drops
    // plans too: most, not all. Without the plans made ahead, none.
    assert!(
        given >= 2,
        "{given} of 8 doors after a change were passed a ruleset"
    );
}

/// Unmounts what a test mounted, whatever happens to the test: lazily, since the daemon's kept
/// rulesets (alive until the daemon is dropped, after these) hold the directories, and a plain
/// `umount` of a busy mount fails and leaves it on the machine.
struct Mounted(std::path::PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("--lazy")
            .arg(&self.0)
            .status();
    }
}

#[test]
fn a_secret_mounted_since_a_ruleset_was_kept_is_hidden_at_once() {
    if !landlock() || !assent_tests::needs::needs_root("to bind-mount a secret") {
        return;
    }
    let m = Home::new(
        "assent-kept-mount-",
        &[".ssh", "Documents/shared/keys", "vault"],
    );
    std::fs::write(m.home.join("vault/id"), SECRET).expect("secret");
    // The secret names a file: while it is absent nothing is hidden there, and
    // `Documents/shared` is granted whole. A mount is no change inotify sees.
    let daemon = hiding(&m, &[".ssh/**", "vault/**", "Documents/shared/keys/id"]);
    m.python(
        "leak.py",
        "Documents/shared/keys/id",
        "print(open(p).read())",
    );
    let outs = until_passed(&m, daemon.socket(), "/usr/bin/python3 leak.py");
    assert_ne!(outs.last().map(|o| o.status.code()), Some(Some(0)));
    let keys = m.home.join("Documents/shared/keys");
    let mounted = std::process::Command::new("mount")
        .arg("--bind")
        .arg(m.home.join("vault"))
        .arg(&keys)
        .status()
        .expect("mount");
    assert!(mounted.success(), "mount --bind");
    let _mounted = Mounted(keys);
    for _ in 0..3 {
        let out = m.assent(
            daemon.socket(),
            &m.project,
            &["sh", "-c", "/usr/bin/python3 leak.py"],
        );
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("BEGIN KEY"),
            "the secret mounted after the plan was read: {out:?}"
        );
    }
    // The daemon hears a mount as it comes and plans again before the next door asks: that
    // door is passed a ruleset made after the mount, which hides the secret as well. (Other
    // tests change the home meanwhile, which drops plans too: a few tries.)
    let mut mounts = Vec::new();
    let mut given = 0;
    for attempt in 0..5 {
        until_passed(&m, daemon.socket(), "/usr/bin/python3 leak.py");
        let (from, onto) = (
            m.home.join(format!("Documents/from-{attempt}")),
            m.home.join(format!("Documents/onto-{attempt}")),
        );
        std::fs::create_dir_all(&from).expect("mkdir");
        std::fs::create_dir_all(&onto).expect("mkdir");
        std::thread::sleep(std::time::Duration::from_millis(200));
        let mounted = std::process::Command::new("mount")
            .arg("--bind")
            .arg(&from)
            .arg(&onto)
            .status()
            .expect("mount");
        assert!(mounted.success(), "mount --bind");
        mounts.push(Mounted(onto));
        std::thread::sleep(std::time::Duration::from_millis(200));
        let before = passed(&m, daemon.socket());
        let out = m.assent(
            daemon.socket(),
            &m.project,
            &["sh", "-c", "/usr/bin/python3 leak.py"],
        );
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("BEGIN KEY"),
            "the secret mounted after the plan was read: {out:?}"
        );
        given += u64::from(passed(&m, daemon.socket()) > before);
    }
    assert!(
        given >= 1,
        "every door right after a mount planned for itself"
    );
}

/// A door in a mount namespace of its own may see other files at the daemon's paths: it is
/// never handed the daemon's ruleset and plans its own; a door beside it still is.
#[test]
fn a_door_in_a_mount_namespace_of_its_own_plans_for_itself() {
    if !landlock() || !assent_tests::needs::needs_root("a mount namespace of its own (unshare)") {
        return;
    }
    let m = Home::new("assent-kept-ns-", &[".ssh"]);
    let daemon = hiding(&m, &[".ssh/**"]);
    until_passed(&m, daemon.socket(), "true");
    let door = assent_tests::process::assent(daemon.socket());
    for _ in 0..3 {
        let before = passed(&m, daemon.socket());
        let out = assent_tests::process::run_bounded(
            std::process::Command::new("unshare")
                .arg("--mount")
                .arg("--")
                .arg(door.get_program())
                .args(door.get_args())
                .args(["sh", "-c", "true"])
                .current_dir(&m.project)
                .env("HOME", &m.home)
                .env("TMPDIR", "/tmp")
                .stdin(std::process::Stdio::null()),
        );
        assert!(out.status.success(), "{out:?}");
        assert_eq!(
            passed(&m, daemon.socket()),
            before,
            "a door in another mount namespace was handed the daemon's ruleset"
        );
    }
    until_passed(&m, daemon.socket(), "true");
}

/// A door on a terminal is confined with the daemon's ruleset too, with its own terminal
/// added: the run writes to its terminal by name (as `tty` and curses programs do), and the
/// door makes one rule (the terminal's) where planning for itself makes dozens.
#[test]
fn a_door_on_a_terminal_adds_its_terminal_to_the_daemons_ruleset() {
    use assent_tests::needs::{STRACE, TMUX, needs};
    use assent_tests::tmux::{Pane, SCREEN_TIMEOUT};
    if !landlock() || !needs(&[TMUX, STRACE]) {
        return;
    }
    let m = Home::new("assent-kept-tty-", &[".ssh"]);
    let daemon = hiding(&m, &[".ssh/**"]);
    m.python(
        "tty.py",
        "unused",
        "open(os.ttyname(1), 'w').write('written-to-the-terminal-by-name\\n')",
    );
    let line = "/usr/bin/python3 tty.py";
    let door = assent_tests::process::assent(daemon.socket());
    let door: Vec<String> = std::iter::once(door.get_program())
        .chain(door.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let env: Vec<(String, String)> = [
        ("HOME", m.home.display().to_string()),
        ("PATH", "/usr/bin:/bin".to_owned()),
        ("TMPDIR", "/tmp".to_owned()),
        ("TERM", "xterm".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    // The panes and traces live outside the home: a change in a directory the daemon's plan
    // looked at (the home) drops the plan.
    let panes = tempfile::tempdir().expect("a directory for the panes");
    let mut seen = Vec::new();
    for attempt in 0..20 {
        // A run through pipes first, so the daemon has a ruleset ready for this line.
        until_passed(&m, daemon.socket(), line);
        let dir = panes.path().join(format!("pane-{attempt}"));
        std::fs::create_dir_all(&dir).expect("pane dir");
        let trace = dir.join("trace");
        let project = m.project.display().to_string();
        let trace_arg = trace.display().to_string();
        let mut argv = vec![
            "/usr/bin/env",
            "-C",
            project.as_str(),
            "strace",
            "-f",
            "-e",
            "trace=landlock_add_rule,landlock_restrict_self",
            "-o",
            trace_arg.as_str(),
        ];
        argv.extend(door.iter().map(String::as_str));
        argv.extend(["sh", "-c", line]);
        let pane = Pane::start(&dir, &env, &argv);
        pane.wait_for("the run's words", SCREEN_TIMEOUT, |s| {
            s.contains("written-to-the-terminal-by-name") || s.contains("Pane is dead")
        });
        let screen = pane.screen();
        assert!(
            screen.contains("written-to-the-terminal-by-name"),
            "the confined run could not write to its terminal by name:\n{screen}"
        );
        let traced = std::fs::read_to_string(&trace).unwrap_or_default();
        let rules = traced.matches("landlock_add_rule(").count();
        assert!(
            traced.contains("landlock_restrict_self("),
            "the door confined nothing:\n{traced}"
        );
        if rules == 1 {
            return;
        }
        // The daemon's next ruleset was not ready yet: the door planned for itself.
        seen.push(rules);
    }
    panic!("a door on a terminal never used the daemon's ruleset: rules made {seen:?}");
}
