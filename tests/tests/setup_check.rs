//! `assent setup --check` tells whether a hook will gate, not only whether it is there: a
//! matcher that misses the shell or file tools, an agent timeout below the hold, a program in a
//! build tree and a Codex hook Codex does not trust each fail the check with what to do; a
//! bare `--check` grades what is installed. Also: `setup` warns about a build-tree path, and
//! `setup claude-code --defer` writes a hook that says nothing on allow.
//!
//! Safety: nothing here runs a command line; the settings are written and read only.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use std::time::Duration;

use assent_tests::{OUR_ENV, Options, PROCESS_TIMEOUT, TestDaemon, binary, wait_bounded};
use serde_json::Value;

/// `assent setup ARGS` with HOME in `home`, and `PATH` without the build tree.
fn setup(home: &Path, socket: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(binary("assent"));
    for var in OUR_ENV {
        command.env_remove(var);
    }
    command
        .env("HOME", home)
        .env("PATH", "/usr/bin:/bin")
        .env_remove("CODEX_HOME")
        .env_remove("ZDOTDIR")
        .arg("--socket")
        .arg(socket)
        .arg("setup")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    wait_bounded(command.spawn().expect("assent starts"), PROCESS_TIMEOUT)
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A HOME with `assent` installed in `HOME/bin`, outside the build tree.
fn home() -> (tempfile::TempDir, String) {
    let home = tempfile::tempdir().expect("a temporary HOME");
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    std::fs::copy(binary("assent"), bin.join("assent")).expect("assent is copied");
    let path = bin.join("assent").to_str().expect("UTF-8").to_string();
    (home, path)
}

fn status(output: &Output) -> Option<i32> {
    output.status.code()
}

/// Change our entry in a JSON settings file: `edit(group, entry)`.
fn edit_settings(file: &Path, edit: impl FnOnce(&mut Value, &mut Value)) {
    let mut json: Value =
        serde_json::from_str(&std::fs::read_to_string(file).expect("settings")).expect("JSON");
    let mut group = json["hooks"]["PreToolUse"][0].take();
    let mut entry = group["hooks"][0].take();
    edit(&mut group, &mut entry);
    group["hooks"][0] = entry;
    json["hooks"]["PreToolUse"][0] = group;
    std::fs::write(file, json.to_string()).expect("written");
}

#[test]
fn a_bare_check_grades_what_is_installed() {
    let daemon = TestDaemon::start();
    let (home, assent) = home();
    let none = setup(home.path(), daemon.socket(), &["--check"]);
    assert_eq!(status(&none), Some(1), "{}", text(&none));
    assert!(
        text(&none).contains("no hook is installed"),
        "{}",
        text(&none)
    );

    let out = setup(
        home.path(),
        daemon.socket(),
        &["claude-code", "--assent", &assent],
    );
    assert_eq!(status(&out), Some(0), "{}", text(&out));
    let one = setup(home.path(), daemon.socket(), &["--check"]);
    assert_eq!(status(&one), Some(0), "one agent is enough: {}", text(&one));
    let said = text(&one);
    let line = |name: &str| {
        said.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} line in {said}"))
            .to_string()
    };
    assert!(line("claude-code").contains("installed in"), "{said}");
    assert!(line("codex").contains("not installed"), "{said}");
    assert!(line("gate").contains("reachable"), "{said}");
    // A target named is one that must be there.
    let named = setup(home.path(), daemon.socket(), &["--check", "codex"]);
    assert_eq!(status(&named), Some(1), "{}", text(&named));
}

#[test]
fn a_hook_that_will_not_gate_fails_the_check_with_the_reason() {
    let daemon = TestDaemon::start();
    type Edit = fn(&mut Value, &mut Value);
    let cases: [(&str, Edit, &str); 4] = [
        ("shell only", |g, _| g["matcher"] = "Bash".into(), "Write"),
        (
            "no shell",
            |g, _| g["matcher"] = "Write|Edit".into(),
            "Bash",
        ),
        (
            "timeout below the hold",
            |_, e| e["timeout"] = 60.into(),
            "kills the hook after 60 s",
        ),
        (
            "default timeout",
            |_, e| drop(e.as_object_mut().map(|o| o.remove("timeout"))),
            "after 60 s",
        ),
    ];
    for (what, edit, says) in cases {
        let (home, assent) = home();
        let out = setup(
            home.path(),
            daemon.socket(),
            &["claude-code", "--assent", &assent],
        );
        assert_eq!(status(&out), Some(0), "{}", text(&out));
        edit_settings(&home.path().join(".claude/settings.json"), edit);
        let checked = setup(home.path(), daemon.socket(), &["--check", "claude-code"]);
        assert_eq!(status(&checked), Some(1), "{what}: {}", text(&checked));
        assert!(text(&checked).contains(says), "{what}: {}", text(&checked));
        // Setting it up again repairs it.
        let out = setup(
            home.path(),
            daemon.socket(),
            &["claude-code", "--assent", &assent],
        );
        assert_eq!(status(&out), Some(0), "{}", text(&out));
        let checked = setup(home.path(), daemon.socket(), &["--check", "claude-code"]);
        assert_eq!(
            status(&checked),
            Some(0),
            "{what}, repaired: {}",
            text(&checked)
        );
    }
}

