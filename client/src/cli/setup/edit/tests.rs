//! The edits, on settings as people write them.

use super::*;

fn claude() -> Hook {
    Hook {
        event: "PreToolUse",
        matcher: "*",
        entry: serde_json::json!({
            "type": "command",
            "command": "/usr/bin/assent hook claude-code",
            "timeout": 600
        }),
        marker: "hook claude-code",
        lenient: false,
    }
}

const POPULATED: &str = r#"{
  "model": "opus",
  "permissions": {
"allow": ["Bash(ls:*)"]
  },
  "hooks": {
"PostToolUse": [
  { "matcher": "Write", "hooks": [{ "type": "command", "command": "prettier --write" }] }
],
"PreToolUse": [
  { "matcher": "Bash", "hooks": [{ "type": "command", "command": "~/bin/audit.sh" }] }
]
  }
}
"#;

#[test]
fn installing_keeps_everything_else_and_is_idempotent() {
    let hook = claude();
    let once = install_json(POPULATED, &hook)
        .expect("parses")
        .expect("changes");
    let value: Value = serde_json::from_str(&once).expect("still JSON");
    assert_eq!(value["model"], "opus");
    assert_eq!(value["permissions"]["allow"][0], "Bash(ls:*)");
    assert_eq!(value["hooks"]["PostToolUse"][0]["matcher"], "Write");
    assert_eq!(
        value["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "~/bin/audit.sh"
    );
    assert_eq!(value["hooks"]["PreToolUse"][1]["matcher"], "*");
    assert_eq!(value["hooks"]["PreToolUse"][1]["hooks"][0], hook.entry);
    // What was there is there as it was written.
    assert!(once.starts_with("{\n  \"model\": \"opus\",\n  \"permissions\": {\n"));
    assert!(once.contains(
        r#"{ "matcher": "Write", "hooks": [{ "type": "command", "command": "prettier --write" }] }"#
    ));
    assert_eq!(
        install_json(&once, &hook),
        Ok(None),
        "a second run changes nothing"
    );
    assert_eq!(
        installed_entry(&once, &hook).map(|e| e.map(|e| (e.group, e.entry, e.command))),
        Ok(Some((1, 0, "/usr/bin/assent hook claude-code".into())))
    );
    let back = uninstall_json(&once, &hook)
        .expect("parses")
        .expect("changes");
    assert_eq!(
        serde_json::from_str::<Value>(&back).expect("JSON"),
        serde_json::from_str::<Value>(POPULATED).expect("JSON")
    );
    assert_eq!(uninstall_json(&back, &hook), Ok(None));
}

#[test]
fn an_empty_file_gets_the_hook_and_loses_it_all_again() {
    let hook = claude();
    let once = install_json("", &hook).expect("parses").expect("changes");
    let value: Value = serde_json::from_str(&once).expect("JSON");
    assert_eq!(value["hooks"]["PreToolUse"][0]["hooks"][0], hook.entry);
    let back = uninstall_json(&once, &hook)
        .expect("parses")
        .expect("changes");
    assert_eq!(
        serde_json::from_str::<Value>(&back).expect("JSON"),
        serde_json::json!({})
    );
}

#[test]
fn an_old_entry_is_brought_up_to_date_in_place() {
    let hook = claude();
    let old = r#"{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"assent hook claude-code"}]}]}}"#;
    let new = install_json(old, &hook).expect("parses").expect("changes");
    let value: Value = serde_json::from_str(&new).expect("JSON");
    let groups = value["hooks"]["PreToolUse"].as_array().expect("array");
    assert_eq!(groups.len(), 1, "{new}");
    assert_eq!(groups[0]["hooks"][0], hook.entry);
}

#[test]
fn what_is_not_settings_is_refused() {
    let hook = claude();
    assert!(install_json("[1]", &hook).is_err());
    assert!(install_json("{\"hooks\": 3}", &hook).is_err());
    assert!(install_json("{\"hooks\": {\"PreToolUse\": {}}}", &hook).is_err());
    assert!(
        install_json("{ // a comment\n}", &hook).is_err(),
        "Claude's JSON has none"
    );
    assert!(install_json("{\"a\": ", &hook).is_err());
}

#[test]
fn comments_stay_where_the_format_has_them() {
    let hook = Hook {
        event: "BeforeTool",
        matcher: ".*",
        entry: serde_json::json!({"name": "assent", "type": "command", "command": "/usr/bin/assent hook gemini --timeout 590", "timeout": 600000}),
        marker: "hook gemini",
        lenient: true,
    };
    let text = "{\n  // my theme\n  \"theme\": \"dark\",\n}\n";
    let once = install_json(text, &hook).expect("parses").expect("changes");
    assert!(once.contains("// my theme"), "{once}");
    assert!(once.contains("\"theme\": \"dark\""), "{once}");
    let back = uninstall_json(&once, &hook)
        .expect("parses")
        .expect("changes");
    assert!(back.contains("// my theme"), "{back}");
}

#[test]
fn codex_hooks_are_switched_on_keeping_the_rest() {
    let text = "# my settings\nmodel = \"gpt-5-codex\"\n\n[features]\nweb_search = true # yes\n";
    let on = codex_features(text).expect("parses").expect("changes");
    assert!(
        on.starts_with("# my settings\nmodel = \"gpt-5-codex\"\n"),
        "{on}"
    );
    assert!(on.contains("web_search = true # yes"), "{on}");
    assert!(codex_hooks_on(&on));
    assert_eq!(codex_features(&on), Ok(None));
    assert!(codex_hooks_on("[features]\ncodex_hooks = true\n"));
    assert!(!codex_hooks_on("model = \"x\"\n"));
    assert!(codex_features("features = 3\n").is_err());
    assert!(codex_features("[[[").is_err());
}

#[test]
fn the_rc_block_is_added_once_and_removed_exactly() {
    let block = rc_block("/usr/bin/assent", "bash");
    let text = "export PATH=~/bin:$PATH\nalias ll='ls -l'";
    let once = install_rc(text, &block).expect("changes");
    assert!(once.starts_with("export PATH=~/bin:$PATH\nalias ll='ls -l'\n# >>> assent"));
    assert!(once.contains("eval \"$('/usr/bin/assent' init bash)\""));
    assert_eq!(install_rc(&once, &block), None);
    assert!(installed_rc(&once));
    let back = uninstall_rc(&once).expect("changes");
    assert_eq!(back, "export PATH=~/bin:$PATH\nalias ll='ls -l'\n");
    assert_eq!(uninstall_rc(&back), None);
    // Another path: the block is replaced, not added twice.
    let moved = install_rc(&once, &rc_block("/opt/assent", "bash")).expect("changes");
    assert_eq!(moved.matches(BLOCK_BEGIN).count(), 1);
    assert!(moved.contains("'/opt/assent' init bash"));
}

#[test]
fn a_new_path_over_an_existing_entry_keeps_the_files_indentation() {
    let hook = claude();
    let old = "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"*\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"/old/assent hook claude-code\",\n            \"timeout\": 600\n          }\n        ]\n      }\n    ]\n  }\n}\n";
    let new = install_json(old, &hook).expect("parses").expect("changes");
    assert_eq!(
        new,
        old.replace("/old/assent", "/usr/bin/assent"),
        "only the path changes"
    );
}

#[test]
fn a_narrowed_matcher_is_widened_and_a_shared_group_left_to_its_owner() {
    let hook = claude();
    let entry = hook.entry.to_string();
    let narrowed =
        format!(r#"{{"hooks":{{"PreToolUse":[{{"matcher":"Bash","hooks":[{entry}]}}]}}}}"#);
    let new = install_json(&narrowed, &hook)
        .expect("parses")
        .expect("changes");
    let value: Value = serde_json::from_str(&new).expect("JSON");
    assert_eq!(value["hooks"]["PreToolUse"][0]["matcher"], "*", "{new}");
    assert_eq!(install_json(&new, &hook), Ok(None));
    let shared = format!(
        r#"{{"hooks":{{"PreToolUse":[{{"matcher":"Bash","hooks":[{{"type":"command","command":"audit"}},{entry}]}}]}}}}"#
    );
    let new = install_json(&shared, &hook)
        .expect("parses")
        .expect("changes");
    let value: Value = serde_json::from_str(&new).expect("JSON");
    let groups = value["hooks"]["PreToolUse"].as_array().expect("array");
    assert_eq!(groups.len(), 2, "{new}");
    assert_eq!(groups[0]["matcher"], "Bash");
    assert_eq!(
        groups[0]["hooks"].as_array().map(Vec::len),
        Some(1),
        "{new}"
    );
    assert_eq!(groups[1]["matcher"], "*");
    assert_eq!(groups[1]["hooks"][0], hook.entry);
}
