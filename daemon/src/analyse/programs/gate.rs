//! The gate's own programs, and how other programs reach the gate.
//!
//! `assent` asks the gate (`check`, `explain`, `status`, `pending`, `log`: nothing changes) or
//! answers and reconfigures it (`approve`, `deny`, `remembered` or `rules`, `forget`); `assent
//! run CMD` and `assent sh -c TEXT` run what they are given once the gate allows it, so what
//! runs is judged here as it would be without them. `assentd` and `assent-notify` start a daemon or an
//! approval agent. Elsewhere, `systemctl` on the gate's units, `kill`/`pkill`/`killall` of its
//! processes and clients of its socket are the gate's place too (the socket is in the
//! vocabulary; units and process names are here, the notification servers' in `channel`).
//! Every change to the gate is one of the level table's `gate` cells: an agent may not answer
//! or switch off its own gate.

use regex::RegexBuilder;

use crate::places::Glob;

use super::super::State;
use super::super::act::Site;
use super::super::catalogue;
use super::super::getopt::Args;
use super::super::recurse::{Ctx, Job};
use super::super::words::Word;
use super::channel;

/// `assent` subcommands that only ask or show.
const ASKS: &[&str] = &[
    "check",
    "explain",
    "status",
    "pending",
    "log",
    "tool",
    "hook",
    "init",
    "completions",
    "man",
    "help",
    "__resume",
];

/// `assent` options (before the subcommand, or of `run`) that take a value.
const WITH_VALUE: &[&str] = &["--socket", "--origin", "--session", "--cwd"];

/// The names the gate's processes run under (`comm`) and the command lines they are started
/// with, which `pkill -f`, `pgrep` and `killall` patterns are tried against.
const PROCESSES: &[&str] = &[
    "assentd",
    "assent-notify",
    "/usr/bin/assentd --system",
    "assentd --user",
    "/usr/bin/assent-notify",
];

/// The gate's systemd units (system and user).
const UNITS: &[&str] = &["assentd.service", "assentd.socket", "assent-notify.service"];

fn report(site: &mut Site, said: catalogue::Said, words: &[Word]) {
    let shown: Vec<&str> = words.iter().take(3).map(|w| w.raw).collect();
    site.say(said, &shown.join(" "));
}

/// `assent`, `assent-sh`, `assentd`, `assent-notify`.
pub fn assent<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    jobs: &mut Vec<Job<'s>>,
) -> bool {
    let words = &job.words;
    let span = at.span_of(words);
    let mut site = Site::new("assent", Args::default(), span, st);
    match name {
        "assent-sh" => {
            // A shell: `assent-sh -c TEXT` runs TEXT with bash once the gate allows it.
            let mut shell: Vec<Word<'s>> = words.to_vec();
            shell[0] = Word::made("bash".to_owned(), shell[0].raw, shell[0].span.clone());
            jobs.push(job.runs(shell.into(), "assent-sh"));
        }
        "assentd" | "assent-notify" => {
            let inert = words[1..].iter().any(|w| {
                matches!(
                    w.literal(),
                    Some("-h" | "--help" | "-V" | "--version" | "--check-policy")
                ) || w.text.starts_with("--completions")
                    || w.text.starts_with("--man")
                    || w.text.starts_with("--check-policy=")
            });
            if !inert {
                report(&mut site, catalogue::GATE_APPROVER, words);
            }
        }
        _ => {
            let mut i = 1;
            while let Some(w) = words.get(i) {
                let t = w.text.as_str();
                if w.dynamic || !t.starts_with('-') {
                    break;
                }
                if matches!(t, "-h" | "--help" | "-V" | "--version") {
                    site.report();
                    return true;
                }
                i += if WITH_VALUE.contains(&t) { 2 } else { 1 };
            }
            let sub = words.get(i);
            match sub.and_then(Word::literal) {
                Some("run") => run(job, i + 1, jobs),
                Some("sh") => {
                    let mut sh = words.starting_at(i);
                    door_options_out(sh.to_mut());
                    jobs.push(job.runs(sh, "assent sh"));
                }
                Some(s) if ASKS.contains(&s) => {}
                // `assent setup --check` only looks; any other setup installs or removes a
                // hook.
                Some("setup")
                    if words[i + 1..]
                        .iter()
                        .any(|w| w.literal() == Some("--check"))
                        && !words[i + 1..].iter().any(|w| {
                            w.dynamic || w.literal().is_some_and(|t| t == "--uninstall")
                        }) => {}
                None if sub.is_none() => {}
                // Answering, remembering, forgetting, and any subcommand the gate does not
                // know (or cannot read) of its own client.
                _ => report(&mut site, catalogue::GATE_ANSWER, words),
            }
        }
    }
    site.report();
    true
}

