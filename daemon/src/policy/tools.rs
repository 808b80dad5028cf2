//! Tool calls: the risk registry and the analysis of a call's arguments.
//!
//! The registry holds seed 002's tools (SAFE, MODERATE, DESTRUCTIVE become the levels safe,
//! moderate, destructive), seed 001's task tools, and the tools of the coding agents whose
//! hooks call assent; a policy's `[tools]` table adds to it or changes an entry. A tool not in
//! the registry is held (fail closed). The arguments add findings: a path-like argument that
//! names a secret or, for a tool that writes, a protected place; a shell-command argument,
//! analysed as shell. Hostile JSON is bounded by the packet limit and serde_json's recursion
//! limit (128). Pure: no I/O.

use assent_client::protocol::Level;
use serde_json::Value;

use super::{Policy, paths};
use crate::analyse::{self, Analysis, Finding};

/// Argument names that hold a path.
pub const PATH_KEYS: &[&str] = &[
    "path",
    "file_path",
    "filepath",
    "file",
    "filename",
    "notebook_path",
    "target",
    "destination",
    "dest",
    "src",
    "source",
    "dir",
    "directory",
    "paths",
    "files",
];

/// Argument names that hold a shell command.
pub const COMMAND_KEYS: &[&str] = &["command", "cmd", "script"];

/// The finding ids this module reports (for the never-matching-rule warning).
pub const FINDING_IDS: &[&str] = &[
    "tool.safe",
    "tool.moderate",
    "tool.destructive",
    "tool.unknown",
    "tool.bad_args",
    "tool.sensitive_path",
    "tool.protected_path",
];

/// The built-in registry: name and level.
pub const BUILT_IN: &[(&str, Level)] = &[
    // Seed 002: SAFE.
    ("web.search", Level::Safe),
    ("web.open", Level::Safe),
    ("calendar.list_events", Level::Safe),
    ("calendar.find_event", Level::Safe),
    ("file.read", Level::Safe),
    ("vision.screenshot", Level::Safe),
    ("vision.analyze", Level::Safe),
    // Seed 002: MODERATE.
    ("calendar.create_event", Level::Moderate),
    ("calendar.update_event", Level::Moderate),
    ("notification.send", Level::Moderate),
    ("clipboard.set", Level::Moderate),
    ("file.write", Level::Moderate),
    ("browser.open", Level::Moderate),
    ("email.send", Level::Moderate),
    // Seed 002: DESTRUCTIVE.
    ("calendar.delete_event", Level::Destructive),
    ("file.delete", Level::Destructive),
    ("file.move", Level::Destructive),
    ("browser.submit_form", Level::Destructive),
    ("payment.submit", Level::Destructive),
    ("system.shutdown", Level::Destructive),
    ("system.execute_command", Level::Destructive),
    ("app.close", Level::Destructive),
    // Seed 001: reads never held, writes held below the confidence threshold.
    ("tasks.list", Level::Safe),
    ("tasks.get", Level::Safe),
    ("tasks.create", Level::Moderate),
    ("tasks.update", Level::Moderate),
    ("tasks.delete", Level::Destructive),
    // Seed 000: source edits and home control run; guard rules live in the policy.
    ("writeFile", Level::Moderate),
    ("commitAndPush", Level::Moderate),
    ("homeassistant", Level::Moderate),
    // Seed 003 (a coding agent's tools).
    ("read_file", Level::Safe),
    ("list_directory", Level::Safe),
    ("grep", Level::Safe),
    ("glob", Level::Safe),
    ("web_search", Level::Safe),
    ("write_file", Level::Moderate),
    ("edit_file", Level::Moderate),
    ("bash", Level::Safe),
    // Claude Code, Codex and Gemini CLI tools, for the hooks. Shell tools are safe by
    // themselves: their `command` argument is analysed and decides.
    ("Read", Level::Safe),
    ("Grep", Level::Safe),
    ("Glob", Level::Safe),
    ("LS", Level::Safe),
    ("WebFetch", Level::Safe),
    ("WebSearch", Level::Safe),
    ("TodoWrite", Level::Safe),
    ("Task", Level::Safe),
    ("Write", Level::Moderate),
    ("Edit", Level::Moderate),
    ("MultiEdit", Level::Moderate),
    ("NotebookEdit", Level::Moderate),
    ("Bash", Level::Safe),
    ("shell", Level::Safe),
    ("exec_command", Level::Safe),
    ("apply_patch", Level::Moderate),
    ("run_shell_command", Level::Safe),
    ("replace", Level::Moderate),
    ("search_file_content", Level::Safe),
    ("read_many_files", Level::Safe),
    ("web_fetch", Level::Safe),
    ("google_web_search", Level::Safe),
];

