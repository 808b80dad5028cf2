//! From findings to a decision: the policy, its rules and its settings.
//!
//! A policy is the level × origin table, rules that match on what a request is and who sent
//! it, and settings (thresholds, limits, observe mode). The embedded default
//! (`default.toml`, compiled in) is written in the same format as `/etc/assent/policy.toml`,
//! so `assentd` always runs with no file at all and `assentd --check-policy` shows it.
//!
//! Evaluation is deterministic and named: among the rules that match, a deny rule wins, then
//! the highest `priority`, then the most specific (most conditions), then the strictest
//! decision, then the name — never the order of the file. A rule may lower the table's
//! decision, except `forbidden` for automation, which needs `override_forbidden = true`.
//! After the rules, the caller's claims (`requires_confirmation`, low confidence) can raise a
//! decision and never lower it. Observe mode turns whatever was decided into an allow and says
//! so in the reason. This module does no I/O except in [`file::load`].

mod book;
mod describe;
pub mod file;
pub mod live;
mod matching;
pub mod paths;
pub mod tools;
pub mod weaken;

use std::collections::BTreeMap;
use std::time::Duration;

use assent_client::protocol::{Context, Decision, Level, Origin};
use globset::GlobSet;

use crate::analyse::{Finding, SimpleCommand};
use crate::places::Kind;
use matching::matches;

pub use file::{PolicyError, load, parse};
pub use live::Live;

/// Below this confidence (seed 001), a change is confirmed even if its level would allow it.
pub const DEFAULT_CONFIDENCE_THRESHOLD: f32 = 0.85;

/// The embedded default policy, in the policy file format.
pub const DEFAULT_POLICY: &str = include_str!("default.toml");

/// The decision and the words that say why.
#[derive(Debug, Clone, PartialEq)]
pub struct Ruling {
    /// Allow, confirm or deny.
    pub decision: Decision,
    /// Which part of the policy decided, for the person and the audit trail.
    pub reason: String,
    /// The rule that decided, if a rule did.
    pub rule: Option<String>,
    /// In observe mode: what would have been decided (the decision itself is then `Allow`).
    pub observed: Option<Decision>,
    /// How a person must approve it, if it is held.
    pub approval: Approval,
}

/// How a person must give an approval: a click (the notification, `assent approve`), or the
/// user's password through polkit (`org.assent.approve`), which an agent running as the user
/// does not know. A deny never needs more than a click.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Approval {
    #[default]
    Click,
    Password,
}

impl Approval {
    pub fn as_str(self) -> &'static str {
        match self {
            Approval::Click => "click",
            Approval::Password => "password",
        }
    }
}

/// What to do with an agent's request that needs a person when no approval agent is
/// registered for its owner (outside the requester's login session). A person's own request
/// (origin interactive) is always held: they can answer at their prompt or with `assent approve`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NoApprover {
    /// Deny at once, with a reason that says how to start an approval agent.
    Deny,
    /// Hold nothing and let the agent's own prompt decide (hooks answer `ask`; `assent check`
    /// denies).
    Ask,
    /// Hold it anyway, for `assent approve`, until its TTL.
    Hold,
}

impl NoApprover {
    /// Lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            NoApprover::Deny => "deny",
            NoApprover::Ask => "ask",
            NoApprover::Hold => "hold",
        }
    }
}

/// A condition on one tool argument.
#[derive(Debug, Clone)]
pub enum ArgTest {
    /// The argument equals this JSON value (strings compare as strings, numbers as numbers).
    Equals(serde_json::Value),
    /// The argument is a string containing this text.
    Contains(String),
}

/// A set of globs, with the patterns kept for display and specificity.
#[derive(Debug, Clone)]
pub struct Globs {
    /// The patterns as written.
    pub patterns: Vec<String>,
    set: GlobSet,
}

impl Globs {
    /// Whether any pattern matches `text`.
    pub fn is_match(&self, text: &str) -> bool {
        self.set.is_match(text)
    }

    /// The globs for the vocabulary of places, as written and compiled.
    pub fn patterns(&self) -> crate::places::Patterns<'_> {
        crate::places::Patterns {
            written: &self.patterns,
            set: &self.set,
        }
    }
}

