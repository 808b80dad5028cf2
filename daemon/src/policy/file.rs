//! The policy file: TOML in, a [`Policy`] and warnings out.
//!
//! `parse` is pure and unit-tested with inline strings; `load` reads a file. Errors name the
//! file, line, column and reason. Warnings name rules that can never match. The embedded
//! default's rules apply under every file unless it says `default_rules = false`; keys a file
//! leaves out take the embedded values. `[[program]]` entries are `book.rs`'s.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use assent_client::protocol::{Decision, Level, Origin};
use globset::{GlobBuilder, GlobSetBuilder};
use serde::Deserialize;
use toml::Spanned;

use super::{
    Approval, ArgTest, Confine, DEFAULT_CONFIDENCE_THRESHOLD, DEFAULT_POLICY, Globs, NoApprover,
    Policy, Rule, Settings, book, tools,
};

/// A policy file that could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct PolicyError {
    /// The file (or `embedded default`).
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// Why.
    pub message: String,
}

/// A parsed policy and its warnings.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The policy.
    pub policy: Policy,
    /// Rules that can never match, and similar.
    pub warnings: Vec<String>,
}

/// One or several values.
#[derive(Debug, Clone)]
enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

/// Read as the value it is: a value that fits neither form gets the one form's own error
/// (`unknown variant `robot`, expected one of ...`), not serde's "did not match any variant".
impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let value = toml::Value::deserialize(deserializer)?;
        let described = |error: toml::de::Error| D::Error::custom(error.message().trim());
        match value {
            toml::Value::Array(_) => Vec::<T>::deserialize(value)
                .map(OneOrMany::Many)
                .map_err(described),
            one => T::deserialize(one).map(OneOrMany::One).map_err(described),
        }
    }
}

