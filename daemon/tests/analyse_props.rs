//! Robustness of the shell analyser: random lines built from shell
//! fragments, and mutations of the peer-case commands, never panic or overflow a 2 MiB
//! stack, keep every span inside the input on character boundaries, and give the level of
//! their most severe finding. Lines of statements that move the shell's state (`cd`,
//! `pushd`, assignments, moves, copies and links) are judged alike cut in pieces or parsed
//! whole, and their cost grows with their length, counted in allocations rather than time.
//! The lines are only ever analysed, never run.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use assent_client::protocol::Level;
use assentd::analyse::{Analysis, Surroundings, shell, shell_unsplit};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

const CTX: Surroundings<'static> = Surroundings {
    cwd: "/home/user/project",
    home: Some("/home/user"),
    project: Some("/home/user/project"),
    truncated: false,
};

/// Pieces of shell that exercise quoting, nesting, heredocs and the walker's quirks.
const FRAGMENTS: &[&str] = &[
    "rm",
    " -rf",
    " ~",
    " /",
    " x",
    "'",
    "\"",
    "$(",
    ")",
    "`",
    "&&",
    "||",
    "|",
    ";",
    "&",
    "\n",
    "\\\n",
    "<<EOF\n",
    "\nEOF\n",
    "<<<",
    "<",
    ">",
    ">>",
    "2>&1",
    "{",
    "}",
    "(",
    " ( ",
    "$x",
    "${HOME}",
    "$'\\x72m'",
    "c=rm; $c",
    "sudo ",
    "env -S ",
    "xargs ",
    "find . -exec ",
    " {} \\;",
    "bash -c ",
    "python3 -c ",
    "perl -e ",
    "awk '{system(\"",
    "sed 's/a/b/e'",
    "eval ",
    "cd / && ",
    "f() { f|f& }; f",
    "for i in a; do ",
    "; done",
    "if x; then ",
    "; fi",
    "case $a in b) ",
    ";; esac",
    "é",
    "日本",
    "\u{0}",
    "\u{feff}",
    "#",
    "*",
    "~bob",
    "parallel ::: ",
    "ssh h ",
    "su -c ",
    "watch ",
    "busybox ",
    "git reset --hard",
];

fn check(line: &str) -> Result<(), TestCaseError> {
    let a: Analysis = shell(line, &CTX);
    for span in a
        .findings
        .iter()
        .map(|f| &f.span)
        .chain(a.commands.iter().map(|c| &c.span))
    {
        prop_assert!(
            span.start <= span.end && span.end <= line.len(),
            "{span:?} in {line:?}"
        );
        prop_assert!(
            line.is_char_boundary(span.start) && line.is_char_boundary(span.end),
            "{span:?} in {line:?}"
        );
    }
    let max = a
        .findings
        .iter()
        .map(|f| f.level)
        .max()
        .unwrap_or(Level::Safe);
    prop_assert_eq!(a.level, max, "{:?}", line);
    Ok(())
}

fn peer_commands() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peer-cases");
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for line in text.lines() {
            let record: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
            if let Some(c) = record.get("command").and_then(|c| c.as_str()) {
                out.push(c.to_owned());
            }
        }
    }
    out
}

/// A mutation of `base`: a fragment inserted, a range cut, or the line doubled.
fn mutate(base: &str, op: u8, at: usize, len: usize, fragment: &str) -> String {
    let boundary = |i: usize| {
        let mut i = i.min(base.len());
        while !base.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let a = boundary(at);
    let b = boundary(at.saturating_add(len));
    match op % 3 {
        0 => format!("{}{fragment}{}", &base[..a], &base[a..]),
        1 => format!("{}{}", &base[..a], &base[b.max(a)..]),
        _ => format!("{base} {fragment} {base}"),
    }
}

/// How long a property may run before it is taken to have stalled: far beyond what any of
/// them takes on a slow machine, so that a loop that never ends fails instead of hanging.
const STALLED: Duration = Duration::from_secs(300);

fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    let (done, finished) = mpsc::channel();
    let thread = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            f();
            let _ = done.send(());
        })
        .expect("a thread can be spawned");
    // A panic drops the sender, which ends the wait at once.
    if let Err(mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(STALLED) {
        panic!("the analyser stalled: no answer in {STALLED:?}");
    }
    thread
        .join()
        .expect("the analyser does not panic or overflow on a 2 MiB stack");
}

#[test]
fn random_fragment_lines() {
    on_small_stack(|| {
        let mut runner = TestRunner::new(Config {
            cases: 3000,
            failure_persistence: None,
            ..Config::default()
        });
        let lines = prop::collection::vec(prop::sample::select(FRAGMENTS), 0..32)
            .prop_map(|parts| parts.concat());
        runner
            .run(&lines, |line| check(&line))
            .expect("every random line keeps the properties");
    });
}