#[test]
fn a_program_in_a_build_tree_is_warned_about_and_fails_the_check() {
    let daemon = TestDaemon::start();
    let (home, _) = home();
    let built: PathBuf = binary("assent");
    let built = built.to_str().expect("UTF-8");
    let out = setup(home.path(), daemon.socket(), &["gemini", "--assent", built]);
    assert_eq!(status(&out), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is a build product"),
        "{}",
        text(&out)
    );
    let checked = setup(home.path(), daemon.socket(), &["--check", "gemini"]);
    assert_eq!(status(&checked), Some(1), "{}", text(&checked));
    assert!(text(&checked).contains("cargo clean"), "{}", text(&checked));
}

#[test]
fn setup_codex_records_codexs_trust_and_the_check_sees_it_lost() {
    let daemon = TestDaemon::start();
    let (home, assent) = home();
    let out = setup(
        home.path(),
        daemon.socket(),
        &["codex", "--assent", &assent],
    );
    assert_eq!(status(&out), Some(0), "{}", text(&out));
    let config = std::fs::read_to_string(home.path().join(".codex/config.toml")).expect("config");
    let key = format!(
        "[hooks.state.\"{}/.codex/hooks.json:pre_tool_use:0:0\"]",
        home.path().display()
    );
    assert!(config.contains(&key), "{config}");
    assert!(config.contains("trusted_hash = \"sha256:"), "{config}");
    let checked = setup(home.path(), daemon.socket(), &["--check", "codex"]);
    assert_eq!(status(&checked), Some(0), "{}", text(&checked));
    // Any change to the entry untrusts it, as in Codex.
    edit_settings(&home.path().join(".codex/hooks.json"), |_, e| {
        e["timeout"] = 900.into();
    });
    let checked = setup(home.path(), daemon.socket(), &["--check", "codex"]);
    assert_eq!(status(&checked), Some(1), "{}", text(&checked));
    assert!(
        text(&checked).contains("not trusted yet: open /hooks in Codex"),
        "{}",
        text(&checked)
    );
}

#[test]
fn defer_is_written_for_claude_code_only() {
    let daemon = TestDaemon::start();
    let (home, assent) = home();
    let out = setup(
        home.path(),
        daemon.socket(),
        &["claude-code", "--defer", "--assent", &assent],
    );
    assert_eq!(status(&out), Some(0), "{}", text(&out));
    let settings =
        std::fs::read_to_string(home.path().join(".claude/settings.json")).expect("settings");
    assert!(
        settings.contains("hook claude-code --defer\""),
        "{settings}"
    );
    // Without it again: the same entry, brought back to answering allow.
    let out = setup(
        home.path(),
        daemon.socket(),
        &["claude-code", "--assent", &assent],
    );
    assert_eq!(status(&out), Some(0), "{}", text(&out));
    let settings =
        std::fs::read_to_string(home.path().join(".claude/settings.json")).expect("settings");
    assert!(!settings.contains("--defer"), "{settings}");
    assert_eq!(
        settings.matches("hook claude-code").count(),
        1,
        "{settings}"
    );
    let refused = setup(
        home.path(),
        daemon.socket(),
        &["codex", "--defer", "--assent", &assent],
    );
    assert_eq!(status(&refused), Some(64), "{}", text(&refused));
}

/// The agent's timeout is graded against the running daemon's own hold (`status` reports it),
/// not a default: the installed 600 s passes a 300 s hold and fails a 700 s one.
#[test]
fn the_timeout_is_graded_against_the_daemons_own_hold() {
    let (home, assent) = home();
    let hold = |secs| {
        TestDaemon::with(Options {
            hold_ttl: Duration::from_secs(secs),
            ..Options::default()
        })
    };
    let short = hold(300);
    let installed = setup(
        home.path(),
        short.socket(),
        &["claude-code", "--assent", &assent],
    );
    assert_eq!(status(&installed), Some(0), "{}", text(&installed));
    let checked = setup(home.path(), short.socket(), &["--check", "claude-code"]);
    assert_eq!(status(&checked), Some(0), "{}", text(&checked));
    assert!(text(&checked).contains("holds 300 s"), "{}", text(&checked));
    let long = hold(700);
    let checked = setup(home.path(), long.socket(), &["--check", "claude-code"]);
    assert_eq!(status(&checked), Some(1), "{}", text(&checked));
    assert!(
        text(&checked).contains("kills the hook after 600 s, before a held call's 700 s are up"),
        "{}",
        text(&checked)
    );
}
