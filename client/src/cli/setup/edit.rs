//! The edits `assent setup` makes, as pure functions of a file's text: put our hook into an
//! agent's JSON settings, take it out, find it; switch Codex's hooks on in its TOML; add or
//! remove our block in a shell's start-up file.
//!
//! Every edit keeps what the file already says as it was written: other keys, other hooks,
//! comments (JSON with comments, which Gemini CLI reads, and TOML), order and indentation.
//! JSON is edited through `jsonc-parser`'s concrete syntax tree and TOML through `toml_edit`,
//! both of which keep the text they do not change byte for byte. Each function returns the new
//! text, or `None` when there is nothing to change (so running setup twice writes nothing).

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstArray, CstInputValue, CstNode, CstObject, CstRootNode};
use serde_json::Value;

/// One agent's hook, as its JSON settings hold it.
#[derive(Debug, Clone)]
pub struct Hook {
    /// The event key under `hooks` (`PreToolUse`, `BeforeTool`).
    pub event: &'static str,
    /// The group's matcher: every tool.
    pub matcher: &'static str,
    /// Our entry in the group's `hooks` array.
    pub entry: Value,
    /// The subcommand that marks an entry as ours (`hook claude-code`).
    pub marker: &'static str,
    /// Whether the format allows comments and trailing commas (Gemini CLI's does).
    pub lenient: bool,
}

impl Hook {
    /// Whether a hook entry's command runs our hook: a program named `assent` with our marker.
    fn is_ours(&self, entry: &Value) -> bool {
        let Some(command) = entry.get("command").and_then(Value::as_str) else {
            return false;
        };
        let mut words = command.split_whitespace();
        let program = words.next().unwrap_or_default();
        let named = program.rsplit('/').next() == Some("assent");
        named && command.contains(&format!(" {}", self.marker))
    }

    fn options(&self) -> ParseOptions {
        if self.lenient {
            ParseOptions::default()
        } else {
            ParseOptions {
                allow_comments: false,
                allow_loose_object_property_names: false,
                allow_trailing_commas: false,
                allow_missing_commas: false,
                allow_single_quoted_strings: false,
                allow_hexadecimal_numbers: false,
                ..ParseOptions::default()
            }
        }
    }
}

/// Parse `text` (an empty or blank file is an empty object) and return the root object.
fn root(text: &str, hook: &Hook) -> Result<(CstRootNode, CstObject), String> {
    let text = if text.trim().is_empty() { "{}\n" } else { text };
    // The concrete syntax tree takes comments whatever it is told; a format without them is
    // held to plain JSON first, as the agent itself will read it.
    if !hook.lenient {
        serde_json::from_str::<Value>(text).map_err(|e| format!("not JSON: {e}"))?;
    }
    let root = CstRootNode::parse(text, &hook.options()).map_err(|e| e.to_string())?;
    let object = root.object_value().ok_or("the file is not a JSON object")?;
    Ok((root, object))
}

/// The `hooks.EVENT` array, if there is one; an error if something else is there.
fn event_array(object: &CstObject, hook: &Hook, create: bool) -> Result<Option<CstArray>, String> {
    let hooks = match object.get("hooks") {
        Some(prop) => prop.object_value().ok_or("its `hooks` is not an object")?,
        None if create => object.object_value_or_set("hooks"),
        None => return Ok(None),
    };
    match hooks.get(hook.event) {
        Some(prop) => prop
            .array_value()
            .map(Some)
            .ok_or_else(|| format!("its `hooks.{}` is not an array", hook.event)),
        None if create => Ok(Some(hooks.array_value_or_set(hook.event))),
        None => Ok(None),
    }
}

/// Where our entry is: its group, and the entry node within the group's `hooks` array.
fn find(array: &CstArray, hook: &Hook) -> Option<(CstNode, CstNode)> {
    for group in array.elements() {
        let Some(entries) = group.as_object().and_then(|g| g.array_value("hooks")) else {
            continue;
        };
        for entry in entries.elements() {
            if entry.to_serde_value().is_some_and(|v| hook.is_ours(&v)) {
                return Some((group, entry));
            }
        }
    }
    None
}

