//! Remembered approvals through the client: `assent approve
//! --remember`, `assent remembered`, `assent forget`, and the terminal prompt of a person's own held
//! line, against the real daemon.
//!
//! Safety: the commands here are only checked, never run: `assent check` asks and exits. The
//! tmux tests type lines into a real bash, so its PATH starts with fakes of `git` and `rm` that
//! only write a marker file, its HOME is a temporary directory, and `type` is checked first.

use assent_tests::needs::{TMUX, needs};
use std::path::Path;
use std::process::Output;

use assent_client::Connection;
use assent_client::protocol::{
    CheckRequest, Context, Decision, Origin, Request, Response, Subject, Verdict,
};
use assent_tests::tmux::{Pane, fake_program};
use assent_tests::{
    TestDaemon, assent, binary, decided, hold, pending_tokens, run_detached, wait_until,
};

/// Held for an agent by the embedded policy (destructive: rewrites published history).
const RISKY: &str = "git push --force";
/// The prompt's choices, as the terminal shows them.
/// The end of the prompt line, after the choices and the time left; the answer follows it.
const CHOICES: &str = "(Ctrl-C withdraws): ";

fn check(session: Option<&str>, wait: bool) -> Request {
    Request::Check(CheckRequest {
        subject: Subject::Shell {
            command: RISKY.into(),
            cwd: "/tmp".into(),
            truncated: false,
        },
        origin: Origin::Agent,
        context: Context {
            session: session.map(str::to_string),
            ..Context::default()
        },
        wait,
    })
}

fn verdict(conn: &mut Connection, request: &Request) -> Verdict {
    match conn.request(request) {
        Ok(Response::Verdict(verdict)) => verdict,
        other => panic!("expected a verdict, got {other:?}"),
    }
}

/// Run `assent ARGS` as a person at another terminal (a login session of its own).
fn elsewhere(daemon: &TestDaemon, args: &[&str]) -> Output {
    let mut command = assent(daemon.socket());
    command.args(args);
    run_detached(&mut command)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn code(output: &Output) -> Option<i32> {
    output.status.code()
}

/// Hold the risky check (waiting), approve it from elsewhere with `--remember HOW`, and expect
/// the allow.
fn approve_remembering(daemon: &TestDaemon, session: Option<&str>, how: &str) {
    let mut requester = daemon.connect();
    let token = hold(&mut requester, &check(session, true));
    let output = elsewhere(daemon, &["approve", &token, "--remember", how]);
    assert_eq!(code(&output), Some(0), "{}", text(&output.stderr));
    // It says what it answered, and how.
    let said = text(&output.stdout);
    let how = if how == "once" { "once" } else { "remembered" };
    assert!(said.starts_with("approved") && said.contains(how), "{said}");
    assert!(said.contains(&token) && said.contains(RISKY), "{said}");
    assert!(decided(&mut requester).allow);
}

/// Denying is always safe: the requester may deny its own request (from its own process and
/// session), which it may never approve; `deny` says what it denied.
#[test]
fn a_requester_may_deny_its_own_request_but_not_approve_it() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(&mut requester, &check(None, true));
    let approved = assent_tests::run_bounded(assent(daemon.socket()).args(["approve", &token]));
    assert_eq!(code(&approved), Some(1), "{}", text(&approved.stderr));
    assert!(
        text(&approved.stderr).contains("self"),
        "{}",
        text(&approved.stderr)
    );
    let denied = assent_tests::run_bounded(assent(daemon.socket()).args(["deny", &token]));
    assert_eq!(code(&denied), Some(0), "{}", text(&denied.stderr));
    assert_eq!(
        text(&denied.stdout).trim(),
        format!("denied {token}: {RISKY}")
    );
    assert!(!decided(&mut requester).allow);

    // The log says where each was to run, and the refused approval as refused: it decided
    // nothing (not "confirm ... by user").
    let log = text(&elsewhere(&daemon, &["log"]).stdout);
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 3, "held, refused, denied:\n{log}");
    assert!(
        lines
            .iter()
            .all(|l| l.ends_with(&format!("{RISKY}  in /tmp"))),
        "{log}"
    );
    let columns = |line: &str| line.split_whitespace().nth(1).map(str::to_string);
    assert_eq!(columns(lines[1]).as_deref(), Some("refused"), "{log}");
    assert!(
        lines[1].contains("self_approval") && !lines[1].contains("by user"),
        "{log}"
    );
    assert_eq!(columns(lines[2]).as_deref(), Some("deny"), "{log}");
    let json = text(&elsewhere(&daemon, &["log", "--json"]).stdout);
    let events: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(events[1]["refused"], "self_approval", "{json}");
    assert!(events.iter().all(|e| e["cwd"] == "/tmp"), "{json}");
}

