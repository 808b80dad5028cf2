use super::*;
use assent_client::protocol::{Level, Origin, PendingBatchItem, Span};

fn finding(level: Level, message: &str) -> Finding {
    Finding {
        id: "delete.home".into(),
        level,
        message: message.into(),
        span: Span::default(),
    }
}

fn item(command: &str, cwd: &str) -> PendingItem {
    PendingItem {
        token: "pa_0123456789abcdef0123456789abcdef".into(),
        uid: 1000,
        pid: 4242,
        origin: Origin::Agent,
        subject: command.into(),
        cwd: Some(cwd.into()),
        level: Level::Destructive,
        findings: vec![finding(Level::Destructive, "`rm` deletes `src`")],
        session: Some("conv-9".into()),
        expires_in_ms: 300_000,
        items: Vec::new(),
        program: "claude".into(),
        signature: "rm -rf src in /home/dev/project".into(),
        agent: Some("Claude Code".into()),
        digest: "0123456789abcdef".into(),
    }
}

fn view<'a>(front: &'a PendingItem, said: &'a [String], width: usize) -> View<'a> {
    View {
        front: Some(front),
        left: Duration::from_secs(299),
        waiting: 0,
        settling: false,
        said,
        width,
        height: 40,
    }
}

/// No line of the screen holds a character that could drive the terminal or break a line.
fn clean(screen: &[String]) -> bool {
    screen
        .iter()
        .all(|line| !line.chars().any(assent_client::shown::is_hidden))
}

#[test]
fn every_line_fits_the_width_and_holds_nothing_hidden() {
    let long = format!("rm -rf {}", "very/long/path/".repeat(30));
    let mut front = item(&long, &"/deep".repeat(40));
    front.session = Some("会話".repeat(50));
    for width in [20, 40, 80, 132] {
        let screen = render(&view(&front, &[], width));
        assert!(
            screen.iter().all(|l| super::width(l) <= width),
            "{width}: {screen:#?}"
        );
        assert!(clean(&screen), "{screen:#?}");
    }
}

#[test]
fn what_a_requester_wrote_cannot_forge_a_line_or_redraw() {
    // Each field an attacker writes, with a newline, an escape, U+2028, U+0085 and U+202E.
    let evil = "x\n\u{1b}[2J\u{2028}\u{85}\u{202e}assent: approved";
    let mut front = item(&format!("rm -rf ~{evil}"), &format!("/tmp{evil}"));
    front.session = Some(format!("s{evil}"));
    front.agent = Some(format!("a{evil}"));
    front.program = format!("p{evil}");
    front.signature = format!("sig{evil}");
    front.findings = vec![finding(Level::Forbidden, &format!("m{evil}"))];
    let screen = render(&view(&front, &[], 80));
    assert!(clean(&screen), "{screen:#?}");
    // Only the command keeps its newline, and then as a line behind the gutter.
    let forged: Vec<&String> = screen
        .iter()
        .filter(|l| l.contains("assent: approved"))
        .collect();
    assert_eq!(forged.len(), 7, "{screen:#?}");
    for line in forged {
        assert!(
            line.starts_with(GUTTER) || line.contains("\\e[2J<U+2028>\\x85<U+202E>"),
            "{line}"
        );
    }
    assert!(
        screen
            .iter()
            .any(|l| l == "│ \\e[2J<U+2028>\\x85<U+202E>assent: approved"),
        "{screen:#?}"
    );
}

#[test]
fn the_highest_level_and_every_finding_are_shown() {
    let mut front = item("rm -rf ~ ; git push --force", "/home/dev");
    front.findings = (0..6)
        .map(|n| finding(Level::Destructive, &format!("finding number {n}")))
        .chain([finding(Level::Forbidden, "deletes your home")])
        .collect();
    let screen = render(&view(&front, &[], 80)).join("\n");
    assert!(screen.contains("level    FORBIDDEN"), "{screen}");
    assert!(screen.contains("findings (7)"), "{screen}");
    for n in 0..6 {
        assert!(screen.contains(&format!("finding number {n}")), "{screen}");
    }
    assert!(!screen.contains("more"), "nothing folded: {screen}");
}

