//! A call handed to the agent's own prompt runs confined once a person approves it there:
//! Claude Code's hook under `--ask-when-held` answers "ask" with the call rewritten to `assent
//! sh --grant`, under a grant given for that prompt (with what a person's approval adds, for as
//! long as a hold lives), bound to the agent that asked. The agent's own shell redeems it after
//! the person said yes; a line an earlier call runs confined (under its door), a process that
//! left the agent, or anyone after the grant expired cannot, whether the person said yes or no.
//! Here the test process stands for the agent (it runs the hook, and the door); the real agent
//! is in `agent_claude_ask.rs`. Real daemon, client and Landlock; the programs write in a
//! temporary home, never delete.

use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use assent_tests::confined::{DOCUMENT, Home, landlock, stderr};
use assent_tests::{Options, TestDaemon, assent};
use serde_json::Value;

fn new_home() -> Home {
    Home::new("assent-hook-ask-", &[])
}

/// `assent ARGS` from `cwd` as the agent's shell runs it, with `input` on stdin.
fn run(m: &Home, socket: &Path, cwd: &Path, args: &[&str], input: &str) -> Output {
    let mut child = assent(socket)
        .args(args)
        .current_dir(cwd)
        .env("HOME", &m.home)
        .env("TMPDIR", "/tmp")
        // The door's form: the door is the redeemer these cases put under each parent (the
        // builtin's, where the agent's shell redeems, is `agent_claude_ask.rs`'s).
        .env("ASSENT_BUILTIN", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("assent starts");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input.as_bytes());
    }
    assent_tests::wait_bounded(child, assent_tests::PROCESS_TIMEOUT)
}

/// Claude Code's hook, with `flags`, for a `Bash` call of `line` in the project: its answer.
fn hook(m: &Home, socket: &Path, line: &str, flags: &[&str]) -> Value {
    let input = serde_json::json!({
        "session_id": "s1", "cwd": m.project, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": line, "description": "d"},
    });
    let args: Vec<&str> = ["hook", "claude-code"]
        .iter()
        .chain(flags)
        .copied()
        .collect();
    let out = run(m, socket, &m.project, &args, &input.to_string());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    serde_json::from_slice(&out.stdout).expect("the hook's JSON")
}