fn rules_json(daemon: &TestDaemon) -> serde_json::Value {
    let output = elsewhere(daemon, &["remembered", "--json"]);
    assert_eq!(code(&output), Some(0), "{}", text(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("assent remembered --json prints JSON")
}

#[test]
fn approve_remember_always_lists_allows_again_survives_a_restart_and_forget_ends_it() {
    let mut daemon = TestDaemon::start();
    approve_remembering(&daemon, None, "always");
    let mut conn = daemon.connect();
    let again = verdict(&mut conn, &check(None, false));
    assert_eq!(again.decision, Decision::Allow, "{again:?}");
    assert!(again.reason.contains("remembered"), "{}", again.reason);

    let listed = elsewhere(&daemon, &["remembered"]);
    let out = text(&listed.stdout);
    assert!(out.contains("  always  "), "{out}");
    assert!(out.contains(&format!("    {RISKY} in /tmp")), "{out}");
    let json = rules_json(&daemon);
    let rule = &json["approvals"][0];
    assert_eq!(rule["signature"], format!("{RISKY} in /tmp"));
    assert_eq!(rule["scope"], "always");
    assert_eq!(rule["uses"], 1);
    let id = rule["id"].as_str().expect("an id").to_string();
    assert!(out.starts_with(&id), "{out}");

    daemon.restart();
    let mut conn = daemon.connect();
    let after = verdict(&mut conn, &check(None, false));
    assert_eq!(
        after.decision,
        Decision::Allow,
        "remembered across a restart"
    );

    let unknown = elsewhere(&daemon, &["forget", "r_00000000"]);
    assert_eq!(code(&unknown), Some(1));
    assert!(
        text(&unknown.stderr).contains("not_found"),
        "{}",
        text(&unknown.stderr)
    );
    let forgot = elsewhere(&daemon, &["forget", &id]);
    assert_eq!(code(&forgot), Some(0), "{}", text(&forgot.stderr));
    assert_eq!(text(&forgot.stdout).trim(), "forgot 1 remembered approval");
    let held = verdict(&mut conn, &check(None, false));
    assert_eq!(held.decision, Decision::Confirm, "forgotten: held again");
    let empty = elsewhere(&daemon, &["remembered"]);
    assert_eq!(text(&empty.stdout).trim(), "no remembered approvals");
}

#[test]
fn approve_remember_session_applies_to_that_session_label_only() {
    let daemon = TestDaemon::start();
    approve_remembering(&daemon, Some("conv-7"), "session");
    let mut conn = daemon.connect();
    let same = verdict(&mut conn, &check(Some("conv-7"), false));
    assert_eq!(same.decision, Decision::Allow, "{same:?}");
    let other = verdict(&mut conn, &check(Some("conv-8"), false));
    assert_eq!(other.decision, Decision::Confirm, "{other:?}");
    let json = rules_json(&daemon);
    assert_eq!(
        json["approvals"][0]["scope"]["session_label"]["label"],
        "conv-7"
    );
    // `assent rules`, the old name, still lists them.
    let out = text(&elsewhere(&daemon, &["rules"]).stdout);
    assert!(out.contains("  session conv-7  "), "{out}");
}

#[test]
fn approve_remember_a_duration_lists_its_end_and_forget_all_clears() {
    let daemon = TestDaemon::start();
    approve_remembering(&daemon, None, "1h");
    let mut conn = daemon.connect();
    assert_eq!(
        verdict(&mut conn, &check(None, false)).decision,
        Decision::Allow
    );
    let json = rules_json(&daemon);
    assert!(
        json["approvals"][0]["scope"]["until"]["ms"].is_u64(),
        "{json}"
    );
    let out = text(&elsewhere(&daemon, &["remembered"]).stdout);
    assert!(out.contains("  until ") && out.contains(" UTC  "), "{out}");
    let forgot = elsewhere(&daemon, &["forget", "--all"]);
    assert_eq!(text(&forgot.stdout).trim(), "forgot 1 remembered approval");
    assert_eq!(
        verdict(&mut conn, &check(None, false)).decision,
        Decision::Confirm
    );
}

#[test]
fn approve_once_remembers_nothing() {
    let daemon = TestDaemon::start();
    approve_remembering(&daemon, None, "once");
    let mut conn = daemon.connect();
    assert_eq!(
        verdict(&mut conn, &check(None, false)).decision,
        Decision::Confirm
    );
    assert_eq!(rules_json(&daemon)["approvals"], serde_json::json!([]));
}

#[test]
fn a_deny_cannot_be_remembered_and_bad_flags_are_usage_errors() {
    let daemon = TestDaemon::start();
    for args in [
        &["deny", "pa_00", "--remember", "always"][..],
        &["approve", "pa_00", "--remember", "forever"],
        &["approve", "pa_00", "--remember", "10ms"],
        &["forget"],
        &["forget", "r_00000000", "--all"],
    ] {
        let output = elsewhere(&daemon, args);
        assert_eq!(
            code(&output),
            Some(64),
            "{args:?}: {}",
            text(&output.stderr)
        );
    }
}

// ---- the terminal prompt ----

/// An interactive bash (no hook: the tests type `assent check` themselves) in tmux.
struct Terminal {
    pane: Pane,
    dir: tempfile::TempDir,
}

impl Terminal {
    fn start(socket: &Path) -> Terminal {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let t = dir.path();
        for sub in ["home", "work"] {
            std::fs::create_dir_all(t.join(sub)).expect("the test directories can be made");
        }
        for fake in ["git", "rm"] {
            fake_program(&t.join("bin"), fake, &t.join("markers"));
        }
        let rc = format!("PS1='$ '\ncd '{}/work'\necho RC-READY\n", t.display());
        let rc_path = t.join("rc.bash");
        std::fs::write(&rc_path, rc).expect("the rc file is written");
        let assent_dir = binary("assent");
        let path = format!(
            "{}:{}:/usr/bin:/bin",
            t.join("bin").display(),
            assent_dir
                .parent()
                .expect("the binary is in a directory")
                .display()
        );
        let vars: Vec<(String, String)> = vec![
            ("HOME".into(), t.join("home").display().to_string()),
            ("PATH".into(), path),
            ("TERM".into(), "screen".into()),
            ("LANG".into(), "C.UTF-8".into()),
            ("ASSENT_SOCKET".into(), socket.display().to_string()),
        ];
        let pane = Pane::start(
            t,
            &vars,
            &[
                "/usr/bin/bash",
                "--noprofile",
                "--rcfile",
                rc_path.to_str().expect("a UTF-8 path"),
                "-i",
            ],
        );
        pane.wait_text("RC-READY");
        let term = Terminal { pane, dir };
        // The line below only checks; even so, `git` here must be the fake.
        let fake = format!("git is {}/bin/git", term.dir.path().display());
        term.pane.line("type git");
        term.pane.wait_text(&fake);
        term
    }

    /// Type the check of the risky line, ending with its exit code on the screen (`EXIT-N`).
    fn check(&self) {
        self.pane.line(&format!(
            "assent check --origin interactive -- {RISKY}; echo \"EXIT-$((0+$?))\""
        ));
    }

    fn work(&self) -> String {
        format!("{}/work", self.dir.path().display())
    }

    fn nothing_ran(&self) -> bool {
        !self.dir.path().join("markers").exists()
    }
}

#[test]
fn the_terminal_prompt_y_allows_once() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let term = Terminal::start(daemon.socket());
    term.check();
    let screen = term.pane.wait_text(CHOICES);
    // Three lines, each within 80 columns, in words: what the line does, where else to answer,
    // and the choices with the time left.
    let lines: Vec<&str> = screen.lines().collect();
    let prompt_at = lines
        .iter()
        .rposition(|l| l.contains(CHOICES))
        .expect("the prompt line");
    let asked = &lines[prompt_at - 2..=prompt_at];
    assert!(
        asked[0].starts_with("assent: destructive: `git push` with --force"),
        "{screen}"
    );
    assert!(
        asked[1].starts_with("  or elsewhere: assent approve pa_"),
        "{screen}"
    );
    assert!(asked[2].starts_with("[y] once  [s] session  [a] always  [N] deny \u{b7} "));
    assert!(asked[2].contains(" left "), "{screen}");
    for line in asked {
        assert!(
            line.chars().count() <= 80,
            "{line:?} is wider than 80 columns"
        );
        assert!(!line.contains("policy"), "no policy jargon: {line}");
    }
    assert!(!asked[0].contains('['), "no finding ids: {}", asked[0]);
    term.pane.type_text("y");
    let screen = term.pane.wait_text("EXIT-0");
    assert!(screen.contains(&format!("{CHOICES}allow once")), "{screen}");
    assert!(screen.contains("allowed at the terminal"), "{screen}");
    // Once: the same line is asked about again.
    term.check();
    term.pane.wait_count(CHOICES, 2);
    term.pane.type_text("n");
    term.pane.wait_text("EXIT-1");
    assert!(term.nothing_ran());
}

#[test]
fn the_terminal_prompt_n_and_enter_deny() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let term = Terminal::start(daemon.socket());
    term.check();
    term.pane.wait_text(CHOICES);
    term.pane.type_text("n");
    let screen = term.pane.wait_text("EXIT-1");
    assert!(screen.contains(&format!("{CHOICES}deny")), "{screen}");
    assert!(screen.contains("denied at the terminal"), "{screen}");
    term.check();
    term.pane.wait_count(CHOICES, 2);
    term.pane.keys(&["Enter"]);
    term.pane.wait_count("EXIT-1", 2);
    assert!(term.nothing_ran());
}

