//! The real Codex, end to end: the version pinned in `tests/agents/` run headless
//! (`codex exec`) under a user of its own, gated by the hook `assent setup codex` installs,
//! against the real daemon, with a scripted fake model ([`FakeModel`], OpenAI Responses
//! through a custom provider) that makes the shell calls and records what Codex tells it next.
//!
//! Codex runs a hook only once a person has trusted it in `/hooks`; until then it skips the
//! hook without a word (the fake `rm` runs and nothing is audited). `assent setup codex`
//! records that trust as `/hooks` does (`[hooks.state."KEY"] trusted_hash = "…"` in
//! `config.toml`): each run checks that Codex lists the hook as trusted already
//! ([`Sandbox::trust_codex_hooks`] finds nothing left to trust), and
//! [`setup_records_codexs_trust_and_check_says_when_it_is_missing`] shows Codex's own list
//! before and after. Each run passes
//! `--dangerously-bypass-approvals-and-sandbox`, so that the gate is the only thing between
//! the model and the command (Codex's own sandbox would otherwise hide what the gate let
//! through). A fake `rm` is first on `PATH`. Run just these with
//! `cargo test -p assent-tests --test agent_codex` (as root).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use assent_tests::agents::{Sandbox, codex, held, write_self_approver};
use assent_tests::fake_model::{FakeModel, Step};
use assent_tests::{Options, TestDaemon, assent, pending_tokens, run_bounded, run_detached};
use assentd::policy::NoApprover;
use serde_json::Value;

/// How long one conversation may take.
const RUN: Duration = Duration::from_secs(90);

/// What keeps Codex's sandbox and its own approvals out of the way.
const FLAGS: [&str; 1] = ["--dangerously-bypass-approvals-and-sandbox"];

struct Run {
    sandbox: Sandbox,
    daemon: TestDaemon,
    model: FakeModel,
    codex: std::path::PathBuf,
}

impl Run {
    /// A daemon that refuses at once what it would hold (no approval agent: the shipped
    /// default), so a refusal does not wait for a hold to expire.
    fn new(user: &str, script: impl FnOnce(&Sandbox) -> Vec<Step>) -> Option<Run> {
        let refusing = Options {
            no_approver: Some(NoApprover::Deny),
            ..Options::default()
        };
        Run::with(user, refusing, script)
    }

    fn with(
        user: &str,
        options: Options,
        script: impl FnOnce(&Sandbox) -> Vec<Step>,
    ) -> Option<Run> {
        let codex = codex()?;
        let sandbox = Sandbox::new(user);
        let daemon = TestDaemon::with(options);
        let model = FakeModel::start(script(&sandbox));
        sandbox.setup_codex(model.url(), daemon.socket());
        let untrusted = sandbox.trust_codex_hooks(&codex, daemon.socket());
        assert!(
            untrusted.is_empty(),
            "assent setup codex left hooks Codex does not trust: {untrusted:?}"
        );
        Some(Run {
            sandbox,
            daemon,
            model,
            codex,
        })
    }

    fn run(&self) -> String {
        talk(
            &self.sandbox,
            &self.codex,
            &self.model,
            self.daemon.socket(),
        )
    }

    fn result_of(&self, n: usize, log: &str) -> String {
        self.model
            .turns()
            .iter()
            .find_map(|turn| turn.result_of(n))
            .unwrap_or_else(|| panic!("the model was not told of step {n}: {log}"))
    }