/// The hook's answer to a held `line` under `--ask-when-held`: an ask, rewritten; its grant.
fn asked(m: &Home, socket: &Path, line: &str) -> String {
    let answer = hook(m, socket, line, &["--ask-when-held"]);
    let out = &answer["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "ask", "{answer}");
    let command = out["updatedInput"]["command"]
        .as_str()
        .unwrap_or_else(|| panic!("no rewritten command: {answer}"));
    assert!(command.contains(" sh --grant "), "{command}");
    assert_eq!(out["updatedInput"]["description"], "d", "{answer}");
    grant_of(command)
}

/// The grant token in a rewritten command.
fn grant_of(command: &str) -> String {
    let after = command
        .split("--grant '")
        .nth(1)
        .unwrap_or_else(|| panic!("no grant: {command}"));
    after.split('\'').next().unwrap_or_default().to_string()
}

/// `assent sh --grant GRANT -c LINE` in the project, as the agent's shell runs it.
fn door(m: &Home, socket: &Path, grant: &str, line: &str) -> Output {
    run(
        m,
        socket,
        &m.project,
        &["sh", "--grant", grant, "-c", line],
        "",
    )
}

/// A line that needs a person (it overwrites a file in the home, outside the project) and then
/// runs a compiled program, which the gate cannot read, that overwrites the person's document:
/// what a person approves there is the line's own place, and only the kernel stops the rest
/// (a program the gate reads as writing in the home would have the home approved with it).
/// Returns the line and the file it names, which holds "kept" until the line runs.
fn held_line(m: &Home) -> (String, std::path::PathBuf) {
    m.python(
        "cleanup.py",
        "Documents/old/notes.txt",
        "open(p, 'w').write('overwritten')",
    );
    let compiled = assent_tests::run_bounded(
        std::process::Command::new("/usr/bin/python3")
            .args(["-c", "import py_compile; py_compile.compile('cleanup.py', cfile='cleanup.pyc', doraise=True)"])
            .current_dir(&m.project),
    );
    assert!(compiled.status.success(), "{compiled:?}");
    std::fs::remove_file(m.project.join("cleanup.py")).expect("removed");
    let named = m.home.join("Documents/kept.txt");
    std::fs::write(&named, "kept").expect("written");
    let line = format!(
        "echo approved > {} && /usr/bin/python3 cleanup.pyc",
        named.to_str().expect("UTF-8")
    );
    (line, named)
}

/// Whether the line ran: the file it names was overwritten.
fn ran(named: &Path) -> bool {
    std::fs::read_to_string(named).is_ok_and(|text| text != "kept")
}

/// The audit trail's grant steps, as `assent log --json` shows them.
fn grant_steps(socket: &Path) -> Vec<String> {
    let out = assent_tests::run_bounded(assent(socket).args(["log", "-n", "100", "--json"]));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|event| event["grant"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn a_call_approved_in_the_agents_prompt_runs_confined_with_its_own_place() {
    if !landlock() {
        return;
    }
    let m = new_home();
    // No approval agent runs: the person is at the agent's prompt, and that is where it goes.
    let daemon = TestDaemon::start();
    let (line, approved) = held_line(&m);
    let grant = asked(&m, daemon.socket(), &line);
    // The agent's shell runs the rewritten call once the person said yes in the prompt.
    let out = door(&m, daemon.socket(), &grant, &line);
    assert!(ran(&approved), "the line's own place was written: {out:?}");
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    assert!(stderr(&out).contains("Permission denied"), "{out:?}");
    assert_eq!(m.notes(), DOCUMENT, "what the line does not name is intact");
    // Once.
    let out = door(&m, daemon.socket(), &grant, &line);
    assert!(stderr(&out).contains("already used"), "{out:?}");
    let steps = grant_steps(daemon.socket());
    assert!(
        steps
            .iter()
            .any(|s| s == "issued for the agent's own prompt"),
        "{steps:?}"
    );
    assert!(steps.iter().any(|s| s == "redeemed"), "{steps:?}");
}

#[test]
fn a_prompts_grant_is_not_redeemed_by_a_confined_line_of_an_earlier_call() {
    if !landlock() {
        return;
    }
    let m = new_home();
    let daemon = TestDaemon::start();
    let (line, approved) = held_line(&m);
    // The person refuses in the prompt; the grant is still there, and its token can be read.
    let grant = asked(&m, daemon.socket(), &line);
    std::fs::write(m.project.join("token.txt"), &grant).expect("written");
    std::fs::write(m.project.join("line.txt"), &line).expect("written");
    // The socket is found, not handed over: an agent's line that names the gate's socket is
    // refused as the gate's own.
    std::fs::write(
        m.project.join("sock.txt"),
        daemon.socket().to_str().expect("UTF-8"),
    )
    .expect("written");
    let assent_program = assent_tests::binary("assent");
    m.program(
        "steal.py",
        &format!(
            "#!/usr/bin/python3\nimport subprocess, sys\nt = open('token.txt').read()\nl = open('line.txt').read()\ns = open('sock.txt').read()\nr = subprocess.run([{:?}, '--socket', s, 'sh', '--grant', t, '-c', l], capture_output=True, text=True)\nprint('inner', r.returncode, r.stderr)\n",
            assent_program.to_str().expect("UTF-8")
        ),
    );
    // An earlier call the gate allowed, running confined under its door, tries the token.
    let earlier = "/usr/bin/python3 steal.py".to_owned();
    let answer = hook(&m, daemon.socket(), &earlier, &[]);
    let out = &answer["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "allow", "{answer}");
    let command = out["updatedInput"]["command"].as_str().expect("rewritten");
    let tried = door(&m, daemon.socket(), &grant_of(command), &earlier);
    let said = String::from_utf8_lossy(&tried.stdout);
    assert!(said.contains("inner 126"), "{tried:?}");
    assert!(said.contains("own prompt"), "{tried:?}");
    assert!(said.contains("under the door"), "{tried:?}");
    assert!(!ran(&approved), "the refused line did not run: {tried:?}");
    assert_eq!(m.notes(), DOCUMENT);
    // Spent by that try: not even the agent's own shell can use it now.
    let out = door(&m, daemon.socket(), &grant, &line);
    assert!(stderr(&out).contains("already used"), "{out:?}");
    assert!(!ran(&approved));
    let steps = grant_steps(daemon.socket());
    assert!(
        steps
            .iter()
            .any(|s| s.starts_with("refused:") && s.contains("own prompt")),
        "{steps:?}"
    );
}

#[test]
fn a_prompts_grant_is_not_redeemed_by_a_process_that_left_the_agent() {
    if !landlock() {
        return;
    }
    let m = new_home();
    let daemon = TestDaemon::start();
    let (line, approved) = held_line(&m);
    let grant = asked(&m, daemon.socket(), &line);
    // Double-forked away from the agent (re-parented to init), in a session of its own.
    let said = m.project.join("orphan.txt");
    let orphan = "import os, sys\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)\n        os.dup2(fd, 1)\n        os.dup2(fd, 2)\n        os.execv(sys.argv[2], sys.argv[2:])\n    os._exit(0)\nos.wait()\n";
    let assent_program = assent_tests::binary("assent");
    let started = assent_tests::run_bounded(
        std::process::Command::new("/usr/bin/python3")
            .arg("-c")
            .arg(orphan)
            .arg(&said)
            .arg(&assent_program)
            .arg("--socket")
            .arg(daemon.socket())
            .args(["sh", "--grant", &grant, "-c", &line])
            .current_dir(&m.project)
            .env("HOME", &m.home),
    );
    assert!(started.status.success(), "{started:?}");
    let deadline = Instant::now() + Duration::from_secs(20);
    let text = loop {
        let text = std::fs::read_to_string(&said).unwrap_or_default();
        if text.contains("not run") || Instant::now() > deadline {
            break text;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(text.contains("does not descend"), "{text}");
    assert!(!ran(&approved), "{text}");
    assert_eq!(m.notes(), DOCUMENT);
}

#[test]
fn a_prompts_grant_expires_with_the_hold_time() {
    if !landlock() {
        return;
    }
    let m = new_home();
    let daemon = TestDaemon::with(Options {
        hold_ttl: Duration::from_secs(1),
        ..Options::default()
    });
    let (line, approved) = held_line(&m);
    let grant = asked(&m, daemon.socket(), &line);
    std::thread::sleep(Duration::from_millis(1500));
    let out = door(&m, daemon.socket(), &grant, &line);
    assert!(stderr(&out).contains("expired"), "{out:?}");
    assert!(!ran(&approved), "{out:?}");
}

/// A line the agent sends itself as `assent sh --grant TOKEN -c LINE`, with a prompt's grant it
/// read somewhere: the gate reads it as the LINE it runs, handed the gate's socket, and the
/// hook refuses it; were it run elsewhere under a door, the grant would be refused there (the
/// earlier-call test).
#[test]
fn a_door_the_agent_sends_itself_cannot_redeem_a_prompts_grant() {
    if !landlock() {
        return;
    }
    let m = new_home();
    let daemon = TestDaemon::start();
    let (line, named) = held_line(&m);
    let grant = asked(&m, daemon.socket(), &line);
    let door_line = format!(
        "{} --socket {} sh --grant {grant} -c '{line}'",
        assent_tests::binary("assent").to_str().expect("UTF-8"),
        daemon.socket().to_str().expect("UTF-8"),
    );
    // The gate reads the door's line as the line it runs, with the gate's socket handed to
    // it: the hook does not let it through (it is denied as the gate's own, or held).
    let input = serde_json::json!({
        "session_id": "s1", "cwd": m.project, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": door_line, "description": "d"},
    });
    let out = run(
        &m,
        daemon.socket(),
        &m.project,
        &["hook", "claude-code"],
        &input.to_string(),
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(!said.contains("\"allow\""), "{out:?}");
    assert!(said.contains("\"deny\""), "{out:?}");
    assert!(!ran(&named), "{out:?}");
    assert_eq!(m.notes(), DOCUMENT);
}