#[test]
fn mutated_peer_cases() {
    on_small_stack(|| {
        let commands = peer_commands();
        assert!(!commands.is_empty(), "the peer cases are in the repository");
        let mut runner = TestRunner::new(Config {
            cases: 4000,
            failure_persistence: None,
            ..Config::default()
        });
        let strategy = (
            0..commands.len(),
            any::<u8>(),
            0usize..256,
            0usize..32,
            prop::sample::select(FRAGMENTS),
        );
        runner
            .run(&strategy, |(i, op, at, len, fragment)| {
                check(&mutate(&commands[i], op, at, len, fragment))
            })
            .expect("every mutated peer case keeps the properties");
    });
}

// ---- Line state, cut in pieces or parsed whole ----

/// Statements that change what the shell knows as the line runs, and ones that use it.
const STATEMENTS: &[&str] = &[
    "cd /",
    "cd ~",
    "cd /tmp",
    "cd -",
    "cd ..",
    "cd src",
    "cd \"$d\"",
    "cd $(mktemp -d)",
    "pushd /etc",
    "pushd ~/.ssh",
    "pushd -n /tmp",
    "popd",
    "dirs",
    "d=/etc",
    "d=~/.ssh",
    "d=$HOME",
    "d=",
    "x=build",
    "export d=/",
    "unset d",
    "readonly d=.",
    "d=/ rm -rf $d",
    "mv ~/.ssh/id_rsa k",
    "mv k ~/.ssh/id_rsa",
    "cp ~/.aws/credentials /tmp/c",
    "cp -r ~ /tmp/h",
    "ln -s ~ l",
    "ln -s / /tmp/r",
    "ln -sf ~/.ssh s",
    "mv $d x",
    "cp x $d",
    "rm -rf $d",
    "rm -rf *",
    "rm -rf l/..",
    "rm x",
    "rm -rf ./k",
    "rm -rf /tmp/r/etc",
    "rm -f s/id_rsa",
    "cat ~/.ssh/id_rsa",
    "cat /tmp/c",
    "cat k",
    "cat $d/id_rsa",
    "cat s/id_rsa",
    "cat .env",
    "cat /tmp/h/.aws/credentials",
    "echo hi",
    "ls",
    "true",
    "find . -name '*.pem'",
    "find $d -type f",
    "printf '%s\\n' ~/.ssh/*",
    "curl -d @- https://x.example",
    "curl -fsSL https://x.example/i.sh",
    "base64",
    "tee out",
    "sort",
    "xargs rm -rf",
    "xargs cat",
    "xargs -I{} cp {} /tmp",
    "sh",
    "bash -c 'rm -rf ~'",
    "sh -c \"cat $d/id_rsa\"",
    "eval \"rm -rf $d\"",
    "git push --force",
    "chmod -R 777 .",
    "sudo rm -rf /",
    "tar czf - .",
    "(cd /; rm -rf *)",
    "echo $(cd ~; pwd)",
    "rm -rf \"$OLDPWD\"",
    "cat 2>&1 >| out",
    "# a comment; cd /",
    "{ cd ~; }",
    "! rm -rf ~",
    "! cd /",
];

/// What joins two statements.
const JOINTS: &[&str] = &["; ", " && ", " || ", " | ", " |& ", "\n", " & ", ";", "|"];

/// A line of statements, as the property tests build it.
#[derive(Debug, Clone)]
struct Line {
    text: String,
    /// The same line with a space between an empty assignment and a pipe after it (`d= |a`):
    /// tree-sitter-bash cannot parse `d=|a`, so parsed whole such a line is opaque, while cut
    /// in pieces each side is read.
    spelled: String,
    /// A pipeline of three stages or more before `&&` or `||` (or before a redirection after
    /// newlines): tree-sitter-bash nests the list in the pipeline, and parsed whole its
    /// commands are named otherwise (`pipeline[0]` for `list[0] > pipeline[0]`). Their words
    /// and spans are compared, not their names.
    nested: bool,
    /// A statement starts with `!`: tree-sitter-bash reads `! a | b` otherwise than bash,
    /// and cut lines are read as bash reads them, so only the verdict is compared.
    negated: bool,
    /// A redirection in a line with a pipeline of three stages or more, or with `&&` or
    /// `||`: tree-sitter-bash hangs it on what comes before too (`a | b > f | c` is
    /// `(a | b) > f | c`, `a && b > f` is `(a && b) > f`), and a line cut in pieces names
    /// its commands otherwise: their words and spans are compared, not their names.
    redirected: bool,
    /// A pipeline of three stages or more ends in `export`, `readonly`, `local` or `unset`
    /// and is nested as above, or is followed by a comment line: parsed whole, what follows
    /// the newline is lost (`what_follows_a_pipeline_on_the_next_line_runs` is the bug).
    /// Such lines are not compared.
    swallowed: bool,
    /// A pipeline of four stages or more is nested as above: parsed whole, a chain of `&&`
    /// after it loses the directory between its commands
    /// (`a_long_pipeline_before_a_chain_keeps_the_directory` is the bug). Such lines are not
    /// compared.
    chained: bool,
    /// A pipeline after `&&` or `||` has a redirection (`a && b > f | c`): parsed whole, the
    /// statement before the `&&` is walked twice (`a_list_in_a_pipeline_is_walked_once` is the
    /// bug). Such lines are not compared.
    twice: bool,
}

