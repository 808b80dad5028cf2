//! Whether an installed hook will gate, as pure judgements `setup --check` and `setup` make
//! from what the settings say: the matcher sends the agent's shell and file tools to the hook,
//! the agent waits longer than a call may be held (every agent kills a slow hook and RUNS the
//! command: it fails open), and the program the hook runs is not one `cargo clean` removes.

/// How long the daemon holds a call for a person by default (`assentd --hold-ttl`, 5 min):
/// an agent that kills the hook sooner runs a held call unanswered. `setup --check` grades
/// against the running daemon's own hold (`assent status`) and falls back to this when the
/// gate does not answer.
pub const HOLD_SECS: u64 = 300;

/// The tools an agent's matcher must send to the hook: its shell tool first, then the tools
/// that write files.
pub fn gated_tools(agent: &str) -> &'static [&'static str] {
    match agent {
        "claude-code" => &["Bash", "Write", "Edit", "MultiEdit", "NotebookEdit"],
        "codex" => &["Bash", "apply_patch"],
        "gemini" => &["run_shell_command", "write_file", "replace"],
        _ => &[],
    }
}

/// The tools in `tools` that `matcher` does not send to the hook. A missing, empty, `*` or
/// `.*` matcher takes every tool; otherwise the matcher is read as `A|B|C` (anchors allowed),
/// the form the agents document. A pattern beyond that is not evaluated, so its tools count
/// as missing: `--check` would rather send a person to look than say "installed" wrongly.
pub fn missing_tools<'a>(matcher: Option<&str>, tools: &[&'a str]) -> Vec<&'a str> {
    let matcher = matcher.unwrap_or("").trim();
    if matches!(matcher, "" | "*" | ".*" | "^.*$") {
        return Vec::new();
    }
    let names: Vec<&str> = matcher
        .trim_start_matches('^')
        .trim_end_matches('$')
        .trim_start_matches('(')
        .trim_end_matches(')')
        .split('|')
        .map(str::trim)
        .collect();
    tools
        .iter()
        .copied()
        .filter(|tool| !names.contains(tool))
        .collect()
}

/// The agent's own timeout for the hook in seconds, from the entry's `timeout` (Gemini CLI
/// counts milliseconds) or the agent's default when there is none.
pub fn timeout_secs(agent: &str, timeout: Option<u64>) -> u64 {
    match agent {
        // Claude Code's default hook timeout is 60 s, Gemini CLI's 60 000 ms, Codex's 600 s.
        "claude-code" => timeout.unwrap_or(60),
        "gemini" => timeout.unwrap_or(60_000) / 1000,
        _ => timeout.unwrap_or(600),
    }
}

/// Whether `path` is a build product that `cargo clean` or the next build removes or
/// replaces: under a `target/debug` or `target/release`, or in any directory laid out as
/// cargo's profile directory (`.fingerprint` beside it: a `CARGO_TARGET_DIR` elsewhere).
pub fn in_build_tree(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let named = parts
        .windows(2)
        .any(|pair| pair[0] == "target" && matches!(pair[1], "debug" | "release"));
    named
        || std::path::Path::new(path)
            .parent()
            .is_some_and(|dir| dir.join(".fingerprint").is_dir() && dir.join("deps").is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchers_are_graded_against_the_agents_tools() {
        let cases: &[(&str, Option<&str>, &[&str])] = &[
            ("claude-code", None, &[]),
            ("claude-code", Some("*"), &[]),
            ("claude-code", Some(""), &[]),
            (
                "claude-code",
                Some("Bash"),
                &["Write", "Edit", "MultiEdit", "NotebookEdit"],
            ),
            (
                "claude-code",
                Some("Bash|Write|Edit|MultiEdit|NotebookEdit"),
                &[],
            ),
            (
                "claude-code",
                Some("Write|Edit"),
                &["Bash", "MultiEdit", "NotebookEdit"],
            ),
            (
                "claude-code",
                Some("Ba.*"),
                &["Bash", "Write", "Edit", "MultiEdit", "NotebookEdit"],
            ),
            ("codex", Some("*"), &[]),
            ("codex", Some("^Bash$"), &["apply_patch"]),
            ("codex", Some("^(Bash|apply_patch)$"), &[]),
            ("gemini", Some(".*"), &[]),
            (
                "gemini",
                Some("run_shell_command"),
                &["write_file", "replace"],
            ),
        ];
        for (agent, matcher, missing) in cases {
            assert_eq!(
                missing_tools(*matcher, gated_tools(agent)),
                *missing,
                "{agent} {matcher:?}"
            );
        }
    }

    #[test]
    fn timeouts_are_read_in_the_agents_units() {
        assert_eq!(timeout_secs("claude-code", Some(600)), 600);
        assert_eq!(timeout_secs("claude-code", None), 60);
        assert_eq!(timeout_secs("codex", None), 600);
        assert_eq!(timeout_secs("gemini", Some(600_000)), 600);
        assert_eq!(timeout_secs("gemini", Some(60_000)), 60);
        assert_eq!(timeout_secs("gemini", None), 60);
    }

    #[test]
    fn build_products_are_told_from_installed_programs() {
        for path in [
            "/home/u/src/assent/target/debug/assent",
            "/home/u/src/assent/target/release/assent",
        ] {
            assert!(in_build_tree(path), "{path}");
        }
        for path in [
            "/usr/bin/assent",
            "/usr/local/bin/assent",
            "/home/u/.cargo/bin/assent",
            "/opt/target/bin/assent",
            "/home/debug/bin/assent",
        ] {
            assert!(!in_build_tree(path), "{path}");
        }
        // A CARGO_TARGET_DIR elsewhere is known by its layout: this test runs from one.
        let me = std::env::current_exe().expect("the test knows its path");
        let deps = me.parent().expect("in deps");
        let beside = deps.parent().expect("a profile directory").join("assent");
        assert!(
            in_build_tree(&beside.to_string_lossy()),
            "{}",
            beside.display()
        );
    }
}
