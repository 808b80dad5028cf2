//! Colour as people expect of a modern command line: levels and decisions painted with
//! `--color=always`, and no escape at all in a pipe (`auto`, the default), with
//! `--color=never`, or under `NO_COLOR` (which `always` overrides, as the flag is the person's
//! word for this one run). What a requester wrote is never painted.

use std::process::Output;

use assent_tests::{TestDaemon, assent, run_bounded};

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn explain_and_log_paint_levels_only_when_asked() {
    let daemon = TestDaemon::start();
    let explain = |flags: &[&str], no_color: Option<&str>| {
        let mut command = assent(daemon.socket());
        command.arg("explain").args(flags).args(["--", "ls -la"]);
        if let Some(value) = no_color {
            command.env("NO_COLOR", value);
        }
        stdout(&run_bounded(&mut command))
    };
    let cases: [(&[&str], Option<&str>, bool); 5] = [
        (&[], None, false),
        (&["--color=never"], None, false),
        (&["--color=auto"], None, false),
        (&["--color=always"], None, true),
        (&["--color=always"], Some("1"), true),
    ];
    for (flags, no_color, painted) in cases {
        let shown = explain(flags, no_color);
        assert!(shown.contains("level:"), "{flags:?}: {shown}");
        assert_eq!(
            shown.contains("level:    \x1b[32msafe\x1b[0m"),
            painted,
            "{flags:?} NO_COLOR={no_color:?}: {shown:?}"
        );
        assert_eq!(shown.contains('\x1b'), painted, "{shown:?}");
        // The command line, the requester's words, is never painted.
        assert!(shown.contains("command:  ls -la\n"), "{shown:?}");
    }

    // `log` pads before it paints, so its columns line up the same either way.
    let checked = run_bounded(assent(daemon.socket()).args(["check", "--", "ls -la"]));
    assert!(checked.status.success(), "{checked:?}");
    let log = |flags: &[&str]| stdout(&run_bounded(assent(daemon.socket()).arg("log").args(flags)));
    let plain = log(&[]);
    let painted = log(&["--color=always"]);
    assert!(!plain.contains('\x1b'), "{plain:?}");
    assert!(painted.contains('\x1b'), "{painted:?}");
    let stripped = painted
        .replace("\x1b[32m", "")
        .replace("\x1b[36m", "")
        .replace("\x1b[33m", "")
        .replace("\x1b[31m", "")
        .replace("\x1b[1;31m", "")
        .replace("\x1b[0m", "");
    // The times differ only if a second passed between the two; compare past them.
    let columns = |text: &str| -> Vec<String> {
        text.lines()
            .map(|line| {
                line.split_once("  ")
                    .map_or("", |(_, rest)| rest)
                    .to_string()
            })
            .collect()
    };
    assert_eq!(columns(&stripped), columns(&plain));
}