fn is_pipe(joint: &str) -> bool {
    matches!(joint.trim(), "|" | "|&")
}

fn is_and_or(joint: &str) -> bool {
    matches!(joint.trim(), "&&" | "||")
}

/// Whether tree-sitter-bash nests what follows the pipeline that ends before `after` in it:
/// the pipeline has three stages or more, and after it, before any `;` or `&`, come `&&`,
/// `||` or a redirection.
fn nests_after(stages: usize, after: &[(&str, &str)]) -> bool {
    if stages < 3 {
        return false;
    }
    for (statement, joint) in after {
        match joint.trim_matches(' ') {
            "\n" | "|" | "|&" if statement.contains(['<', '>']) => return true,
            "\n" | "|" | "|&" => {}
            "&&" | "||" => return true,
            _ => return false,
        }
    }
    false
}

/// `parts` joined (each statement after its joint; the first joint is unused), with the
/// spaces of [`Line::spelled`] when `spelled`.
fn join(parts: &[(&str, &str)], spelled: bool) -> String {
    let mut text = String::new();
    for (i, (statement, joint)) in parts.iter().enumerate() {
        if i > 0 {
            let empty_assignment = parts[i - 1].0.ends_with('=');
            if spelled && empty_assignment && joint.starts_with('|') {
                text.push(' ');
            }
            text.push_str(joint);
        }
        text.push_str(statement);
    }
    text
}

fn statement_line(parts: &[(&str, &str)]) -> Line {
    let mut nested = false;
    let mut long_pipeline = false;
    let mut twice = false;
    let mut swallowed = false;
    let mut chained = false;
    let mut at = 0;
    while at < parts.len() {
        // A pipeline: statements joined by pipes.
        let mut end = at + 1;
        while end < parts.len() && is_pipe(parts[end].1) {
            end += 1;
        }
        let nests = nests_after(end - at, &parts[end..]);
        nested |= nests;
        chained |= nests && end - at >= 4;
        let declares = ["export ", "readonly ", "local ", "declare ", "unset "];
        let after_newline = parts.get(end).filter(|(_, joint)| *joint == "\n");
        swallowed |= after_newline.is_some_and(|(next, _)| {
            (nests && declares.iter().any(|d| parts[end - 1].0.starts_with(d)))
                || (end - at >= 3 && next.starts_with('#'))
        });
        long_pipeline |= end - at >= 3;
        twice |= at > 0
            && is_and_or(parts[at].1)
            && end - at >= 2
            && parts[at..end].iter().any(|(s, _)| s.contains(['<', '>']));
        at = end;
    }
    let redirected = parts.iter().any(|(s, _)| s.contains(['<', '>']))
        && (long_pipeline || parts.iter().any(|(_, joint)| is_and_or(joint)));
    Line {
        text: join(parts, false),
        spelled: join(parts, true),
        nested,
        negated: parts.iter().any(|(s, _)| s.starts_with('!')),
        redirected,
        swallowed,
        chained,
        twice,
    }
}

/// Lines of 1 to `max` statements; lines of at least `min_len` bytes repeat their statements.
fn statement_lines(max: usize, min_len: usize) -> impl Strategy<Value = Line> {
    prop::collection::vec(
        (
            prop::sample::select(STATEMENTS),
            prop::sample::select(JOINTS),
        ),
        1..max,
    )
    .prop_map(move |parts| {
        let unit = statement_line(&parts);
        let mut line = unit.clone();
        while line.text.len() <= min_len {
            for (all, one) in [
                (&mut line.text, &unit.text),
                (&mut line.spelled, &unit.spelled),
            ] {
                all.push_str("; ");
                all.push_str(one);
            }
        }
        line
    })
}

/// The analysis ran out of the line's parse time somewhere.
fn out_of_parse_time(a: &Analysis) -> bool {
    a.findings
        .iter()
        .any(|f| f.id == "opaque.parse_error" && f.message.contains("took longer than"))
}

fn ids(a: &Analysis) -> BTreeSet<&'static str> {
    a.findings.iter().map(|f| f.id).collect()
}

/// Findings kept per analysis (the analyser's `MAX_FINDINGS`): past it, which of the less
/// severe ones are kept may differ.
const KEPT: usize = 64;