impl<T> OneOrMany<T> {
    fn into_vec(self) -> Vec<T> {
        match self {
            OneOrMany::One(one) => vec![one],
            OneOrMany::Many(many) => many,
        }
    }
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    interactive: Option<Decision>,
    automation: Option<Decision>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Levels {
    safe: Option<Row>,
    moderate: Option<Row>,
    opaque: Option<Row>,
    destructive: Option<Row>,
    forbidden: Option<Row>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Approvals {
    safe: Option<Approval>,
    moderate: Option<Approval>,
    opaque: Option<Approval>,
    destructive: Option<Approval>,
    forbidden: Option<Approval>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    default_rules: Option<bool>,
    observe: Option<bool>,
    observe_uids: Option<Vec<u32>>,
    observe_origins: Option<Vec<Origin>>,
    #[serde(default, deserialize_with = "duration_text")]
    hold_ttl: Option<String>,
    no_approver: Option<NoApprover>,
    confirm_agent_moderate: Option<bool>,
    confidence_threshold: Option<f32>,
    pending_limit: Option<usize>,
    rate_limit: Option<u32>,
    protected_paths: Option<Vec<String>>,
    sensitive_paths: Option<Vec<String>>,
    project_paths: Option<Vec<String>>,
    approvers: Option<BTreeMap<String, u32>>,
    tool_confidence: Option<BTreeMap<String, f32>>,
    tools: Option<BTreeMap<String, Level>>,
    levels: Option<Levels>,
    approval: Option<Approvals>,
    confine: Option<ConfineSpec>,
    #[serde(default)]
    rule: Vec<Spanned<RuleSpec>>,
    #[serde(default)]
    program: Vec<Spanned<book::ProgramSpec>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfineSpec {
    enabled: Option<bool>,
    instead_of_holding: Option<InsteadSpec>,
    writable: Option<Vec<String>>,
}

/// Only the levels held for being unread or for caution may run confined instead: a
/// destructive line's damage is what it was judged to do, which confinement would grant.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct InsteadSpec {
    moderate: Option<Vec<Origin>>,
    opaque: Option<Vec<Origin>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleSpec {
    name: String,
    decision: Decision,
    message: Option<String>,
    priority: Option<i32>,
    override_forbidden: Option<bool>,
    tool: Option<OneOrMany<String>>,
    command: Option<OneOrMany<String>>,
    finding: Option<OneOrMany<String>>,
    path: Option<OneOrMany<String>>,
    cwd: Option<OneOrMany<String>>,
    uid: Option<OneOrMany<u32>>,
    user: Option<OneOrMany<String>>,
    origin: Option<OneOrMany<Origin>>,
    session: Option<OneOrMany<String>>,
    args: Option<BTreeMap<String, toml::Value>>,
    args_contain: Option<BTreeMap<String, String>>,
    approval: Option<Approval>,
}

/// What a duration may be written as, for the errors that say so.
const DURATION_FORMS: &str = "a duration in quotes, such as \"90s\", \"5m\" or \"1h\"";

/// A duration's text: a bare number has no unit, and the error says what is written instead.
fn duration_text<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    use serde::de::Error as _;
    match toml::Value::deserialize(deserializer)? {
        toml::Value::String(text) => Ok(Some(text)),
        other => Err(D::Error::custom(format!(
            "expected {DURATION_FORMS}, not {other}"
        ))),
    }
}

/// The largest policy file read: far beyond any hand-written policy (a rule is a few lines),
/// small enough that reading and parsing one is quick and bounded.
pub const MAX_POLICY_LEN: u64 = 4 * 1024 * 1024;

/// Read and parse the policy at `path`. A file larger than [`MAX_POLICY_LEN`] is an error, and
/// so is one with nothing in it but blanks and comments (an editor's half-saved file, a
/// truncation): an empty policy is never taken for the embedded default by accident.
pub fn load(path: &Path) -> Result<Loaded, PolicyError> {
    use std::io::Read as _;
    let name = path.display().to_string();
    let failed = |message: String| PolicyError {
        file: name.clone(),
        line: 0,
        column: 0,
        message,
    };
    let file = std::fs::File::open(path)
        .map_err(|error| failed(format!("could not read the policy: {error}")))?;
    let mut text = String::new();
    file.take(MAX_POLICY_LEN + 1)
        .read_to_string(&mut text)
        .map_err(|error| failed(format!("could not read the policy: {error}")))?;
    if text.len() as u64 > MAX_POLICY_LEN {
        return Err(failed(format!(
            "the policy is larger than {} MiB; a policy this size is not read",
            MAX_POLICY_LEN / 1024 / 1024
        )));
    }
    let blank = text
        .lines()
        .all(|line| line.trim().is_empty() || line.trim_start().starts_with('#'));
    if blank {
        return Err(failed(
            "the policy file is empty (nothing but blanks and comments); write `default_rules = true` for a policy of the defaults alone".into(),
        ));
    }
    parse(&text, &name)
}

/// Line and column of byte offsets in one text, found by binary search over the line starts
/// (a policy with many rules asks once per rule).
struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Lines { text, starts }
    }

    fn at(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&start| start <= offset);
        let start = self.starts[line.saturating_sub(1)];
        let column = self
            .text
            .get(start..offset)
            .map_or(0, |part| part.chars().count());
        (line, column + 1)
    }
}

/// Parse a policy file's text; `name` is used in errors and reasons.
pub fn parse(text: &str, name: &str) -> Result<Loaded, PolicyError> {
    let error_at = |offset: usize, message: String| {
        let (line, column) = line_col(text, offset);
        PolicyError {
            file: name.to_string(),
            line,
            column,
            message,
        }
    };
    let spec: FileSpec = toml::from_str(text).map_err(|error| {
        let offset = error.span().map_or(0, |s| s.start);
        error_at(offset, error.message().trim().to_string())
    })?;
    let defaults: FileSpec = if name == "embedded default" {
        FileSpec::default()
    } else {
        toml::from_str(DEFAULT_POLICY).map_err(|e| error_at(0, format!("embedded default: {e}")))?
    };
    let mut warnings = Vec::new();
    let mut rules = Vec::new();
    let mut sources: Vec<(&str, &str, &Vec<Spanned<RuleSpec>>)> = Vec::new();
    if spec.default_rules.unwrap_or(true) && name != "embedded default" {
        sources.push(("embedded default", DEFAULT_POLICY, &defaults.rule));
    }
    sources.push((name, text, &spec.rule));
    let known = known_finding_ids();
    let mut names = std::collections::HashSet::new();
    for (file, file_text, specs) in sources {
        let lines = Lines::new(file_text);
        for spanned in specs {
            let offset = spanned.span().start;
            let (line, column) = lines.at(offset);
            let at = |message: String| PolicyError {
                file: file.to_string(),
                line,
                column,
                message,
            };
            let rule =
                compile_rule(spanned.get_ref().clone(), format!("{file}:{line}")).map_err(at)?;
            if file != "embedded default" {
                lowers_on_claims(&rule).map_err(at)?;
            }
            if !names.insert(rule.name.clone()) {
                return Err(at(format!("a second rule is named \"{}\"", rule.name)));
            }
            warnings.extend(never_matches(&rule, &known));
            rules.push(rule);
        }
    }
    let table = table(&spec, &defaults).map_err(|m| error_at(0, m))?;
    let mut settings = settings(&spec).map_err(|m| error_at(0, m))?;
    settings.approval = approvals(&spec, &defaults);
    let lines = Lines::new(text);
    settings.programs = book::compile(&spec.program, |offset| {
        format!("{name}:{}", lines.at(offset).0)
    })
    .map_err(|(offset, message)| error_at(offset, message))?;
    let mut policy = Policy {
        table,
        rules,
        settings,
        source: name.to_string(),
        text: String::new(),
    };
    policy.text = super::describe::describe(&policy);
    Ok(Loaded { policy, warnings })
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    Lines::new(text).at(offset)
}

