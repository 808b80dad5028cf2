//! The policy's program book: entries in, verdicts out (through the wrappers, and never lower
//! than the built-in book), the entries refused with their positions, and the explanation
//! `--check-policy` prints.

use assent_client::protocol::{Context, Decision, Level, Origin, Subject};

use crate::analyse::book::BOOK_FINDING;
use crate::judge::{Caller, Judgement, judge_for};
use crate::policy::{Policy, parse};

/// The issue's example, exactly as written there.
const ACME: &str = r#"
[[program]]
name = "acmectl"
[program.subcommands.nuke]
operands = "delete"          # each operand is a place this subcommand deletes
[program.subcommands.deploy]
effect = "publish"           # held for agents like git push
[program.subcommands.status]
effect = "none"
"#;

fn policy(text: &str) -> Policy {
    match parse(text, "test.toml") {
        Ok(loaded) => loaded.policy,
        Err(error) => panic!("the test policy parses: {error}"),
    }
}

fn judged(policy: &Policy, line: &str, origin: Origin) -> Judgement {
    let subject = Subject::Shell {
        command: line.into(),
        cwd: "/home/u/project".into(),
        truncated: false,
    };
    let caller = Caller {
        uid: Some(1000),
        user: Some("u"),
        home: Some("/home/u"),
        project: Some("/home/u/project"),
    };
    judge_for(policy, &subject, origin, &Context::default(), &caller)
}

/// The level, the agent's decision, and the cells found (the book's note left out).
fn verdict(policy: &Policy, line: &str) -> (Level, Decision, Vec<&'static str>) {
    let j = judged(policy, line, Origin::Agent);
    let mut ids: Vec<&'static str> = j
        .analysis
        .findings
        .iter()
        .map(|f| f.id)
        .filter(|id| *id != BOOK_FINDING)
        .collect();
    ids.sort_unstable();
    ids.dedup();
    (j.analysis.level, j.ruling.decision, ids)
}

fn noted(policy: &Policy, line: &str) -> Option<String> {
    judged(policy, line, Origin::Agent)
        .analysis
        .findings
        .iter()
        .find(|f| f.id == BOOK_FINDING)
        .map(|f| f.message.clone())
}

/// What a line is expected to be with the book.
enum Want {
    /// Judged as this other line is without the book: its level and decision, and at least
    /// its cells (what the built-in book knows of a known program stays beside the entry's).
    As(&'static str),
    /// This level and agent's decision, with exactly these cells.
    Is(Level, Decision, &'static [&'static str]),
    /// As it is without the book: the entry names no command here, or may not lower it.
    Unchanged,
}

fn check(book: &str, cases: &[(&str, Want, bool)]) {
    let with = policy(book);
    let without = policy("default_rules = true\n");
    for (line, want, note) in cases {
        let got = verdict(&with, line);
        match want {
            Want::As(other) => {
                let like = verdict(&without, other);
                assert_eq!((got.0, got.1), (like.0, like.1), "{line} as {other}");
                for cell in like.2 {
                    assert!(got.2.contains(&cell), "{line}: {cell} in {:?}", got.2);
                }
            }
            Want::Is(level, decision, cells) => {
                assert_eq!((got.0, got.1), (*level, *decision), "{line}: {got:?}");
                assert_eq!(got.2, cells.to_vec(), "{line}");
            }
            Want::Unchanged => assert_eq!(got, verdict(&without, line), "{line}"),
        }
        assert_eq!(
            noted(&with, line).is_some(),
            *note,
            "{line}: the book's note"
        );
    }
}

#[test]
fn the_issues_example_judges_its_three_subcommands() {
    use Decision::*;
    use Want::*;
    check(
        ACME,
        &[
            ("acmectl status", Is(Level::Safe, Allow, &[]), true),
            (
                "acmectl deploy prod",
                Is(Level::Moderate, Confirm, &["publish.remote"]),
                true,
            ),
            ("acmectl nuke ~/Documents", As("rm -rf ~/Documents"), true),
            ("acmectl nuke ~", As("rm -rf ~"), true),
            // At the level the places give: the entry's knowledge takes the place of the
            // guess that `nuke` is a service's deleting verb.
            ("acmectl nuke -- build", As("rm -rf -- build"), true),
            ("acmectl nuke /tmp/x", As("rm -rf /tmp/x"), true),
            // A subcommand the entry does not name, or none: a program the gate does not know.
            ("acmectl frobnicate ~/Documents", Unchanged, false),
            ("acmectl", Unchanged, false),
            ("acmectl --verbose", Unchanged, false),
        ],
    );
}