/// One compiled rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// Its name, unique in the policy.
    pub name: String,
    /// `file:line` where it is written.
    pub source: String,
    /// What it decides.
    pub decision: Decision,
    /// Shown to the person.
    pub message: Option<String>,
    /// Higher wins among rules that match (after deny).
    pub priority: i32,
    /// May lower a `forbidden` request from automation.
    pub override_forbidden: bool,
    /// Tool-name globs.
    pub tool: Option<Globs>,
    /// Argv prefixes (`git push`): a simple command whose words start with one.
    pub command: Vec<Vec<String>>,
    /// Finding-id globs.
    pub finding: Option<Globs>,
    /// Path globs on the words of the command or the path arguments of a tool.
    pub path: Option<Globs>,
    /// Working-directory globs.
    pub cwd: Option<Globs>,
    /// Caller uids.
    pub uid: Vec<u32>,
    /// Caller user names.
    pub user: Vec<String>,
    /// Origins.
    pub origin: Vec<Origin>,
    /// Session-label globs.
    pub session: Option<Globs>,
    /// Conditions on tool arguments (top-level keys).
    pub args: Vec<(String, ArgTest)>,
    /// How an approval of what it holds must be given, over the level's setting.
    pub approval: Option<Approval>,
}

impl Rule {
    /// How many conditions the rule has: more is more specific.
    pub fn specificity(&self) -> u32 {
        let mut n = 0;
        n += u32::from(self.tool.is_some());
        n += u32::from(!self.command.is_empty());
        n += u32::from(self.finding.is_some());
        n += u32::from(self.path.is_some());
        n += u32::from(self.cwd.is_some());
        n += u32::from(!self.uid.is_empty() || !self.user.is_empty());
        n += u32::from(!self.origin.is_empty());
        n += u32::from(self.session.is_some());
        n + u32::try_from(self.args.len()).unwrap_or(u32::MAX)
    }
}

/// Settings that are not rules.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Observe mode for everything.
    pub observe: bool,
    /// Observe mode for these uids.
    pub observe_uids: Vec<u32>,
    /// Observe mode for these origins.
    pub observe_origins: Vec<Origin>,
    /// Held-request TTL (`assentd --hold-ttl` overrides).
    pub hold_ttl: Option<Duration>,
    /// What to do with no approver.
    pub no_approver: NoApprover,
    /// Confirm moderate changes from agents and tools.
    pub confirm_agent_moderate: bool,
    /// Seed 001's global threshold.
    pub confidence_threshold: f32,
    /// Per-tool thresholds.
    pub tool_confidence: BTreeMap<String, f32>,
    /// Held requests per uid (`assentd --max-pending` overrides).
    pub pending_limit: Option<usize>,
    /// Checks per second per uid; `None` for no limit.
    pub rate_limit: Option<u32>,
    /// Agent uid → the human uid who approves for it.
    pub approvers: BTreeMap<u32, u32>,
    /// Extra protected path globs (writes are destructive).
    pub protected_paths: Option<Globs>,
    /// Extra sensitive path globs (reading or writing is destructive).
    pub sensitive_paths: Option<Globs>,
    /// Directories that are projects without holding a repository (`project_paths`): globs
    /// over a directory's absolute text or its `~/…` form (`crate::project`).
    pub project_paths: Option<Globs>,
    /// Risk registry entries, over the built-in ones.
    pub tools: BTreeMap<String, Level>,
    /// How an approval must be given, by level (a rule's own `approval` wins).
    pub approval: [Approval; 5],
    /// How what `assent run`/`sh` run is confined by the kernel (`[confine]`).
    pub confine: Confine,
    /// The programs the file describes (`[[program]]`), judged beside the built-in book.
    pub programs: crate::analyse::book::Book,
}

/// `[confine]`: whether what a door runs is confined by the kernel (Landlock), which held
/// lines it runs confined instead, and where every confined run may also write.
#[derive(Debug, Clone, PartialEq)]
pub struct Confine {
    /// Confine what doors run (default on).
    pub enabled: bool,
    /// Origins whose opaque lines, held by the level table, a confining door runs confined
    /// instead of holding (default: agents).
    pub instead_opaque: Vec<Origin>,
    /// Likewise for moderate lines (held only with `confirm_agent_moderate`; default none).
    pub instead_moderate: Vec<Origin>,
    /// Directories every confined run may also change: absolute, or `~/…` below the
    /// requester's home.
    pub writable: Vec<String>,
}