    fn audit(&self) -> String {
        let out = run_bounded(assent(self.daemon.socket()).args(["log", "-n", "50", "--json"]));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

/// Run Codex to the end of its conversation with `model`; what it printed, and the requests
/// the model got, for failure messages.
fn talk(sandbox: &Sandbox, codex: &Path, model: &FakeModel, socket: &Path) -> String {
    let (code, printed) = sandbox.codex(codex, socket, &FLAGS, RUN);
    let text = format!(
        "exit {code:?}; it printed:\n{printed}\nthe model was asked:\n{}",
        model.summary()
    );
    assert_eq!(code, Some(0), "codex failed: {text}");
    text
}

/// Our hook as Codex lists it (`hooks/list`).
fn our_hook(run: &Run) -> Value {
    run.sandbox
        .codex_hooks(&run.codex, run.daemon.socket())
        .into_iter()
        .find(|hook| {
            hook["command"]
                .as_str()
                .is_some_and(|c| c.contains("hook codex"))
        })
        .expect("Codex lists assent's hook")
}

/// Without the trust `assent setup codex` records, Codex lists the hook as untrusted (and
/// skips it) and `setup --check codex` says so and fails; with it, Codex lists the hook as
/// trusted, the check passes, and the destructive call is refused.
#[test]
fn setup_records_codexs_trust_and_check_says_when_it_is_missing() {
    let Some(run) = Run::new("assent-cx-trust", |_| {
        vec![
            Step::exec("rm -rf ~/Documents"),
            Step::Text("Stopped.".into()),
        ]
    }) else {
        return;
    };
    let config = run.sandbox.home.join(".codex/config.toml");
    let trusted = std::fs::read_to_string(&config).expect("config.toml");
    // Before: the hook as setup wrote it, without the trust (what setup used to leave).
    let cut = trusted
        .find("[hooks.state.")
        .unwrap_or_else(|| panic!("setup recorded no trust: {trusted}"));
    std::fs::write(&config, &trusted[..cut]).expect("written");
    let hook = our_hook(&run);
    assert_eq!(hook["trustStatus"], "untrusted", "{hook}");
    let (code, said) = run.sandbox.setup_check(run.daemon.socket(), "codex");
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.contains("not trusted yet: open /hooks in Codex"),
        "{said}"
    );
    // After: setup again records it, with the hash Codex computes itself.
    run.sandbox
        .setup_codex(run.model.url(), run.daemon.socket());
    let hook = our_hook(&run);
    assert_eq!(hook["trustStatus"], "trusted", "{hook}");
    let recorded = std::fs::read_to_string(&config).expect("config.toml");
    let hash = hook["currentHash"].as_str().expect("a hash");
    assert!(recorded.contains(hash), "{recorded}");
    let (code, said) = run.sandbox.setup_check(run.daemon.socket(), "codex");
    assert_eq!(code, Some(0), "{said}");
    let decoy = run.sandbox.home.join("Documents/decoy.txt");
    std::fs::create_dir_all(decoy.parent().expect("a parent")).expect("made");
    std::fs::write(&decoy, "keep me").expect("written");
    run.sandbox.chown_home();
    let log = run.run();
    assert_eq!(run.sandbox.rm_runs(), 0, "rm ran: {log}");
    assert!(decoy.exists(), "{log}");
    assert!(
        run.audit().contains("\"deny\""),
        "the hook was asked: {log}"
    );
}

#[test]
fn a_harmless_calls_output_reaches_the_model() {
    let Some(run) = Run::new("assent-cx-ls", |_| {
        vec![Step::exec("ls"), Step::Text("Listed.".into())]
    }) else {
        return;
    };
    std::fs::write(run.sandbox.project.join("marker-file.txt"), "x").expect("written");
    run.sandbox.chown_home();
    let log = run.run();
    let result = run.result_of(0, &log);
    assert!(result.contains("marker-file.txt"), "{result}\n{log}");
    assert!(run.audit().contains("\"ls\""), "the hook asked: {log}");
}

#[test]
fn a_destructive_call_is_refused_and_the_reason_reaches_the_model() {
    let Some(run) = Run::new("assent-cx-rm", |_| {
        vec![
            Step::exec("rm -rf ~/Documents"),
            Step::Text("Stopped.".into()),
        ]
    }) else {
        return;
    };
    let decoy = run.sandbox.home.join("Documents/decoy.txt");
    std::fs::create_dir_all(decoy.parent().expect("a parent")).expect("made");
    std::fs::write(&decoy, "keep me").expect("written");
    run.sandbox.chown_home();
    let log = run.run();
    assert_eq!(
        std::fs::read_to_string(&decoy).ok().as_deref(),
        Some("keep me"),
        "{log}"
    );
    assert_eq!(run.sandbox.rm_runs(), 0, "rm ran: {log}");
    let trail = run.audit();
    let denied: Vec<Value> = trail
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["decision"] == "deny")
        .collect();
    assert_eq!(denied.len(), 1, "one denial in the audit: {trail}\n{log}");
    let reason = denied[0]["reason"].as_str().unwrap_or_default();
    let result = run.result_of(0, &log);
    assert!(
        result.contains(reason) && result.contains("delete.data"),
        "the model was not told the hook's reason {reason:?}: {result}\n{log}"
    );
}

