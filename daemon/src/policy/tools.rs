//! Tool calls: the risk registry and the analysis of a call's arguments.
//!
//! The registry holds seed 002's tools (SAFE, MODERATE, DESTRUCTIVE become the levels safe,
//! moderate, destructive), seed 001's task tools, and the tools of the coding agents whose
//! hooks call assent; a policy's `[tools]` table adds to it or changes an entry. A tool not in
//! the registry is held (fail closed).
//!
//! The arguments add findings the way a shell command's words do, from the same vocabulary
//! of places and the same level table: a path argument gets the effect its tool has on it
//! ([`PATH_TOOLS`]: `Read` reads, `Write` overwrites, `Edit` writes, …), so `Read` of
//! `~/.ssh/id_rsa` is `read.secret` exactly as `cat ~/.ssh/id_rsa` is; a tool that is not
//! known to only read, and is not in that table, is *given* its paths, as an unknown program
//! is. Codex's `apply_patch` names its files inside the patch. A shell-command argument is
//! analysed as shell. Hostile JSON is bounded by the packet limit and serde_json's recursion
//! limit (128). Pure: no I/O.

use assent_client::protocol::Level;
use serde_json::Value;

use super::Policy;
use crate::analyse::effects::Effect;
use crate::analyse::{self, Analysis, Finding};
use crate::places::{Added, Kind};

/// The last words of an argument name that holds a path (`file_path`, `filePath`,
/// `target_file`, `absolute_path`, `dir_path`, `notebook_path`, `paths`, `outputDir`).
const PATH_WORDS: &[&str] = &[
    "path",
    "paths",
    "pathname",
    "file",
    "files",
    "filename",
    "filenames",
    "filepath",
    "filepaths",
    "dir",
    "dirs",
    "dirpath",
    "directory",
    "directories",
    "folder",
    "folders",
];

/// Whole argument names (any case, any separators) for the ends of a move or copy.
const END_NAMES: &[&str] = &["target", "destination", "dest", "src", "source"];

/// An argument name's words: split at `_`, `-`, `.`, spaces and a lower-to-upper case change,
/// lowercased (`targetFile` and `target_file` are `target file`).
fn words(name: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut lower_before = false;
    for c in name.chars() {
        if matches!(c, '_' | '-' | '.' | ' ') {
            words.extend((!word.is_empty()).then(|| std::mem::take(&mut word)));
            lower_before = false;
            continue;
        }
        if c.is_uppercase() && lower_before {
            words.push(std::mem::take(&mut word));
        }
        lower_before = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    words.extend((!word.is_empty()).then_some(word));
    words
}

/// A name with case and separators gone: `read_file`, `ReadFile` and `read-file` are one.
pub fn normalised(name: &str) -> String {
    words(name).concat()
}

/// Whether an argument of this name holds a path, as every agent's tools spell it: its last
/// word says path, file or directory (`file_path`, `filePath`, `target_file`,
/// `absolute_path`), or the whole name is an end of a move (`source`, `dest`). The one test
/// the tool analysis and remembered approvals' signatures use.
pub fn is_path_key(name: &str) -> bool {
    let words = words(name);
    words
        .last()
        .is_some_and(|last| PATH_WORDS.contains(&last.as_str()))
        || END_NAMES.contains(&words.concat().as_str())
}

/// Argument names that hold a shell command.
pub const COMMAND_KEYS: &[&str] = &["command", "cmd", "script"];

/// Argument names (with case and separators gone) that hold a working directory for the
/// call's relative paths.
const CWD_NAMES: &[&str] = &[
    "cwd",
    "workdir",
    "workingdir",
    "workingdirectory",
    "dirpath",
    "directory",
];

/// Whether an argument of this name holds the call's working directory.
pub fn is_cwd_key(name: &str) -> bool {
    CWD_NAMES.contains(&normalised(name).as_str())
}

/// The finding ids this module reports besides the level table's cells (for the
/// never-matching-rule warning).
pub const FINDING_IDS: &[&str] = &[
    "tool.safe",
    "tool.moderate",
    "tool.destructive",
    "tool.unknown",
    "tool.bad_args",
];

/// What a tool does with the places its path arguments name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathUse {
    /// Reads the file.
    Reads,
    /// Reads every file below a directory, or the file (content searches).
    Searches,
    /// Lists names only: nothing a file holds is read.
    Lists,
    /// Creates the file or replaces what it held.
    Writes,
    /// Changes part of the file.
    Edits,
    /// Deletes the file or directory.
    Deletes,
    /// Moves its source (`source`, `src`, `path`) to its destination (`destination`, `dest`,
    /// `target`), replacing what was there.
    Moves,
}

