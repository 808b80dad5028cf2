//! `assent-sh` as an agent's `$SHELL`: an agent-like parent (this test) that shells out through
//! `$SHELL -c STRING`, as aider and home-made agents do, is gated line by line.
//!
//! Safety: `rm` on the agent's PATH is a fake that only leaves a marker, and HOME is inside a
//! temporary directory, so even a wrongly allowed line could not delete anything.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use assent_tests::{
    KillOnDrop, OUR_ENV, PROCESS_TIMEOUT, TestDaemon, approver, binary, fake_rm, pending_tokens,
    run_detached, wait_bounded, wait_until,
};

/// The agent's environment: `SHELL` is the `assent-sh` link, the socket is the test daemon's.
struct AgentEnv {
    vars: Vec<(String, OsString)>,
    home: PathBuf,
}

impl AgentEnv {
    /// Do what an agent does with a command string: run `$SHELL -c STRING`.
    fn shell_out(&self, line: &str) -> Child {
        self.shell_out_as(&["-c"], line)
    }

    /// `$SHELL FLAGS... STRING`, as each agent spells it (Claude Code: `-c -l STRING`).
    fn shell_out_as(&self, flags: &[&str], line: &str) -> Child {
        let shell = self
            .vars
            .iter()
            .find(|(k, _)| k == "SHELL")
            .map(|(_, v)| v.clone())
            .expect("the agent has a SHELL");
        let mut command = Command::new(shell);
        for var in OUR_ENV {
            command.env_remove(var);
        }
        command
            .args(flags)
            .arg(line)
            .envs(self.vars.iter().map(|(k, v)| (k, v)))
            .current_dir(&self.home)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command.spawn().expect("the agent's shell starts")
    }
}

fn agent_env(daemon: &TestDaemon, dir: &Path) -> (AgentEnv, PathBuf) {
    let (bin, marker) = fake_rm(dir);
    let home = dir.join("home");
    std::fs::create_dir_all(home.join("x")).expect("the home directory can be made");
    std::fs::write(home.join("x").join("keep"), "precious\n").expect("a file in ~/x");
    // The README recipe: a link named assent-sh to the assent binary, set as $SHELL.
    let shell = dir.join("assent-sh");
    std::os::unix::fs::symlink(binary("assent"), &shell).expect("the assent-sh link is made");
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let vars = vec![
        ("SHELL".to_string(), shell.into_os_string()),
        ("HOME".to_string(), home.clone().into_os_string()),
        ("PATH".to_string(), path.into()),
        (
            "ASSENT_SOCKET".to_string(),
            daemon.socket().as_os_str().to_owned(),
        ),
    ];
    (AgentEnv { vars, home }, marker)
}

