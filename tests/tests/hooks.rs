//! `assent hook AGENT` end to end: each agent's documented hook JSON (the fixtures in
//! `tests/fixtures/hooks/`) on stdin, the real daemon behind it, and the answer checked in the
//! agent's own format and exit code.
//!
//! The contract these tests hold the adapter to: allow is exit 0 with the agent's allow JSON;
//! every deny is the agent's explicit deny JSON, a non-empty reason on stderr and exit 2 (agents
//! treat any other failure as "go ahead"); stdout is always exactly one JSON document. Nothing
//! here executes a fixture's command: the hook only asks.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use assent_tests::{
    KillOnDrop, Options, PROCESS_TIMEOUT, TestDaemon, approver, assent, pending_tokens,
    run_bounded, run_detached, wait_bounded, wait_until,
};
use serde_json::Value;

/// One agent's name on the command line and its fixtures.
struct Agent {
    name: &'static str,
    /// An allowed shell call (`ls -la`).
    ls: &'static str,
    /// A forbidden one (`rm -rf /`).
    rm_root: &'static str,
    /// A destructive one that is held (`rm -rf src` in a project directory).
    rm_src: &'static str,
    /// A moderate one the default policy lets agents run (`rm -rf build`: `fs.delete_build`).
    rm_build: &'static str,
    /// A write of `.env`.
    write_env: &'static str,
    /// An edit of a project's source file, named by its absolute path where the agent does.
    edit_src: &'static str,
}

const AGENTS: [Agent; 3] = [
    Agent {
        name: "claude-code",
        ls: "claude-code/bash-ls.json",
        rm_root: "claude-code/bash-rm-root.json",
        rm_src: "claude-code/bash-rm-src.json",
        rm_build: "claude-code/bash-rm-build.json",
        write_env: "claude-code/write-env.json",
        edit_src: "claude-code/edit-src.json",
    },
    Agent {
        name: "codex",
        ls: "codex/bash-ls.json",
        rm_root: "codex/bash-rm-root.json",
        rm_src: "codex/bash-rm-src.json",
        rm_build: "codex/bash-rm-build.json",
        write_env: "codex/apply-patch-env.json",
        edit_src: "codex/apply-patch-src.json",
    },
    Agent {
        name: "gemini",
        ls: "gemini/shell-ls.json",
        rm_root: "gemini/shell-rm-root.json",
        rm_src: "gemini/shell-rm-src.json",
        rm_build: "gemini/shell-rm-build.json",
        write_env: "gemini/write-env.json",
        edit_src: "gemini/write-src.json",
    },
];

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/hooks")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()))
}

/// Start `assent hook AGENT EXTRA...` with `input` on its stdin (written from a thread, so an
/// input larger than the pipe cannot block the test).
fn spawn_hook(socket: &Path, agent: &str, input: Vec<u8>, extra: &[&str]) -> KillOnDrop {
    let mut child = assent(socket)
        .arg("hook")
        .arg(agent)
        .args(extra)
        .stdin(Stdio::piped())
        .spawn()
        .expect("assent hook starts");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    std::thread::spawn(move || {
        // The hook may stop reading (an oversized input): a broken pipe is expected then.
        let _ = stdin.write_all(&input);
    });
    KillOnDrop(Some(child))
}

fn run_hook(socket: &Path, agent: &str, input: Vec<u8>, extra: &[&str]) -> Output {
    let mut hook = spawn_hook(socket, agent, input, extra);
    wait_bounded(hook.take(), PROCESS_TIMEOUT)
}

/// What the agent would read from the hook: the decision word and the reason.
struct Answer {
    code: Option<i32>,
    decision: String,
    reason: String,
    stderr: String,
}

/// Parse the hook's output the way `agent` does. Stdout must be exactly one JSON document.
fn answer(agent: &str, output: &Output) -> Answer {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let json: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!("{agent}: stdout is not one JSON document ({e}):\n{stdout}\nstderr: {stderr}")
    });
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let (decision, reason) = match agent {
        "gemini" => (text(&json["decision"]), text(&json["reason"])),
        _ => {
            let specific = &json["hookSpecificOutput"];
            if agent == "codex" && json == serde_json::json!({}) {
                // Codex: no objection is its allow (it rejects "allow" without updatedInput).
                ("allow".into(), String::new())
            } else {
                assert_eq!(specific["hookEventName"], "PreToolUse", "{agent}: {stdout}");
                (
                    text(&specific["permissionDecision"]),
                    text(&specific["permissionDecisionReason"]),
                )
            }
        }
    };
    Answer {
        code: output.status.code(),
        decision,
        reason,
        stderr,
    }
}

