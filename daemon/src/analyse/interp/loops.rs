//! Loops without end in inline programs, and processes made in them: `while True: os.fork()`,
//! `loop { fork }`, `for(;;) spawn(…)`, `[os.fork() for _ in iter(int, 1)]` copy processes
//! until the machine cannot make another, in any language as in the shell's `:(){ :|:& };:`.
//! A loop is without end when its condition is a constant true (`True`, `1`, `true`, none at
//! all in `for(;;)`) or it walks an endless iterator (`iter(int, 1)`, `itertools.count()`);
//! a loop that ends (`for i in range(3)`) makes as many processes as it says, which is no
//! exhaustion. Perl, which is scanned rather than parsed, is read from its text.

use tree_sitter::Node;

/// Whether a node of any of the parsed languages is a loop without end, its body included.
pub fn endless(node: Node, src: &str) -> bool {
    let text = |n: Node| src.get(n.byte_range()).unwrap_or("");
    let cond = node.child_by_field_name("condition");
    match node.kind() {
        // Python, JavaScript, PHP `while`; Ruby `while` and `x while true`; `do … while`.
        "while_statement" | "while" | "while_modifier" | "do_statement" => {
            cond.is_some_and(|c| always(text(c)))
        }
        "until" | "until_modifier" => cond.is_some_and(|c| never(text(c))),
        // C-style `for (;;)`: no condition at all.
        "for_statement" if node.child_by_field_name("right").is_none() => {
            text(node)
                .chars()
                .filter(|c| !c.is_whitespace())
                .take(7)
                .eq("for(;;)".chars())
                || cond.is_some_and(|c| always(text(c).trim_end_matches(';')))
        }
        // Python `for _ in iter(int, 1)`, and comprehensions over one.
        "for_statement" | "for_in_clause" => node
            .child_by_field_name("right")
            .is_some_and(|r| endless_iterator(text(r))),
        "list_comprehension"
        | "set_comprehension"
        | "dictionary_comprehension"
        | "generator_expression" => {
            let mut cursor = node.walk();
            node.named_children(&mut cursor).any(|c| {
                c.kind() == "for_in_clause"
                    && c.child_by_field_name("right")
                        .is_some_and(|r| endless_iterator(text(r)))
            })
        }
        // Ruby's `loop do … end` / `loop { … }`.
        "call" => {
            node.child_by_field_name("receiver").is_none()
                && node
                    .child_by_field_name("method")
                    .is_some_and(|m| text(m) == "loop")
                && node.child_by_field_name("block").is_some()
        }
        _ => false,
    }
}

/// A condition that is always true: `True`, `true`, `1`, `(1)`, `!0`, `!false`.
fn always(cond: &str) -> bool {
    let c = cond
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    matches!(c, "True" | "true" | "!0" | "!false" | "not False" | "not 0")
        || c.parse::<i64>().is_ok_and(|n| n != 0)
}

/// A condition that is always false (for `until`).
fn never(cond: &str) -> bool {
    let c = cond
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    matches!(c, "false" | "nil" | "0")
}

/// An iterator that never ends: `iter(int, 1)` (a sentinel `int()` never returns),
/// `itertools.count()`, `itertools.cycle(x)`, `itertools.repeat(x)` without a count.
fn endless_iterator(expr: &str) -> bool {
    let e: String = expr.chars().filter(|c| !c.is_whitespace()).collect();
    let call = e.rsplit('.').next().unwrap_or(&e);
    e.starts_with("iter(int,")
        || call.starts_with("count(")
        || call.starts_with("cycle(")
        || (call.starts_with("repeat(") && !call.contains(','))
}

/// Whether a call makes a process: by what the tables say it does (runs a command), or by
/// its name (`os.fork`, `pcntl_fork`, `Process.spawn`, `subprocess.Popen`).
pub fn makes_process(name: &str, runs: bool) -> bool {
    let last = name.rsplit(['.', ':']).next().unwrap_or(name);
    runs || matches!(
        last,
        "fork"
            | "forkpty"
            | "vfork"
            | "pcntl_fork"
            | "spawn"
            | "spawnSync"
            | "Popen"
            | "fork_exec"
            | "posix_spawn"
            | "posix_spawnp"
            | "execFile"
            | "exec"
            | "execSync"
            | "system"
            | "popen"
            | "proc_open"
            | "shell_exec"
            | "passthru"
            | "Process"
    ) || last.starts_with("spawn")
}

/// Perl, scanned: a loop without end (`while 1`, `while (1)`, `for (;;)`, `until 0`, or a
/// statement modifier) in a program that forks.
pub fn perl_fork_loop(code: &str) -> bool {
    let flat: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    let endless = [
        "while1",
        "while(1)",
        "for(;;)",
        "until0",
        "until(0)",
        "while(!0)",
    ]
    .iter()
    .any(|l| flat.contains(l));
    endless && flat.contains("fork")
}

#[cfg(test)]
mod tests {
    use super::{always, endless_iterator, perl_fork_loop};

    #[test]
    fn conditions_and_iterators() {
        assert!(always("True") && always("(1)") && always("true") && always("!0"));
        assert!(!always("x < 3") && !always("0") && !always("running"));
        assert!(endless_iterator("iter(int, 1)") && endless_iterator("itertools.count()"));
        assert!(!endless_iterator("range(3)") && !endless_iterator("itertools.repeat(x, 3)"));
        assert!(perl_fork_loop("fork while 1") && perl_fork_loop("while(1){fork()}"));
        assert!(!perl_fork_loop("for (1..3) { print }") && !perl_fork_loop("my $p = fork;"));
    }
}