/// A shell call Codex runs in another directory (its `workdir`) is judged there: `rm -r
/// Documents` in the home deletes the person's files, not a project directory.
#[test]
fn a_shell_call_in_another_directory_is_judged_there() {
    let Some(run) = Run::new("assent-cx-workdir", |sandbox| {
        let home = sandbox.home.to_str().expect("UTF-8");
        vec![
            Step::Tool {
                name: "exec_command".into(),
                input: serde_json::json!({"cmd": "rm -r Documents", "workdir": home, "login": false}),
            },
            Step::Text("Stopped.".into()),
        ]
    }) else {
        return;
    };
    let decoy = run.sandbox.home.join("Documents/decoy.txt");
    std::fs::create_dir_all(decoy.parent().expect("a parent")).expect("made");
    std::fs::write(&decoy, "keep me").expect("written");
    // The same name in the project, which the gate would judge instead if it ignored workdir.
    std::fs::create_dir_all(run.sandbox.project.join("Documents")).expect("made");
    run.sandbox.chown_home();
    let log = run.run();
    assert_eq!(run.sandbox.rm_runs(), 0, "rm ran: {log}");
    let result = run.result_of(0, &log);
    assert!(
        result.contains("delete.data") && !result.contains("delete.project"),
        "judged in the project, not in the home: {result}\n{log}"
    );
}

/// The fields `client/src/cli/hook/codex.rs` reads, in what Codex really sends.
#[test]
fn the_hook_payloads_carry_the_fields_the_parser_reads() {
    let Some(run) = Run::new("assent-cx-payload", |_| {
        vec![Step::exec("ls"), Step::Text("Done.".into())]
    }) else {
        return;
    };
    // A second hook beside assent's that keeps each payload, one a line.
    let payloads = run.sandbox.work.path().join("payloads.jsonl");
    std::fs::write(&payloads, "").expect("made");
    std::fs::set_permissions(&payloads, std::fs::Permissions::from_mode(0o666)).expect("chmod");
    let hooks = run.sandbox.home.join(".codex/hooks.json");
    let mut json: Value =
        serde_json::from_str(&std::fs::read_to_string(&hooks).expect("setup wrote hooks.json"))
            .expect("hooks.json is JSON");
    let keep = format!("{{ cat; echo; }} >> '{}'; echo '{{}}'", payloads.display());
    json["hooks"]["PreToolUse"]
        .as_array_mut()
        .expect("setup wrote a PreToolUse list")
        .push(serde_json::json!({"matcher": "*", "hooks": [{"type": "command", "command": keep}]}));
    std::fs::write(&hooks, json.to_string()).expect("written");
    let trusted = run
        .sandbox
        .trust_codex_hooks(&run.codex, run.daemon.socket());
    assert_eq!(trusted.len(), 1, "the recorder is trusted too: {trusted:?}");
    let log = run.run();
    let seen: Vec<Value> = std::fs::read_to_string(&payloads)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let payload = seen
        .iter()
        .find(|p| p["tool_input"]["command"] == "ls")
        .unwrap_or_else(|| panic!("no payload for the ls call in {seen:?}\n{log}"));
    assert_eq!(payload["hook_event_name"], "PreToolUse", "{payload}");
    assert_eq!(payload["tool_name"], "Bash", "{payload}");
    assert!(
        payload["session_id"]
            .as_str()
            .is_some_and(|s| !s.is_empty()),
        "{payload}"
    );
    assert_eq!(
        payload["cwd"].as_str().map(Path::new),
        Some(run.sandbox.project.as_path()),
        "{payload}"
    );
}