fn globs(patterns: Vec<String>, what: &str) -> Result<Globs, String> {
    let mut builder = GlobSetBuilder::new();
    for pattern in &patterns {
        let glob = GlobBuilder::new(pattern)
            .literal_separator(what == "path" || what == "cwd")
            .build()
            .map_err(|e| format!("bad {what} glob {pattern:?}: {e}"))?;
        builder.add(glob);
    }
    let set = builder
        .build()
        .map_err(|e| format!("bad {what} globs: {e}"))?;
    Ok(Globs { patterns, set })
}

fn compile_rule(spec: RuleSpec, source: String) -> Result<Rule, String> {
    if spec.name.trim().is_empty() {
        return Err("a rule needs a non-empty name".into());
    }
    let named = |what: &str| format!("rule \"{}\": ", spec.name) + what;
    let opt = |v: Option<OneOrMany<String>>, what: &str| -> Result<Option<Globs>, String> {
        v.map(|v| globs(v.into_vec(), what))
            .transpose()
            .map_err(|e| named(&e))
    };
    let mut args = Vec::new();
    for (key, value) in spec.args.unwrap_or_default() {
        let json = serde_json::to_value(&value).map_err(|e| named(&format!("args.{key}: {e}")))?;
        args.push((key, ArgTest::Equals(json)));
    }
    for (key, text) in spec.args_contain.unwrap_or_default() {
        args.push((key, ArgTest::Contains(text)));
    }
    let command: Vec<Vec<String>> = spec
        .command
        .map(OneOrMany::into_vec)
        .unwrap_or_default()
        .iter()
        .map(|c| c.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .collect();
    if command.iter().any(Vec::is_empty) {
        return Err(named("an empty command prefix"));
    }
    Ok(Rule {
        tool: opt(spec.tool, "tool")?,
        finding: opt(spec.finding, "finding")?,
        path: opt(spec.path, "path")?,
        cwd: opt(spec.cwd, "cwd")?,
        session: opt(spec.session, "session")?,
        command,
        uid: spec.uid.map(OneOrMany::into_vec).unwrap_or_default(),
        user: spec.user.map(OneOrMany::into_vec).unwrap_or_default(),
        origin: spec.origin.map(OneOrMany::into_vec).unwrap_or_default(),
        args,
        name: spec.name,
        source,
        decision: spec.decision,
        message: spec.message,
        priority: spec.priority.unwrap_or(0),
        override_forbidden: spec.override_forbidden.unwrap_or(false),
        approval: spec.approval,
    })
}

/// A rule may lower a decision only on what the kernel says of the caller (uid, user, the
/// place and the words of the request), never on what the client claims of itself: its
/// session label, or its origin beyond what the door proves. An agent can claim any session
/// label (`--session ci-1`), and a client can say it is a person (`--origin interactive`);
/// nothing proves either, so a rule that allows on them allows whoever says so. An agent's
/// door (its hook, `assent sh`) says `agent` or `tool` itself, so a rule for automation is
/// one the agent cannot escape by claiming. An `allow` (which can only lower) on a session
/// label or for people alone is refused, and so is a rule that lowers even forbidden
/// (`override_forbidden`) on them. A claim may still raise: `deny` and `confirm` on a session
/// or an origin are fine.
fn lowers_on_claims(rule: &Rule) -> Result<(), String> {
    let lowers = rule.decision == Decision::Allow || rule.override_forbidden;
    if !lowers {
        return Ok(());
    }
    let claim = if rule.session.is_some() {
        "the session label"
    } else if rule.origin.contains(&Origin::Interactive)
        && !(rule.origin.contains(&Origin::Agent) && rule.origin.contains(&Origin::Tool))
    {
        "the origin \"interactive\""
    } else {
        return Ok(());
    };
    Err(format!(
        "rule \"{}\" lowers a decision on {claim}, which the client claims and any agent can \
         say; a rule may lower only on uid, user, command, finding, path, cwd or tool (make it \
         `decision = \"deny\"` or `\"confirm\"`, or condition it on the agent's uid)",
        rule.name
    ))
}

/// Every finding id the daemon can report: the analyser's catalogue and the tool findings.
pub fn known_finding_ids() -> Vec<&'static str> {
    let mut ids: Vec<&'static str> = crate::analyse::finding_ids().collect();
    ids.extend_from_slice(tools::FINDING_IDS);
    ids.sort_unstable();
    ids.dedup();
    ids
}