/// `shell` and `shell_unsplit` judge `line` alike: the same level and findings, and the
/// same commands, named alike where tree-sitter-bash's tree allows (see [`Line`]).
fn agree(line: &Line) -> Result<(), TestCaseError> {
    check(&line.text)?;
    if line.twice || line.swallowed || line.chained {
        return Ok(());
    }
    let text = line.spelled.as_str();
    let cut = shell(text, &CTX);
    let whole = shell_unsplit(text, &CTX);
    // The cut line is parsed against the clock, the whole one is not (the comparison is about
    // meaning): on a loaded machine the cut one's time can run out, and it is then opaque,
    // which says nothing of what the two mean.
    if out_of_parse_time(&cut) {
        return Ok(());
    }
    prop_assert_eq!(cut.level, whole.level, "level of {:?}", text);
    if cut.findings.len() < KEPT && whole.findings.len() < KEPT {
        prop_assert_eq!(ids(&cut), ids(&whole), "findings of {:?}", text);
    }
    if !line.negated {
        let names = !line.redirected && !line.nested;
        let first_difference =
            cut.commands.iter().zip(&whole.commands).find(|(a, b)| {
                (&a.argv, &a.span) != (&b.argv, &b.span) || (a.path != b.path && names)
            });
        prop_assert!(
            first_difference.is_none() && cut.commands.len() == whole.commands.len(),
            "commands of {text:?}: cut {:?} whole {:?} ({} and {})",
            first_difference.map(|d| d.0),
            first_difference.map(|d| d.1),
            cut.commands.len(),
            whole.commands.len()
        );
    }
    check(text)
}

/// Found by `cut_lines_agree_with_whole_ones` (fixed in 658df5d): the splitter stepped over
/// the byte after a closing quote, `$(…)`, `${…}`, backtick or `(…)`, so a `;`, newline or
/// `|` written right after one was no joint: `echo 'x'; cd /` became part of the pipeline
/// stage before it, in a subshell, and the `cd` was lost. Bash runs `rm -rf *` in `/`.
#[test]
fn a_joint_after_a_quote_is_a_joint() {
    for line in [
        "true | true | echo 'x'; cd /; rm -rf *",
        "true | true | echo \"x\"; cd /; rm -rf *",
        "true | true | (true); cd /; rm -rf *",
        "true | true | echo $(true); cd /; rm -rf *",
    ] {
        let (cut, whole) = (shell(line, &CTX), shell_unsplit(line, &CTX));
        assert_eq!(whole.level, Level::Forbidden, "{line}: {:?}", ids(&whole));
        assert_eq!(cut.level, Level::Forbidden, "{line}: {:?}", ids(&cut));
    }
}

/// Found by `cut_lines_agree_with_whole_ones` (fixed in 658df5d): an `&&` or `||` with no
/// command after it (at the end of the line, or before a comment) is a syntax error, and
/// parsed whole the line is opaque; cut in pieces, the empty piece after the operator was
/// dropped and the line judged as if the operator were not there.
#[test]
fn a_dangling_operator_is_unreadable() {
    for line in ["true | true | true &&", "true | true | true || # c"] {
        let (cut, whole) = (shell(line, &CTX), shell_unsplit(line, &CTX));
        assert!(whole.level >= Level::Opaque, "{line}: {:?}", ids(&whole));
        assert_eq!(cut.level, whole.level, "{line}: {:?}", ids(&cut));
    }
}

/// Found by `cut_lines_agree_with_whole_ones` (fixed in 2f017fb): tree-sitter-bash binds
/// `&&` and `||` tighter than a pipe in two shapes, and the walk followed its tree. `a | b |
/// c && d` is read as `a | b | (c && d)` (and `a | b | c\nd > f` as `a | b | c d > f`): a
/// line the splitter leaves whole (it holds a compound command, a heredoc) took `cd /` for a
/// pipeline stage's subshell. `a && b > f | c` is read as `(a && b > f) | c`, cut or whole.
/// Bash runs each `rm -rf *` below in `/`.
#[test]
fn and_or_binds_looser_than_a_pipe() {
    for line in [
        "true | true | true && cd /; rm -rf *; { :; }",
        "true | true | true && cd /; rm -rf *",
        "true | true | true\ncd / > /dev/null; rm -rf *; { :; }",
        "cd / && echo x > out | rm -rf *",
    ] {
        let (cut, whole) = (shell(line, &CTX), shell_unsplit(line, &CTX));
        assert_eq!(cut.level, Level::Forbidden, "{line}: {:?}", ids(&cut));
        assert_eq!(whole.level, Level::Forbidden, "{line}: {:?}", ids(&whole));
    }
}

/// Bug found by `cut_lines_agree_with_whole_ones` once `and_or_binds_looser_than_a_pipe`
/// was fixed: parsed whole, `a && b > f | c` walks `a` twice, once before the pipeline and
/// once in it, so its commands come twice, and a move's second walk sees its own
/// destination already holding what it moves: `mv ~/.ssh/id_rsa k && cat >| out | true`
/// reports `overwrite.secret`, and `cd .. && … | …` goes up twice.
#[test]
fn a_list_in_a_pipeline_is_walked_once() {
    for line in [
        "rm x && echo b > f | cat",
        "mv ~/.ssh/id_rsa k && cat >| out | true",
    ] {
        let a = shell_unsplit(line, &CTX);
        let argv: Vec<&[String]> = a.commands.iter().map(|c| c.argv.as_slice()).collect();
        let first = argv.first().copied().unwrap_or_default();
        assert_eq!(
            argv.iter().filter(|c| **c == first).count(),
            1,
            "{line}: {argv:?}"
        );
        assert!(
            !ids(&a).contains("overwrite.secret"),
            "{line}: {:?}",
            ids(&a)
        );
    }
}

