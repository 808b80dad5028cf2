//! What every hook does alike, as one scenario each hook test runs for its own shell: the
//! same lines typed, the same assertions, so the hooks cannot drift apart unseen. A scenario
//! hands back the daemon and the shell for the checks only one hook has.

use std::path::Path;
use std::time::Duration;

use assent_client::protocol::PendingItem;

use super::{Kind, RISKY, Shell, answer, audited, held};
use crate::tmux::markers;
use crate::{TestDaemon, pending_tokens};

/// A held line does not run until a person answers it from elsewhere, then runs whole.
/// `before_answer` sees the shell and the held request while it waits; the request is handed
/// back with the daemon and the shell.
pub fn held_then_approved(
    kind: Kind,
    before_answer: impl FnOnce(&Shell, &PendingItem),
) -> (TestDaemon, Shell, PendingItem) {
    let daemon = TestDaemon::start();
    let sh = Shell::start(kind, daemon.socket(), "", "", &[]);
    sh.expect_fake_rm();
    sh.pane
        .line(&format!(r#"{RISKY} && echo "AFTER-$((1+1))""#));
    let item = held(&daemon);
    sh.pane.wait_text("or elsewhere: assent approve");
    assert!(!sh.ran(), "a held line must not run before the approval");
    before_answer(&sh, &item);
    answer(&daemon, &item.token, true);
    sh.pane.wait_text("AFTER-2");
    assert!(
        sh.ran(),
        "the approved line ran: {}",
        markers(&sh.marker_file())
    );
    (daemon, sh, item)
}

/// Ctrl-C while a line is held withdraws the request, and no part of the line runs.
pub fn ctrl_c_withdraws(kind: Kind) -> (TestDaemon, Shell) {
    let daemon = TestDaemon::start();
    let sh = Shell::start(kind, daemon.socket(), "", "", &[]);
    sh.expect_fake_rm();
    sh.pane
        .line(&format!(r#"{RISKY} && echo "AFTER-$((1+1))""#));
    held(&daemon);
    sh.pane.wait_text("or elsewhere: assent approve");
    sh.pane.keys(&["C-c"]);
    sh.pane.wait_text("cancelled");
    sh.pane.line(r#"echo "ALIVE-$((5+5))""#);
    let screen = sh.pane.wait_text("ALIVE-10");
    assert!(!sh.ran(), "a cancelled line ran");
    assert!(!screen.contains("AFTER-2"), "{screen}");
    assert!(
        pending_tokens(&mut daemon.connect()).is_empty(),
        "the request was withdrawn"
    );
    (daemon, sh)
}

/// What the terminal prompt asks of a forbidden line instead of one key.
const GUARD_ASKS: &str = "host name + Enter runs it, else deny";

/// A person's own forbidden line (`rm -rf ~`, HOME a temporary directory, `rm` the fake) is
/// not run on `y`, nor on any name but this machine's: only the host name and Enter run it.
pub fn forbidden_needs_the_host_name(kind: Kind) {
    let daemon = TestDaemon::start();
    let sh = Shell::start(kind, daemon.socket(), "", "", &[]);
    sh.expect_fake_rm();
    let home = sh.dir().join("home").display().to_string();
    let ran = format!("FAKE-rm -rf {home}");
    let line = r#"rm -rf ~ && echo "AFTER-$((1+1))""#;
    sh.pane.line(line);
    sh.pane.wait_text(GUARD_ASKS);
    // The one key that runs a held line elsewhere: here it is only the start of a name.
    sh.pane.type_text("y");
    std::thread::sleep(Duration::from_millis(500));
    assert!(!markers(&sh.marker_file()).contains(&ran), "y ran it");
    sh.pane.keys(&["Enter"]);
    let screen = sh.pane.wait_text("not this machine's name");
    assert!(!screen.contains("AFTER-2"), "{screen}");
    sh.pane.wait_text("denied at the terminal");

    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").expect("a host name");
    sh.pane.line(line);
    sh.pane.wait_count(GUARD_ASKS, 2);
    sh.pane.type_text(host.trim());
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !markers(&sh.marker_file()).contains(&ran),
        "the name without Enter ran it"
    );
    sh.pane.keys(&["Enter"]);
    sh.pane.wait_text("AFTER-2");
    assert!(
        markers(&sh.marker_file()).contains(&ran),
        "the host name and Enter run it: {}",
        markers(&sh.marker_file())
    );
}

/// With the daemon down the hook warns once and lines run (fail open); once the daemon is
/// back, it says so and checks lines again.
pub fn daemon_down_then_back(kind: Kind) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let link = dir.path().join("gate.sock");
    let sh = Shell::start(kind, &link, "", "", &[]);
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
    assert_eq!(audited(&daemon, "BACK-$((3+3))").len(), 1);
}

/// With `ASSENT_FAIL_CLOSED=1` and the daemon down, a line is refused and does not run.
pub fn fail_closed(kind: Kind) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let none = dir.path().join("none.sock");
    let sh = Shell::start(
        kind,
        Path::new(&none),
        "",
        "",
        &[("ASSENT_FAIL_CLOSED", "1")],
    );
    sh.pane.line(r#"echo "CLOSED-$((1+1))""#);
    sh.pane
        .wait_text("ASSENT_FAIL_CLOSED=1: the line was not run");
    // What a refused line would have printed comes before the message, if at all; give a
    // line that wrongly ran the time to show.
    std::thread::sleep(Duration::from_millis(300));
    assert!(!sh.pane.screen().contains("CLOSED-2"));
}