fn never_matches(rule: &Rule, ids: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(finding) = &rule.finding {
        for pattern in &finding.patterns {
            let one = globs(vec![pattern.clone()], "finding");
            if one.is_ok_and(|g| !ids.iter().any(|id| g.is_match(id))) {
                out.push(format!(
                    "rule \"{}\" ({}): finding pattern {pattern:?} matches no finding assentd reports; the rule never matches through it",
                    rule.name, rule.source
                ));
            }
        }
    }
    let tool_only = rule.tool.is_some() || !rule.args.is_empty();
    if tool_only && !rule.origin.is_empty() && !rule.origin.contains(&Origin::Tool) {
        out.push(format!(
            "rule \"{}\" ({}): it matches tool calls only, but not origin \"tool\"; it never matches",
            rule.name, rule.source
        ));
    }
    out
}

fn table(spec: &FileSpec, defaults: &FileSpec) -> Result<[[Decision; 2]; 5], String> {
    use Decision::{Allow, Confirm, Deny};
    // The fallback when even the embedded default leaves a cell out.
    let mut table = [
        [Allow, Allow],
        [Allow, Allow],
        [Allow, Confirm],
        [Confirm, Confirm],
        [Confirm, Deny],
    ];
    for levels in [&defaults.levels, &spec.levels].into_iter().flatten() {
        let rows = [
            levels.safe,
            levels.moderate,
            levels.opaque,
            levels.destructive,
            levels.forbidden,
        ];
        for (i, row) in rows.iter().enumerate() {
            if let Some(row) = row {
                if let Some(d) = row.interactive {
                    table[i][0] = d;
                }
                if let Some(d) = row.automation {
                    table[i][1] = d;
                }
            }
        }
    }
    if table[Level::Forbidden as usize][1] != Deny {
        return Err(
            "levels.forbidden.automation must stay \"deny\"; lower it for some requests with a rule that says override_forbidden = true".into(),
        );
    }
    let moderate = spec
        .confirm_agent_moderate
        .or(defaults.confirm_agent_moderate)
        .unwrap_or(false);
    if moderate {
        table[Level::Moderate as usize][1] = table[Level::Moderate as usize][1].max(Confirm);
    }
    Ok(table)
}

/// How approvals must be given, by level: the embedded default's, then the file's.
fn approvals(spec: &FileSpec, defaults: &FileSpec) -> [Approval; 5] {
    let mut out = [Approval::Click; 5];
    for a in [&defaults.approval, &spec.approval].into_iter().flatten() {
        let by_level = [a.safe, a.moderate, a.opaque, a.destructive, a.forbidden];
        for (slot, given) in out.iter_mut().zip(by_level) {
            if let Some(given) = given {
                *slot = given;
            }
        }
    }
    out
}