#[test]
fn an_entry_is_seen_through_the_wrappers() {
    use Want::*;
    check(
        ACME,
        &[
            (
                "sudo acmectl nuke ~/Documents",
                As("sudo rm -rf ~/Documents"),
                true,
            ),
            (
                "env acmectl nuke ~/Documents",
                As("env rm -rf ~/Documents"),
                true,
            ),
            (
                "bash -c 'acmectl nuke ~/Documents'",
                As("bash -c 'rm -rf ~/Documents'"),
                true,
            ),
            ("timeout 5 acmectl nuke ~", As("timeout 5 rm -rf ~"), true),
            (
                "/usr/local/bin/acmectl nuke ~/Documents",
                As("rm -rf ~/Documents"),
                true,
            ),
            (
                "echo x | xargs acmectl status",
                As("echo x | xargs true"),
                true,
            ),
            (
                "ls && acmectl deploy prod",
                Is(Level::Moderate, Decision::Confirm, &["publish.remote"]),
                true,
            ),
        ],
    );
}

/// A program named by a path may be anything: it is judged as an unknown file and as the
/// entry says, both.
#[test]
fn a_program_named_by_a_path_is_judged_both_ways() {
    let with = policy(ACME);
    let (level, _, cells) = verdict(&with, "./acmectl nuke ~/Documents");
    let (rm_level, _, rm_cells) = verdict(&with, "rm -rf ~/Documents");
    assert_eq!(level, rm_level);
    for cell in rm_cells {
        assert!(cells.contains(&cell), "{cell} in {cells:?}");
    }
    assert!(cells.contains(&"run.project"), "{cells:?}");
}

/// An entry for a program the built-in book knows can only add: what the built-in book found
/// stays, whatever the entry says.
#[test]
fn an_entry_never_lowers_what_the_built_in_book_knows() {
    use Want::*;
    let book = r#"
[[program]]
name = "rm"
effect = "none"

[[program]]
name = "git"
[program.subcommands.push]
effect = "none"
[program.subcommands.deploy]
effect = "publish"

[[program]]
name = "kubectl"
effect = "none"

[[program]]
name = "docker"
effect = "none"

[[program]]
name = "bash"
effect = "none"

[[program]]
name = "sudo"
effect = "none"

[[program]]
name = "cat"
operands = "read"
"#;
    check(
        book,
        &[
            ("rm -rf ~", Unchanged, true),
            ("rm -rf ~/Documents", Unchanged, true),
            ("rm -f build/x.o", Unchanged, true),
            ("git push --force", Unchanged, true),
            ("git push", Unchanged, true),
            ("git status", Unchanged, false),
            ("kubectl delete namespace prod", Unchanged, true),
            ("docker rm -f web", Unchanged, true),
            ("kubectl get secret x -o yaml", Unchanged, true),
            ("bash -c 'rm -rf ~'", Unchanged, true),
            ("sudo rm -rf /", Unchanged, true),
            ("cat ~/.ssh/id_rsa", Unchanged, true),
            // What the entry adds to a known program raises it.
            (
                "git deploy",
                Is(
                    Level::Moderate,
                    Decision::Confirm,
                    &["publish.remote", "write.history"],
                ),
                true,
            ),
        ],
    );
}

/// Options that take values: the value is a place (or not), never the subcommand or an
/// operand.
#[test]
fn options_take_their_values() {
    use Decision::*;
    use Want::*;
    let book = r#"
[[program]]
name = "acmectl"
options = { "--profile" = "none", "-c" = "read" }
[program.subcommands.build]
options = { "--out" = "write", "-o" = "write" }
effect = "none"
[program.subcommands.clean]
operands = "delete"
[program.subcommands.db.subcommands.drop]
effect = "delete.database"
"#;
    check(
        book,
        &[
            (
                "acmectl --profile prod build",
                Is(Level::Safe, Allow, &[]),
                true,
            ),
            (
                "acmectl build --out ~/.bashrc",
                As("echo x >> ~/.bashrc"),
                true,
            ),
            (
                "acmectl build --out=/etc/passwd",
                As("echo x >> /etc/passwd"),
                true,
            ),
            (
                "acmectl build -o /etc/passwd",
                As("echo x >> /etc/passwd"),
                true,
            ),
            (
                "acmectl build -o/etc/passwd",
                As("echo x >> /etc/passwd"),
                true,
            ),
            ("acmectl clean -- -x build", As("rm -rf -- -x build"), true),
            ("acmectl clean - build", As("rm -rf build"), true),
            (
                "acmectl -c ~/.ssh/id_rsa build",
                As("cat ~/.ssh/id_rsa"),
                true,
            ),
            (
                "acmectl db drop users",
                Is(Level::Destructive, Confirm, &["delete.database"]),
                true,
            ),
            ("acmectl db", Unchanged, false),
            ("acmectl db create users", Unchanged, false),
        ],
    );
}

