//! Exhaustion of the machine by anything but the classic fork bomb (`scope`): a loop that
//! never ends, or runs a huge number of times, and starts a process in the background or
//! creates a file under a new name each time (`while :; do sleep 1 & done`, `for i in $(seq
//! 1 10000000); do touch f$i; done`); parallelism without a bound (`xargs -P 0`, `parallel
//! -j0`). Each is reported as stopping the machine. (An inline program that forks in an
//! endless loop is the inline readers' to tell: `interp/loops.rs`.)
//!
//! It reads the shape of the loop and the text of its body; it does not run or count anything.

use tree_sitter::Node;

use super::catalogue;
use super::words::text;
use super::{Source, State, kind};

/// Iterations from which a loop is taken as a flood: far past what a person writes a loop
/// for by hand, well below what fills a process table or a directory.
const HUGE: u64 = 10_000;

/// Programs that create a file or directory each time they run under a new name.
const CREATES: &[&str] = &[
    "touch",
    "mkdir",
    "mktemp",
    "cp",
    "dd",
    "fallocate",
    "truncate",
    "ln",
    "tee",
    "mkfifo",
];

/// How long a loop runs, read from its head.
#[derive(Debug, PartialEq, Eq)]
enum Runs {
    Forever,
    Huge,
    Bounded,
}

/// `while`/`until`/`for` loops: reports a flood of processes or files.
pub fn loop_statement(node: Node, src: &Source, st: &mut State) {
    let runs = runs(node, &src.text);
    if runs == Runs::Bounded {
        return;
    }
    let Some(body) = node.child_by_field_name("body") else {
        return;
    };
    let span = src.map.span(node.byte_range());
    let shown = format!("`{}`", short(text(node, &src.text)));
    if in_background(body) {
        st.add(catalogue::PROCESS_FLOOD.at(span, &shown));
    } else if creates_new_names(body, &src.text, runs == Runs::Forever) {
        st.add(catalogue::FILE_FLOOD.at(span, &shown));
    }
}

/// The first line of a loop, cut, for a message.
fn short(t: &str) -> String {
    let line = t.lines().next().unwrap_or("");
    match line.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}

fn runs(node: Node, src: &str) -> Runs {
    let all = text(node, src);
    match kind(node) {
        "while_statement" => {
            let cond: String = node
                .children_by_field_name("condition", &mut node.walk())
                .map(|c| text(c, src))
                .collect::<Vec<_>>()
                .join(" ");
            let cond = cond.trim().trim_end_matches([';', '&']).trim();
            let until = all.starts_with("until");
            // `while sleep 1`: a pause succeeds every time.
            let pause = cond.starts_with("sleep ") && !until;
            let always = if until {
                matches!(cond, "false" | "/bin/false" | "[ ]" | "((0))" | "(( 0 ))")
            } else {
                matches!(
                    cond,
                    "true" | ":" | "/bin/true" | "[ 1 ]" | "[[ 1 ]]" | "((1))" | "(( 1 ))"
                )
            };
            if always || pause {
                Runs::Forever
            } else {
                Runs::Bounded
            }
        }
        "c_style_for_statement" => {
            let head = all
                .split_once("((")
                .and_then(|(_, rest)| rest.split_once("))"))
                .map_or("", |(head, _)| head);
            let mut parts = head.split(';');
            let cond = parts.nth(1).unwrap_or("x").trim();
            if cond.is_empty() || cond == "1" {
                Runs::Forever
            } else if largest_number(cond) >= HUGE {
                Runs::Huge
            } else {
                Runs::Bounded
            }
        }
        "for_statement" => {
            let head = all.split_once(" do").map_or(all, |(head, _)| head);
            let counts = head.contains("seq") || head.contains("..") || head.contains("range");
            if head.contains("seq inf") || head.contains("yes") {
                Runs::Forever
            } else if counts && largest_number(head) >= HUGE {
                Runs::Huge
            } else {
                Runs::Bounded
            }
        }
        _ => Runs::Bounded,
    }
}