/// A JSON value as the CST takes it.
fn input(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(input).collect()),
        Value::Object(map) => {
            let mut pairs: Vec<(String, CstInputValue)> = map
                .iter()
                .map(|(key, value)| (key.clone(), input(value)))
                .collect();
            // The order the agents' own documentation writes them in.
            let rank = |key: &str| {
                KEY_ORDER
                    .iter()
                    .position(|k| *k == key)
                    .unwrap_or(usize::MAX)
            };
            pairs.sort_by_key(|(key, _)| rank(key));
            CstInputValue::Object(pairs)
        }
    }
}

/// Keys of a hook group and entry, in the order they are written.
const KEY_ORDER: &[&str] = &["matcher", "hooks", "name", "type", "command", "timeout"];

/// `text` with our hook in it: added in a group of its own, or our existing entry brought up
/// to date. `None` when it is there already as it should be.
pub fn install_json(text: &str, hook: &Hook) -> Result<Option<String>, String> {
    let (root, object) = root(text, hook)?;
    let array = event_array(&object, hook, true)?.ok_or("no hooks array")?;
    let append = |array: &CstArray| {
        let group = serde_json::json!({
            "matcher": hook.matcher,
            "hooks": [hook.entry.clone()],
        });
        array.ensure_multiline();
        array.append(input(&group));
    };
    let Some((group, entry)) = find(&array, hook) else {
        append(&array);
        return Ok(Some(root.to_string()));
    };
    let group = group
        .as_object()
        .ok_or("our hook's group is not an object")?;
    let matcher = group
        .get("matcher")
        .and_then(|m| m.value())
        .and_then(|v| v.to_serde_value());
    let matched = matcher.as_ref().and_then(Value::as_str) == Some(hook.matcher);
    let alone = group
        .array_value("hooks")
        .is_some_and(|entries| entries.elements().len() == 1);
    let current = entry.to_serde_value().as_ref() == Some(&hook.entry);
    match (matched, alone) {
        (true, _) if current => return Ok(None),
        (true, _) => replace(entry, &hook.entry),
        // Our own group with a narrower matcher (one that misses tools): widened.
        (false, true) => {
            match group.get("matcher") {
                Some(prop) => prop.set_value(input(&Value::String(hook.matcher.into()))),
                None => {
                    group.insert(0, "matcher", input(&Value::String(hook.matcher.into())));
                }
            }
            if !current {
                replace(entry, &hook.entry);
            }
        }
        // Someone else's group, whose matcher is theirs to keep: ours moves to a group of
        // its own.
        (false, false) => {
            entry.remove();
            append(&array);
        }
    }
    Ok(Some(root.to_string()))
}

/// Bring an array element up to `value`. An object's properties are set one by one, so the
/// file's own indentation stays (a whole new object would be written at the CST's); keys the
/// entry no longer has are removed, new ones appended.
fn replace(node: CstNode, value: &Value) {
    let (Some(object), Value::Object(wanted)) = (node.as_object(), value) else {
        if let Some(array) = node.as_array() {
            array.replace_with(input(value));
        } else {
            node.remove();
        }
        return;
    };
    for prop in object.properties() {
        let keep = prop
            .decoded_name()
            .is_some_and(|name| wanted.contains_key(&name));
        if !keep {
            prop.remove();
        }
    }
    for (key, value) in wanted {
        match object.get(key) {
            Some(prop) => {
                if prop.value().and_then(|v| v.to_serde_value()).as_ref() != Some(value) {
                    prop.set_value(input(value));
                }
            }
            None => {
                object.append(key, input(value));
            }
        }
    }
}

/// `text` without our hook: the entry, then its group if that leaves it empty, then the
/// event's array and the `hooks` object if they are left empty. `None` when it is not there.
pub fn uninstall_json(text: &str, hook: &Hook) -> Result<Option<String>, String> {
    let (root, object) = root(text, hook)?;
    let Some(array) = event_array(&object, hook, false)? else {
        return Ok(None);
    };
    let Some((group, entry)) = find(&array, hook) else {
        return Ok(None);
    };
    entry.remove();
    let group_empty = group
        .as_object()
        .and_then(|g| g.array_value("hooks"))
        .is_some_and(|entries| entries.elements().is_empty());
    if group_empty {
        group.remove();
    }
    if array.elements().is_empty()
        && let Some(hooks) = object.object_value("hooks")
    {
        if let Some(prop) = hooks.get(hook.event) {
            prop.remove();
        }
        if hooks.properties().is_empty()
            && let Some(prop) = object.get("hooks")
        {
            prop.remove();
        }
    }
    Ok(Some(root.to_string()))
}