/// `assent sh --grant TOKEN --dir-fd N -c LINE` (the line an agent's hook rewrote): the door's
/// own options come out, so the shell after them runs LINE as the line says, not a script
/// named by the token. A door option whose value is only known at run time stays, and the
/// shell then reads it as the file it runs: opaque.
fn door_options_out(words: &mut Vec<Word<'_>>) {
    while let Some(t) = words.get(1).and_then(Word::literal) {
        match t {
            "--grant" | "--dir-fd" if words.get(2).is_some_and(|v| v.literal().is_some()) => {
                words.drain(1..3);
            }
            _ if t.starts_with("--grant=") || t.starts_with("--dir-fd=") => {
                words.remove(1);
            }
            _ => break,
        }
    }
}

/// `assent run [OPTIONS] [--] PROGRAM ARGS…`: the program runs once the gate allows it.
fn run<'s>(job: &Job<'s>, mut i: usize, jobs: &mut Vec<Job<'s>>) {
    let words = &job.words;
    while let Some(t) = words.get(i).and_then(Word::literal) {
        if t == "--" {
            i += 1;
            break;
        }
        if !t.starts_with('-') {
            break;
        }
        i += if WITH_VALUE.contains(&t) { 2 } else { 1 };
    }
    if i < words.len() {
        jobs.push(job.runs(words.starting_at(i), "assent run"));
    }
}

/// Whether a unit argument of `systemctl` or `service` names one of the gate's units: its
/// name (`assentd`, `assentd.service`, `assent-notify@1000`) or a glob that matches one.
pub fn names_unit(word: &Word) -> bool {
    let Some(text) = word.literal() else {
        return false;
    };
    let base = text.rsplit('/').next().unwrap_or(text);
    if base.starts_with("assent") {
        return true;
    }
    // The notification server's unit: `dunst`, `dunst.service`, `mako@1.service`.
    let stem = base.strip_suffix(".service").unwrap_or(base);
    if channel::serves_unit(stem.split('@').next().unwrap_or(stem)) {
        return true;
    }
    if base.contains(['*', '?', '[']) {
        let glob = Glob::parse(base);
        let servers = channel::unit_names().map(|stem| (stem, format!("{stem}.service")));
        return UNITS.iter().any(|unit| {
            glob.matches(unit)
                || unit
                    .rsplit_once('.')
                    .is_some_and(|(stem, _)| glob.matches(stem))
        }) || servers
            .into_iter()
            .any(|(stem, unit)| glob.matches(stem) || glob.matches(&unit));
    }
    false
}

/// Whether a process pattern could select one of the gate's processes: `regex` for `pkill`
/// and `pgrep` (a search in the name, or with `-f` the command line), else an exact name
/// (`killall`, `pidof`). A pattern too large to compile, or one the regex engine does not
/// take, is taken to match: what the gate cannot read is never safe.
pub fn names_process(pattern: &Word, regex: bool, st: &mut State) -> bool {
    // A pattern only known when the line runs is judged as any kill by name (held).
    let Some(text) = pattern.literal() else {
        return false;
    };
    pattern_names(text, regex, st).unwrap_or(true)
}

/// Regular expressions compiled per line to try patterns against the gate's processes; past
/// it, a pattern is taken as unreadable, so a line of a thousand `grep`s costs no more.
const MAX_PATTERNS: usize = 16;

/// Whether `text` as a pattern selects a gate process; `None` when it does not compile or the
/// line has used up [`MAX_PATTERNS`].
fn pattern_names(text: &str, regex: bool, st: &mut State) -> Option<bool> {
    if !regex {
        let base = text.rsplit('/').next().unwrap_or(text);
        return Some(processes().any(|p| p == base));
    }
    // No regular-expression syntax: a plain search for the text.
    if !text.contains(['.', '*', '+', '?', '[', '(', '|', '^', '$', '{', '\\']) {
        return Some(processes().any(|p| p.contains(text)));
    }
    if st.gate_patterns >= MAX_PATTERNS {
        return None;
    }
    st.gate_patterns += 1;
    let re = RegexBuilder::new(text)
        .size_limit(1 << 16)
        .dfa_size_limit(1 << 16)
        .build()
        .ok()?;
    Some(processes().any(|p| re.is_match(p)))
}

/// The gate's processes and the notification servers that show its held requests.
fn processes() -> impl Iterator<Item = &'static str> {
    PROCESSES.iter().chain(channel::SERVERS).copied()
}

/// Programs that pick out processes by name, or filter a process list (`ps aux | grep
/// assent`), and whether their patterns are regular expressions.
const LOOKUPS: &[(&str, bool)] = &[
    ("pidof", false),
    ("pgrep", true),
    ("grep", true),
    ("egrep", true),
    ("fgrep", true),
    ("rg", true),
    ("awk", true),
    ("gawk", true),
    ("mawk", true),
];

