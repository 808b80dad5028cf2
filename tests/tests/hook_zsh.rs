//! The zsh hook (`shell-hook/assent.zsh`) in a real interactive zsh, driven through a
//! private tmux server against a test daemon.
//!
//! Safety: these shells are real. Every line typed here is harmless even if the hook fails open:
//! `rm` is a fake on the shell's PATH that only writes a marker file (each test checks
//! `command -v rm` before typing a line with it), and its target does not exist anyway.

use assent_tests::needs::{TMUX, ZSH, needs};
use std::path::{Path, PathBuf};
use std::time::Duration;

use assent_tests::tmux::{Pane, fake_program, markers};
use assent_tests::{TestDaemon, assent, binary, pending_tokens, run_detached, wait_until};

/// A line the analyser holds (destructive: `rm -r` of a non-temporary path), harmless here.
const RISKY: &str = "rm -rf /nonexistent-assent-test/victim";
/// What the fake `rm` writes when that line runs.
const RAN: &str = "FAKE-rm -rf /nonexistent-assent-test/victim";

/// An interactive zsh with the hook, its own HOME, ZDOTDIR and PATH in a temporary directory.
struct Zsh {
    pane: Pane,
    dir: tempfile::TempDir,
}

impl Zsh {
    fn start(socket: &Path) -> Zsh {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let t = dir.path();
        for sub in ["home", "work", "zdot"] {
            std::fs::create_dir_all(t.join(sub)).expect("the test directories can be made");
        }
        fake_program(&t.join("bin"), "rm", &t.join("markers"));
        let assent_bin = binary("assent");
        let rc = format!(
            "PS1='%% '\n\
             HISTFILE='{t}/home/.zsh_history'\n\
             HISTSIZE=1000\n\
             SAVEHIST=1000\n\
             alias zap='rm -rf'\n\
             eval \"$(\"$ASSENT_BIN\" init zsh)\"\n\
             eval \"$(\"$ASSENT_BIN\" init zsh)\"\n\
             cd '{t}/work'\n\
             print RC-READY\n",
            t = t.display()
        );
        std::fs::write(t.join("zdot/.zshrc"), rc).expect("the rc file is written");
        let path = format!(
            "{}:{}:/usr/bin:/bin",
            t.join("bin").display(),
            assent_bin
                .parent()
                .expect("the binary is in a directory")
                .display()
        );
        let vars: Vec<(String, String)> = vec![
            ("HOME".into(), t.join("home").display().to_string()),
            ("ZDOTDIR".into(), t.join("zdot").display().to_string()),
            ("PATH".into(), path),
            ("TERM".into(), "screen".into()),
            ("LANG".into(), "C.UTF-8".into()),
            ("ASSENT_SOCKET".into(), socket.display().to_string()),
            ("ASSENT_BIN".into(), assent_bin.display().to_string()),
        ];
        // -d: no /etc/zsh files; the rc file is ZDOTDIR's .zshrc.
        let pane = Pane::start(t, &vars, &["/usr/bin/zsh", "-d", "-i"]);
        pane.wait_text("RC-READY");
        Zsh { pane, dir }
    }

    fn marker_file(&self) -> PathBuf {
        self.dir.path().join("markers")
    }

    fn expect_fake_rm(&self) {
        let fake = format!("{}/bin/rm", self.dir.path().display());
        self.pane.line("command -v rm");
        self.pane.wait_count(&fake, 1);
    }

    fn ran(&self) -> bool {
        markers(&self.marker_file()).contains(RAN)
    }
}

fn audited(daemon: &TestDaemon, needle: &str) -> usize {
    let audit = daemon.state_dir().join("audit.jsonl");
    let count = || {
        std::fs::read_to_string(&audit)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains(needle))
            .count()
    };
    wait_until(Duration::from_secs(5), || count() >= 1);
    std::thread::sleep(Duration::from_millis(300));
    count()
}