/// Our entry as installed: where it is and what it says.
#[derive(Debug, Clone, PartialEq)]
pub struct Installed {
    /// The index of its group in the event's array, and its own in the group's `hooks`.
    pub group: usize,
    pub entry: usize,
    /// The group's matcher (`None` when it has none: every tool).
    pub matcher: Option<String>,
    /// The entry's command and timeout.
    pub command: String,
    pub timeout: Option<u64>,
}

/// Our entry in `text`, if it is installed there.
pub fn installed_entry(text: &str, hook: &Hook) -> Result<Option<Installed>, String> {
    let (_, object) = root(text, hook)?;
    let Some(array) = event_array(&object, hook, false)? else {
        return Ok(None);
    };
    for (g, group) in array.elements().iter().enumerate() {
        let Some(group) = group.to_serde_value() else {
            continue;
        };
        let Some(entries) = group.get("hooks").and_then(Value::as_array) else {
            continue;
        };
        if let Some((e, entry)) = entries.iter().enumerate().find(|(_, e)| hook.is_ours(e)) {
            return Ok(Some(Installed {
                group: g,
                entry: e,
                matcher: group
                    .get("matcher")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                command: entry
                    .get("command")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                timeout: entry.get("timeout").and_then(Value::as_u64),
            }));
        }
    }
    Ok(None)
}

/// Codex's `config.toml` with `[features] hooks = true` (the current name of the switch;
/// `codex_hooks`, the older one, is left as it is). `None` when it is on already.
pub fn codex_features(text: &str) -> Result<Option<String>, String> {
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e| format!("{e}"))?;
    if doc
        .get("features")
        .and_then(|f| f.get("hooks"))
        .and_then(toml_edit::Item::as_bool)
        == Some(true)
    {
        return Ok(None);
    }
    let features = doc
        .entry("features")
        .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
    let Some(features) = features.as_table_like_mut() else {
        return Err("its `features` is not a table".into());
    };
    features.insert("hooks", toml_edit::value(true));
    Ok(Some(doc.to_string()))
}

/// Whether Codex's `config.toml` switches hooks on (`hooks` or the older `codex_hooks`).
pub fn codex_hooks_on(text: &str) -> bool {
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
        return false;
    };
    ["hooks", "codex_hooks"].iter().any(|key| {
        doc.get("features")
            .and_then(|f| f.get(key))
            .and_then(toml_edit::Item::as_bool)
            == Some(true)
    })
}

/// The first line of our block in a shell's start-up file.
pub const BLOCK_BEGIN: &str = "# >>> assent >>>";
/// The last line of our block.
pub const BLOCK_END: &str = "# <<< assent <<<";

/// The block that loads the hook: `assent init SHELL` prints the hook compiled into the client.
pub fn rc_block(assent: &str, shell: &str) -> String {
    format!(
        "{BLOCK_BEGIN} (added by `assent setup {shell}`; `assent setup {shell} --uninstall` removes it)\n\
         eval \"$('{}' init {shell})\"\n\
         {BLOCK_END}\n",
        assent.replace('\'', r"'\''")
    )
}

/// Where our block is in `text`: the byte range of its lines.
fn block_range(text: &str) -> Option<std::ops::Range<usize>> {
    let start = text
        .match_indices(BLOCK_BEGIN)
        .map(|(at, _)| at)
        .find(|&at| at == 0 || text.as_bytes()[at - 1] == b'\n')?;
    let end_at = text[start..].find(BLOCK_END)? + start;
    let end = text[end_at..]
        .find('\n')
        .map_or(text.len(), |n| end_at + n + 1);
    Some(start..end)
}

/// `text` with our block (replaced if it differs), or `None` when it is there as it should be.
pub fn install_rc(text: &str, block: &str) -> Option<String> {
    match block_range(text) {
        Some(range) if &text[range.clone()] == block => None,
        Some(range) => Some(format!(
            "{}{block}{}",
            &text[..range.start],
            &text[range.end..]
        )),
        None => {
            let mut out = text.to_string();
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(block);
            Some(out)
        }
    }
}

/// `text` without our block, or `None` when it has none.
pub fn uninstall_rc(text: &str) -> Option<String> {
    let range = block_range(text)?;
    Some(format!("{}{}", &text[..range.start], &text[range.end..]))
}

/// Whether `text` has our block.
pub fn installed_rc(text: &str) -> bool {
    block_range(text).is_some()
}

#[cfg(test)]
mod tests;