#[test]
fn an_agents_shell_runs_ls_and_holds_rm_rf_under_home() {
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (agent, marker) = agent_env(&daemon, dir.path());

    // A safe line runs at once, through bash, with the agent's cwd.
    let output = wait_bounded(agent.shell_out("ls"), PROCESS_TIMEOUT);
    assert_eq!(
        output.status.code(),
        Some(0),
        "$SHELL -c ls: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&output.stdout), "x\n");

    // A destructive line is held: it waits for a person and has not run.
    let mut child = KillOnDrop(Some(agent.shell_out("rm -rf ~/x")));
    let mut watcher = daemon.connect();
    let mut tokens = Vec::new();
    let held = wait_until(Duration::from_secs(10), || {
        tokens = pending_tokens(&mut watcher);
        !tokens.is_empty()
    });
    assert!(held, "$SHELL -c 'rm -rf ~/x' was not held");
    assert!(!marker.exists(), "the held line ran before any answer");

    // The person denies it from another terminal: the agent sees 126 and nothing ran.
    let answer = run_detached(approver(daemon.socket()).args(["answer", &tokens[0], "deny"]));
    assert_eq!(String::from_utf8_lossy(&answer.stdout).trim(), "done");
    let output = wait_bounded(child.take(), PROCESS_TIMEOUT);
    assert_eq!(
        output.status.code(),
        Some(126),
        "$SHELL -c 'rm -rf ~/x', denied: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!marker.exists(), "the denied line ran");
    assert!(agent.home.join("x").join("keep").exists());
}

/// The agent is the parent of its `$SHELL` (`assent-sh` only passes the line on): a process the
/// agent starts, even in a session of its own, may not approve what its shell holds, and is told
/// it descends from the agent; a person elsewhere still answers (here: denies).
#[test]
fn what_the_agent_starts_may_not_approve_what_its_shell_holds() {
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (agent, marker) = agent_env(&daemon, dir.path());
    let mut child = KillOnDrop(Some(agent.shell_out("rm -rf ~/x")));
    let mut watcher = daemon.connect();
    let mut tokens = Vec::new();
    let held = wait_until(Duration::from_secs(10), || {
        tokens = pending_tokens(&mut watcher);
        !tokens.is_empty()
    });
    assert!(held, "$SHELL -c 'rm -rf ~/x' was not held");

    // This test process is the agent: its own child, in a new session, tries to approve.
    let mut own = assent_tests::assent(daemon.socket());
    own.args(["approve", &tokens[0]]);
    let own = assent_tests::run_bounded(assent_tests::in_new_session(&mut own));
    let said = String::from_utf8_lossy(&own.stderr);
    let agent_pid = std::process::id();
    assert_eq!(own.status.code(), Some(1), "{said}");
    assert!(
        said.contains("self_approval") && said.contains(&format!("descends from {agent_pid} (")),
        "{said}"
    );
    assert_eq!(pending_tokens(&mut watcher), tokens, "still held");
    assert!(!marker.exists(), "the held line ran");

    // A person elsewhere answers: a deny, so that nothing runs.
    let answer = run_detached(approver(daemon.socket()).args(["answer", &tokens[0], "deny"]));
    assert_eq!(String::from_utf8_lossy(&answer.stdout).trim(), "done");
    let output = wait_bounded(child.take(), PROCESS_TIMEOUT);
    assert_eq!(output.status.code(), Some(126));
    assert!(!marker.exists(), "the denied line ran");
}

/// Claude Code calls its shell `$SHELL -c -l STRING`, and bash runs STRING (options come before
/// the command string, wherever `-c` stands); `-co pipefail STRING` likewise. The gate must
/// check STRING, not the word after `-c`: a forbidden line is refused and never reaches `rm`.
#[test]
fn an_agents_shell_checks_the_line_bash_runs_whatever_the_flags_order() {
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (agent, marker) = agent_env(&daemon, dir.path());
    for flags in [&["-c", "-l"][..], &["-co", "pipefail"], &["-c", "-"]] {
        let output = wait_bounded(agent.shell_out_as(flags, "rm -rf /"), PROCESS_TIMEOUT);
        assert_eq!(
            output.status.code(),
            Some(126),
            "$SHELL {flags:?} 'rm -rf /': {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!marker.exists(), "$SHELL {flags:?} 'rm -rf /' ran rm");
    }
    let output = wait_bounded(agent.shell_out_as(&["-c", "-l"], "ls"), PROCESS_TIMEOUT);
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "x\n",
        "-c -l ls runs ls"
    );
}

/// A flag bash does not know is a usage error (64) before anything is checked or run, as bash
/// itself refuses it; so is `-c` without a command.
#[test]
fn an_agents_shell_refuses_an_unknown_flag_before_checking() {
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (agent, marker) = agent_env(&daemon, dir.path());
    for flags in [&["--frobnicate", "-c"][..], &["-cZ"], &["-c", "--norc"]] {
        let output = wait_bounded(agent.shell_out_as(flags, "rm -rf ~/x"), PROCESS_TIMEOUT);
        assert_eq!(
            output.status.code(),
            Some(64),
            "$SHELL {flags:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!marker.exists(), "$SHELL {flags:?} ran rm");
    }
    assert!(
        pending_tokens(&mut daemon.connect()).is_empty(),
        "nothing was held"
    );
    let log = daemon.connect().log(100).expect("the log can be read");
    assert!(log.is_empty(), "nothing was checked: {log:?}");
}

/// A line of one program with literal words starts the program without bash, as bash would
/// have started it (the words as typed, a `PWD` that names where it runs); a line bash acts on
/// still goes through bash. Told apart by what only bash does: it runs `$BASH_ENV` first.
#[test]
fn a_plain_program_line_runs_without_bash_and_anything_more_through_it() {
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (mut agent, _) = agent_env(&daemon, dir.path());
    let ran = dir.path().join("bash-ran");
    let bash_env = dir.path().join("bash_env");
    std::fs::write(&bash_env, format!("echo ran >> '{}'\n", ran.display()))
        .expect("BASH_ENV written");
    agent
        .vars
        .push(("BASH_ENV".into(), bash_env.into_os_string()));
    // A `PWD` that names another directory, as a parent that changed directory may leave it.
    agent.vars.push(("PWD".into(), "/".into()));
    let home = agent.home.canonicalize().expect("the home exists");
    let run = |line: &str| {
        let output = wait_bounded(agent.shell_out(line), PROCESS_TIMEOUT);
        assert_eq!(output.status.code(), Some(0), "{line}: {output:?}");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };

    assert_eq!(run("printenv PWD"), format!("{}\n", home.display()));
    assert_eq!(
        run("/usr/bin/printf '%s|' 'a b' \"c d\" ''"),
        "a b|c d||",
        "the words as bash would give them"
    );
    // Started by the file the search found, named as typed: `sh -c` prints its `argv[0]`.
    assert_eq!(run("sh -c 'echo $0'"), "sh\n", "argv[0] as bash gives it");
    assert!(!ran.exists(), "bash ran for a plain program line");

    assert_eq!(run("printenv PWD | cat"), format!("{}\n", home.display()));
    assert!(ran.exists(), "a pipeline goes through bash");
}

/// A plain line goes to bash wherever bash would act otherwise than the door's own start, on a
/// confined run and an unconfined one alike: a file that looks like a program but that the
/// kernel will not run (the C library's `execvp` would run it with `/bin/sh`; bash refuses it),
/// and a `PATH` entry that starts with `~` (bash expands it; read literally, it names a
/// directory `~` under the working directory, which a repository can hold).
#[test]
fn where_bash_would_act_otherwise_a_plain_line_goes_to_bash() {
    let confined = TestDaemon::start();
    let unconfined = TestDaemon::with(assent_tests::Options {
        policy: Some("[confine]\nenabled = false\n".into()),
        ..assent_tests::Options::default()
    });
    for daemon in [&confined, &unconfined] {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let (mut agent, _) = agent_env(daemon, dir.path());
        let marker = dir.path().join("ran-what-bash-would-not");
        let script = format!("touch '{}'\n", marker.display());
        // An `ls` that starts as an ELF file and is none: the kernel refuses it (ENOEXEC).
        let fake = dir.path().join("fake-bin");
        executable(&fake.join("ls"), &format!("\x7fELF\n{script}"));
        let rest = path_of(&mut agent).to_string_lossy().into_owned();
        *path_of(&mut agent) = format!("{}:{rest}", fake.display()).into();
        let output = wait_bounded(agent.shell_out("ls"), PROCESS_TIMEOUT);
        assert_eq!(
            output.status.code(),
            Some(126),
            "bash's refusal: {output:?}"
        );
        assert!(!marker.exists(), "the file ran as a script: {output:?}");

        // `~/bin` first on PATH, and a directory `~/bin` in the working directory.
        executable(
            &agent.home.join("~/bin/ls"),
            &format!("#!/bin/sh\n{script}"),
        );
        *path_of(&mut agent) = format!("~/bin:{rest}").into();
        let output = wait_bounded(agent.shell_out("ls"), PROCESS_TIMEOUT);
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        assert!(!marker.exists(), "./~/bin/ls ran: {output:?}");
    }

    // A confined run (an agent's own program in its directory runs confined instead of held)
    // of a file the kernel will not run: bash's answer, not the door's.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (agent, _) = agent_env(&confined, dir.path());
    executable(&agent.home.join("fake"), "\x7fELF\nexit 0\n");
    let output = wait_bounded(agent.shell_out("./fake"), PROCESS_TIMEOUT);
    assert_eq!(output.status.code(), Some(126), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("cannot execute binary file"),
        "bash answered for the file it would not run: {output:?}"
    );
}

/// A file at `path` (its directory made) holding `text`, executable.
fn executable(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a file in a directory")).expect("made");
    std::fs::write(path, text).expect("written");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("executable");
}

/// The agent's `PATH`, to edit.
fn path_of(agent: &mut AgentEnv) -> &mut std::ffi::OsString {
    let (_, path) = agent
        .vars
        .iter_mut()
        .find(|(k, _)| k == "PATH")
        .expect("a PATH");
    path
}