fn held_token(daemon: &TestDaemon) -> String {
    let mut conn = daemon.connect();
    let mut tokens = Vec::new();
    assert!(
        wait_until(Duration::from_secs(10), || {
            tokens = pending_tokens(&mut conn);
            !tokens.is_empty()
        }),
        "nothing was held"
    );
    assert_eq!(tokens.len(), 1, "one line, one held request: {tokens:?}");
    tokens.remove(0)
}

fn answer(daemon: &TestDaemon, token: &str, allow: bool) {
    let verb = if allow { "approve" } else { "deny" };
    let mut command = assent(daemon.socket());
    command.args([verb, token]);
    let output = run_detached(&mut command);
    assert!(
        output.status.success(),
        "assent {verb}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn zsh_a_safe_line_runs_and_is_checked_once() {
    if !needs(&[TMUX, ZSH]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Zsh::start(daemon.socket());
    sh.pane
        .line(r#"echo pipe-ok | tr a-z A-Z && echo "SAFE-$((40+2))""#);
    sh.pane.wait_text("SAFE-42");
    sh.pane.wait_text("PIPE-OK");
    assert_eq!(
        audited(&daemon, "SAFE-$((40+2))"),
        1,
        "checked exactly once"
    );
}

#[test]
fn zsh_a_risky_line_is_held_and_runs_after_approval() {
    if !needs(&[TMUX, ZSH]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Zsh::start(daemon.socket());
    sh.expect_fake_rm();
    sh.pane
        .line(&format!(r#"{RISKY} && echo "AFTER-$((1+1))""#));
    let token = held_token(&daemon);
    sh.pane.wait_text("or elsewhere: assent approve");
    // The prompt: three lines, each within 80 columns, in words.
    let screen = sh
        .pane
        .wait_text("[y] once  [s] session  [a] always  [N] deny \u{b7} ");
    for start in ["assent: destructive: ", "  or elsewhere: ", "[y] once  "] {
        let line = screen
            .lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no line starting {start:?}:\n{screen}"));
        assert!(
            line.chars().count() <= 80,
            "{line:?} is wider than 80 columns"
        );
        assert!(!line.contains("policy"), "no policy jargon: {line}");
    }
    assert!(!sh.ran());
    answer(&daemon, &token, true);
    sh.pane.wait_text("AFTER-2");
    assert!(sh.ran(), "the approved line ran");
}

#[test]
fn zsh_a_denied_line_is_skipped_with_its_reason_and_stays_in_history() {
    if !needs(&[TMUX, ZSH]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Zsh::start(daemon.socket());
    sh.expect_fake_rm();
    let typed = format!(r#"{RISKY}; echo "AFTER-$((1+1))""#);
    sh.pane.line(&typed);
    let token = held_token(&daemon);
    answer(&daemon, &token, false);
    sh.pane.wait_text("assent: denied");
    sh.pane.line("fc -ln -1");
    let screen = sh.pane.wait_count(&typed, 2);
    assert!(!screen.contains("AFTER-2"), "{screen}");
    assert!(!sh.ran(), "the denied line ran");
}

#[test]
fn zsh_ctrl_c_while_held_withdraws_the_request() {
    if !needs(&[TMUX, ZSH]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Zsh::start(daemon.socket());
    sh.expect_fake_rm();
    sh.pane
        .line(&format!(r#"{RISKY} && echo "AFTER-$((1+1))""#));
    held_token(&daemon);
    sh.pane.wait_text("or elsewhere: assent approve");
    sh.pane.keys(&["C-c"]);
    sh.pane.wait_text("cancelled");
    sh.pane.line(r#"echo "ALIVE-$((5+5))""#);
    let screen = sh.pane.wait_text("ALIVE-10");
    assert!(!sh.ran());
    assert!(!screen.contains("AFTER-2"), "{screen}");
    assert!(pending_tokens(&mut daemon.connect()).is_empty());
}

#[test]
fn zsh_multi_line_buffers_and_continuation_lines() {
    if !needs(&[TMUX, ZSH]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Zsh::start(daemon.socket());
    // One buffer of two lines (Alt-Enter inserts a newline): checked once, as a whole.
    sh.pane.type_text(r#"echo "ML1-$((1+1))""#);
    sh.pane.keys(&["M-Enter"]);
    sh.pane.line(r#"echo "ML2-$((2+2))""#);
    sh.pane.wait_text("ML2-4");
    sh.pane.wait_text("ML1-2");
    assert_eq!(audited(&daemon, r#"ML1-$((1+1))\"\necho \"ML2"#), 1);

    // Continuation lines: the complete command is what is held.
    sh.expect_fake_rm();
    sh.pane.line("if true; then");
    sh.pane.line(RISKY);
    sh.pane.line(r#"echo "INSIDE-$((4+4))"; fi"#);
    let token = held_token(&daemon);
    answer(&daemon, &token, false);
    sh.pane.wait_text("assent: denied");
    sh.pane.line(r#"echo "NEXT-$((2+2))""#);
    let screen = sh.pane.wait_text("NEXT-4");
    assert!(!sh.ran());
    assert!(!screen.contains("INSIDE-8"), "{screen}");
}

#[test]
fn zsh_with_the_daemon_down_it_warns_once_then_runs() {
    if !needs(&[TMUX, ZSH]) {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let link = dir.path().join("gate.sock");
    let sh = Zsh::start(&link);
    sh.pane.line(r#"echo "DOWN-$((1+1))""#);
    sh.pane.wait_text("DOWN-2");
    sh.pane.line(r#"echo "DOWN2-$((2+2))""#);
    let screen = sh.pane.wait_text("DOWN2-4");
    assert_eq!(
        screen.matches("the gate is unavailable").count(),
        1,
        "{screen}"
    );

    let daemon = TestDaemon::start();
    std::os::unix::fs::symlink(daemon.socket(), &link).expect("the socket link is made");
    sh.pane.line(r#"echo "BACK-$((3+3))""#);
    sh.pane.wait_text("BACK-6");
    sh.pane.wait_text("the gate is back");
    assert_eq!(audited(&daemon, "BACK-$((3+3))"), 1);
}

/// A command typed over several lines (`for … do`, Enter, the body, Enter, `done`) is checked
/// once, whole, when it is complete: not half of it while the rest is still being typed, which
/// would hold the half and take the next keys for an answer.
#[test]
fn zsh_a_multi_line_command_is_checked_once_when_complete() {
    if !needs(&[TMUX, ZSH]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Zsh::start(daemon.socket());
    sh.expect_fake_rm();
    sh.pane.line("for f in one; do");
    sh.pane.line(&format!("  {RISKY}"));
    // Nothing is held while the loop is open.
    std::thread::sleep(Duration::from_millis(500));
    let mut conn = daemon.connect();
    assert!(
        pending_tokens(&mut conn).is_empty(),
        "half a command was held"
    );
    assert!(!sh.ran());
    sh.pane.line("done; echo \"LOOP-$((2+3))\"");
    let token = held_token(&daemon);
    let listed = assent_tests::run_bounded(assent(daemon.socket()).arg("pending"));
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    assert!(
        listed.contains("for f in one; do") && listed.contains("done; echo"),
        "the whole loop is what is held: {listed}"
    );
    assert!(!sh.ran());
    answer(&daemon, &token, true);
    sh.pane.wait_text("LOOP-5");
    assert!(sh.ran(), "the approved loop ran");
}

/// A refused line leaves `$?` non-zero, as a command that failed would.
#[test]
fn zsh_a_refused_line_leaves_a_failing_status() {
    if !needs(&[TMUX, ZSH]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Zsh::start(daemon.socket());
    sh.expect_fake_rm();
    sh.pane.line(RISKY);
    let token = held_token(&daemon);
    answer(&daemon, &token, false);
    sh.pane.wait_text("assent: denied");
    sh.pane.line(r#"echo "STATUS-$?-$((6*7))""#);
    let screen = sh.pane.wait_text("-42");
    assert!(screen.contains("STATUS-1-42"), "{screen}");
    assert!(!sh.ran());
}
