//! The real Gemini CLI runs what its hook allows confined: the hook answers an allowed
//! `run_shell_command` with `decision: "allow"` and `hookSpecificOutput.tool_input`, the
//! command rewritten to `assent sh --grant`, which Gemini merges into the call it runs. A program in the project that overwrites a document in the
//! home it computes at run time is stopped by the kernel and the failure reaches the model;
//! its twin in the project works. Headless `gemini -p` under a user of its own, a fake model,
//! the real daemon (see `agent_gemini.rs`). Run with `cargo test -p assent-tests --test
//! agent_gemini_confined` (as root).

use std::path::Path;
use std::time::Duration;

use assent_tests::agents::{Sandbox, gemini};
use assent_tests::fake_model::{FakeModel, Step};
use assent_tests::{Options, TestDaemon};

/// How long one conversation may take.
const RUN: Duration = Duration::from_secs(120);
const DOCUMENT: &str = "notes the person keeps";

/// This kernel confines (ABI 6 or later); a skip otherwise, a failure under `CI=true`.
fn landlock() -> bool {
    assent_tests::needs::skip_unless(
        assentd::landlock::confines(),
        "a kernel with Landlock ABI 6 or later",
    )
}

fn result_of(model: &FakeModel, n: usize, log: &str) -> String {
    model
        .turns()
        .iter()
        .find_map(|turn| turn.result_of(n))
        .unwrap_or_else(|| panic!("the model was not told of step {n}: {log}"))
}

fn talk(sandbox: &Sandbox, gemini: &Path, model: &FakeModel, socket: &Path) -> String {
    let (code, printed) = sandbox.gemini(gemini, model.url(), socket, &[], RUN);
    let text = format!(
        "exit {code:?}; it printed:\n{printed}\nthe model was asked:\n{}",
        model.summary()
    );
    assert_eq!(code, Some(0), "gemini failed: {text}");
    text
}

#[test]
fn what_geminis_hook_allows_runs_confined() {
    if !landlock() {
        return;
    }
    let Some(gemini) = gemini() else {
        return;
    };
    let sandbox = Sandbox::new("assent-gm-confine");
    let daemon = TestDaemon::with(Options::default());
    let model = FakeModel::start(vec![
        Step::gemini_shell("python3 cleanup.py"),
        Step::gemini_shell("python3 build.py"),
        Step::Text("Done.".into()),
    ]);
    sandbox.setup_gemini(daemon.socket());
    let project = sandbox.project.clone();
    // The program computes where it writes when it runs (`confined::unreadable`).
    let hidden = assent_tests::confined::unreadable("Documents/old/notes.txt");
    std::fs::write(
        project.join("cleanup.py"),
        format!(
            "import os\np = os.path.join(os.path.expanduser('~'), {hidden})\nopen(p, 'w').write('overwritten')\n"
        ),
    )
    .expect("written");
    std::fs::write(
        project.join("build.py"),
        "open('built.txt', 'w').write('ok')\nprint('built')\n",
    )
    .expect("written");
    let decoy = sandbox.home.join("Documents/old/notes.txt");
    std::fs::create_dir_all(decoy.parent().expect("a parent")).expect("made");
    std::fs::write(&decoy, DOCUMENT).expect("written");
    std::fs::create_dir_all(project.join(".git")).expect("made");
    sandbox.chown_home();
    let log = talk(&sandbox, &gemini, &model, daemon.socket());

    assert_eq!(
        std::fs::read_to_string(&decoy).ok().as_deref(),
        Some(DOCUMENT),
        "the document in the home is intact: {log}"
    );
    let cleanup = result_of(&model, 0, &log);
    assert!(
        cleanup.contains("Permission denied") && cleanup.contains("ran confined"),
        "the refusal reached the model: {cleanup}\n{log}"
    );
    let build = result_of(&model, 1, &log);
    assert!(build.contains("built"), "{build}\n{log}");
    assert_eq!(
        std::fs::read_to_string(project.join("built.txt"))
            .ok()
            .as_deref(),
        Some("ok"),
        "the program works in the project: {log}"
    );
}