/// A tool call, analysed.
#[derive(Debug, Clone)]
pub struct ToolAnalysis {
    /// Level, findings, and the simple commands of a shell-command argument.
    pub analysis: Analysis,
    /// The arguments, when they parsed as JSON.
    pub args: Option<Value>,
    /// The path-like arguments, for rules' path globs.
    pub paths: Vec<String>,
}

impl Policy {
    /// The registered level of `name`: the policy's entry, else the built-in one.
    pub fn tool_level(&self, name: &str) -> Option<Level> {
        self.settings
            .tools
            .get(name)
            .copied()
            .or_else(|| BUILT_IN.iter().find(|(n, _)| *n == name).map(|(_, l)| *l))
    }
}

fn finding(id: &'static str, level: Level, message: String, end: usize) -> Finding {
    Finding {
        id,
        level,
        message,
        span: 0..end,
        cell: None,
    }
}

/// Analyse a tool call. `home` is the caller's home directory, for `~`.
pub fn classify(policy: &Policy, name: &str, args_json: &str, home: Option<&str>) -> ToolAnalysis {
    let end = args_json.len();
    let mut findings = Vec::new();
    let registered = policy.tool_level(name);
    match registered {
        Some(level) => {
            let id = match level {
                Level::Safe => "tool.safe",
                Level::Moderate => "tool.moderate",
                _ => "tool.destructive",
            };
            findings.push(finding(
                id,
                level,
                format!("`{name}` is registered as {}", level.as_str()),
                end,
            ));
        }
        None => findings.push(finding(
            "tool.unknown",
            Level::Opaque,
            format!("`{name}` is not in the risk registry; unknown tools are held"),
            end,
        )),
    }
    let args = match serde_json::from_str::<Value>(args_json) {
        Ok(value) => Some(value),
        Err(error) => {
            findings.push(finding(
                "tool.bad_args",
                Level::Opaque,
                format!("the tool's arguments are not valid JSON ({error})"),
                end,
            ));
            None
        }
    };
    let mut commands = Vec::new();
    let mut paths_found = Vec::new();
    if let Some(Value::Object(map)) = &args {
        let cwd = ["cwd", "workdir", "dir_path", "directory"]
            .iter()
            .find_map(|k| map.get(*k).and_then(Value::as_str))
            .filter(|c| c.starts_with('/'));
        // A tool that is not known to only read is taken to write its paths.
        let writes = registered.is_none_or(|l| l > Level::Safe);
        for key in PATH_KEYS {
            for path in strings(map.get(*key)) {
                if paths::is_sensitive(path, cwd, home, policy.settings.sensitive_paths.as_ref()) {
                    findings.push(finding(
                        "tool.sensitive_path",
                        Level::Destructive,
                        format!("`{name}` touches {path}, which holds secrets"),
                        end,
                    ));
                } else if writes
                    && paths::is_protected(
                        path,
                        cwd,
                        home,
                        policy.settings.protected_paths.as_ref(),
                    )
                {
                    findings.push(finding(
                        "tool.protected_path",
                        Level::Destructive,
                        format!("`{name}` writes {path}, a protected place"),
                        end,
                    ));
                }
                paths_found.push(path.to_string());
            }
        }
        for key in COMMAND_KEYS {
            for command in command_lines(map.get(*key)) {
                let command = command.as_str();
                let ctx = analyse::Context {
                    cwd: cwd.unwrap_or("/"),
                    home,
                    truncated: false,
                };
                let inner = analyse::shell(command, &ctx);
                findings.extend(inner.findings);
                commands.extend(inner.commands);
            }
        }
    }
    let level = findings.iter().map(|f| f.level).max().unwrap_or_default();
    ToolAnalysis {
        analysis: Analysis {
            level,
            findings,
            commands,
        },
        args,
        paths: paths_found,
    }
}

/// A command argument as shell lines: a string is one line; an array is an argv (Codex's
/// `["bash", "-lc", "…"]`), quoted word by word so it is analysed as one command, never as
/// separate harmless-looking lines.
fn command_lines(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => {
            let words: Vec<String> = items
                .iter()
                .map(|item| match item {
                    Value::String(s) => format!("'{}'", s.replace('\'', "'\\''")),
                    other => format!("'{}'", other.to_string().replace('\'', "'\\''")),
                })
                .collect();
            vec![words.join(" ")]
        }
        _ => Vec::new(),
    }
}

/// A string argument, or the strings of an array argument.
fn strings(value: Option<&Value>) -> Vec<&str> {
    match value {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}
