//! The effective policy written back as a policy file, for `assentd --check-policy`.

use std::fmt::Write as _;

use assent_client::protocol::{Level, Origin};

use super::{ArgTest, Globs, Policy, Rule};

/// The effective policy as a policy file, for `assentd --check-policy`: TOML written by the
/// `toml` crate (so every string is quoted as TOML quotes it), with comments for what the file
/// leaves to the daemon's flags and where each rule came from.
pub(super) fn describe(policy: &Policy) -> String {
    use toml::{Table, Value};
    let s = &policy.settings;
    let strings = |items: Vec<String>| Value::Array(items.into_iter().map(Value::String).collect());
    let uids =
        |uids: &[u32]| Value::Array(uids.iter().map(|u| Value::Integer(i64::from(*u))).collect());
    let origins = |origins: &[Origin]| strings(origins.iter().map(|o| o.as_str().into()).collect());
    let patterns =
        |g: &Option<Globs>| strings(g.as_ref().map(|g| g.patterns.clone()).unwrap_or_default());
    // An f32 as written (0.85, not 0.8500000238418579).
    let float = |f: f32| Value::Float(f.to_string().parse().unwrap_or(f64::from(f)));
    let levels = [
        Level::Safe,
        Level::Moderate,
        Level::Opaque,
        Level::Destructive,
        Level::Forbidden,
    ];

    let mut notes = vec![format!("# effective policy from {}", policy.source)];
    let mut top = Table::new();
    top.insert("observe".into(), Value::Boolean(s.observe));
    top.insert("observe_uids".into(), uids(&s.observe_uids));
    top.insert("observe_origins".into(), origins(&s.observe_origins));
    match s.hold_ttl {
        Some(ttl) => {
            _ = top.insert(
                "hold_ttl".into(),
                Value::String(humantime::format_duration(ttl).to_string()),
            )
        }
        None => notes.push("# hold_ttl: assentd's --hold-ttl (default 5m)".into()),
    }
    top.insert(
        "no_approver".into(),
        Value::String(s.no_approver.as_str().into()),
    );
    top.insert(
        "confirm_agent_moderate".into(),
        Value::Boolean(s.confirm_agent_moderate),
    );
    top.insert("confidence_threshold".into(), float(s.confidence_threshold));
    match s.pending_limit {
        Some(n) => {
            _ = top.insert(
                "pending_limit".into(),
                Value::Integer(i64::try_from(n).unwrap_or(i64::MAX)),
            )
        }
        None => notes.push("# pending_limit: assentd's --max-pending (default 32)".into()),
    }
    match s.rate_limit {
        Some(n) => _ = top.insert("rate_limit".into(), Value::Integer(i64::from(n))),
        None => notes.push("# rate_limit: none".into()),
    }
    top.insert("protected_paths".into(), patterns(&s.protected_paths));
    top.insert("sensitive_paths".into(), patterns(&s.sensitive_paths));
    top.insert("project_paths".into(), patterns(&s.project_paths));
    let approvers: Table = s
        .approvers
        .iter()
        .map(|(agent, human)| (agent.to_string(), Value::Integer(i64::from(*human))))
        .collect();
    top.insert("approvers".into(), Value::Table(approvers));
    let confidence: Table = s
        .tool_confidence
        .iter()
        .map(|(tool, value)| (tool.clone(), float(*value)))
        .collect();
    top.insert("tool_confidence".into(), Value::Table(confidence));
    let tools: Table = s
        .tools
        .iter()
        .map(|(tool, level)| (tool.clone(), Value::String(level.as_str().into())))
        .collect();
    top.insert("tools".into(), Value::Table(tools));
    let table: Table = levels
        .iter()
        .map(|level| {
            let row = policy.table[*level as usize];
            let mut cell = Table::new();
            cell.insert("interactive".into(), Value::String(row[0].as_str().into()));
            cell.insert("automation".into(), Value::String(row[1].as_str().into()));
            (level.as_str().to_string(), Value::Table(cell))
        })
        .collect();
    top.insert("levels".into(), Value::Table(table));
    let approval: Table = levels
        .iter()
        .map(|level| {
            let how = s.approval[*level as usize].as_str();
            (level.as_str().to_string(), Value::String(how.into()))
        })
        .collect();
    top.insert("approval".into(), Value::Table(approval));
    let origins = |list: &[assent_client::protocol::Origin]| {
        Value::Array(
            list.iter()
                .map(|o| Value::String(o.as_str().into()))
                .collect(),
        )
    };
    let mut instead = Table::new();
    instead.insert("opaque".into(), origins(&s.confine.instead_opaque));
    instead.insert("moderate".into(), origins(&s.confine.instead_moderate));
    let mut confine = Table::new();
    confine.insert("enabled".into(), Value::Boolean(s.confine.enabled));
    confine.insert("instead_of_holding".into(), Value::Table(instead));
    confine.insert(
        "writable".into(),
        Value::Array(
            s.confine
                .writable
                .iter()
                .map(|d| Value::String(d.clone()))
                .collect(),
        ),
    );
    top.insert("confine".into(), Value::Table(confine));

    let mut out = notes.join("\n");
    out.push('\n');
    out.push_str(&top.to_string());
    let mut rules: Vec<&Rule> = policy.rules.iter().collect();
    rules.sort_by(|a, b| a.name.cmp(&b.name));
    for rule in rules {
        let mut t = Table::new();
        t.insert("name".into(), Value::String(rule.name.clone()));
        t.insert(
            "decision".into(),
            Value::String(rule.decision.as_str().into()),
        );
        if let Some(message) = &rule.message {
            t.insert("message".into(), Value::String(message.clone()));
        }
        t.insert("priority".into(), Value::Integer(i64::from(rule.priority)));
        if rule.override_forbidden {
            t.insert("override_forbidden".into(), Value::Boolean(true));
        }
        if let Some(approval) = rule.approval {
            t.insert("approval".into(), Value::String(approval.as_str().into()));
        }
        for (key, g) in [
            ("tool", &rule.tool),
            ("finding", &rule.finding),
            ("path", &rule.path),
            ("cwd", &rule.cwd),
            ("session", &rule.session),
        ] {
            if g.is_some() {
                t.insert(key.into(), patterns(g));
            }
        }
        if !rule.command.is_empty() {
            t.insert(
                "command".into(),
                strings(rule.command.iter().map(|c| c.join(" ")).collect()),
            );
        }
        if !rule.uid.is_empty() {
            t.insert("uid".into(), uids(&rule.uid));
        }
        if !rule.user.is_empty() {
            t.insert("user".into(), strings(rule.user.clone()));
        }
        if !rule.origin.is_empty() {
            t.insert("origin".into(), origins(&rule.origin));
        }
        let mut equals = Table::new();
        let mut contains = Table::new();
        for (key, test) in &rule.args {
            match test {
                ArgTest::Equals(v) => {
                    // A JSON value a policy file gave; one TOML cannot hold (null) is said so.
                    let v = Value::try_from(v).unwrap_or_else(|_| Value::String(v.to_string()));
                    equals.insert(key.clone(), v);
                }
                ArgTest::Contains(text) => {
                    _ = contains.insert(key.clone(), Value::String(text.clone()))
                }
            }
        }
        if !equals.is_empty() {
            t.insert("args".into(), Value::Table(equals));
        }
        if !contains.is_empty() {
            t.insert("args_contain".into(), Value::Table(contains));
        }
        let mut one = Table::new();
        one.insert("rule".into(), Value::Array(vec![Value::Table(t)]));
        let _ = write!(out, "\n# {}\n{one}", rule.source);
    }
    for entry in policy.settings.programs.entries() {
        let _ = writeln!(out, "\n# program book, {}:", entry.source);
        for line in entry.explain() {
            let _ = writeln!(out, "#   {line}");
        }
        let mut one = Table::new();
        one.insert(
            "program".into(),
            Value::Array(vec![Value::Table(super::book::to_toml(entry))]),
        );
        let _ = write!(out, "{one}");
    }
    out
}