impl Default for Confine {
    fn default() -> Confine {
        Confine {
            enabled: true,
            instead_opaque: vec![Origin::Agent],
            instead_moderate: Vec::new(),
            writable: Vec::new(),
        }
    }
}

impl Confine {
    /// A line of `level` from `origin` that the level table holds is run confined instead.
    pub fn instead_of_holding(&self, level: Level, origin: Origin) -> bool {
        self.enabled
            && match level {
                Level::Opaque => self.instead_opaque.contains(&origin),
                Level::Moderate => self.instead_moderate.contains(&origin),
                _ => false,
            }
    }
}

/// A policy: the table, the rules and the settings.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Indexed by `[level][origin is automation]`.
    pub(crate) table: [[Decision; 2]; 5],
    /// Rules, in no meaningful order.
    pub rules: Vec<Rule>,
    /// Settings.
    pub settings: Settings,
    /// Where it came from, for status and reasons (`embedded default`, a path).
    pub source: String,
    /// The effective policy as text, for `assentd --check-policy`.
    pub text: String,
}

/// What a request is and who sent it: what rules match on.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    /// The highest level.
    pub level: Level,
    /// The findings.
    pub findings: &'a [Finding],
    /// The simple commands (of a shell line, or of a tool's command argument).
    pub commands: &'a [SimpleCommand],
    /// Path candidates: the command's words, or the tool's path arguments.
    pub paths: &'a [String],
    /// Who asked.
    pub origin: Origin,
    /// The caller's claims.
    pub context: &'a Context,
    /// The caller's uid, when known (from the kernel).
    pub uid: Option<u32>,
    /// The caller's user name, when known.
    pub user: Option<&'a str>,
    /// The working directory of a shell command.
    pub cwd: Option<&'a str>,
    /// The tool's name, for a tool call.
    pub tool: Option<&'a str>,
    /// The tool's arguments, when they parsed.
    pub args: Option<&'a serde_json::Value>,
    /// The caller's home, so `~/…` globs match.
    pub home: Option<&'a str>,
    /// The project the working directory lies in, as the daemon found it, so a rule's path is
    /// placed as the line's words were.
    pub project: Option<&'a str>,
}

impl Policy {
    /// The policy compiled into the daemon.
    pub fn embedded() -> Policy {
        parse(DEFAULT_POLICY, "embedded default")
            .expect("the embedded default policy parses (tested)")
            .policy
    }

    /// The confidence threshold for `tool` (or the global one).
    pub fn threshold(&self, tool: Option<&str>) -> f32 {
        tool.and_then(|t| self.settings.tool_confidence.get(t))
            .copied()
            .unwrap_or(self.settings.confidence_threshold)
    }

    /// The human who approves for `uid`.
    pub fn owner_of(&self, uid: u32) -> u32 {
        self.settings.approvers.get(&uid).copied().unwrap_or(uid)
    }

    /// Decide a request from its level, findings and origin alone (no caller, no rules that
    /// need more than that).
    pub fn decide(
        &self,
        level: Level,
        findings: &[Finding],
        origin: Origin,
        context: &Context,
    ) -> Ruling {
        self.rule_on(&Facts {
            level,
            findings,
            commands: &[],
            paths: &[],
            origin,
            context,
            uid: None,
            user: None,
            cwd: None,
            tool: None,
            args: None,
            home: None,
            project: None,
        })
    }

    /// The level table's decision for `level` from `origin`.
    fn decides(&self, level: Level, origin: Origin) -> Decision {
        self.table[level as usize][usize::from(origin != Origin::Interactive)]
    }

