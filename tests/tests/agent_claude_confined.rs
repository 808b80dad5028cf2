//! The real Claude Code runs what its hook allows confined: the hook answers an allowed `Bash`
//! call with `updatedInput`, the call rewritten to `assent sh --grant`, and Claude runs that.
//! An agent-written program that overwrites a document in the home it computes at run time is
//! stopped by the kernel and the failure reaches the model; its twin in the project works; a
//! `cd` still moves the agent; a held call a person approved runs once, not held again.
//! Headless `claude -p` under a user of its own, a fake model, the real daemon (see
//! `agent_claude.rs`). Run with `cargo test -p assent-tests --test agent_claude_confined`.

use std::path::Path;
use std::time::Duration;

use assent_tests::agents::{Sandbox, claude_code, held};
use assent_tests::fake_model::{FakeModel, Step};
use assent_tests::{Options, TestDaemon, assent, run_detached};

/// How long one conversation may take.
const RUN: Duration = Duration::from_secs(120);
const DOCUMENT: &str = "notes the person keeps";

fn path(p: &Path) -> String {
    p.to_str().expect("test paths are UTF-8").to_string()
}

/// This kernel confines (ABI 6 or later); a skip otherwise, a failure under `CI=true`.
fn landlock() -> bool {
    assent_tests::needs::skip_unless(
        assentd::landlock::confines(),
        "a kernel with Landlock ABI 6 or later",
    )
}

/// What the agent told the model of the tool call of step `n` (0-based).
fn result_of(model: &FakeModel, n: usize, log: &str) -> String {
    model
        .turns()
        .iter()
        .find_map(|turn| turn.result_of(n))
        .unwrap_or_else(|| panic!("the model was not told of step {n}: {log}"))
}

/// Run the agent to the end of its conversation; what it printed and what the model was asked.
fn talk(sandbox: &Sandbox, claude: &Path, model: &FakeModel, socket: &Path) -> String {
    let (code, printed) = sandbox.claude(claude, model.url(), socket, RUN);
    let text = format!(
        "exit {code:?}; it printed:\n{printed}\nthe model was asked:\n{}",
        model.summary()
    );
    assert_eq!(code, Some(0), "claude failed: {text}");
    text
}

/// A program the agent writes, computing where it writes when it runs (the home's document,
/// its path hidden from the reader: `confined::unreadable`), so only the kernel can stop it.
fn overwriting_program() -> String {
    let hidden = assent_tests::confined::unreadable("Documents/old/notes.txt");
    format!(
        "import os\np = os.path.join(os.path.expanduser('~'), {hidden})\nopen(p, 'w').write('overwritten')\nprint('cleaned')\n"
    )
}

#[test]
fn what_the_hook_allows_runs_confined_and_cd_still_moves_the_agent() {
    if !landlock() {
        return;
    }
    let Some(claude) = claude_code() else {
        return;
    };
    let sandbox = Sandbox::new("assent-cc-confine");
    let daemon = TestDaemon::with(Options::default());
    sandbox.setup_claude_code(daemon.socket());
    let project = sandbox.project.clone();
    let model = FakeModel::start(vec![
        Step::write(&path(&project.join("cleanup.py")), &overwriting_program()),
        Step::bash("python3 cleanup.py"),
        Step::write(
            &path(&project.join("build.py")),
            "open('built.txt', 'w').write('ok')\nprint('built')\n",
        ),
        Step::bash("python3 build.py"),
        Step::bash("cd sub && pwd"),
        Step::bash("pwd"),
        Step::Text("Done.".into()),
    ]);
    let decoy = sandbox.home.join("Documents/old/notes.txt");
    std::fs::create_dir_all(decoy.parent().expect("a parent")).expect("made");
    std::fs::write(&decoy, DOCUMENT).expect("written");
    // The project is a repository: what a confined run may change.
    std::fs::create_dir_all(project.join(".git")).expect("made");
    std::fs::create_dir_all(project.join("sub")).expect("made");
    sandbox.chown_home();
    let log = talk(&sandbox, &claude, &model, daemon.socket());

    assert_eq!(
        std::fs::read_to_string(&decoy).ok().as_deref(),
        Some(DOCUMENT),
        "the document in the home is intact: {log}"
    );
    let cleanup = result_of(&model, 1, &log);
    assert!(
        cleanup.contains("Permission denied") && cleanup.contains("ran confined"),
        "the refusal reached the model: {cleanup}\n{log}"
    );
    let build = result_of(&model, 3, &log);
    assert!(build.contains("built"), "{build}\n{log}");
    assert_eq!(
        std::fs::read_to_string(project.join("built.txt"))
            .ok()
            .as_deref(),
        Some("ok"),
        "the program works in the project: {log}"
    );
    let sub = path(&project.join("sub"));
    let cd = result_of(&model, 4, &log);
    assert!(cd.contains(&sub), "{cd}\n{log}");
    let after = result_of(&model, 5, &log);
    assert!(
        after.contains(&sub),
        "the next call runs where the cd left the agent: {after}\n{log}"
    );
}

#[test]
fn a_held_call_a_person_approved_runs_once_confined_and_is_not_held_again() {
    if !landlock() {
        return;
    }
    let Some(claude) = claude_code() else {
        return;
    };
    let sandbox = Sandbox::new("assent-cc-confheld");
    let daemon = TestDaemon::with(Options::default());
    sandbox.setup_claude_code(daemon.socket());
    let model = FakeModel::start(vec![
        Step::bash("rm -rf src"),
        Step::Text("Removed.".into()),
    ]);
    std::fs::create_dir_all(sandbox.project.join("src")).expect("made");
    std::fs::create_dir_all(sandbox.project.join(".git")).expect("made");
    sandbox.chown_home();
    let socket = daemon.socket().to_path_buf();
    std::thread::scope(|scope| {
        let agent = scope.spawn(|| talk(&sandbox, &claude, &model, &socket));
        let token = held(&daemon, RUN);
        let token = token.unwrap_or_else(|| panic!("nothing was held: {}", model.summary()));
        assert_eq!(sandbox.rm_runs(), 0, "a held call waits");
        let person = run_detached(assent(daemon.socket()).args(["approve", &token]));
        assert_eq!(person.status.code(), Some(0), "{person:?}");
        let log = agent.join().expect("the agent's run ends");
        assert_eq!(sandbox.rm_runs(), 1, "the approved call ran once: {log}");
        let result = result_of(&model, 0, &log);
        assert!(
            !result.contains("not run") && !result.contains("held"),
            "it ran, not held a second time: {result}\n{log}"
        );
        // One hold in the audit: the door redeemed the grant, it did not judge again.
        let trail =
            assent_tests::run_bounded(assent(daemon.socket()).args(["log", "-n", "50", "--json"]));
        let trail = String::from_utf8_lossy(&trail.stdout);
        let holds = trail
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter(|event| event["decision"] == "confirm")
            .count();
        assert_eq!(holds, 1, "{trail}\n{log}");
    });
}