#[test]
fn the_terminal_prompt_a_remembers_and_the_same_line_is_then_allowed_at_once() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let term = Terminal::start(daemon.socket());
    term.check();
    term.pane.wait_text(CHOICES);
    term.pane.type_text("a");
    let screen = term.pane.wait_text("EXIT-0");
    assert!(
        screen.contains(&format!("{CHOICES}allow always")),
        "{screen}"
    );
    term.check();
    let screen = term.pane.wait_count("EXIT-0", 2);
    assert_eq!(
        screen.matches(CHOICES).count(),
        1,
        "not asked again: {screen}"
    );
    let rules = text(&elsewhere(&daemon, &["remembered"]).stdout);
    assert!(
        rules.contains(&format!("{RISKY} in {}", term.work())),
        "{rules}"
    );
    assert!(rules.contains("  always  "), "{rules}");
    assert!(term.nothing_ran());
}

#[test]
fn the_terminal_prompt_s_remembers_for_the_login_session() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let term = Terminal::start(daemon.socket());
    term.check();
    term.pane.wait_text(CHOICES);
    term.pane.type_text("s");
    let screen = term.pane.wait_text("EXIT-0");
    assert!(
        screen.contains(&format!("{CHOICES}allow for this session")),
        "{screen}"
    );
    term.check();
    let screen = term.pane.wait_count("EXIT-0", 2);
    assert_eq!(
        screen.matches(CHOICES).count(),
        1,
        "not asked again: {screen}"
    );
    let rules = text(&elsewhere(&daemon, &["remembered"]).stdout);
    assert!(rules.contains("  login session "), "{rules}");
    // From another login session the same line is asked about again.
    let mut conn = daemon.connect();
    let mut other = check(None, false);
    if let Request::Check(check) = &mut other {
        check.origin = Origin::Interactive;
        check.subject = Subject::Shell {
            command: RISKY.into(),
            cwd: term.work(),
            truncated: false,
        };
    }
    assert_eq!(verdict(&mut conn, &other).decision, Decision::Confirm);
}

