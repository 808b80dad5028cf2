//! The bash hook with its loadable builtin (`shell-hook/builtin/`, `libassent_bash.so`): the
//! line is checked from inside bash, no process for an allowed or denied line, and a held line
//! is waited for by `assent __resume` on the connection the shell itself opened.
//!
//! Safety: these shells are real. Every line typed here is harmless even if the hook fails open:
//! `rm` is a fake on the shell's PATH that only writes a marker file (each test checks `type rm`
//! before typing a line with it), and its target does not exist anyway.

use assent_tests::needs::{TMUX, needs};
use assent_tests::shells::{Kind, RISKY, Shell, answer, audited, held, held_token, scenarios};
use std::path::Path;
use std::time::Duration;

use assent_client::protocol::Origin;
use assent_tests::tmux::markers;
use assent_tests::{Options, TestDaemon, our_command, pending_tokens, run_bounded};

/// bash with the hook and the builtin.
struct Bash;

impl Bash {
    /// `env` is added to (or overrides) the shell's environment. Without `ASSENT_BUILTIN` the
    /// hook finds the builtin next to `assent`.
    fn start(socket: &Path, env: &[(&str, &str)]) -> Shell {
        Shell::start(Kind::BashBuiltin, socket, "", "", env)
    }
}

/// The shell's own pid.
fn pid(sh: &Shell) -> i32 {
    sh.pane.line(r#"echo "SHELLPID-$$-""#);
    let screen = sh
        .pane
        .wait_for("the shell's pid", Duration::from_secs(10), |s| {
            shell_pid(s).is_some()
        });
    shell_pid(&screen).expect("the pid is on the screen")
}

/// The pid printed as `SHELLPID-<pid>-` (the output, not the typed `$$`).
fn shell_pid(screen: &str) -> Option<i32> {
    screen.match_indices("SHELLPID-").find_map(|(at, _)| {
        let rest = &screen[at + "SHELLPID-".len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    })
}

/// Whether the descriptor the builtin left for the last held line is still open in the shell.
fn held_fd_open(sh: &Shell) -> bool {
    sh.pane.line(
        r#"if [[ -e /proc/$$/fd/$__assent_fd ]]; then echo "FD-OPEN-$((1+1))"; else echo "FD-SHUT-$((1+1))"; fi"#,
    );
    let screen = sh
        .pane
        .wait_for("the fd check", Duration::from_secs(10), |s| {
            s.contains("FD-OPEN-2") || s.contains("FD-SHUT-2")
        });
    screen.contains("FD-OPEN-2")
}

#[test]
fn a_safe_line_is_checked_by_the_builtin_with_the_shell_as_requester() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Bash::start(daemon.socket(), &[]);
    sh.pane.line("type assent_check");
    sh.pane.wait_text("assent_check is a shell builtin");
    let pid = pid(&sh);
    sh.pane.line(r#"echo "SAFE-$((40+2))""#);
    sh.pane.wait_text("SAFE-42");
    let events = audited(&daemon, "SAFE-$((40+2))");
    assert_eq!(events.len(), 1, "checked exactly once: {events:?}");
    // The requester is bash itself: no process was started to ask.
    assert_eq!(events[0].pid, pid, "{events:?}");
    assert_eq!(events[0].origin, Origin::Interactive, "{events:?}");
}

#[test]
fn a_line_denied_by_policy_shows_the_reason_is_skipped_and_stays_in_history() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::with(Options {
        policy: Some(
            "[levels]\ndestructive = { interactive = \"deny\", automation = \"deny\" }\n".into(),
        ),
        ..Options::default()
    });
    let sh = Bash::start(daemon.socket(), &[]);
    sh.expect_fake_rm();
    let typed = format!(r#"{RISKY} && echo "AFTER-$((1+1))""#);
    sh.pane.line(&typed);
    // The reason and its findings, as `assent check` prints them.
    sh.pane.wait_text("assent: denied (destructive)");
    sh.pane.wait_text("  - destructive [");
    sh.pane.line(r#"echo "NEXT-$((2+2))""#);
    sh.pane.wait_text("NEXT-4");
    sh.pane.line("history 3");
    let screen = sh.pane.wait_count(&typed, 2);
    assert!(!sh.ran(), "the denied line ran");
    assert!(
        !screen.contains("AFTER-2"),
        "the rest of a denied line ran:\n{screen}"
    );
    assert!(pending_tokens(&mut daemon.connect()).is_empty());
}

#[test]
fn a_held_line_is_one_request_from_the_shell_and_runs_after_approval() {
    if !needs(&[TMUX]) {
        return;
    }
    let (daemon, sh, item) = scenarios::held_then_approved(Kind::BashBuiltin, |sh, _| {
        sh.pane.wait_text("assent: destructive: ");
    });
    sh.pane.wait_text("assent: allowed");
    let pid = pid(&sh);
    assert_eq!(item.pid, pid, "the shell itself is the requester");
    assert!(!held_fd_open(&sh), "the shell closed the held connection");
    let events = audited(&daemon, RISKY);
    assert!(
        events.iter().all(|e| e.pid == pid),
        "every event of the held line is the shell's own request: {events:?}"
    );
}

#[test]
fn a_held_line_is_answered_at_the_terminal_prompt_as_with_the_client() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Bash::start(daemon.socket(), &[]);
    sh.expect_fake_rm();
    sh.pane
        .line(&format!(r#"{RISKY} && echo "AFTER-$((1+1))""#));
    held(&daemon);
    // `assent __resume` asks, as `assent check --origin interactive` does on a terminal.
    sh.pane
        .wait_text("[y] once  [s] session  [a] always  [N] deny \u{b7} ");
    assert!(!sh.ran(), "a held line must not run before the answer");
    sh.pane.type_text("y");
    sh.pane.wait_text("AFTER-2");
    let screen = sh.pane.wait_text("allowed at the terminal");
    assert!(screen.contains("allow once"), "{screen}");
    assert!(sh.ran(), "the line ran: {}", markers(&sh.marker_file()));
    assert!(!held_fd_open(&sh), "the shell closed the held connection");
}

/// The policy maps the shell's uid to another user (`nobody`): `assent __resume` asks nothing
/// at the terminal (the daemon would refuse the requester's answer) and says that another
/// person must answer, as `assent check` does.
#[test]
fn a_held_line_another_person_answers_is_not_asked_at_the_terminal() {
    if !needs(&[TMUX]) {
        return;
    }
    let uid = nix::unistd::getuid().as_raw();
    let daemon = TestDaemon::with(Options {
        policy: Some(format!("[approvers]\n\"{uid}\" = 65534\n")),
        ..Options::default()
    });
    let sh = Bash::start(daemon.socket(), &[]);
    sh.expect_fake_rm();
    sh.pane
        .line(&format!(r#"{RISKY} && echo "AFTER-$((1+1))""#));
    held(&daemon);
    let screen = sh.pane.wait_text("waiting for another person");
    assert!(screen.contains("another person must answer"), "{screen}");
    assert!(!screen.contains("[y] once"), "{screen}");
    assert!(!screen.contains("assent approve"), "{screen}");
    assert!(!sh.ran(), "a held line must not run before the answer");
}

#[test]
fn a_held_line_denied_from_another_session_does_not_run() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Bash::start(daemon.socket(), &[]);
    sh.expect_fake_rm();
    sh.pane.line(&format!(r#"{RISKY}; echo "SEMI-$((3+3))""#));
    let token = held_token(&daemon);
    answer(&daemon, &token, false);
    sh.pane.wait_text("assent: denied");
    // The line failed, as a line Ctrl-C abandons does.
    sh.pane.line(r#"echo "STATUS-$?-$((6*7))""#);
    let screen = sh.pane.wait_text("-42");
    assert!(screen.contains("STATUS-130-42"), "{screen}");
    sh.pane.line(r#"echo "NEXT-$((2+2))""#);
    let screen = sh.pane.wait_text("NEXT-4");
    assert!(!sh.ran(), "the denied line ran");
    assert!(!screen.contains("SEMI-6"), "{screen}");
}

#[test]
fn ctrl_c_while_held_withdraws_the_request_and_skips_the_line() {
    if !needs(&[TMUX]) {
        return;
    }
    let (_daemon, sh) = scenarios::ctrl_c_withdraws(Kind::BashBuiltin);
    assert!(!held_fd_open(&sh), "the shell closed the held connection");
}

#[test]
fn with_the_daemon_down_it_warns_once_then_runs_and_notices_when_it_is_back() {
    if !needs(&[TMUX]) {
        return;
    }
    scenarios::daemon_down_then_back(Kind::BashBuiltin);
}

#[test]
fn fail_closed_refuses_lines_while_the_daemon_is_down() {
    if !needs(&[TMUX]) {
        return;
    }
    scenarios::fail_closed(Kind::BashBuiltin);
}

/// A file bash cannot load as a builtin: the hook says so and checks lines with `assent check`.
#[test]
fn a_builtin_that_does_not_load_falls_back_to_the_client() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let not_a_library = tempfile::NamedTempFile::new().expect("a temporary file");
    let path = not_a_library.path().display().to_string();
    let sh = Bash::start(daemon.socket(), &[("ASSENT_BUILTIN", &path)]);
    sh.pane.wait_text("could not load the builtin");
    let pid = pid(&sh);
    sh.pane
        .line(r#"echo "KIND-[$(type -t assent_check)]-$((2+3))""#);
    sh.pane.wait_text("KIND-[]-5");
    sh.pane.line(r#"echo "FALLBACK-$((4+4))""#);
    sh.pane.wait_text("FALLBACK-8");
    let events = audited(&daemon, "FALLBACK-$((4+4))");
    assert_eq!(events.len(), 1, "checked exactly once: {events:?}");
    assert_ne!(events[0].pid, pid, "checked by a client process");
}

/// `ASSENT_BUILTIN=off` keeps the process path even where the builtin is installed.
#[test]
fn off_keeps_the_client() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Bash::start(daemon.socket(), &[("ASSENT_BUILTIN", "off")]);
    sh.pane
        .line(r#"echo "KIND-[$(type -t assent_check)]-$((2+3))""#);
    let screen = sh.pane.wait_text("KIND-[]-5");
    assert!(!screen.contains("could not load"), "{screen}");
}

/// `assent __resume` waits only on a connection handed to it on stdout; anything else is a
/// usage error, and so not an allowed line.
#[test]
fn resume_refuses_a_stdout_that_is_not_a_connection() {
    if !needs(&[TMUX]) {
        return;
    }
    let output = run_bounded(our_command("assent").args(["__resume", "--expires", "1000", "pa_0"]));
    assert_eq!(output.status.code(), Some(64), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("stdout is not a connection"),
        "{output:?}"
    );
}

/// A forbidden line at the prompt needs this machine's host name and Enter, not `y`.
#[test]
fn a_forbidden_line_runs_only_after_the_host_name() {
    if !needs(&[TMUX]) {
        return;
    }
    scenarios::forbidden_needs_the_host_name(Kind::BashBuiltin);
}