/// Notes on the line that `name` looks up the gate's processes, when one of its words could
/// name them (as a pattern, or holding the gate's name, as an awk program's `/assent/` does).
/// `kill` of pids only known at run time on the same line then kills the gate.
pub fn looks_up(name: &str, args: &[Word], st: &mut State) {
    let Some((_, regex)) = LOOKUPS.iter().find(|(n, _)| *n == name) else {
        return;
    };
    if st.gate_lookup {
        return;
    }
    for t in args.iter().filter_map(Word::literal) {
        // A short text is in too many names to say the line looks for the gate's.
        if !t.starts_with('-')
            && t.len() >= 4
            && (t.to_ascii_lowercase().contains("assent")
                || pattern_names(t, *regex, st).unwrap_or(false))
        {
            st.gate_lookup = true;
            return;
        }
    }
}

/// A coding agent, and how it is told to act without asking: options alone, and options with
/// their value (`--permission-mode bypassPermissions`, or written with `=`).
type Unchecked = (
    &'static str,
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
);

/// The coding agents the gate knows of.
const AGENTS: &[Unchecked] = &[
    (
        "claude",
        &["--dangerously-skip-permissions"],
        &[("--permission-mode", "bypassPermissions")],
    ),
    (
        "codex",
        &["--dangerously-bypass-approvals-and-sandbox", "--yolo"],
        &[
            ("--sandbox", "danger-full-access"),
            ("-s", "danger-full-access"),
        ],
    ),
    ("gemini", &["--yolo", "-y"], &[("--approval-mode", "yolo")]),
    ("qwen", &["--yolo", "-y"], &[("--approval-mode", "yolo")]),
    ("aider", &["--yes-always"], &[]),
    ("cursor-agent", &["--force", "-f"], &[]),
];

/// How each agent is told to read its settings, hooks included, from elsewhere than where
/// `assent setup` put them: an environment variable, or an option with any value.
/// (Each agent finds its settings, hooks among them, below `HOME` when nothing else says.)
const ELSEWHERE: &[(&str, &[&str], &[&str])] = &[
    (
        "claude",
        &["CLAUDE_CONFIG_DIR", "HOME"],
        &["--settings", "--setting-sources"],
    ),
    ("codex", &["CODEX_HOME", "HOME"], &[]),
    ("gemini", &["GEMINI_CLI_HOME", "HOME"], &[]),
];

/// Codex's `-c KEY=VALUE` overrides that reach its hooks, sandbox or approvals.
const CODEX_OVERRIDES: &[&str] = &["hook", "sandbox", "approval"];

/// An agent started with an environment variable that moves its settings, hooks included:
/// the variable's name, for the finding.
pub fn agent_settings_moved<'e>(program: &str, env: &'e [(String, Word)]) -> Option<&'e str> {
    let (_, vars, _) = ELSEWHERE.iter().find(|(agent, _, _)| *agent == program)?;
    env.iter()
        .map(|(name, _)| name.as_str())
        .find(|name| vars.contains(name))
}

/// Another coding agent started with its own permission checks off, or told to read its
/// settings from elsewhere, and the words that do it: what it then runs reaches the gate only
/// through its own hooks, if they are set up.
pub fn unchecked_agent(name: &str, args: &[Word]) -> Option<String> {
    let moved = |options: &[&str], w: &Word| {
        options
            .iter()
            .any(|o| w.text == *o || w.text.strip_prefix(o).is_some_and(|r| r.starts_with('=')))
    };
    if let Some((_, _, options)) = ELSEWHERE.iter().find(|(agent, _, _)| *agent == name)
        && let Some(option) = args.iter().find(|w| moved(options, w))
    {
        return Some(option.raw.to_owned());
    }
    if name == "codex" {
        let overrides = args.windows(2).filter_map(|pair| {
            matches!(pair[0].text.as_str(), "-c" | "--config").then_some(&pair[1])
        });
        for value in overrides {
            let key = value
                .text
                .split('=')
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            if value.dynamic || CODEX_OVERRIDES.iter().any(|k| key.contains(k)) {
                return Some(format!("-c {}", value.raw));
            }
        }
    }
    let (_, alone, valued) = AGENTS.iter().find(|(agent, _, _)| *agent == name)?;
    let words: Vec<&str> = args.iter().filter_map(Word::literal).collect();
    for (i, word) in words.iter().enumerate() {
        if alone.contains(word) {
            return Some((*word).to_owned());
        }
        for (option, value) in *valued {
            let joined = word
                .strip_prefix(option)
                .and_then(|rest| rest.strip_prefix('='))
                .is_some_and(|v| v == *value);
            let split = *word == *option && words.get(i + 1) == Some(value);
            if joined || split {
                return Some(format!("{option} {value}"));
            }
        }
    }
    None
}