#[test]
fn keys_say_when_they_are_not_taken() {
    let front = item("rm -rf src", "/home/dev/project");
    let mut settling = view(&front, &[], 80);
    settling.settling = true;
    let screen = render(&settling).join("\n");
    assert!(screen.contains("keys are not taken yet"), "{screen}");
    assert!(!screen.contains("[y] once"), "{screen}");
    let screen = render(&view(&front, &[], 80)).join("\n");
    assert!(screen.contains("[y] once"), "{screen}");
    assert!(screen.contains("4:59 left"), "{screen}");
}

#[test]
fn a_command_too_tall_is_cut_saying_so() {
    let tall: String = (0..100).map(|n| format!("echo {n}\n")).collect();
    let front = item(&tall, "/tmp");
    let screen = render(&view(&front, &[], 80));
    assert!(screen.len() <= 40, "{}", screen.len());
    assert!(
        screen
            .iter()
            .any(|l| l.contains("more lines of this command: `assent pending`")),
        "{screen:#?}"
    );
}

#[test]
fn a_batch_shows_each_item() {
    let mut front = item("2 tool calls", "/tmp");
    front.cwd = None;
    front.items = vec![
        PendingBatchItem {
            item: 1,
            subject: "rm -rf build".into(),
            cwd: Some("/home/dev\nproject".into()),
            level: Level::Destructive,
            findings: vec![finding(Level::Destructive, "`rm` deletes `build`")],
        },
        PendingBatchItem {
            item: 2,
            subject: "git push --force".into(),
            cwd: None,
            level: Level::Forbidden,
            findings: Vec::new(),
        },
    ];
    let screen = render(&view(&front, &[], 80)).join("\n");
    assert!(screen.contains("item 1 (destructive)"), "{screen}");
    assert!(screen.contains("│ git push --force"), "{screen}");
    assert!(screen.contains("in       /home/dev\\nproject"), "{screen}");
    assert!(screen.contains("level    FORBIDDEN"), "{screen}");
}

#[test]
fn an_answer_names_what_it_answered() {
    let front = item(
        "git   push --force\u{1b}[2J origin main and more words",
        "/tmp",
    );
    assert_eq!(
        answered(&front),
        "pa_01234567… claude: git push --force\\e[2J origin main and"
    );
}

/// Prose wraps between words, so no word is broken at the edge of the screen; a word longer
/// than a line (a path, a token) is cut where the line ends; double spaces inside a line stay.
#[test]
fn prose_wraps_between_words() {
    let header = "assent watch: watching for held requests · 3 more waiting · q quits";
    let cases: [(&str, usize, &[&str]); 5] = [
        (header, 80, &[header]),
        (
            header,
            40,
            &[
                "assent watch: watching for held requests",
                "· 3 more waiting · q quits",
            ],
        ),
        ("[y] once  [s] session", 40, &["[y] once  [s] session"]),
        (
            "see /home/dev/projectdir",
            10,
            &["see", "/home/dev/", "projectdir"],
        ),
        ("", 10, &[""]),
    ];
    for (text, room, want) in cases {
        assert_eq!(wrap_words(text, room), want, "{text:?} at {room}");
    }
    // The whole screen's header at 60 columns: every line ends at a word.
    let said: Vec<String> = Vec::new();
    let view = View {
        front: None,
        left: Duration::from_secs(10),
        waiting: 12,
        settling: false,
        said: &said,
        width: 60,
        height: 24,
    };
    let screen = render(&view);
    assert_eq!(
        screen[..2],
        [
            "assent watch: watching for held requests · 12 more waiting ·".to_string(),
            "q quits".to_string()
        ]
    );
}

/// Only the card's own level line is painted, and only when colour is on.
#[test]
fn the_level_line_is_painted_and_nothing_else() {
    let mut lines: Vec<String> = [
        "held pa_0",
        "level    DESTRUCTIVE",
        "in       /home/level    FORBIDDEN",
        "level    DESTRUCTIVE",
    ]
    .map(str::to_string)
    .to_vec();
    let plain = lines.clone();
    paint(&mut lines, false);
    assert_eq!(lines, plain);
    paint(&mut lines, true);
    assert_eq!(lines[1], "level    \x1b[31mDESTRUCTIVE\x1b[0m");
    assert_eq!(lines[0], plain[0]);
    assert_eq!(lines[2..], plain[2..]);
}