    /// Decide a request.
    pub fn rule_on(&self, facts: &Facts<'_>) -> Ruling {
        let automation = facts.origin != Origin::Interactive;
        let table = self.table[facts.level as usize][usize::from(automation)];
        let mut ruling = Ruling {
            decision: table,
            reason: format!(
                "{}: {} from {}",
                self.table_name(),
                facts.level.as_str(),
                facts.origin.as_str()
            ),
            rule: None,
            observed: None,
            approval: self.settings.approval[facts.level as usize],
        };
        if let Some(rule) = self.winner(facts) {
            let locked = automation && facts.level == Level::Forbidden && table == Decision::Deny;
            if locked && rule.decision < Decision::Deny && !rule.override_forbidden {
                ruling.reason = format!(
                    "{}: forbidden from {} (rule \"{}\" may not lower it without override_forbidden = true)",
                    self.table_name(),
                    facts.origin.as_str(),
                    rule.name
                );
            } else {
                ruling.decision = rule.decision;
                ruling.rule = Some(rule.name.clone());
                if let Some(approval) = rule.approval {
                    ruling.approval = approval;
                }
                ruling.reason = match &rule.message {
                    Some(message) => format!("rule \"{}\" ({}): {message}", rule.name, rule.source),
                    None => format!(
                        "rule \"{}\" ({}): {}",
                        rule.name,
                        rule.source,
                        rule.decision.as_str()
                    ),
                };
            }
        }
        self.raise_for_claims(&mut ruling, facts);
        // Observe mode watches; it never lets an agent answer or switch off the gate itself.
        let defends_gate = automation
            && facts
                .findings
                .iter()
                .any(|f| matches!(f.cell, Some((_, Kind::Gate))) && f.level == Level::Forbidden);
        if self.observes(facts) && ruling.decision != Decision::Allow && !defends_gate {
            ruling.observed = Some(ruling.decision);
            ruling.reason = format!(
                "observe mode: would have decided {} ({})",
                ruling.decision.as_str(),
                ruling.reason
            );
            ruling.decision = Decision::Allow;
        }
        ruling
    }

    fn table_name(&self) -> &'static str {
        "default policy"
    }

    /// Whom observe mode covers, in words, while it covers anyone.
    pub fn observing(&self) -> Option<String> {
        let s = &self.settings;
        if s.observe {
            return Some("everyone".into());
        }
        let mut whom = Vec::new();
        if !s.observe_uids.is_empty() {
            let uids: Vec<String> = s.observe_uids.iter().map(u32::to_string).collect();
            whom.push(format!("uids {}", uids.join(", ")));
        }
        if !s.observe_origins.is_empty() {
            let origins: Vec<&str> = s.observe_origins.iter().map(|o| o.as_str()).collect();
            whom.push(format!("origins {}", origins.join(", ")));
        }
        (!whom.is_empty()).then(|| whom.join("; "))
    }

    fn observes(&self, facts: &Facts<'_>) -> bool {
        let s = &self.settings;
        s.observe
            || facts.uid.is_some_and(|uid| s.observe_uids.contains(&uid))
            || s.observe_origins.contains(&facts.origin)
    }

    fn raise_for_claims(&self, ruling: &mut Ruling, facts: &Facts<'_>) {
        if facts.context.requires_confirmation == Some(true) {
            ruling.raise(
                Decision::Confirm,
                "the caller asked for confirmation".into(),
            );
        }
        let threshold = self.threshold(facts.tool);
        if let Some(confidence) = facts.context.confidence
            && facts.level >= Level::Moderate
            // NaN compares as nothing: it counts as below any threshold.
            && !matches!(
                confidence.partial_cmp(&threshold),
                Some(std::cmp::Ordering::Greater | std::cmp::Ordering::Equal)
            )
        {
            ruling.raise(
                Decision::Confirm,
                format!(
                    "confidence {confidence:.2} is below the threshold {threshold:.2} for a change"
                ),
            );
        }
    }

    /// The rule that decides, if any matches: deny first, then priority, then specificity,
    /// then the strictest decision, then the name (alphabetically first).
    fn winner(&self, facts: &Facts<'_>) -> Option<&Rule> {
        self.rules
            .iter()
            .filter(|rule| matches(rule, facts, |level| self.decides(level, facts.origin)))
            .max_by(|a, b| {
                let key = |r: &Rule| {
                    (
                        r.decision == Decision::Deny,
                        r.priority,
                        r.specificity(),
                        r.decision,
                    )
                };
                key(a).cmp(&key(b)).then_with(|| b.name.cmp(&a.name))
            })
    }
}

impl Ruling {
    /// Raise to `decision` if that is stricter, with its reason.
    fn raise(&mut self, decision: Decision, reason: String) {
        if decision > self.decision {
            self.decision = decision;
            self.reason = reason;
        }
    }
}

#[cfg(test)]
mod tests;