/// Tools whose path arguments are files they read, write or edit: the one table the tool
/// analysis and remembered approvals' signatures read.
pub const PATH_TOOLS: &[(&str, PathUse)] = &[
    ("Read", PathUse::Reads),
    ("read_file", PathUse::Reads),
    ("file.read", PathUse::Reads),
    ("read_many_files", PathUse::Searches),
    ("Grep", PathUse::Searches),
    ("grep", PathUse::Searches),
    ("search_file_content", PathUse::Searches),
    ("Glob", PathUse::Lists),
    ("glob", PathUse::Lists),
    ("LS", PathUse::Lists),
    ("list_directory", PathUse::Lists),
    ("Write", PathUse::Writes),
    ("write_file", PathUse::Writes),
    ("file.write", PathUse::Writes),
    ("writeFile", PathUse::Writes),
    ("Edit", PathUse::Edits),
    ("MultiEdit", PathUse::Edits),
    ("NotebookEdit", PathUse::Edits),
    ("replace", PathUse::Edits),
    ("edit_file", PathUse::Edits),
    ("file.delete", PathUse::Deletes),
    ("delete_file", PathUse::Deletes),
    ("remove_file", PathUse::Deletes),
    ("create_file", PathUse::Edits),
    ("file.move", PathUse::Moves),
    ("move_file", PathUse::Moves),
    ("read_text_file", PathUse::Reads),
    ("read_media_file", PathUse::Reads),
    ("read_multiple_files", PathUse::Reads),
    ("write_to_file", PathUse::Writes),
    ("replace_in_file", PathUse::Edits),
    ("list_files", PathUse::Lists),
    ("list_dir", PathUse::Lists),
    ("search_files", PathUse::Searches),
];

/// What `tool` does with its path arguments, if it is a file tool. An MCP server's tool
/// (`mcp__filesystem__write_file`) is known by its own name.
/// Names are compared with case and separators gone, so `ReadFile`, `readFile` and
/// `read-file` are `read_file`.
pub fn path_use(tool: &str) -> Option<PathUse> {
    let own = |name: &str| {
        let name = normalised(name);
        PATH_TOOLS
            .iter()
            .find(|(n, _)| normalised(n) == name)
            .map(|(_, u)| *u)
    };
    own(tool).or_else(|| {
        let rest = tool.strip_prefix("mcp__")?;
        let (_, name) = rest.split_once("__")?;
        own(name)
    })
}