/// Bug found by `cut_lines_agree_with_whole_ones` once `and_or_binds_looser_than_a_pipe`
/// was fixed: after a pipeline of three stages or more, tree-sitter-bash runs a declaration
/// (`export`, `readonly`, `local`) or `unset` on across a newline, as it does a simple
/// command, but only simple commands are cut back at the newline; and across a comment line
/// the next line is lost. `rm -rf ~` below is not seen, and the lines, which the splitter
/// leaves whole, are safe.
#[test]
fn what_follows_a_pipeline_on_the_next_line_runs() {
    for line in [
        "true | true | export d=/\nrm -rf ~ && true; { :; }",
        "true | true | unset d\nrm -rf ~ && true; { :; }",
        "true | true | true\n# note\nrm -rf ~ && true; { :; }",
    ] {
        let a = shell(line, &CTX);
        assert_eq!(a.level, Level::Forbidden, "{line}: {:?}", ids(&a));
    }
}

/// Bug found by `cut_lines_agree_with_whole_ones` once `and_or_binds_looser_than_a_pipe`
/// was fixed: with four stages or more before it, a chain `&& cd / && rm -rf *` parsed whole
/// runs `rm` where the line started, not in `/`; a line the splitter leaves whole is judged
/// so. Three stages, or `&& cd /; rm -rf *`, are read right.
#[test]
fn a_long_pipeline_before_a_chain_keeps_the_directory() {
    for line in [
        "true | true | true | true && cd / && rm -rf *; { :; }",
        "true | true | true | true && cd / && rm -rf *",
    ] {
        let (cut, whole) = (shell(line, &CTX), shell_unsplit(line, &CTX));
        assert_eq!(cut.level, Level::Forbidden, "{line}: {:?}", ids(&cut));
        assert_eq!(whole.level, Level::Forbidden, "{line}: {:?}", ids(&whole));
    }
}

/// A line cut where bash cuts it is judged as the line parsed whole: the shell's state
/// (directory, directory stack, variables, what moves, copies and links carried) crosses
/// the cuts. Short lines are cut at pipelines of three stages or more.
#[test]
fn cut_lines_agree_with_whole_ones() {
    on_small_stack(|| {
        let mut runner = TestRunner::new(Config {
            cases: 1000,
            failure_persistence: None,
            ..Config::default()
        });
        runner
            .run(&statement_lines(12, 0), |line| agree(&line))
            .expect("a short line is judged alike cut or whole");
    });
}

/// The same for lines over the splitter's threshold (2,048 bytes), cut into chunks of
/// statements.
#[test]
fn long_cut_lines_agree_with_whole_ones() {
    on_small_stack(|| {
        let mut runner = TestRunner::new(Config {
            cases: 32,
            failure_persistence: None,
            ..Config::default()
        });
        runner
            .run(&statement_lines(40, 2048), |line| agree(&line))
            .expect("a long line is judged alike cut or whole");
    });
}

// ---- Cost, counted ----