/// `assent explain` names the entry that judged a word, with its file and line.
#[test]
fn the_note_names_the_entry() {
    let with = policy(ACME);
    let note = noted(&with, "sudo acmectl nuke ~/Documents").expect("a note");
    assert_eq!(
        note,
        "`acmectl nuke` is judged by the policy's program book (test.toml:2)"
    );
    let j = judged(&with, "ls; acmectl status", Origin::Agent);
    let finding = j
        .analysis
        .findings
        .iter()
        .find(|f| f.id == BOOK_FINDING)
        .expect("a note");
    assert_eq!(finding.level, Level::Safe);
    assert_eq!(
        finding.span,
        4..18,
        "the note marks the command it is about"
    );
}

/// Entries that cannot mean what they say are refused, at the place they are written.
#[test]
fn bad_entries_are_refused_with_their_position() {
    let cases: &[(&str, usize, usize, &str)] = &[
        (
            "[[program]]\nname = \"acmectl\"\n[program.subcommands.nuke]\noperands = \"obliterate\"\n",
            4,
            12,
            "acmectl nuke: operands: unknown effect \"obliterate\"",
        ),
        (
            "[[program]]\nname = \"acmectl\"\n[program.subcommands.deploy]\neffect = \"launch\"\n",
            4,
            10,
            "acmectl deploy: effect: unknown effect \"launch\"",
        ),
        (
            "[[program]]\nname = \"acmectl\"\neffect = \"delete.moon\"\n",
            3,
            10,
            "unknown place \"moon\"",
        ),
        (
            "[[program]]\nname = \"acmectl\"\n[program.subcommands.status]\n",
            3,
            1,
            "acmectl status: says nothing of what it does",
        ),
        (
            "[[program]]\nname = \"acmectl\"\n",
            1,
            1,
            "acmectl: says nothing of what it does",
        ),
        (
            "[[program]]\nname = \"/usr/bin/acmectl\"\neffect = \"none\"\n",
            2,
            8,
            "no slash",
        ),
        (
            "[[program]]\nname = \"\"\neffect = \"none\"\n",
            2,
            8,
            "non-empty name",
        ),
        (
            "[[program]]\nname = \"a b\"\neffect = \"none\"\n",
            2,
            8,
            "no slash, no blank",
        ),
        (
            "[[program]]\nname = \"r\\u200bm\"\neffect = \"none\"\n",
            2,
            8,
            "no slash, no blank",
        ),
        (
            "[[program]]\nname = \"rm\\u202e\"\neffect = \"none\"\n",
            2,
            8,
            "no slash, no blank",
        ),
        (
            "[[program]]\nname = \"..\"\neffect = \"none\"\n",
            2,
            8,
            "a letter or a digit",
        ),
        (
            "[[program]]\nname = \"*ctl\"\neffect = \"none\"\n",
            2,
            8,
            "not as an option, a glob",
        ),
        (
            "[[program]]\nname = \"-rf\"\neffect = \"none\"\n",
            2,
            8,
            "not as an option, a glob",
        ),
        (
            "[[program]]\nname = \"rm.exe\"\neffect = \"none\"\n",
            2,
            8,
            "name it without `.exe`",
        ),
        (
            "[[program]]\nname = \"acmectl\"\neffect = \"none\"\n\n[[program]]\nname = \"acmectl\"\neffect = \"publish\"\n",
            5,
            1,
            "a second [[program]] is named \"acmectl\"",
        ),
        (
            "[[program]]\nname = \"acmectl\"\neffect = \"none\"\nrisk = \"low\"\n",
            4,
            1,
            "unknown field `risk`",
        ),
        (
            "[[program]]\nname = \"acmectl\"\n[program.subcommands.nuke]\noperand = \"delete\"\n",
            4,
            1,
            "unknown field `operand`",
        ),
        (
            "[[program]]\nname = \"acmectl\"\neffect = \"none\"\n[program.subcommands.nuke]\noperands = \"delete\"\n",
            1,
            1,
            "has subcommands, so its own `operands` and `effect` would never apply",
        ),
        (
            "[[program]]\nname = \"acmectl\"\neffect = \"none\"\noptions = { \"out\" = \"write\" }\n",
            4,
            21,
            "option \"out\"",
        ),
        (
            "[[program]]\nname = \"acmectl\"\neffect = \"none\"\noptions = { \"--out\" = \"scribble\" }\n",
            4,
            23,
            "option --out: unknown effect \"scribble\"",
        ),
        (
            "[[program]]\nname = \"acmectl\"\n[program.subcommands.\"--nuke\"]\neffect = \"none\"\n",
            3,
            1,
            "subcommand \"--nuke\"",
        ),
    ];
    for (text, line, column, says) in cases {
        let error = match parse(text, "p.toml") {
            Ok(_) => panic!("refused: {text}"),
            Err(error) => error,
        };
        assert!(error.message.contains(says), "{text}: {error}");
        assert_eq!(
            (error.file.as_str(), error.line, error.column),
            ("p.toml", *line, *column),
            "{text}: {error}"
        );
    }
}