/// Keys typed ahead (before the prompt is on the screen) never answer it.
#[test]
fn keys_typed_ahead_do_not_answer_the_prompt() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let term = Terminal::start(daemon.socket());
    term.check();
    term.pane.type_text("aaa");
    term.pane.wait_text(CHOICES);
    let mut conn = daemon.connect();
    assert_eq!(pending_tokens(&mut conn).len(), 1, "still held");
    assert_eq!(rules_json(&daemon)["approvals"], serde_json::json!([]));
    term.pane.type_text("n");
    let screen = term.pane.wait_text("EXIT-1");
    assert!(screen.contains(&format!("{CHOICES}deny")), "{screen}");
    assert_eq!(rules_json(&daemon)["approvals"], serde_json::json!([]));
}

#[test]
fn an_answer_from_elsewhere_clears_the_prompt() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let term = Terminal::start(daemon.socket());
    term.check();
    term.pane.wait_text(CHOICES);
    let mut conn = daemon.connect();
    let mut tokens = Vec::new();
    assert!(wait_until(std::time::Duration::from_secs(10), || {
        tokens = pending_tokens(&mut conn);
        !tokens.is_empty()
    }));
    let output = elsewhere(&daemon, &["approve", &tokens[0]]);
    assert_eq!(code(&output), Some(0), "{}", text(&output.stderr));
    let screen = term.pane.wait_text("EXIT-0");
    assert!(screen.contains("assent: answered elsewhere"), "{screen}");
    assert_terminal_restored(&term);
}

