//! The `assent` command line is strict and its output parses: a flag that is not one is a usage
//! error (64) before anything is checked or run, `--` still ends the options, and what
//! `--json` prints is one JSON document, the token included. `approve` on a machine without
//! polkit says nothing of polkit for an approval that needs no password.
//!
//! Safety: the programs `run` is asked to start only touch a file in a temporary directory,
//! and `rm` on the PATH is a fake that only leaves a marker.

use std::path::Path;
use std::process::Output;

use assent_tests::needs::{TMUX, needs};
use assent_tests::tmux::Pane;
use assent_tests::{
    TestDaemon, assent, binary, decided, fake_rm, held_check, hold, is_token, pending_tokens,
    run_bounded,
};
use serde_json::Value;

fn assert_exit(output: &Output, want: i32, what: &str) {
    assert_eq!(
        output.status.code(),
        Some(want),
        "{what}: stdout {}\nstderr {}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Nothing reached the daemon's judgement: no decision in its log, nothing held.
fn assert_nothing_checked(daemon: &TestDaemon, what: &str) {
    let log = daemon.connect().log(100).expect("the log can be read");
    assert!(log.is_empty(), "{what}: something was checked: {log:?}");
    assert!(pending_tokens(&mut daemon.connect()).is_empty(), "{what}");
}

#[test]
fn a_flag_that_is_not_one_is_a_usage_error_before_anything_is_checked() {
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (bin, marker) = fake_rm(dir.path());
    let touched = dir.path().join("touched");
    let touched = touched.to_str().expect("a UTF-8 path");
    let cases: [&[&str]; 8] = [
        &["check", "--frobnicate", "--", "ls"],
        &["check", "--no-wiat", "--", "rm", "-rf", "src"],
        &["check", "--json", "--frobnicate", "ls"],
        &["run", "--frobnicate", "--", "touch", touched],
        &["run", "--origin", "agent", "-x", "touch", touched],
        &["explain", "--frobnicate", "--", "ls"],
        &["tool", "file.read", "--frobnicate"],
        &["approve", "--frobnicate", "pa_x"],
    ];
    for args in cases {
        let output = run_bounded(
            assent(daemon.socket())
                .args(args)
                .env("PATH", format!("{}:/usr/bin:/bin", bin.display())),
        );
        assert_exit(&output, 64, &format!("assent {args:?}"));
        assert!(
            !output.stderr.is_empty(),
            "assent {args:?}: the error is told"
        );
        assert_nothing_checked(&daemon, &format!("assent {args:?}"));
    }
    assert!(!Path::new(touched).exists(), "run started its program");
    assert!(!marker.exists(), "rm ran");
}

/// `--` ends the options, and words after the program keep their dashes.
#[test]
fn dashes_after_the_command_belong_to_the_command() {
    let daemon = TestDaemon::start();
    let output = run_bounded(assent(daemon.socket()).args(["check", "--json", "--", "--version"]));
    let printed: Value = serde_json::from_slice(&output.stdout).expect("one JSON document");
    assert_eq!(printed["command"], "--version", "{printed}");
    let output = run_bounded(assent(daemon.socket()).args(["run", "echo", "-n", "hi"]));
    assert_exit(&output, 0, "assent run echo -n hi");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "hi");
}

/// `check --json --no-wait` prints one JSON document and nothing else on stdout; the token is
/// in it, at the top.
#[test]
fn check_json_no_wait_prints_only_the_json_with_the_token() {
    let daemon = TestDaemon::start();
    let output = run_bounded(assent(daemon.socket()).args([
        "check",
        "--json",
        "--no-wait",
        "--",
        "rm",
        "-rf",
        "/home/user/project/src",
    ]));
    assert_exit(&output, 2, "check --json --no-wait");
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON document ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    });
    let token = printed["token"].as_str().expect("the token is in the JSON");
    assert!(is_token(token), "{printed}");
    assert_eq!(printed["verdict"]["token"], token);
    assert!(pending_tokens(&mut daemon.connect()).contains(&token.to_string()));
}

/// Tool arguments that are not JSON are a usage error at once, not a request held as opaque.
#[test]
fn tool_arguments_that_are_not_json_are_a_usage_error() {
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("args.json");
    std::fs::write(&file, "[1, 2").expect("the file is written");
    let file = file.to_str().expect("a UTF-8 path");
    for args in [
        &["tool", "file.delete", "--args", "{bad json"][..],
        &["tool", "file.delete", "--args", ""],
        &["tool", "file.delete", "--args-file", file],
    ] {
        let started = std::time::Instant::now();
        let output = run_bounded(assent(daemon.socket()).args(args));
        assert_exit(&output, 64, &format!("assent {args:?}"));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("not JSON"),
            "{args:?}"
        );
        assert_nothing_checked(&daemon, &format!("assent {args:?}"));
    }
}

/// Without polkit, `pkttyagent` fails to register and says so on its standard error; an
/// approval that needs no password must not show that: the person sees only the approval.
#[test]
fn approve_without_polkit_says_nothing_of_polkit() {
    if !needs(&[TMUX]) {
        return;
    }
    use std::os::unix::fs::PermissionsExt as _;
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temporary directory");
    // A pkttyagent as one without polkit behaves: an error on stderr, exit 1.
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).expect("the bin directory can be made");
    let ran = dir.path().join("pkttyagent-ran");
    let fake = bin.join("pkttyagent");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\ntouch '{}'\necho 'Error registering authentication agent: \
             GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown: polkit is not there' >&2\n\
             exit 1\n",
            ran.display()
        ),
    )
    .expect("the fake pkttyagent is written");
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755))
        .expect("the fake is made executable");

    let mut requester = daemon.connect();
    let token = hold(&mut requester, &held_check("git push --force", true, None));
    let assent_bin = binary("assent");
    let socket = daemon.socket().to_str().expect("a UTF-8 socket path");
    let env = [
        (
            "PATH".to_string(),
            format!("{}:/usr/bin:/bin", bin.display()),
        ),
        ("TERM".to_string(), "screen".to_string()),
    ];
    let pane = Pane::start(
        dir.path(),
        &env,
        &[
            assent_bin.to_str().expect("a UTF-8 path"),
            "--socket",
            socket,
            "approve",
            &token,
        ],
    );
    let screen = pane.wait_text("approved once");
    assert!(decided(&mut requester).allow, "{screen}");
    assert!(ran.exists(), "approve did not start pkttyagent: {screen}");
    for word in ["polkit", "pkttyagent", "Error"] {
        assert!(!screen.contains(word), "{word} shown:\n{screen}");
    }
}