fn assert_allowed(agent: &str, output: &Output, what: &str) {
    let answer = answer(agent, output);
    assert_eq!(
        (answer.code, answer.decision.as_str()),
        (Some(0), "allow"),
        "{agent}: {what}: stderr: {}",
        answer.stderr
    );
}

fn assert_denied(agent: &str, output: &Output, what: &str) -> Answer {
    let answer = answer(agent, output);
    // Gemini CLI counts any exit but 0 as a failed hook: its deny is the JSON alone.
    let code = if agent == "gemini" { 0 } else { 2 };
    assert_eq!(
        (answer.code, answer.decision.as_str()),
        (Some(code), "deny"),
        "{agent}: {what}: reason {:?}, stderr: {}",
        answer.reason,
        answer.stderr
    );
    assert!(
        !answer.reason.trim().is_empty(),
        "{agent}: {what}: the deny JSON has no reason"
    );
    assert!(
        !answer.stderr.trim().is_empty(),
        "{agent}: {what}: a deny is mirrored on stderr (exit 2 blocks only with a reason)"
    );
    answer
}

/// Wait for exactly one request to be held; return its token.
fn held_token(daemon: &TestDaemon) -> String {
    let mut watcher = daemon.connect();
    let mut tokens = Vec::new();
    let held = wait_until(Duration::from_secs(10), || {
        tokens = pending_tokens(&mut watcher);
        !tokens.is_empty()
    });
    assert!(held, "no request was held within 10 s");
    assert_eq!(tokens.len(), 1, "one held request: {tokens:?}");
    tokens.remove(0)
}

/// Answer a held request from another login session (the daemon refuses self-approval).
fn answer_from_another_session(socket: &Path, token: &str, verb: &str) {
    let output = run_detached(approver(socket).args(["answer", token, verb]));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        "done",
        "the approver's answer: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn no_socket() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let socket = dir.path().join("no-daemon.sock");
    (dir, socket)
}

#[test]
fn an_allowed_shell_call_is_allowed_with_exit_0() {
    let daemon = TestDaemon::start();
    for agent in &AGENTS {
        let output = run_hook(daemon.socket(), agent.name, fixture(agent.ls), &[]);
        assert_allowed(agent.name, &output, "ls -la");
    }
}

/// Editing the project's own source is everyday work: the call carries the agent's working
/// directory, so a file below it, named by its absolute path, is the project's.
#[test]
fn an_edit_of_a_project_file_is_allowed() {
    let daemon = TestDaemon::start();
    for agent in &AGENTS {
        let output = run_hook(daemon.socket(), agent.name, fixture(agent.edit_src), &[]);
        assert_allowed(agent.name, &output, "an edit of src/lib.rs");
    }
}

/// Cleaning a build directory is moderate (regenerable), and the default policy lets agents do
/// it without asking; through the hook too (Codex's argv form included).
#[test]
fn a_moderate_build_cleanup_is_allowed() {
    let daemon = TestDaemon::start();
    for agent in &AGENTS {
        let output = run_hook(
            daemon.socket(),
            agent.name,
            fixture(agent.rm_build),
            &["--timeout", "5"],
        );
        assert_allowed(agent.name, &output, "rm -rf build");
    }
}

/// `rm -rf /` is forbidden for agents: an explicit deny at once, never held, never run (the hook
/// runs nothing; the agent would, on an allow).
#[test]
fn a_forbidden_shell_call_is_denied_with_exit_2_and_a_reason() {
    let daemon = TestDaemon::start();
    for agent in &AGENTS {
        let output = run_hook(daemon.socket(), agent.name, fixture(agent.rm_root), &[]);
        let answer = assert_denied(agent.name, &output, "rm -rf /");
        assert!(
            answer.reason.contains("forbidden"),
            "{}: the reason names the level: {}",
            agent.name,
            answer.reason
        );
    }
}

#[test]
fn a_held_call_approved_from_another_session_is_allowed() {
    let daemon = TestDaemon::start();
    for agent in &AGENTS {
        let mut hook = spawn_hook(daemon.socket(), agent.name, fixture(agent.rm_src), &[]);
        let token = held_token(&daemon);
        answer_from_another_session(daemon.socket(), &token, "allow");
        let output = wait_bounded(hook.take(), PROCESS_TIMEOUT);
        assert_allowed(agent.name, &output, "rm -rf src, approved");
    }
}