/// Whether an argument of this name is where a move puts what it moves: its first word says
/// so (`destination`, `dest_path`, `targetPath`).
fn is_destination_key(name: &str) -> bool {
    words(name)
        .first()
        .is_some_and(|first| matches!(first.as_str(), "destination" | "dest" | "target"))
}

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
    // The agents' own bookkeeping: plans, questions to the person, their background shells'
    // output, their resources. Nothing on the machine changes, or only what the agent itself
    // started.
    // Other hosts' shells and file tools (Cursor, Codex, Cline): their commands and paths are
    // judged as the others'.
    ("run_terminal_cmd", Level::Safe),
    ("shell_command", Level::Safe),
    ("execute_command", Level::Safe),
    ("list_files", Level::Safe),
    ("search_files", Level::Safe),
    ("list_dir", Level::Safe),
    ("read_text_file", Level::Safe),
    ("read_multiple_files", Level::Safe),
    ("write_to_file", Level::Moderate),
    ("replace_in_file", Level::Moderate),
    ("create_file", Level::Moderate),
    ("BashOutput", Level::Safe),
    ("TaskOutput", Level::Safe),
    ("ExitPlanMode", Level::Safe),
    ("AskUserQuestion", Level::Safe),
    ("NotebookRead", Level::Safe),
    ("ListMcpResourcesTool", Level::Safe),
    ("ReadMcpResourceTool", Level::Safe),
    ("update_plan", Level::Safe),
    ("view_image", Level::Safe),
    ("write_todos", Level::Safe),
    ("KillShell", Level::Moderate),
    ("KillBash", Level::Moderate),
    ("SlashCommand", Level::Moderate),
    ("Skill", Level::Moderate),
    ("save_memory", Level::Moderate),
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
    /// The registered level of `name`: the policy's entry, else the built-in one. An MCP
    /// server's file tool (`mcp__filesystem__read_file`) has its name's built-in level; any
    /// other MCP tool only the policy's.
    pub fn tool_level(&self, name: &str) -> Option<Level> {
        if let Some(level) = self.settings.tools.get(name) {
            return Some(*level);
        }
        if let Some((_, own)) = name
            .strip_prefix("mcp__")
            .and_then(|rest| rest.split_once("__"))
            && path_use(own).is_some()
        {
            return self.builtin_level(own);
        }
        self.builtin_level(name)
    }

    /// The built-in registry's level of `name`.
    fn builtin_level(&self, name: &str) -> Option<Level> {
        // The built-in names in any case and separators (`ReadFile` is `read_file`).
        let wanted = normalised(name);
        BUILT_IN
            .iter()
            .find(|(n, _)| *n == name)
            .or_else(|| BUILT_IN.iter().find(|(n, _)| normalised(n) == wanted))
            .map(|(_, l)| *l)
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

/// The working directory a tool call acts in: the one an argument names, else the agent's.
/// The daemon looks for the project there (`crate::project`).
pub fn working_dir(args_json: &str, cwd: Option<&str>) -> Option<String> {
    let named = match serde_json::from_str::<Value>(args_json) {
        Ok(Value::Object(map)) => map
            .iter()
            .filter(|(k, _)| is_cwd_key(k))
            .find_map(|(_, v)| v.as_str().map(str::to_owned))
            .filter(|c| c.starts_with('/')),
        _ => None,
    };
    named.or_else(|| cwd.filter(|c| c.starts_with('/')).map(str::to_owned))
}

/// Analyse a tool call. `cwd` is the agent's working directory (where relative paths are),
/// unless an argument names one; `home` is the caller's home directory, for `~`; `project` the
/// project the daemon found that directory in ([`working_dir`]).
pub fn classify(
    policy: &Policy,
    name: &str,
    args_json: &str,
    cwd: Option<&str>,
    home: Option<&str>,
    project: Option<&str>,
) -> ToolAnalysis {
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
    let added = Added {
        secret: policy
            .settings
            .sensitive_paths
            .as_ref()
            .map(super::Globs::patterns),
        protected: policy
            .settings
            .protected_paths
            .as_ref()
            .map(super::Globs::patterns),
        programs: Some(&policy.settings.programs).filter(|b| !b.is_empty()),
    };
    if let Some(Value::Object(map)) = &args {
        let cwd = map
            .iter()
            .filter(|(k, _)| is_cwd_key(k))
            .find_map(|(_, v)| v.as_str())
            .filter(|c| c.starts_with('/'))
            .or(cwd.filter(|c| c.starts_with('/')));
        let at = analyse::Surroundings {
            cwd: cwd.unwrap_or(""),
            home,
            project,
            truncated: false,
        };
        let place = |effect: Effect, path: &str, tree: bool| {
            analyse::tool_path(name, effect, path, tree, &at, added, 0..end)
        };
        let known = path_use(name);
        // A shell tool's working directory is where its command runs, not a path it is given.
        let shell_call = COMMAND_KEYS.iter().any(|k| map.contains_key(*k));
        // Every string of the call, nested ones too (a path inside `options` is still given
        // to the tool), walked once.
        let mut texts = Vec::new();
        strings_within(map, 0, &mut texts);
        let mut given: Vec<(&str, &str)> = texts
            .iter()
            .filter(|(key, _)| is_path_key(key) && !(shell_call && is_cwd_key(key)))
            .copied()
            .collect();
        // A content search's file filter (`Grep`'s `glob: ".env*"`) names the files it reads.
        if known == Some(PathUse::Searches) {
            given.extend(
                texts
                    .iter()
                    .filter(|(key, _)| SEARCH_FILTERS.contains(key))
                    .copied(),
            );
        }
        // Values that are plainly paths under names that say nothing (`location`, `out`, a
        // nested `file.name`); a command's or a patch's text is not one.
        let plain = || {
            texts
                .iter()
                .filter(|(key, text)| {
                    !is_path_key(key)
                        && !COMMAND_KEYS.contains(key)
                        && !matches!(*key, "input" | "patch")
                        && plainly_path(text)
                })
                .map(|(_, text)| *text)
        };
        // A file tool whose path is under such a name: every one of them is its file.
        if known.is_some() && given.is_empty() {
            given.extend(plain().map(|path| ("", path)));
        }
        for (key, path) in given {
            {
                paths_found.push(path.to_string());
                let moved_to = known == Some(PathUse::Moves) && is_destination_key(key);
                let acts: &[(Effect, bool)] = match known {
                    Some(PathUse::Reads) => &[(Effect::Read, false)],
                    Some(PathUse::Searches) => &[(Effect::Read, true)],
                    Some(PathUse::Lists) => &[],
                    Some(PathUse::Writes) => &[(Effect::Overwrite, false)],
                    Some(PathUse::Edits) => &[(Effect::Write, false)],
                    Some(PathUse::Deletes) => &[(Effect::Delete, true)],
                    Some(PathUse::Moves) if moved_to => &[(Effect::Overwrite, true)],
                    Some(PathUse::Moves) => &[(Effect::Move, true)],
                    // A tool registered as only reading reads what it is given; any other
                    // is given it, like a program the gate does not know.
                    None if registered == Some(Level::Safe) => &[(Effect::Read, false)],
                    None => &[(Effect::Use, true)],
                };
                for (effect, tree) in acts {
                    findings.extend(place(*effect, path, *tree));
                }
            }
        }
        // Under any other name, a value that is plainly a path and names a secret, a protected
        // file or the gate is given to a tool that is neither a file tool nor a reader all the
        // same (`attachment`, `location`): its name does not say what the tool does with it.
        if known.is_none() && registered != Some(Level::Safe) {
            for path in plain() {
                findings.extend(place(Effect::Use, path, true).into_iter().filter(|f| {
                    matches!(
                        f.cell,
                        Some((_, Kind::Secret | Kind::Protected | Kind::Gate))
                    )
                }));
            }
        }
        // A `file://` URL under any name is the local file, read (`web.open`, `browser.open`).
        for path in texts.iter().filter_map(|(_, text)| file_url(text)) {
            paths_found.push(path.to_string());
            findings.extend(place(Effect::Read, path, false));
        }
        // A shell tool given its command under another name (`code`, `input`, an argv in
        // `args`): every string of it is a command line, an argv one run by a shell.
        if SHELL_TOOL_NAMES.contains(&normalised(name).as_str())
            && !COMMAND_KEYS.iter().any(|k| map.contains_key(*k))
        {
            let ctx = analyse::Surroundings {
                cwd: cwd.unwrap_or("/"),
                home,
                project,
                truncated: false,
            };
            for (key, value) in map {
                if is_cwd_key(key) || key == "description" {
                    continue;
                }
                let lines: Vec<String> = match value {
                    // Options first (`["-c", "…"]`): a shell's argv. Else a list of lines.
                    Value::Array(items)
                        if items
                            .first()
                            .and_then(Value::as_str)
                            .is_some_and(|s| s.starts_with('-')) =>
                    {
                        command_lines(Some(value))
                            .into_iter()
                            .map(|line| format!("sh {line}"))
                            .collect()
                    }
                    Value::Array(items) => items
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect(),
                    Value::String(text) => vec![text.clone()],
                    _ => Vec::new(),
                };
                for line in lines {
                    let inner = analyse::shell_in(&line, &ctx, added);
                    findings.extend(inner.findings);
                    commands.extend(inner.commands);
                }
            }
        }
        // Codex's `apply_patch` names the files it adds, changes, deletes and moves in the
        // patch itself; Codex's hook sends the patch as `command`, which is then no shell line.
        let patching = name == "apply_patch" || name.ends_with("__apply_patch");
        let patch_keys: &[&str] = if patching {
            &["input", "patch", "command"]
        } else {
            &["input", "patch"]
        };
        for key in patch_keys {
            for patch in strings(map.get(*key)) {
                for (effect, path) in patch_files(patch) {
                    paths_found.push(path.to_owned());
                    findings.extend(place(effect, path, false));
                }
            }
        }
        for key in COMMAND_KEYS.iter().filter(|_| !patching) {
            for command in command_lines(map.get(*key)) {
                let command = command.as_str();
                let ctx = analyse::Surroundings {
                    cwd: cwd.unwrap_or("/"),
                    home,
                    project,
                    truncated: false,
                };
                let inner = analyse::shell_in(command, &ctx, added);
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
            changes: Default::default(),
            wants: Vec::new(),
        },
        args,
        paths: paths_found,
    }
}

/// The files a patch in Codex's `apply_patch` format touches, with what it does to each:
/// `*** Add File: P` creates (or replaces) P, `*** Update File: P` changes it, `*** Delete
/// File: P` deletes it, `*** Move to: P` replaces P with the updated file and moves the
/// updated one away from where it was.
fn patch_files(patch: &str) -> Vec<(Effect, &str)> {
    const MARKS: &[(&str, Effect)] = &[
        ("Add File:", Effect::Overwrite),
        ("Update File:", Effect::Write),
        ("Delete File:", Effect::Delete),
        ("Move to:", Effect::Overwrite),
    ];
    let mut files = Vec::new();
    let mut updated = None;
    for line in patch.lines() {
        // Codex reads a header with blanks around it and after `***` as a header too.
        let Some(header) = line.trim_start().strip_prefix("***").map(str::trim_start) else {
            continue;
        };
        let Some((mark, effect, path)) = MARKS.iter().find_map(|(mark, effect)| {
            header
                .strip_prefix(mark)
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(|p| (*mark, *effect, p))
        }) else {
            continue;
        };
        if mark == "Move to:"
            && let Some(from) = updated.take()
        {
            files.push((Effect::Move, from));
        }
        updated = (mark == "Update File:").then_some(path);
        files.push((effect, path));
    }
    files
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

/// The arguments of a content search that pick the files it reads.
const SEARCH_FILTERS: &[&str] = &["glob", "include", "include_pattern", "file_pattern"];

/// Shell tools (by their names with case and separators gone): a string they are given is a
/// command line whatever its argument's name.
const SHELL_TOOL_NAMES: &[&str] = &[
    "bash",
    "shell",
    "sh",
    "execcommand",
    "runshellcommand",
    "runterminalcmd",
    "shellcommand",
    "terminal",
    "systemexecutecommand",
];

/// How deep into nested arguments paths are looked for.
const NESTED_DEPTH: usize = 4;

/// Every string of the arguments in `map` and the objects nested in it (to
/// [`NESTED_DEPTH`]), with the name of the argument that holds it (an array's strings are its
/// argument's).
fn strings_within<'a>(
    map: &'a serde_json::Map<String, Value>,
    depth: usize,
    out: &mut Vec<(&'a str, &'a str)>,
) {
    for (key, value) in map {
        out.extend(
            strings(Some(value))
                .into_iter()
                .map(|text| (key.as_str(), text)),
        );
        if depth + 1 >= NESTED_DEPTH {
            continue;
        }
        let nested: Vec<&serde_json::Map<String, Value>> = match value {
            Value::Object(inner) => vec![inner],
            Value::Array(items) => items.iter().filter_map(Value::as_object).collect(),
            _ => Vec::new(),
        };
        for inner in nested {
            strings_within(inner, depth + 1, out);
        }
    }
}

/// Whether a value is plainly a path: absolute or below a home, one word, no URL.
fn plainly_path(text: &str) -> bool {
    (text.starts_with('/') || text == "~" || text.starts_with("~/"))
        && !text.starts_with("//")
        && text.len() <= 4096
        && !text.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// The local path a `file://` URL names.
fn file_url(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("file://")?;
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    path.starts_with('/').then_some(path)
}

/// A string argument, or the strings of an array argument.
fn strings(value: Option<&Value>) -> Vec<&str> {
    match value {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}