fn threshold(value: f32, what: &str) -> Result<f32, String> {
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{what} must be between 0 and 1, not {value}"))
    }
}

fn settings(spec: &FileSpec) -> Result<Settings, String> {
    let hold_ttl = match &spec.hold_ttl {
        Some(text) => {
            let d: Duration = humantime::parse_duration(text)
                .map_err(|e| format!("hold_ttl {text:?}: {e}; expected {DURATION_FORMS}"))?;
            if d.is_zero() {
                return Err("hold_ttl must be longer than zero".into());
            }
            Some(d)
        }
        None => None,
    };
    let mut tool_confidence = BTreeMap::new();
    for (tool, value) in spec.tool_confidence.clone().unwrap_or_default() {
        tool_confidence.insert(
            tool.clone(),
            threshold(value, &format!("tool_confidence.{tool}"))?,
        );
    }
    let mut approvers = BTreeMap::new();
    for (agent, human) in spec.approvers.clone().unwrap_or_default() {
        let agent: u32 = agent
            .parse()
            .map_err(|_| format!("approvers: {agent:?} is not a uid"))?;
        approvers.insert(agent, human);
    }
    let paths = |v: &Option<Vec<String>>, what: &str| {
        v.clone()
            .filter(|v| !v.is_empty())
            .map(|v| globs(v, what))
            .transpose()
    };
    Ok(Settings {
        observe: spec.observe.unwrap_or(false),
        observe_uids: spec.observe_uids.clone().unwrap_or_default(),
        observe_origins: spec.observe_origins.clone().unwrap_or_default(),
        hold_ttl,
        no_approver: spec.no_approver.unwrap_or(NoApprover::Deny),
        confirm_agent_moderate: spec.confirm_agent_moderate.unwrap_or(false),
        confidence_threshold: threshold(
            spec.confidence_threshold
                .unwrap_or(DEFAULT_CONFIDENCE_THRESHOLD),
            "confidence_threshold",
        )?,
        tool_confidence,
        pending_limit: spec.pending_limit.filter(|n| *n > 0),
        rate_limit: spec.rate_limit.filter(|n| *n > 0),
        approvers,
        protected_paths: paths(&spec.protected_paths, "path")?,
        sensitive_paths: paths(&spec.sensitive_paths, "path")?,
        project_paths: projects(&spec.project_paths)?,
        tools: spec.tools.clone().unwrap_or_default(),
        approval: [Approval::Click; 5],
        confine: confine(spec.confine.as_ref())?,
        programs: Default::default(),
    })
}

/// `project_paths`: directories that are projects without being repositories, each absolute
/// or `~/…`; a glob's `*` stays within one component (`~/work/*` names `~/work/thesis`, not
/// what lies below it). None names the home or above it (`project.rs` never takes those).
fn projects(spec: &Option<Vec<String>>) -> Result<Option<Globs>, String> {
    let Some(dirs) = spec.clone().filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    for dir in &dirs {
        if !(dir.starts_with('/') || dir.starts_with("~/")) {
            return Err(format!(
                "project_paths: {dir:?} must be absolute or start with ~/ (a directory below the requester's home)"
            ));
        }
    }
    globs(dirs, "path").map(Some)
}

/// `[confine]`, with the defaults for what it leaves out.
fn confine(spec: Option<&ConfineSpec>) -> Result<Confine, String> {
    let mut out = Confine::default();
    let Some(spec) = spec else {
        return Ok(out);
    };
    if let Some(enabled) = spec.enabled {
        out.enabled = enabled;
    }
    if let Some(instead) = &spec.instead_of_holding {
        out.instead_opaque = instead.opaque.clone().unwrap_or_default();
        out.instead_moderate = instead.moderate.clone().unwrap_or_default();
    }
    for dir in spec.writable.clone().unwrap_or_default() {
        if !(dir.starts_with('/') || dir.starts_with("~/")) {
            return Err(format!(
                "confine.writable: {dir:?} must be absolute or start with ~/ (a directory below the requester's home)"
            ));
        }
        if dir.contains(['*', '?', '[']) {
            return Err(format!(
                "confine.writable: {dir:?} is a pattern; name directories (the kernel grants a directory and all beneath it)"
            ));
        }
        out.writable.push(dir);
    }
    Ok(out)
}
