//! The bash hook (`shell-hook/assent.bash`) in a real interactive bash, driven through a
//! private tmux server against a test daemon.
//!
//! Safety: these shells are real. Every line typed here is harmless even if the hook fails open:
//! `rm` is a fake on the shell's PATH that only writes a marker file (each test checks `type rm`
//! before typing a line with it), and its target does not exist anyway.

use assent_tests::needs::{SHELLCHECK, TMUX, needs};
use assent_tests::shells::{Kind, RISKY, Shell, answer, audited, held_token, scenarios};
use std::path::{Path, PathBuf};
use std::process::Command;

use assent_tests::{TestDaemon, pending_tokens, run_bounded};

/// bash with the hook and `assent check` per line (tests/hook_builtin.rs covers the builtin).
struct Bash;

impl Bash {
    /// `before` and `after` go around the hook's `eval` in the rc file.
    fn start(socket: &Path, before: &str, after: &str) -> Shell {
        Shell::start(Kind::Bash, socket, before, after, &[])
    }
}

#[test]
fn a_safe_line_runs_and_is_checked_once() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Bash::start(daemon.socket(), "", "");
    sh.pane
        .line(r#"echo "KIND-[$(type -t assent_check)]-$((2+3))""#);
    sh.pane.wait_text("KIND-[]-5");
    sh.pane.line(r#"echo "SAFE-$((40+2))""#);
    sh.pane.wait_text("SAFE-42");
    assert_eq!(
        audited(&daemon, "SAFE-$((40+2))").len(),
        1,
        "checked exactly once"
    );
}

#[test]
fn a_risky_line_is_held_and_runs_after_approval() {
    if !needs(&[TMUX]) {
        return;
    }
    scenarios::held_then_approved(Kind::Bash, |_, _| {});
}

#[test]
fn a_denied_line_is_skipped_whole_with_its_reason_and_stays_in_history() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    // The user's own PROMPT_COMMAND counts prompts; it must run after a denied line too.
    let sh = Bash::start(daemon.socket(), "PROMPT_COMMAND='PCN=$((PCN+1))'", "");
    sh.expect_fake_rm();
    sh.pane.line(r#"echo "PCA-$((PCN+100))""#);
    let screen = sh.pane.wait_text("PCA-1");
    let before = number_after(&screen, "PCA-");
    sh.pane
        .line(&format!(r#"{RISKY} && echo "AFTER-$((1+1))""#));
    let token = held_token(&daemon);
    answer(&daemon, &token, false);
    sh.pane.wait_text("assent: denied");
    sh.pane
        .line(r#"echo "NEXT-$((2+2))"; echo "PCB-$((PCN+100))""#);
    let screen = sh.pane.wait_text("NEXT-4");
    let screen = if screen.contains("PCB-1") {
        screen
    } else {
        sh.pane.wait_text("PCB-1")
    };
    assert_eq!(
        number_after(&screen, "PCB-"),
        before + 2,
        "the prompts after `echo PCA` and after the denied line both ran PROMPT_COMMAND:\n{screen}"
    );
    assert!(!sh.ran(), "the denied line ran");
    assert!(
        !screen.contains("AFTER-2"),
        "the rest of a denied line ran:\n{screen}"
    );
    // `;` does not help either: the whole line is latched.
    sh.pane.line(&format!(r#"{RISKY}; echo "SEMI-$((3+3))""#));
    let token = held_token(&daemon);
    answer(&daemon, &token, false);
    sh.pane.line("history 3");
    let typed = format!(r#"{RISKY}; echo "SEMI-$((3+3))""#);
    let screen = sh.pane.wait_count(&typed, 2);
    assert!(
        !screen.contains("SEMI-6"),
        "the rest of a denied line ran:\n{screen}"
    );
    assert!(!sh.ran(), "the denied line ran");
}

#[test]
fn ctrl_c_while_held_withdraws_the_request_and_skips_the_line() {
    if !needs(&[TMUX]) {
        return;
    }
    scenarios::ctrl_c_withdraws(Kind::Bash);
}

/// A refused line leaves `$?` non-zero (130, as a line Ctrl-C abandons), whether it was denied
/// or withdrawn, in the shell or in a subshell, and the rest of it does not run. With the user's own SIGINT trap the hook does
/// not interrupt (the trap would run): the line is still skipped whole, and the trap never runs.
#[test]
fn a_refused_or_withdrawn_line_leaves_a_failing_status() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Bash::start(daemon.socket(), "", "");
    sh.expect_fake_rm();
    sh.pane.line(&format!(r#"{RISKY}; echo "AFTER-$((1+1))""#));
    let token = held_token(&daemon);
    answer(&daemon, &token, false);
    sh.pane.wait_text("assent: denied");
    sh.pane.line(r#"echo "STATUS-$?-$((6*7))""#);
    let screen = sh.pane.wait_text("-42");
    assert!(screen.contains("STATUS-130-42"), "{screen}");
    assert!(!screen.contains("AFTER-2"), "{screen}");

    // A safe line afterwards runs, and its status is its own.
    sh.pane.line(r#"true; echo "OK-$?-$((6*8))""#);
    sh.pane.wait_text("OK-0-48");

    sh.pane
        .line(&format!(r#"{RISKY} && echo "AFTER-$((2+2))""#));
    held_token(&daemon);
    sh.pane.wait_text("or elsewhere: assent approve");
    sh.pane.keys(&["C-c"]);
    sh.pane.wait_text("cancelled");
    sh.pane.line(r#"echo "CANCELLED-$?-$((6*9))""#);
    let screen = sh.pane.wait_text("-54");
    assert!(screen.contains("CANCELLED-130-54"), "{screen}");
    assert!(!screen.contains("AFTER-4"), "{screen}");

    // A line whose first command runs in a subshell: the subshell refuses it and ends.
    sh.pane
        .line(&format!(r#"({RISKY}; echo "INSIDE-$((5+5))")"#));
    let token = held_token(&daemon);
    answer(&daemon, &token, false);
    sh.pane.line(r#"echo "SUBSHELL-$?-$((7*7))""#);
    let screen = sh.pane.wait_text("-49");
    assert!(screen.contains("SUBSHELL-130-49"), "{screen}");
    assert!(!screen.contains("INSIDE-10"), "{screen}");

    sh.pane.line(r#"trap 'echo "USER-TRAP-$((3*3))"' INT"#);
    sh.pane.line(&format!(r#"{RISKY}; echo "AFTER-$((3+3))""#));
    let token = held_token(&daemon);
    answer(&daemon, &token, false);
    sh.pane.line(r#"echo "TRAPPED-$((4*4))""#);
    let screen = sh.pane.wait_text("TRAPPED-16");
    assert!(!screen.contains("USER-TRAP-9"), "{screen}");
    assert!(!screen.contains("AFTER-6"), "{screen}");
    assert!(!sh.ran(), "a refused line ran");
}

#[test]
fn pipelines_chains_subshells_and_multi_line_input_are_checked_once_per_line() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Bash::start(daemon.socket(), "", "");
    sh.pane
        .line(r#"echo pipe-ok | tr a-z A-Z && echo "CHAIN-$((2+3))""#);
    sh.pane.wait_text("CHAIN-5");
    sh.pane.wait_text("PIPE-OK");
    assert_eq!(audited(&daemon, "echo pipe-ok | tr a-z A-Z").len(), 1);

    // The first command runs in a subshell, which checks the line and tells this shell.
    sh.pane
        .line(r#"(echo "SUB-$((2*4))"); echo "SUB2-$((3*4))""#);
    sh.pane.wait_text("SUB2-12");
    sh.pane.wait_text("SUB-8");
    assert_eq!(audited(&daemon, "SUB-$((2*4))").len(), 1);

    // Continuation lines: the whole command, as history joins it, is checked once.
    sh.pane.line("for i in 1 2; do");
    sh.pane.line(r#"echo "LOOP-$((i*10))""#);
    sh.pane.line("done");
    sh.pane.wait_text("LOOP-20");
    sh.pane.wait_text("LOOP-10");
    assert_eq!(
        audited(&daemon, r#"for i in 1 2; do echo "LOOP-$((i*10))"; done"#).len(),
        1
    );
}

#[test]
fn a_risky_command_inside_a_multi_line_command_or_a_subshell_holds_all_of_it() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Bash::start(daemon.socket(), "", "");
    sh.expect_fake_rm();
    sh.pane.line("if true; then");
    sh.pane.line(RISKY);
    sh.pane.line(r#"echo "INSIDE-$((4+4))"; fi"#);
    let token = held_token(&daemon);
    answer(&daemon, &token, false);
    sh.pane.wait_text("assent: denied");

    sh.pane
        .line(&format!(r#"({RISKY}); echo "OUTSIDE-$((5+5))""#));
    let token = held_token(&daemon);
    answer(&daemon, &token, false);
    sh.pane.wait_text("assent: denied");
    // One request for the line: the subshell's verdict is this shell's too.
    sh.pane.line(r#"echo "NEXT-$((2+2))""#);
    let screen = sh.pane.wait_text("NEXT-4");
    assert!(pending_tokens(&mut daemon.connect()).is_empty());
    assert!(!sh.ran(), "a denied line ran");
    assert!(
        !screen.contains("INSIDE-8") && !screen.contains("OUTSIDE-10"),
        "{screen}"
    );
}

#[test]
fn functions_aliases_and_history_expansion() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Bash::start(daemon.socket(), "", "");
    sh.pane.line(r#"greet() { echo "HELLO-$(( $1 * 2 ))"; }"#);
    sh.pane.line("greet 21");
    sh.pane.wait_text("HELLO-42");
    sh.pane.line(r#"twice() { echo "TW-$1$1"; }; twice 4"#);
    sh.pane.wait_text("TW-44");

    sh.pane.line("hi");
    sh.pane.wait_text("HI-42");

    // `!!` is checked as what it expands to.
    sh.pane.line(r#"echo "BANG-$((3*3))""#);
    sh.pane.wait_text("BANG-9");
    sh.pane.line("!!");
    sh.pane.wait_count("BANG-9", 2);
    assert_eq!(audited(&daemon, "BANG-$((3*3))").len(), 2);

    // An alias in first position is checked as what it runs.
    sh.expect_fake_rm();
    sh.pane.line("zap /nonexistent-assent-test/victim");
    let token = held_token(&daemon);
    answer(&daemon, &token, false);
    sh.pane.wait_text("assent: denied");
    sh.pane.line(r#"echo "NEXT-$((2+2))""#);
    sh.pane.wait_text("NEXT-4");
    assert!(!sh.ran(), "the denied alias ran");
}

#[test]
fn the_users_status_last_argument_options_and_debug_trap_are_kept() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Bash::start(
        daemon.socket(),
        "trap 'DEBUGCOUNT=$((DEBUGCOUNT+1))' DEBUG",
        "",
    );
    sh.pane.line("false");
    sh.pane.line(r#"echo "STATUS-$?""#);
    sh.pane.wait_text("STATUS-1");
    sh.pane.line("echo alpha omega");
    sh.pane.line(r#"echo "LAST-$_""#);
    sh.pane.wait_text("LAST-omega");
    sh.pane.line(r#"echo "CHAINED-$(( DEBUGCOUNT > 0 ))""#);
    sh.pane.wait_text("CHAINED-1");
    // A backgrounded subshell must not end the session (bash-preexec#25 under extdebug).
    sh.pane.line("(true) &");
    sh.pane.line(r#"echo "BG-$((6+1))""#);
    sh.pane.wait_text("BG-7");

    sh.pane.line("set -u");
    sh.pane.line(r#"echo "SETU-$((1+1))""#);
    sh.pane.wait_text("SETU-2");
    // Under set -e, a refused line must not end the shell.
    sh.pane.line("set -e");
    sh.expect_fake_rm();
    sh.pane.line(RISKY);
    let token = held_token(&daemon);
    answer(&daemon, &token, false);
    sh.pane.wait_text("assent: denied");
    sh.pane.line(r#"echo "SURVIVED-$((8+1))""#);
    let screen = sh.pane.wait_text("SURVIVED-9");
    assert!(!screen.contains("unbound variable"), "{screen}");
    assert!(!sh.ran());
}

/// A tool that replaces the DEBUG trap at its first prompt, after ours (bash-preexec does), is
/// chained from the next prompt on, and the hook still refuses lines.
#[test]
fn a_debug_trap_installed_later_is_chained_and_the_hook_takes_its_place_back() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let late = "__late_install() { trap 'LATE=$((LATE+1))' DEBUG; \
                PROMPT_COMMAND=${PROMPT_COMMAND//__late_install/:}; }\n\
                PROMPT_COMMAND+=$'\\n'__late_install";
    let sh = Bash::start(daemon.socket(), "", late);
    sh.pane.line(r#"echo "FIRST-$((1+1))""#);
    sh.pane.wait_text("FIRST-2");
    sh.expect_fake_rm();
    sh.pane
        .line(&format!(r#"{RISKY} && echo "AFTER-$((1+1))""#));
    let token = held_token(&daemon);
    answer(&daemon, &token, false);
    sh.pane.wait_text("assent: denied");
    sh.pane.line(r#"echo "LATE-$(( LATE > 2 ))""#);
    let screen = sh.pane.wait_text("LATE-1");
    assert!(!sh.ran());
    assert!(!screen.contains("AFTER-2"), "{screen}");
}

#[test]
fn with_history_off_each_command_is_checked() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Bash::start(daemon.socket(), "", "set +o history");
    sh.pane.line(r#"echo "NOHIST-$((1+1))""#);
    sh.pane.wait_text("NOHIST-2");
    sh.expect_fake_rm();
    sh.pane
        .line(&format!(r#"{RISKY} && echo "AFTER-$((1+1))""#));
    let token = held_token(&daemon);
    answer(&daemon, &token, false);
    sh.pane.wait_text("assent: denied");
    sh.pane.line(r#"echo "NEXT-$((2+2))""#);
    let screen = sh.pane.wait_text("NEXT-4");
    assert!(!sh.ran());
    assert!(!screen.contains("AFTER-2"), "{screen}");
}

#[test]
fn with_the_daemon_down_it_warns_once_then_runs_and_notices_when_it_is_back() {
    if !needs(&[TMUX]) {
        return;
    }
    scenarios::daemon_down_then_back(Kind::Bash);
}

#[test]
fn fail_closed_refuses_lines_while_the_daemon_is_down() {
    if !needs(&[TMUX]) {
        return;
    }
    scenarios::fail_closed(Kind::Bash);
}

/// Sourced by a non-interactive bash, the hook does nothing.
#[test]
fn a_non_interactive_shell_is_left_alone() {
    if !needs(&[TMUX]) {
        return;
    }
    let hook = hook_path("assent.bash");
    let output = run_bounded(
        Command::new("/usr/bin/bash")
            .args(["--norc", "--noprofile"])
            .arg(&hook)
            .env_clear()
            .env("PATH", "/usr/bin:/bin"),
    );
    assert!(output.status.success());
    assert!(
        output.stdout.is_empty() && output.stderr.is_empty(),
        "{output:?}"
    );
}

#[test]
fn shellcheck_is_clean() {
    if !needs(&[SHELLCHECK]) {
        return;
    }
    let output = run_bounded(
        Command::new("shellcheck")
            .args(["-s", "bash"])
            .arg(hook_path("assent.bash"))
            .stdout(std::process::Stdio::piped()),
    );
    assert!(
        output.status.success(),
        "shellcheck -s bash shell-hook/assent.bash:\n{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

/// The project's own scripts (the test command, the static client, the benches, CI) pass
/// shellcheck too.
#[test]
fn the_scripts_are_shellcheck_clean() {
    if !needs(&[SHELLCHECK]) {
        return;
    }
    let root = hook_path("assent.bash")
        .ancestors()
        .nth(2)
        .expect("the workspace holds shell-hook/")
        .to_path_buf();
    let scripts = [
        "scripts/test",
        "scripts/static-client",
        "scripts/client-hot-path",
        "daemon/benches/startup.sh",
        "daemon/benches/faults.sh",
        ".ci/run",
    ];
    let mut command = Command::new("shellcheck");
    command
        .args(scripts.iter().map(|s| root.join(s)))
        .stdout(std::process::Stdio::piped());
    let output = run_bounded(&mut command);
    assert!(
        output.status.success(),
        "shellcheck {scripts:?}:\n{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

/// The number printed right after `prefix` on the screen (the output, not the typed line).
fn number_after(screen: &str, prefix: &str) -> u32 {
    screen
        .match_indices(prefix)
        .filter_map(|(at, _)| {
            let digits: String = screen[at + prefix.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        })
        .next()
        .unwrap_or_else(|| panic!("no number after {prefix:?} on the screen:\n{screen}"))
}

fn hook_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shell-hook")
        .join(name)
}

/// A forbidden line at the prompt needs this machine's host name and Enter, not `y`.
#[test]
fn a_forbidden_line_runs_only_after_the_host_name() {
    if !needs(&[TMUX]) {
        return;
    }
    scenarios::forbidden_needs_the_host_name(Kind::Bash);
}