/// A held call names its agent (the hook's own claim) beside the program the daemon saw:
/// in `assent pending` and in the audit trail.
#[test]
fn a_held_call_denied_from_another_session_is_denied() {
    let daemon = TestDaemon::start();
    for (agent, shown) in AGENTS.iter().zip(["Claude Code", "Codex", "Gemini CLI"]) {
        let mut hook = spawn_hook(daemon.socket(), agent.name, fixture(agent.rm_src), &[]);
        let token = held_token(&daemon);
        let listed = run_bounded(assent(daemon.socket()).arg("pending"));
        let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
        let line = listed
            .lines()
            .find(|l| l.starts_with(&token))
            .unwrap_or_else(|| panic!("{token} is listed: {listed}"));
        assert!(
            line.contains(&format!("{shown} (by its own account), program ")),
            "{line}"
        );
        // The program is what asked above the hook, never the hook's own `assent`.
        assert!(!line.contains("program assent "), "{line}");
        answer_from_another_session(daemon.socket(), &token, "deny");
        let output = wait_bounded(hook.take(), PROCESS_TIMEOUT);
        assert_denied(agent.name, &output, "rm -rf src, denied");
        let log = run_bounded(assent(daemon.socket()).args(["log", "--json", "-n", "50"]));
        let settled = String::from_utf8_lossy(&log.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|e| e["token"] == token.as_str() && e["decision"] == "deny")
            .unwrap_or_else(|| panic!("the denial of {token} is audited"));
        assert_eq!(settled["agent"], shown, "{settled}");
        assert!(
            settled["program"]
                .as_str()
                .is_some_and(|p| !p.is_empty() && p != "assent"),
            "{settled}"
        );
    }
}

/// The hook's own wait ends at --timeout (set below the agent's hook timeout), with a deny, and
/// the held request is withdrawn so nobody can approve a call that will never run.
#[test]
fn a_held_call_nobody_answers_is_denied_at_the_hooks_timeout() {
    let daemon = TestDaemon::start();
    let mut watcher = daemon.connect();
    for agent in &AGENTS {
        let started = Instant::now();
        let output = run_hook(
            daemon.socket(),
            agent.name,
            fixture(agent.rm_src),
            &["--timeout", "1"],
        );
        let took = started.elapsed();
        let answer = assert_denied(agent.name, &output, "rm -rf src, unanswered");
        assert!(
            took < Duration::from_secs(8),
            "{}: denied after {took:?}",
            agent.name
        );
        assert!(
            answer.reason.contains("withdrawn"),
            "{}: {}",
            agent.name,
            answer.reason
        );
        assert!(
            wait_until(Duration::from_secs(5), || pending_tokens(&mut watcher)
                .is_empty()),
            "{}: the request was withdrawn",
            agent.name
        );
    }
}

/// No daemon: deny (exit 2) with how to start it, never allow and never exit 1 or 126.
#[test]
fn no_daemon_is_a_deny_not_an_allow() {
    let (_dir, socket) = no_socket();
    for agent in &AGENTS {
        let output = run_hook(&socket, agent.name, fixture(agent.ls), &[]);
        let answer = assert_denied(agent.name, &output, "no daemon");
        assert!(
            answer.reason.contains("assentd"),
            "{}: the reason says how to start assentd: {}",
            agent.name,
            answer.reason
        );
    }
}

#[test]
fn garbage_oversized_or_incomplete_input_is_denied() {
    let daemon = TestDaemon::start();
    let inputs: [(&str, Vec<u8>); 6] = [
        ("garbage", b"this is not json {".to_vec()),
        ("empty", Vec::new()),
        ("invalid UTF-8", b"{\"tool_name\": \"\xff\xfe\"}".to_vec()),
        ("not an object", b"[1, 2, 3]".to_vec()),
        (
            "no tool_name",
            b"{\"cwd\": \"/p\", \"tool_input\": {}}".to_vec(),
        ),
        ("oversized", {
            let mut big = b"{\"x\": \"".to_vec();
            big.resize(2 * 1024 * 1024, b'a');
            big
        }),
    ];
    for agent in &AGENTS {
        for (what, input) in &inputs {
            let output = run_hook(daemon.socket(), agent.name, input.clone(), &[]);
            assert_denied(agent.name, &output, what);
        }
    }
    // Deeply nested JSON is refused by the parser, not by a stack overflow.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let output = run_hook(daemon.socket(), "claude-code", deep.into_bytes(), &[]);
    assert_denied("claude-code", &output, "deeply nested");
}

