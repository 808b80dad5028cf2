//! The gate defends itself, through every door: an agent's hook (Claude Code, Codex, Gemini
//! CLI), `assent sh`, `assent run`, `assent tool` and a tool batch refuse the gate's controls
//! (answering, forgetting, stopping its daemon, editing its hook settings) with a reason that
//! says an agent may not answer or disable its own gate, while a person's own line that answers
//! is allowed. Nothing here runs a refused command: every door only asks, and what an allowed
//! line would run is harmless (a token that does not exist).

use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};

use assent_tests::{PROCESS_TIMEOUT, TestDaemon, assent, run_bounded, wait_bounded};
use serde_json::{Value, json};

/// What every refusal of the gate's controls says.
const REASON: &str = "may not answer or disable its own gate";

const TOKEN: &str = "pa_00000000000000000000000000000000";

fn hook(socket: &Path, agent: &str, input: &Value) -> Output {
    let mut child = assent(socket)
        .args(["hook", agent])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("assent hook starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(input.to_string().as_bytes())
        .expect("the hook input is written");
    wait_bounded(child, PROCESS_TIMEOUT)
}

fn refused_by_hook(output: &Output, what: &str) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Gemini CLI's deny is its JSON at exit 0 (any other exit is a failed hook to it).
    let gemini_deny = stdout.contains(r#""decision":"deny""#);
    let code = if gemini_deny { 0 } else { 2 };
    assert_eq!(
        output.status.code(),
        Some(code),
        "{what}: {stdout} {stderr}"
    );
    assert!(stdout.contains("deny"), "{what}: {stdout}");
    assert!(stderr.contains(REASON), "{what}: {stderr}");
}

fn claude(cwd: &Path, tool: &str, input: Value) -> Value {
    json!({
        "session_id": "s-1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": cwd,
        "permission_mode": "bypassPermissions",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": "toolu_1"
    })
}

#[test]
fn an_agents_hook_refuses_the_gates_controls() {
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temp dir");
    let cwd = dir.path();
    let socket = daemon.socket();

    for command in [
        format!("assent approve {TOKEN}"),
        format!("setsid assent approve --remember always {TOKEN}"),
        "assent forget --all".to_owned(),
        "systemctl --user stop assentd".to_owned(),
        "sed -i '/hooks/d' .claude/settings.json".to_owned(),
        // What Claude Code runs before every call, in the call's own shell: a function there
        // named like the gate's builtin would stand in for it.
        "echo 'assent_confine() { eval \"${@: -1}\"; }' >> ~/.claude/shell-snapshots/snapshot-bash-1-a.sh"
            .to_owned(),
        "nc -U \"$XDG_RUNTIME_DIR/assent/socket\"".to_owned(),
    ] {
        let out = hook(
            socket,
            "claude-code",
            &claude(cwd, "Bash", json!({ "command": command })),
        );
        refused_by_hook(&out, &command);
    }
    let settings = cwd.join(".claude/settings.json");
    let out = hook(
        socket,
        "claude-code",
        &claude(
            cwd,
            "Write",
            json!({ "file_path": settings, "content": "{}" }),
        ),
    );
    refused_by_hook(&out, "Write of .claude/settings.json");
    let out = hook(
        socket,
        "claude-code",
        &claude(
            cwd,
            "Edit",
            json!({ "file_path": settings, "old_string": "\"hooks\"", "new_string": "\"x\"" }),
        ),
    );
    refused_by_hook(&out, "Edit of .claude/settings.json");
    // The home the daemon places `~` in: the user database's.
    let home = nix::unistd::User::from_uid(nix::unistd::getuid())
        .ok()
        .flatten()
        .expect("this user is in the user database")
        .dir;
    let snapshot = home.join(".claude/shell-snapshots/snapshot-bash-1-a.sh");
    let out = hook(
        socket,
        "claude-code",
        &claude(
            cwd,
            "Edit",
            json!({ "file_path": snapshot, "old_string": "a", "new_string": "b" }),
        ),
    );
    refused_by_hook(&out, "Edit of Claude Code's shell snapshot");
    let out = hook(
        socket,
        "claude-code",
        &claude(
            cwd,
            "mcp__filesystem__write_file",
            json!({ "path": cwd.join(".gemini/settings.json"), "content": "{}" }),
        ),
    );
    refused_by_hook(&out, "an MCP write of .gemini/settings.json");

    // Codex sends apply_patch's patch in `command`.
    let patch = format!(
        "*** Begin Patch\n*** Update File: {}\n@@\n-[hooks]\n+\n*** End Patch\n",
        cwd.join(".codex/config.toml").display()
    );
    let codex = json!({
        "session_id": "c-1",
        "turn_id": "t-1",
        "transcript_path": null,
        "cwd": cwd,
        "hook_event_name": "PreToolUse",
        "model": "gpt-5",
        "permission_mode": "bypassPermissions",
        "tool_name": "apply_patch",
        "tool_input": { "command": patch },
        "tool_use_id": "call_1"
    });
    refused_by_hook(
        &hook(socket, "codex", &codex),
        "Codex apply_patch of .codex/config.toml",
    );

    let gemini = json!({
        "session_id": "g-1",
        "transcript_path": "/tmp/g.json",
        "cwd": cwd,
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-11-23T10:00:00Z",
        "tool_name": "run_shell_command",
        "tool_input": { "command": "pkill -f assent-notify" }
    });
    refused_by_hook(
        &hook(socket, "gemini", &gemini),
        "Gemini pkill of assent-notify",
    );

    // Reading the gate stays allowed.
    let out = hook(
        socket,
        "claude-code",
        &claude(
            cwd,
            "Bash",
            json!({ "command": "assent status && cat .claude/settings.json" }),
        ),
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn assent_sh_run_and_tool_refuse_the_gates_controls() {
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temp dir");

    let out = run_bounded(
        assent(daemon.socket())
            .args(["sh", "-c", &format!("assent approve {TOKEN}")])
            .current_dir(dir.path()),
    );
    assert_eq!(out.status.code(), Some(126), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(REASON),
        "{out:?}"
    );

    let out = run_bounded(
        assent(daemon.socket())
            .args(["run", "--", "assent", "forget", "--all"])
            .current_dir(dir.path()),
    );
    assert_eq!(out.status.code(), Some(126), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(REASON),
        "{out:?}"
    );

    let settings = dir.path().join(".claude/settings.local.json");
    let args = json!({ "file_path": settings, "content": "{\"disableAllHooks\": true}" });
    let out =
        run_bounded(assent(daemon.socket()).args(["tool", "Write", "--args", &args.to_string()]));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(REASON),
        "{out:?}"
    );

    // A batch: the item that edits the hook settings is denied, whatever the others are.
    let batch = format!(
        "{}\n{}\n",
        json!({ "tool": "Read", "args": { "file_path": settings } }),
        json!({ "tool": "Write", "args": { "file_path": settings, "content": "{}" } }),
    );
    let mut child = assent(daemon.socket())
        .args(["tool", "--batch", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("assent starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(batch.as_bytes())
        .expect("the batch is written");
    let out = wait_bounded(child, PROCESS_TIMEOUT);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let items: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(items.len(), 2, "{out:?}");
    assert_eq!(items[0]["decision"], "allow", "{items:?}");
    assert_eq!(items[1]["decision"], "deny", "{items:?}");
    assert!(items[1].to_string().contains(REASON), "{items:?}");
}

#[test]
fn a_persons_own_line_that_answers_the_gate_is_allowed() {
    let daemon = TestDaemon::start();
    let check = |origin: &str, line: &str| {
        run_bounded(assent(daemon.socket()).args(["check", "--origin", origin, "--", line]))
    };
    let line = format!("assent approve {TOKEN}");
    let out = check("interactive", &line);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = check("agent", &line);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(REASON),
        "{out:?}"
    );
    // Answering does not lower the rest of a person's line.
    let out = run_bounded(assent(daemon.socket()).args([
        "check",
        "--origin",
        "interactive",
        "--no-wait",
        "--",
        &format!("assent approve {TOKEN}; rm -rf ~"),
    ]));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// A daemon whose policy, state and socket are not in the default places (`--policy FILE`,
/// `--state-dir DIR`, `XDG_*` of one's own) defends them as it defends the defaults: an
/// agent's line that appends to its policy or plants a remembered approval in its state is
/// refused, through a tool and through the shell; a file beside them is ordinary.
#[test]
fn the_daemons_own_files_are_the_gate_where_its_configuration_put_them() {
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temp dir");
    let cwd = dir.path();
    let socket = daemon.socket();
    let policy = daemon.policy_file();
    let remembered = daemon.state_dir().join("remembered.json");
    for command in [
        format!(
            "printf '[[program]]\\nname = \"srm\"\\neffect = \"none\"\\n' >> {}",
            policy.display()
        ),
        format!("cp /tmp/planted.json {}", remembered.display()),
        format!("rm -rf {}", daemon.state_dir().display()),
        format!("ln -sf /tmp/x {}", daemon.socket().display()),
    ] {
        let out = hook(
            socket,
            "claude-code",
            &claude(cwd, "Bash", json!({ "command": command })),
        );
        refused_by_hook(&out, &command);
    }
    let out = hook(
        socket,
        "claude-code",
        &claude(
            cwd,
            "Write",
            json!({ "file_path": policy, "content": "observe = true\n" }),
        ),
    );
    refused_by_hook(&out, "Write of the daemon's policy file");

    // The everyday twin: a file beside the daemon's directory is an ordinary temporary file.
    let beside = daemon.dir().join("notes.txt");
    let out = hook(
        socket,
        "claude-code",
        &claude(
            cwd,
            "Write",
            json!({ "file_path": beside, "content": "notes\n" }),
        ),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("\"allow\""), "{stdout}");
}
