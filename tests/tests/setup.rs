//! `assent setup` as a user runs it, in a throwaway HOME: installing each agent's hook into an
//! empty and into a populated settings file, a second run changing nothing, `--check`, the
//! installed hook answering that agent's real payloads against the real daemon, and
//! `--uninstall` giving the file back as it was.
//!
//! Safety: the payloads' commands are only checked by the hook, never run.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use assent_tests::{OUR_ENV, PROCESS_TIMEOUT, TestDaemon, binary, wait_bounded};
use serde_json::Value;

/// `assent setup ARGS` with HOME (and nothing else of ours) pointing into `home`.
fn setup(home: &Path, socket: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(binary("assent"));
    for var in OUR_ENV {
        command.env_remove(var);
    }
    command
        .env("HOME", home)
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

/// `assent` copied out of the build tree into `dir/bin`, as an installed one is: `--check`
/// fails a hook whose program `cargo clean` would remove.
fn installed_assent(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("a bin directory");
    let copy = bin.join("assent");
    std::fs::copy(binary("assent"), &copy).expect("assent is copied");
    copy
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ok(output: &Output) -> String {
    assert_eq!(
        output.status.code(),
        Some(0),
        "stdout: {}\nstderr: {}",
        text(&output.stdout),
        text(&output.stderr)
    );
    text(&output.stdout)
}

/// Per agent: its settings file under HOME, what a user already has there, the event key, and
/// a real payload of a safe call and of a forbidden one.
struct Agent {
    name: &'static str,
    file: &'static str,
    populated: &'static str,
    event: &'static str,
    safe: &'static str,
    forbidden: &'static str,
}

const AGENTS: [Agent; 3] = [
    Agent {
        name: "claude-code",
        file: ".claude/settings.json",
        populated: "{\n  \"model\": \"opus\",\n  \"permissions\": { \"allow\": [\"Bash(ls:*)\"] },\n  \"hooks\": {\n    \"PreToolUse\": [\n      { \"matcher\": \"Bash\", \"hooks\": [{ \"type\": \"command\", \"command\": \"~/bin/audit.sh\" }] }\n    ]\n  }\n}\n",
        event: "PreToolUse",
        safe: r#"{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la"}}"#,
        forbidden: r#"{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}"#,
    },
    Agent {
        name: "codex",
        file: ".codex/hooks.json",
        populated: "{\n  \"hooks\": {\n    \"PostToolUse\": [\n      { \"matcher\": \"*\", \"hooks\": [{ \"type\": \"command\", \"command\": \"notify-send done\" }] }\n    ]\n  }\n}\n",
        event: "PreToolUse",
        safe: r#"{"session_id":"s2","turn_id":"t1","cwd":"/tmp","hook_event_name":"PreToolUse","model":"gpt-5-codex","permission_mode":"default","tool_name":"Bash","tool_input":{"command":["bash","-lc","ls -la"]},"tool_use_id":"c1"}"#,
        forbidden: r#"{"session_id":"s2","turn_id":"t1","cwd":"/tmp","hook_event_name":"PreToolUse","model":"gpt-5-codex","permission_mode":"default","tool_name":"Bash","tool_input":{"command":["bash","-lc","rm -rf /"]},"tool_use_id":"c2"}"#,
    },
    Agent {
        name: "gemini",
        file: ".gemini/settings.json",
        populated: "{\n  // my look\n  \"theme\": \"GitHub\",\n  \"tools\": { \"sandbox\": false },\n}\n",
        event: "BeforeTool",
        safe: r#"{"session_id":"s3","cwd":"/tmp","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls -la"}}"#,
        forbidden: r#"{"session_id":"s3","cwd":"/tmp","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"rm -rf /"}}"#,
    },
];

/// Run the hook command the settings file holds, as the agent would (its words; the first is
/// the absolute path of `assent`), with `payload` on stdin.
fn run_installed_hook(settings: &Path, event: &str, socket: &Path, payload: &str) -> Output {
    let raw = std::fs::read_to_string(settings).expect("the settings are readable");
    let value: Value = json5ish(&raw);
    let command = value["hooks"][event]
        .as_array()
        .and_then(|groups| {
            groups.iter().find_map(|g| {
                g["hooks"].as_array()?.iter().find_map(|h| {
                    let c = h["command"].as_str()?;
                    c.contains(" hook ").then(|| c.to_string())
                })
            })
        })
        .unwrap_or_else(|| panic!("no assent hook in {raw}"));
    let words = shell_words::split(&command).expect("the command splits into words");
    assert!(
        words[0].starts_with('/'),
        "the hook runs assent by its absolute path: {command}"
    );
    let mut child = Command::new(&words[0])
        .args(&words[1..])
        .env("ASSENT_SOCKET", socket)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the hook starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(payload.as_bytes())
        .expect("the payload is written");
    wait_bounded(child, PROCESS_TIMEOUT)
}

/// Gemini's settings may hold comments and trailing commas: drop them to read it as JSON.
fn json5ish(raw: &str) -> Value {
    let cleaned: String = raw
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
        .replace(",\n}", "\n}")
        .replace(",\n  }", "\n  }");
    serde_json::from_str(&cleaned).unwrap_or_else(|e| panic!("{e}: {cleaned}"))
}

#[test]
fn each_agent_is_set_up_checked_answered_and_uninstalled() {
    let daemon = TestDaemon::start();
    let install = tempfile::tempdir().expect("a directory to install into");
    let assent = installed_assent(install.path());
    let assent_arg = assent.to_str().expect("a UTF-8 path");
    for agent in &AGENTS {
        for populated in [false, true] {
            let home = tempfile::tempdir().expect("a temporary HOME");
            let file: PathBuf = home.path().join(agent.file);
            if populated {
                std::fs::create_dir_all(file.parent().expect("a directory")).expect("mkdir");
                std::fs::write(&file, agent.populated).expect("the user's settings");
            }
            let socket = daemon.socket();
            let said = ok(&setup(
                home.path(),
                socket,
                &[agent.name, "--assent", assent_arg],
            ));
            assert!(said.contains("installed the"), "{said}");
            let once = std::fs::read_to_string(&file).expect("written");
            // Idempotent: a second run changes nothing.
            let said = ok(&setup(
                home.path(),
                socket,
                &[agent.name, "--assent", assent_arg],
            ));
            assert!(said.contains("already installed"), "{said}");
            assert_eq!(std::fs::read_to_string(&file).expect("read"), once);
            if populated {
                // What the user had is still there, and kept as it was.
                let backup = PathBuf::from(format!("{}.assent-backup", file.display()));
                assert_eq!(
                    std::fs::read_to_string(&backup).expect("a backup"),
                    agent.populated
                );
                for line in agent.populated.lines().filter(|l| l.len() > 2) {
                    assert!(once.contains(line), "{line:?} lost from:\n{once}");
                }
            }
            if agent.name == "codex" {
                let config = std::fs::read_to_string(home.path().join(".codex/config.toml"))
                    .expect("config.toml written");
                assert!(config.contains("hooks = true"), "{config}");
            }
            let checked = setup(home.path(), socket, &["--check", agent.name]);
            let out = ok(&checked);
            assert!(
                out.contains("installed in") && out.contains("reachable"),
                "{out}"
            );

            // The installed hook answers the agent's own payloads.
            let allowed = run_installed_hook(&file, agent.event, socket, agent.safe);
            assert_eq!(
                allowed.status.code(),
                Some(0),
                "{}: {}",
                agent.name,
                text(&allowed.stderr)
            );
            let denied = run_installed_hook(&file, agent.event, socket, agent.forbidden);
            // Gemini CLI's deny is its JSON at exit 0 (any other exit is a failed hook to it).
            let code = if agent.name == "gemini" { 0 } else { 2 };
            assert!(text(&denied.stdout).contains("deny"), "{}", agent.name);
            assert_eq!(
                denied.status.code(),
                Some(code),
                "{}: {}",
                agent.name,
                text(&denied.stderr)
            );

            let said = ok(&setup(
                home.path(),
                socket,
                &[agent.name, "--uninstall", "--assent", assent_arg],
            ));
            assert!(said.contains("removed the"), "{said}");
            let after = std::fs::read_to_string(&file).expect("still there");
            if populated {
                assert_eq!(after, agent.populated, "uninstall gives the file back");
            } else {
                assert_eq!(json5ish(&after), serde_json::json!({}));
            }
            let checked = setup(home.path(), socket, &["--check", agent.name]);
            assert_eq!(checked.status.code(), Some(1));
            assert!(
                text(&checked.stdout).contains(&format!("run `assent setup {}`", agent.name)),
                "{}",
                text(&checked.stdout)
            );
        }
    }
}

#[test]
fn a_shell_hook_is_added_to_the_start_up_file_once_and_removed_exactly() {
    let daemon = TestDaemon::start();
    let home = tempfile::tempdir().expect("a temporary HOME");
    let assent = installed_assent(home.path());
    let assent_arg = assent.to_str().expect("a UTF-8 path");
    let rc = home.path().join(".bashrc");
    let original = "export EDITOR=vim\nalias ll='ls -l'\n";
    std::fs::write(&rc, original).expect("a .bashrc");
    ok(&setup(
        home.path(),
        daemon.socket(),
        &["bash", "--assent", assent_arg],
    ));
    ok(&setup(
        home.path(),
        daemon.socket(),
        &["bash", "--assent", assent_arg],
    ));
    let with = std::fs::read_to_string(&rc).expect("read");
    assert!(with.starts_with(original), "{with}");
    assert_eq!(with.matches("# >>> assent >>>").count(), 1, "{with}");
    assert!(
        with.contains(&format!("eval \"$('{assent_arg}' init bash)\"")),
        "{with}"
    );
    let out = ok(&setup(home.path(), daemon.socket(), &["--check", "bash"]));
    assert!(out.contains("installed in"), "{out}");
    ok(&setup(
        home.path(),
        daemon.socket(),
        &["bash", "--uninstall", "--assent", assent_arg],
    ));
    assert_eq!(std::fs::read_to_string(&rc).expect("read"), original);
}

/// A start-up file that did not exist is made by the install and goes with the uninstall; one
/// that existed, empty, stays.
#[test]
fn an_rc_file_setup_made_goes_with_the_uninstall() {
    let daemon = TestDaemon::start();
    let home = tempfile::tempdir().expect("a temporary HOME");
    let rc = home.path().join(".zshrc");
    let assent = installed_assent(home.path());
    let assent_arg = assent.to_str().expect("a UTF-8 path");
    ok(&setup(
        home.path(),
        daemon.socket(),
        &["zsh", "--assent", assent_arg],
    ));
    assert!(rc.is_file(), "the install made {}", rc.display());
    ok(&setup(
        home.path(),
        daemon.socket(),
        &["zsh", "--uninstall", "--assent", assent_arg],
    ));
    assert!(!rc.exists(), "the uninstall left {}", rc.display());

    std::fs::write(&rc, "").expect("an empty .zshrc");
    ok(&setup(
        home.path(),
        daemon.socket(),
        &["zsh", "--assent", assent_arg],
    ));
    ok(&setup(
        home.path(),
        daemon.socket(),
        &["zsh", "--uninstall", "--assent", assent_arg],
    ));
    assert_eq!(
        std::fs::read_to_string(&rc).expect("the .zshrc that existed stays"),
        ""
    );
}

#[test]
fn a_file_that_does_not_parse_is_left_alone_with_the_reason() {
    let daemon = TestDaemon::start();
    let home = tempfile::tempdir().expect("a temporary HOME");
    let file = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(file.parent().expect("a directory")).expect("mkdir");
    let broken = "{ \"model\": \"opus\", ";
    std::fs::write(&file, broken).expect("a broken file");
    let output = setup(home.path(), daemon.socket(), &["claude-code"]);
    assert_eq!(output.status.code(), Some(1));
    let said = text(&output.stderr);
    assert!(
        said.contains("was left as it is") && said.contains("settings.json"),
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(&file).expect("read"), broken);
    assert!(!PathBuf::from(format!("{}.assent-backup", file.display())).exists());
}