#[test]
fn ctrl_c_at_the_prompt_withdraws_and_restores_the_terminal() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let term = Terminal::start(daemon.socket());
    term.check();
    term.pane.wait_text(CHOICES);
    term.pane.keys(&["C-c"]);
    term.pane.wait_text("EXIT-130");
    let mut conn = daemon.connect();
    assert!(wait_until(std::time::Duration::from_secs(5), || {
        pending_tokens(&mut conn).is_empty()
    }));
    assert_terminal_restored(&term);
}

/// The terminal is back in canonical mode with echo: bash takes the mode a finished foreground
/// job leaves as its own, so `stty` in the next line shows it.
fn assert_terminal_restored(term: &Terminal) {
    // Prints how many of -icanon and -echo are set: RAWFLAGS-0 when restored.
    term.pane
        .line(r#"echo "RAWFLAGS-$(stty -a | tr ' ;' '\n\n' | grep -cx -e -icanon -e -echo)""#);
    let screen = term
        .pane
        .wait_for("the tty mode", assent_tests::tmux::SCREEN_TIMEOUT, |s| {
            s.lines().any(|l| l.starts_with("RAWFLAGS-"))
        });
    assert!(screen.lines().any(|l| l == "RAWFLAGS-0"), "{screen}");
}

// What a requester wrote, as `pending`, `log`, the replies and the prompt show it.
#[path = "approvals_cli/shown.rs"]
mod shown;

/// The terminal prompt's answer must come from the person's shell on its terminal. A program
/// under a coding agent that shares the terminal (and its foreground) asks as the hook does and
/// answers its own hold "always": refused, and nothing remembered. The same from the person's
/// own shell is taken (it is the person).
#[test]
fn only_the_persons_shell_answers_at_the_terminal_prompt() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let term = Terminal::start(daemon.socket());
    let t = term.dir.path();
    // What asks and answers itself, as a script, and a coding agent: any program by that name.
    let ask = t.join("ask");
    std::fs::write(
        &ask,
        format!(
            "'{}' --socket '{}' prompt-self '{RISKY}' '{}'\n",
            binary("assent-test-approver").display(),
            daemon.socket().display(),
            term.work()
        ),
    )
    .expect("the script is written");
    std::os::unix::fs::symlink("/usr/bin/bash", t.join("bin/claude")).expect("the agent");

    term.pane.line(&format!(
        "claude '{}'; echo UNDER-AGENT-$((1+1))",
        ask.display()
    ));
    let screen = term.pane.wait_text("UNDER-AGENT-2");
    assert!(screen.contains("self_approval"), "{screen}");
    assert_eq!(rules_json(&daemon)["approvals"], serde_json::json!([]));

    term.pane.line(&format!(
        "bash '{}'; echo OWN-SHELL-$((1+1))",
        ask.display()
    ));
    let screen = term.pane.wait_text("OWN-SHELL-2");
    assert!(
        screen.contains("\ndone") || screen.contains("done\r"),
        "the person's own shell was refused:\n{screen}"
    );
}