thread_local! {
    /// Allocations made on this thread, and their bytes: the work of an analysis, counted
    /// where no other test's thread can add to it.
    static ALLOCATED: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

/// The system allocator, counting what each thread allocates.
struct Counting;

// SAFETY: every call is passed to the system allocator unchanged; the counter only observes.
// The thread-local is const-initialised and has no destructor, so it never allocates.
#[allow(unsafe_code)] // A counting allocator wraps the system one: the only unsafe here.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: the caller's contract for `alloc` is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is the system one, with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: the caller's contract for `realloc` is the system allocator's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

fn count(bytes: usize) {
    let _ = ALLOCATED.try_with(|a| {
        let (n, b) = a.get();
        a.set((n + 1, b + bytes as u64));
    });
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocations and bytes allocated by `f` on this thread.
fn counted<T>(f: impl FnOnce() -> T) -> (T, u64, u64) {
    let (n0, b0) = ALLOCATED.with(Cell::get);
    let out = f();
    let (n1, b1) = ALLOCATED.with(Cell::get);
    (out, n1 - n0, b1 - b0)
}

/// Allocations per byte of input, at most, and a fixed allowance on top. Most lines make
/// under 20 per byte. The allowance covers `cd src` repeated, which makes every path longer
/// until the directory is 1 KiB deep and unknown after: under a million allocations, at any
/// length. A cost that grows with the square of the line passes the bound before 16 KiB.
const ALLOCATIONS_PER_BYTE: u64 = 64;
const ALLOCATIONS_BASE: u64 = 2_000_000;
/// Bytes allocated per byte of input (allocated in all, not held at once), and on top:
/// `cd src; rm -rf *` repeated allocates 160 MiB at most.
const BYTES_PER_BYTE: u64 = 8 * 1024;
const BYTES_BASE: u64 = 256 * 1024 * 1024;

/// The longest line a property builds (the issue's bound; a message may be longer).
const LONGEST: usize = 16 * 1024;

/// `unit` repeated up to `len` bytes (cut at a character boundary), joined by `joint`.
fn repeated(unit: &str, joint: &str, len: usize) -> String {
    let mut line = unit.to_owned();
    while line.len() < len && !unit.is_empty() {
        line.push_str(joint);
        line.push_str(unit);
    }
    let mut end = line.len().min(len);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    line.truncate(end);
    line
}

fn costs_in_proportion(line: &str) -> Result<(), TestCaseError> {
    let (a, allocations, bytes) = counted(|| shell(line, &CTX));
    let len = line.len() as u64;
    prop_assert!(
        allocations <= ALLOCATIONS_PER_BYTE * len + ALLOCATIONS_BASE,
        "{allocations} allocations for {len} bytes: {:?}…",
        line.get(..200)
    );
    prop_assert!(
        bytes <= BYTES_PER_BYTE * len + BYTES_BASE,
        "{bytes} bytes allocated for {len} bytes: {:?}…",
        line.get(..200)
    );
    drop(a);
    check(line)
}

/// Lines of up to 16 KiB, of statements or of fragments, cost work in proportion to their
/// length, counted in allocations (exact, so the test cannot flake on a slow machine); a
/// line that never ends is caught by [`STALLED`].
#[test]
fn cost_grows_with_the_line() {
    on_small_stack(|| {
        let mut runner = TestRunner::new(Config {
            cases: 32,
            failure_persistence: None,
            ..Config::default()
        });
        let statements = (statement_lines(40, 0), 2048..=LONGEST)
            .prop_map(|(line, len)| repeated(&line.text, "; ", len));
        // Fragments make malformed lines, which are parsed whole, and tree-sitter-bash's error
        // recovery takes time that grows faster than the line (not counted here; see
        // fuzz/README.md): just past the splitter's threshold is long enough.
        let fragments = (
            prop::collection::vec(prop::sample::select(FRAGMENTS), 1..32),
            2048..=3072usize,
        )
            .prop_map(|(parts, len)| repeated(&parts.concat(), "", len));
        runner
            .run(&prop_oneof![statements, fragments], |line| {
                costs_in_proportion(&line)
            })
            .expect("a line costs in proportion to its length");
    });
}

/// Found by `cost_grows_with_the_line` (fixed in 658df5d): a move, copy or link on a line
/// remembers what it carried, and placing any later word followed up to 64 of those sources,
/// each a path below the working directory; `cd src` made that directory deeper each time
/// (up to 1 KiB), so each statement cost 64 placements of a path hundreds of components
/// long. In a release build, `cd src; cp x $d` repeated to 8 KiB made 17 million allocations
/// (6.9 GB) in 5 s, to 16 KiB 52 million in 13 s; `cd src; mv k ~/.ssh/id_rsa` to 16 KiB
/// took 5 s.
#[test]
fn moves_below_a_deepening_directory_cost_in_proportion() {
    on_small_stack(|| {
        for (unit, len) in [
            ("cd src; mv k ~/.ssh/id_rsa", 4096),
            ("cd src; cp x $d", 8192),
        ] {
            let line = repeated(unit, "; ", len);
            let (_, allocations, _) = counted(|| shell(&line, &CTX));
            let len = line.len() as u64;
            assert!(
                allocations <= ALLOCATIONS_PER_BYTE * len + ALLOCATIONS_BASE,
                "{unit}: {allocations} allocations for {len} bytes"
            );
        }
    });
}

/// Found by `cost_grows_with_the_line` (fixed in 658df5d): `xargs xargs xargs …` and
/// `busybox ~busybox ~busybox …` cost the square of their length (each ran the rest of the
/// line again); in a release build `xargs` repeated to 16 KiB made 7.7 million allocations
/// (1.7 GB) in 265 ms, to 48 KiB took 3 s, to 96 KiB 13 s; ` ~xargs` to 16 KiB 1.5 s;
/// `busybox  ~` to 16 KiB 400 ms, to 80 KiB 10 s.
#[test]
fn nested_runners_cost_in_proportion() {
    on_small_stack(|| {
        for (unit, joint, len) in [
            ("xargs", " ", LONGEST),
            (" ~xargs ", "", 8192),
            ("busybox  ~", "", LONGEST),
        ] {
            let line = repeated(unit, joint, len);
            let (_, allocations, bytes) = counted(|| shell(&line, &CTX));
            let len = line.len() as u64;
            assert!(
                allocations <= ALLOCATIONS_PER_BYTE * len + ALLOCATIONS_BASE
                    && bytes <= BYTES_PER_BYTE * len + BYTES_BASE,
                "{unit:?}: {allocations} allocations, {bytes} bytes for {len} bytes"
            );
        }
    });
}

// ---- Inline programs, read with the other languages' grammars ----

/// Pieces of Python, JavaScript, Ruby and PHP that exercise imports, aliases, computed
/// names, strings with escapes and interpolation, `eval` of literals, and broken syntax.
const PROGRAM_FRAGMENTS: &[&str] = &[
    "import os as o\n",
    "from shutil import rmtree as r\n",
    "o.system(",
    "r(",
    "getattr(o, 'sys'+'tem')(",
    "__import__('os')",
    "exec(\"",
    "eval('",
    "\\'",
    "\\\"",
    "'rm -rf ~'",
    "\"rm -rf ~\"",
    "f\"{o.environ['HOME']}/x\"",
    "open('~/.ssh/id_rsa').read()",
    "Path.home() / '.bashrc'",
    "[x for x in os.listdir('/')]",
    "require('child_process')",
    "const {execSync: e} = ",
    "fs['rm'+'Sync'](",
    "`${process.env.HOME}`",
    "process.binding(",
    "send(:system, ",
    "%x(",
    "`ls`",
    "$f = 'sys'.'tem'; $f(",
    "call_user_func(",
    "<?php ",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ";",
    "\n",
    "    ",
    "é",
    "\u{0}",
];

/// A program built from fragments, handed to one of the interpreters on the command line or
/// on its input.
fn program_line(parts: &[&str], how: u8) -> String {
    let program = parts.concat();
    let quoted = program.replace('\'', "'\\''");
    let interpreter = ["python3", "node", "ruby", "php"][usize::from(how % 4)];
    let flag = ["-c", "-e", "-e", "-r"][usize::from(how % 4)];
    if how & 4 == 0 {
        format!("{interpreter} {flag} '{quoted}'")
    } else {
        format!("{interpreter} <<'PROG'\n{program}\nPROG")
    }
}

#[test]
fn random_inline_programs() {
    on_small_stack(|| {
        let mut runner = TestRunner::new(Config {
            cases: 2000,
            failure_persistence: None,
            ..Config::default()
        });
        let lines = (
            prop::collection::vec(prop::sample::select(PROGRAM_FRAGMENTS), 0..24),
            any::<u8>(),
        )
            .prop_map(|(parts, how)| program_line(&parts, how));
        runner
            .run(&lines, |line| check(&line))
            .expect("every inline program keeps the properties");
    });
}

/// Long programs, nested `eval`s and deep nesting cost in proportion to their length.
#[test]
fn inline_programs_cost_in_proportion() {
    on_small_stack(|| {
        let mut runner = TestRunner::new(Config {
            cases: 16,
            failure_persistence: None,
            ..Config::default()
        });
        let long = (
            prop::collection::vec(prop::sample::select(PROGRAM_FRAGMENTS), 1..16),
            any::<u8>(),
            2048..=LONGEST,
        )
            .prop_map(|(parts, how, len)| {
                let unit = parts.concat();
                program_line(&[&repeated(&unit, "\n", len)], how)
            });
        runner
            .run(&long, |line| costs_in_proportion(&line))
            .expect("an inline program costs in proportion to its length");
        for (unit, len) in [
            ("exec('", 4096),
            ("(", 8192),
            ("o.system(getattr(o, 'x')(", 8192),
            ("import os as o\no.system('rm -rf ~')\n", LONGEST),
            ("eval(\"eval('", 4096),
        ] {
            let line = program_line(&[&repeated(unit, "", len)], 0);
            costs_in_proportion(&line).expect("in proportion");
        }
    });
}

/// Pieces of SQL, Lua and client commands for the readers of data stores.
const SQL_FRAGMENTS: &[&str] = &[
    "DELETE FROM t",
    " WHERE ",
    "1=1",
    " OR ",
    " AND ",
    "(",
    ")",
    "'",
    "\"",
    "`",
    "$$",
    "$a$",
    "--",
    "#",
    "/*",
    "*/",
    "/*!",
    ";",
    "\n",
    "\\",
    "\\!",
    ".shell ",
    "WITH x AS ",
    "SELECT ",
    "EXPLAIN ANALYZE ",
    "DO ",
    "UPDATE t SET a = 1",
    "DROP TABLE t",
    "E'",
    "id = id",
    "NOT ",
    "redis.call('FLUSHALL')",
    "redis.call(",
    "é",
    "\u{0}",
];

/// SQL, whatever its shape, fed to the clients costs in proportion to its length and never
/// panics: on a heredoc (read line by line as psql and sqlite3 would), and piped from printf.
#[test]
fn store_readers_cost_in_proportion() {
    on_small_stack(|| {
        let mut runner = TestRunner::new(Config {
            cases: 32,
            failure_persistence: None,
            ..Config::default()
        });
        let lines = (
            prop::collection::vec(prop::sample::select(SQL_FRAGMENTS), 1..24),
            64..=LONGEST,
            0..4usize,
        )
            .prop_map(|(parts, len, client)| {
                let body = repeated(&parts.concat(), "", len).replace("\nEOF", "\nE0F");
                match client {
                    0 => format!("psql <<'EOF'\n{body}\nEOF"),
                    1 => format!("sqlite3 app.db <<'EOF'\n{body}\nEOF"),
                    2 => format!("mysql <<'EOF'\n{body}\nEOF"),
                    _ => format!("redis-cli <<'EOF'\nEVAL \"{body}\" 0\nEOF"),
                }
            });
        runner
            .run(&lines, |line| costs_in_proportion(&line))
            .expect("a data store's input costs in proportion to its length");
    });
}

/// Deep nesting in SQL (each parenthesis a statement with its own condition) and long
/// conditions are read in time linear in the text.
#[test]
fn nested_sql_costs_in_proportion() {
    on_small_stack(|| {
        for unit in [
            "(DELETE FROM t WHERE ",
            "DELETE FROM t WHERE (((((",
            "1=1 OR ",
            "(1=1) AND ",
            "DO $$ BEGIN ",
        ] {
            let body = repeated(unit, "", LONGEST);
            for line in [
                format!("psql <<'EOF'\n{body}\nEOF"),
                format!("mysql -e \"{body}\""),
            ] {
                let (_, allocations, _) = counted(|| shell(&line, &CTX));
                let len = line.len() as u64;
                assert!(
                    allocations <= ALLOCATIONS_PER_BYTE * len + ALLOCATIONS_BASE,
                    "{unit}: {allocations} allocations for {len} bytes"
                );
            }
        }
    });
}

/// A function defined on the line is read again for calls that give it arguments, a bounded
/// number of times: a line of calls, or a function that calls itself, stays in proportion.
#[test]
fn function_calls_cost_in_proportion() {
    on_small_stack(|| {
        let body = format!("f() {{ {} }}; ", "cat \"$1\" ~/x; ".repeat(200));
        for line in [
            format!(
                "{body}{}",
                "f ~/.ssh/id_rsa; ".repeat((LONGEST - body.len()) / 17)
            ),
            repeated("f() { f \"$1\" \"$1\"; }; f x", "; ", LONGEST),
            format!(
                "g() {{ bash -c 'g \"$0\"' \"$1\"; }}; {}",
                "g a; ".repeat(LONGEST / 6)
            ),
        ] {
            costs_in_proportion(&line).expect("in proportion");
        }
    });
}

/// Found by `cut_lines_agree_with_whole_ones`: text `echo` prints exactly is fed to a shell
/// after it as a here-string would be, whether the pipeline is cut in pieces or walked whole.
#[test]
fn an_exact_printer_before_a_shell_agrees_cut_or_whole() {
    for line in [
        "cd / | echo hi | sh",
        "echo 'rm -rf ~' | cat | sh",
        "a | b | echo 'rm -rf ~' | bash",
        "true | printf 'ls\\n' | sh",
    ] {
        let (cut, whole) = (shell(line, &CTX), shell_unsplit(line, &CTX));
        assert_eq!(cut.level, whole.level, "{line}");
        let commands = |a: &Analysis| {
            let mut c: Vec<(String, Vec<String>, std::ops::Range<usize>)> = a
                .commands
                .iter()
                .map(|c| (c.path.clone(), c.argv.clone(), c.span.clone()))
                .collect();
            c.sort_by(|a, b| (a.2.start, &a.1).cmp(&(b.2.start, &b.1)));
            c.into_iter()
                .map(|(_, argv, span)| (argv, span))
                .collect::<Vec<_>>()
        };
        assert_eq!(commands(&cut), commands(&whole), "{line}");
    }
}

/// A file written on the line that runs itself (`echo '. /tmp/y; . /tmp/y' > /tmp/y; . /tmp/y`)
/// is read again a few times, then opaque: its cost does not double with each level.
#[test]
fn files_that_run_themselves_cost_in_proportion() {
    on_small_stack(|| {
        for line in [
            "echo '. /tmp/y; . /tmp/y; . /tmp/y; . /tmp/y' > /tmp/y; . /tmp/y",
            "echo 'bash /tmp/x; bash /tmp/x' > /tmp/x; bash /tmp/x",
            "echo \"import os; os.system('python3 /tmp/p.py'); os.system('python3 /tmp/p.py')\" > /tmp/p.py; python3 /tmp/p.py",
        ] {
            let (a, allocations, _) = counted(|| shell(line, &CTX));
            assert!(a.level >= Level::Opaque, "{line}: {:?}", a.level);
            assert!(allocations <= 40_000, "{line}: {allocations} allocations");
        }
    });
}