/// `--check-policy` explains each entry, a line per command, and writes it back so the output
/// loads as the same book.
#[test]
fn check_policy_explains_each_entry() {
    let with = policy(ACME);
    let text = &with.text;
    for line in [
        "# program book, test.toml:2:",
        "#   acmectl deploy: it publishes the remote (publish.remote: moderate)",
        "#   acmectl nuke: each operand is a place it deletes (delete.*), with what lies beneath it",
        "#   acmectl status: it changes nothing (safe)",
        "#   acmectl with another subcommand, or none: judged as a program the gate does not know",
    ] {
        assert!(text.contains(line), "{line} in:\n{text}");
    }
    let (_, book) = text
        .split_once("# program book")
        .expect("the book is written back");
    let again = policy(&format!("# program book{book}"));
    assert_eq!(
        again
            .settings
            .programs
            .entries()
            .map(|e| &e.command)
            .collect::<Vec<_>>(),
        with.settings
            .programs
            .entries()
            .map(|e| &e.command)
            .collect::<Vec<_>>()
    );
    let git =
        policy("[[program]]\nname = \"git\"\n[program.subcommands.deploy]\neffect = \"publish\"\n");
    assert!(
        git.text
            .contains("#   git: the built-in book knows it; this entry only adds to its judgement"),
        "{}",
        git.text
    );
}

/// Subcommands nest as deep as real CLIs go, and no deeper: a file cannot make the judgement
/// recurse without end.
#[test]
fn subcommands_nest_only_so_deep() {
    let nested = |depth: usize| {
        let path: Vec<String> = (0..depth).map(|i| format!("subcommands.s{i}")).collect();
        format!(
            "[[program]]\nname = \"deep\"\n[program.{}]\neffect = \"none\"\n",
            path.join(".")
        )
    };
    let words: Vec<String> = (0..8).map(|i| format!("s{i}")).collect();
    let with = policy(&nested(8));
    let line = format!("deep {}", words.join(" "));
    assert!(noted(&with, &line).is_some(), "eight levels are read");
    let error = match parse(&nested(10), "p.toml") {
        Ok(_) => panic!("ten levels are refused"),
        Err(error) => error,
    };
    assert!(error.message.contains("nest deeper than 8"), "{error}");
    assert_eq!(error.line, 3, "{error}");
}

/// An entry for a program the gate does not know takes the place of the guess, but not of
/// what the words themselves name: a gate's, a protected or a secret place it is handed stays
/// what it is, whatever the entry says the program does (a careless `effect = "none"` on a
/// program that writes its operand).
#[test]
fn an_entry_for_an_unknown_program_keeps_the_places_its_words_name() {
    use Want::*;
    let book = r#"
[[program]]
name = "fallocate2"
effect = "none"

[[program]]
name = "acmectl"
[program.subcommands.status]
effect = "none"
"#;
    let with = policy(book);
    let without = policy("default_rules = true\n");
    for line in [
        "fallocate2 -l 0 ~/.bashrc",
        "fallocate2 ~/.ssh/id_rsa",
        "acmectl status ~/.config/assent/policy.toml",
        "fallocate2 /etc/passwd",
    ] {
        let (got, guessed) = (verdict(&with, line), verdict(&without, line));
        assert!(
            got.0 >= Level::Destructive,
            "{line}: {got:?} (guessed {guessed:?})"
        );
        assert_ne!(got.1, Decision::Allow, "{line}: {got:?}");
    }
    // Ordinary words stay what the entry says.
    check(
        book,
        &[
            (
                "acmectl status prod",
                Is(Level::Safe, Decision::Allow, &[]),
                true,
            ),
            (
                "fallocate2 -l 1G build/img",
                Is(Level::Safe, Decision::Allow, &[]),
                true,
            ),
        ],
    );
}