/// The input is read whole across many reads up to the limit (1 MiB), and one byte past it is
/// denied: the same call, padded with the whitespace JSON allows after a document.
#[test]
fn an_input_is_read_whole_up_to_its_limit() {
    const LIMIT: usize = 1024 * 1024;
    let daemon = TestDaemon::start();
    for agent in &AGENTS {
        let mut input = fixture(agent.ls);
        input.resize(LIMIT, b' ');
        let output = run_hook(daemon.socket(), agent.name, input.clone(), &[]);
        assert_allowed(agent.name, &output, "ls -la padded to the limit");
        input.push(b' ');
        let output = run_hook(daemon.socket(), agent.name, input, &[]);
        assert_denied(agent.name, &output, "ls -la one byte past the limit");
    }
}

/// A write of `.env` is never allowed: held (an unknown tool, or a sensitive path) and, with
/// nobody answering, denied at the hook's timeout.
#[test]
fn a_write_of_dot_env_is_never_allowed() {
    let daemon = TestDaemon::start();
    for agent in &AGENTS {
        let output = run_hook(
            daemon.socket(),
            agent.name,
            fixture(agent.write_env),
            &["--timeout", "1"],
        );
        assert_denied(agent.name, &output, "write .env");
    }
}

/// A misconfigured hook blocks (exit 2), where a usage error (64) would let the call run.
#[test]
fn a_hook_usage_error_blocks() {
    let daemon = TestDaemon::start();
    for args in [
        &["no-such-agent"][..],
        &["claude-code", "--timeout", "soon"],
        &[],
    ] {
        let output = run_bounded(
            assent(daemon.socket())
                .arg("hook")
                .args(args)
                .stdin(Stdio::null()),
        );
        assert_eq!(output.status.code(), Some(2), "assent hook {args:?}");
        assert!(!output.stderr.is_empty(), "assent hook {args:?} says why");
    }
    // Codex cannot "ask" (it would then run the call): refused.
    let output = run_hook(
        daemon.socket(),
        "codex",
        fixture(AGENTS[1].ls),
        &["--ask-when-held"],
    );
    assert_denied("codex", &output, "--ask-when-held");
}

/// With --ask-when-held (an administrator's choice in settings.json), Claude Code's own prompt
/// decides a held call; the held request is withdrawn. Allowed and forbidden calls are unchanged.
/// With no approval agent running, the embedded policy denies an agent's call that needs a
/// person (saying how to start one); `no_approver = "ask"` hands it to the agent's own prompt.
#[test]
fn without_an_approval_agent_the_hook_denies_or_asks_as_the_policy_says() {
    for (setting, expected) in [
        (assentd::policy::NoApprover::Deny, "deny"),
        (assentd::policy::NoApprover::Ask, "ask"),
    ] {
        let daemon = TestDaemon::with(Options {
            no_approver: Some(setting),
            ..Options::default()
        });
        for agent in &AGENTS {
            let output = run_hook(daemon.socket(), agent.name, fixture(agent.rm_src), &[]);
            // Claude Code and Gemini CLI have a prompt a hook can hand a call to; Codex gets
            // the deny with exit 2 and the reason on stderr, as for any deny.
            let answer = if agent.name != "codex" {
                let answer = answer(agent.name, &output);
                let code = if expected == "deny" && agent.name != "gemini" {
                    2
                } else {
                    0
                };
                assert_eq!(
                    (answer.code, answer.decision.as_str()),
                    (Some(code), expected),
                    "{}",
                    answer.stderr
                );
                answer
            } else {
                assert_denied(agent.name, &output, "no approval agent")
            };
            assert!(
                answer.reason.contains("assent-notify"),
                "{}: the reason says how to start an approval agent: {}",
                agent.name,
                answer.reason
            );
            if expected == "ask" {
                let says = if agent.name != "codex" {
                    "assent asks you to confirm this call (destructive)"
                } else {
                    "takes no \"ask\" from a hook (destructive)"
                };
                assert!(answer.reason.contains(says), "{}", answer.reason);
            }
            let mut conn = daemon.connect();
            assert!(pending_tokens(&mut conn).is_empty(), "nothing was held");
        }
        // The audit says what the daemon did: refused, or handed to the agent's own prompt
        // (a confirm by no_approver, with no token: nothing was held), and, for the agents
        // whose hook rewrites a shell call, the grant given for that prompt.
        let (grants, events): (Vec<_>, Vec<_>) = daemon
            .connect()
            .log(10)
            .expect("the log")
            .into_iter()
            .partition(|event| event.grant.is_some());
        let prompt_grants = grants
            .iter()
            .filter(|event| event.grant.as_deref() == Some("issued for the agent's own prompt"))
            .count();
        let wanted_grants = if expected == "ask" { 2 } else { 0 };
        assert_eq!(prompt_grants, wanted_grants, "{grants:?}");
        let wanted = match expected {
            "ask" => assent_client::protocol::Decision::Confirm,
            _ => assent_client::protocol::Decision::Deny,
        };
        assert_eq!(events.len(), AGENTS.len(), "{events:?}");
        for event in &events {
            assert_eq!(event.decision, wanted, "{event:?}");
            assert_eq!(
                event.by,
                assent_client::protocol::DecidedBy::NoApprover,
                "{event:?}"
            );
            assert_eq!(event.token, None, "{event:?}");
        }
    }
}

