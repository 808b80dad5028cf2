//! What a person sees of `assent explain` in a real terminal (tmux) 80 columns wide: a line
//! longer than the terminal, with wide characters and a tab before what a finding marks, is
//! shown under the finding as a window that does not wrap, the tab as its escape, the carets under the span; and
//! the finding names the word once quoted, as the shell passes it.
//!
//! Safety: the line is only explained (`assent explain` runs nothing), and tmux starts the
//! client itself, without a shell.

use std::path::Path;

use assent_client::shown::columns;
use assent_tests::needs::{TMUX, needs};
use assent_tests::tmux::Pane;
use assent_tests::{TestDaemon, binary};

fn explained(daemon: &TestDaemon, dir: &Path, line: &str) -> String {
    let assent = binary("assent").display().to_string();
    let socket = daemon.socket().display().to_string();
    let pane = Pane::start_sized(
        dir,
        &[
            ("TERM".into(), "screen".into()),
            ("PATH".into(), "/usr/bin:/bin".into()),
            ("NO_COLOR".into(), "1".into()),
        ],
        &[
            &assent, "--socket", &socket, "explain", "--cwd", "/tmp", "--", line,
        ],
        (80, 40),
    );
    pane.wait_text("findings:")
}

#[test]
fn explain_fits_80_columns_and_its_carets_sit_under_the_span() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let line = format!(
        "echo {}\t{} && rm -rf 'target dir' {}",
        "語".repeat(30),
        "x".repeat(20),
        "y".repeat(80)
    );
    let screen = explained(&daemon, dir.path(), &line);
    // One level of quoting: the word as the shell passes it.
    assert!(screen.contains("deletes `target dir`"), "{screen}");
    assert!(!screen.contains("`'target dir'`"), "{screen}");
    // The carets under the first finding's span, counted in columns.
    let rows: Vec<&str> = screen.lines().collect();
    let carets = rows
        .iter()
        .position(|row| row.trim_start().starts_with('^'))
        .expect("a caret row");
    let (shown, marks) = (rows[carets - 1], rows[carets]);
    // tmux joins a wrapped row back into one: the line under the finding and its carets are
    // not wider than the terminal (the command itself, printed once above, may wrap).
    for row in [shown, marks] {
        let width: usize = row.chars().map(columns).sum();
        assert!(width <= 80, "{width} columns: {row:?}\n{screen}");
    }
    let from = marks.find('^').expect("carets");
    let to = marks.trim_end().len();
    let mut column = 0;
    let mut under = String::new();
    for c in shown.chars() {
        if column >= from && column < to {
            under.push(c);
        }
        column += columns(c);
    }
    assert!(
        under.starts_with("rm -rf 'target dir'"),
        "{under:?}\n{screen}"
    );
    assert!(
        screen.contains("語\\txxx") && !screen.contains('\t'),
        "the tab as its escape:\n{screen}"
    );
}