/// The largest whole number written in `t` (`1e6` and `10**7` read as what they are).
fn largest_number(t: &str) -> u64 {
    let mut best = 0u64;
    let bytes = t.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let n: u64 = t[start..i].parse().unwrap_or(u64::MAX);
        // `1e6`: a mantissa and an exponent.
        let n = if bytes.get(i) == Some(&b'e') {
            let exp_start = i + 1;
            let mut j = exp_start;
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            let exp: u32 = t[exp_start..j].parse().unwrap_or(0);
            i = j;
            n.saturating_mul(10u64.saturating_pow(exp))
        } else {
            n
        };
        best = best.max(n);
    }
    best
}

/// A statement of the body sent to the background (`cmd &`), outside any function or
/// substitution defined in it.
fn in_background(body: Node) -> bool {
    let mut stack = vec![body];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match kind(child) {
                "&" => return true,
                "function_definition" | "command_substitution" | "string" | "raw_string" => {}
                _ => stack.push(child),
            }
        }
    }
    false
}

/// A command of the body that creates a file whose name changes each time (`touch f$i`,
/// `mkdir d$RANDOM`, `mktemp`, `> out.$i`), or any file at all in a loop that never ends.
fn creates_new_names(body: Node, src: &str, forever: bool) -> bool {
    let mut stack = vec![body];
    while let Some(node) = stack.pop() {
        match kind(node) {
            "command" => {
                let name = node
                    .child_by_field_name("name")
                    .map(|n| text(n, src))
                    .unwrap_or("");
                let name = name.rsplit('/').next().unwrap_or(name);
                let args_vary = text(node, src).contains('$');
                if CREATES.contains(&name) && (name == "mktemp" || args_vary || forever) {
                    return true;
                }
            }
            "file_redirect" => {
                let t = text(node, src);
                let writes = t.starts_with('>') || t.starts_with("&>") || t.starts_with("1>");
                if writes && t.contains('$') && !t.contains("/dev/null") {
                    return true;
                }
            }
            "function_definition" | "command_substitution" => continue,
            _ => {}
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    false
}

/// A script that starts itself again in the background or in a pipeline (`$0 & $0`, `bash
/// "$0" | bash "$0" &`): a fork bomb written as a file rather than a function. Run by the line,
/// the file's text is walked like the line's (`$0` is the script there).
pub fn runs_itself(root: Node, src: &Source, st: &mut State) {
    const SELF: &[&str] = &[
        "$0",
        "\"$0\"",
        "${0}",
        "\"${0}\"",
        "$BASH_SOURCE",
        "\"$BASH_SOURCE\"",
    ];
    const RUNNERS: &[&str] = &[
        "bash", "sh", "dash", "zsh", "ksh", "exec", "nohup", "setsid",
    ];
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if kind(node) == "command" {
            let name = node
                .child_by_field_name("name")
                .map_or("", |n| text(n, &src.text));
            let first = node
                .child_by_field_name("argument")
                .map_or("", |n| text(n, &src.text));
            let itself = SELF.contains(&name) || (RUNNERS.contains(&name) && SELF.contains(&first));
            if itself && in_parallel(node) {
                let span = src.map.span(node.byte_range());
                let shown = format!(
                    "`{}`, a script that starts itself again,",
                    text(node, &src.text)
                );
                st.add(catalogue::PROCESS_FLOOD.at(span, &shown));
                return;
            }
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
}

/// A command sent to the background or standing in a pipeline.
fn in_parallel(node: Node) -> bool {
    let mut at = node;
    loop {
        if at.next_sibling().is_some_and(|s| kind(s) == "&") {
            return true;
        }
        let Some(parent) = at.parent() else {
            return false;
        };
        if kind(parent) == "pipeline" {
            return true;
        }
        at = parent;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_read_as_written() {
        for (t, n) in [
            ("1 10000000", 10_000_000),
            ("i<1e6", 1_000_000),
            ("x", 0),
            ("{1..5}", 5),
        ] {
            assert_eq!(largest_number(t), n, "{t}");
        }
    }
}