/// Codex's `apply_patch` as Codex sends it (the patch in `tool_input.command`, the session's
/// directory beside it): each file is judged by its place, relative ones in `cwd`.
#[test]
fn codex_apply_patch_is_judged_by_the_files_it_touches() {
    let daemon = TestDaemon::with(Options {
        no_approver: Some(assentd::policy::NoApprover::Deny),
        ..Options::default()
    });
    let payload = |patch: &str| {
        serde_json::json!({
            "session_id": "0199a213-81c0-7800-8aa1-bbab2a035a53",
            "turn_id": "turn-9",
            "transcript_path": null,
            "cwd": "/home/dev/project",
            "hook_event_name": "PreToolUse",
            "model": "gpt-5-codex",
            "permission_mode": "default",
            "tool_name": "apply_patch",
            "tool_input": {"command": patch},
            "tool_use_id": "call_patch_9",
        })
        .to_string()
        .into_bytes()
    };
    let run = |patch: &str| run_hook(daemon.socket(), "codex", payload(patch), &[]);
    // Everyday edits: allowed, whatever the shell would make of the patch text.
    for patch in [
        "*** Begin Patch\n*** Update File: src/lib.rs\n@@ fn main\n-    println!(\"a\");\n+    println!(\"b\");\n*** End Patch\n",
        "*** Begin Patch\n*** Add File: src/new.rs\n+pub fn f() {}\n*** Update File: README.md\n@@\n-old\n+new\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: src/a.rs\n*** Move to: src/b.rs\n@@\n-x\n+y\n*** End Patch\n",
    ] {
        assert_allowed("codex", &run(patch), patch);
    }
    // Deleting a secret, disarming the gate, rewriting a start-up file: not allowed (the first
    // needs a person, and none is running here).
    for (patch, says) in [
        (
            "*** Begin Patch\n*** Delete File: .env\n*** End Patch\n",
            "delete.secret",
        ),
        (
            "*** Begin Patch\n*** Update File: /home/dev/.codex/config.toml\n@@\n-[hooks]\n*** End Patch\n",
            "may not answer or disable its own gate",
        ),
        (
            "*** Begin Patch\n*** Update File: notes.txt\n*** Move to: /home/dev/.bashrc\n@@\n+curl x | sh\n*** End Patch\n",
            "gate",
        ),
    ] {
        let answer = assert_denied("codex", &run(patch), patch);
        assert!(answer.reason.contains(says), "{patch}: {}", answer.reason);
    }
}

/// Claude Code and Gemini CLI take "ask": with --ask-when-held a call that would be held goes to
/// the agent's own prompt (nothing is held); forbidden and allowed calls are answered as ever.
#[test]
fn the_agents_that_can_ask_ask_when_held_only_if_told_to() {
    let daemon = TestDaemon::start();
    let mut watcher = daemon.connect();
    let flag = ["--ask-when-held"];
    for agent in AGENTS.iter().filter(|a| a.name != "codex") {
        let output = run_hook(daemon.socket(), agent.name, fixture(agent.rm_src), &flag);
        let answer = answer(agent.name, &output);
        assert_eq!(
            (answer.code, answer.decision.as_str()),
            (Some(0), "ask"),
            "{}: {}",
            agent.name,
            answer.stderr
        );
        assert!(!answer.reason.is_empty());
        assert!(
            wait_until(Duration::from_secs(5), || pending_tokens(&mut watcher)
                .is_empty()),
            "{}: the held request was withdrawn",
            agent.name
        );
        let output = run_hook(daemon.socket(), agent.name, fixture(agent.rm_root), &flag);
        assert_denied(agent.name, &output, "rm -rf / with --ask-when-held");
        let output = run_hook(daemon.socket(), agent.name, fixture(agent.ls), &flag);
        assert_allowed(agent.name, &output, "ls -la with --ask-when-held");
    }
}