#[test]
fn a_held_call_approved_from_another_session_runs_once() {
    // Not `rm -rf`: Codex refuses `rm -f` itself, after the hook.
    let Some(run) = Run::with("assent-cx-held", Options::default(), |_| {
        vec![Step::exec("rm -r src"), Step::Text("Removed.".into())]
    }) else {
        return;
    };
    std::fs::create_dir_all(run.sandbox.project.join("src")).expect("made");
    run.sandbox.chown_home();
    let socket = run.daemon.socket().to_path_buf();
    std::thread::scope(|scope| {
        let agent = scope.spawn(|| talk(&run.sandbox, &run.codex, &run.model, &socket));
        let token = held(&run.daemon, RUN);
        let token = token.unwrap_or_else(|| panic!("nothing was held: {}", run.model.summary()));
        assert_eq!(run.sandbox.rm_runs(), 0, "a held call waits");
        let person = run_detached(assent(run.daemon.socket()).args(["approve", &token]));
        assert_eq!(person.status.code(), Some(0), "{person:?}");
        let log = agent.join().expect("the agent's run ends");
        assert_eq!(
            run.sandbox.rm_runs(),
            1,
            "the approved call ran once: {log}"
        );
    });
}

/// A held call a person denies: the model is told in one line, the reason, without the token
/// or how to answer (those are the person's).
#[test]
fn a_held_call_denied_from_another_session_does_not_run_and_the_model_is_told() {
    let Some(run) = Run::with("assent-cx-denied", Options::default(), |_| {
        vec![Step::exec("rm -r src"), Step::Text("Stopped.".into())]
    }) else {
        return;
    };
    std::fs::create_dir_all(run.sandbox.project.join("src")).expect("made");
    run.sandbox.chown_home();
    let socket = run.daemon.socket().to_path_buf();
    std::thread::scope(|scope| {
        let agent = scope.spawn(|| talk(&run.sandbox, &run.codex, &run.model, &socket));
        let token = held(&run.daemon, RUN);
        let token = token.unwrap_or_else(|| panic!("nothing was held: {}", run.model.summary()));
        let person = run_detached(assent(run.daemon.socket()).args(["deny", &token]));
        assert_eq!(person.status.code(), Some(0), "{person:?}");
        let log = agent.join().expect("the agent's run ends");
        assert_eq!(
            run.sandbox.rm_runs(),
            0,
            "a denied call does not run: {log}"
        );
        let result = run.result_of(0, &log);
        assert!(
            result.contains("then denied: denied by") && result.contains("delete.project"),
            "the model is told it was denied, and why it was held: {result}\n{log}"
        );
        assert!(
            !result.contains(&token)
                && !result.contains("assent approve")
                && !result.contains('\n'),
            "one line to the model: {result:?}"
        );
    });
}

#[test]
fn the_agents_own_background_job_cannot_approve_its_held_call() {
    let Some(run) = Run::with("assent-cx-self", Options::default(), |_| {
        vec![
            // Its own session: Codex ends what a shell call leaves in the background.
            Step::exec("setsid -f sh approve-all.sh > approve.log 2>&1"),
            Step::exec("rm -r src"),
            Step::Text("Done.".into()),
        ]
    }) else {
        return;
    };
    std::fs::create_dir_all(run.sandbox.project.join("src")).expect("made");
    write_self_approver(&run.sandbox.project, run.daemon.socket());
    run.sandbox.chown_home();
    let socket = run.daemon.socket().to_path_buf();
    std::thread::scope(|scope| {
        let agent = scope.spawn(|| talk(&run.sandbox, &run.codex, &run.model, &socket));
        let token = held(&run.daemon, RUN);
        let token = token.unwrap_or_else(|| panic!("nothing was held: {}", run.model.summary()));
        // The job wakes 2 s after it started; give it time to try.
        std::thread::sleep(Duration::from_secs(5));
        let job =
            std::fs::read_to_string(run.sandbox.project.join("approve.log")).unwrap_or_default();
        let still_held = pending_tokens(&mut run.daemon.connect()).contains(&token);
        let ran = run.sandbox.rm_runs();
        let trail = run.audit();
        // Let the agent finish whatever happened: a person denies what is left.
        if still_held {
            let _ = run_detached(assent(run.daemon.socket()).args(["deny", &token]));
        }
        let log = agent.join().expect("the agent's run ends");
        assert!(
            still_held && ran == 0,
            "the agent's own job approved its held call (ran {ran}): job said {job:?}\naudit: {trail}\n{log}"
        );
        assert!(
            trail.contains("self_approval"),
            "the audit shows the refused self-approval: {trail}\njob said {job:?}\n{log}"
        );
    });
}
