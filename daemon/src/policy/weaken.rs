//! Whether a new policy weakens the one in force, and how, in words a person approves.
//!
//! In user mode the policy file is the user's own, so an agent running as the user can write
//! it: `observe = true` appended, an allow rule added, a deny rule taken out. Such a change is
//! not in force for agents and tool calls until a person approves it (`policy/live.rs` holds
//! it back; the server asks). What counts as weaker is everything that lets an agent's request
//! through where it was held or refused before: observe mode for more callers, a cell of the
//! level table lowered, a rule that allows or holds added or changed, a deny rule removed or
//! changed, the fallback without an approver lowered, moderate changes no longer held, a lower
//! confidence threshold, fewer protected or secret places, a click where a password was asked,
//! another approver for a uid, a tool's level lowered, a `[[program]]` entry added, changed or
//! removed. A change that only raises is in force at once. Pure: no I/O.

use assent_client::protocol::{Decision, Level, Origin};

use super::{Approval, Globs, NoApprover, Policy, Rule};

/// `[confine]` weaker: confinement off, more held lines run confined instead of held, or more
/// places every confined run may change.
fn confine(o: &super::Confine, n: &super::Confine, out: &mut Vec<String>) {
    if o.enabled && !n.enabled {
        out.push("confine.enabled = false: what assent run/sh run is no longer confined".into());
    }
    let added = |old: &[Origin], new: &[Origin]| -> Vec<&'static str> {
        new.iter()
            .filter(|x| !old.contains(x))
            .map(|x| x.as_str())
            .collect()
    };
    for (level, old, new) in [
        ("opaque", &o.instead_opaque, &n.instead_opaque),
        ("moderate", &o.instead_moderate, &n.instead_moderate),
    ] {
        let more = added(old, new);
        if !more.is_empty() {
            out.push(format!(
                "confine.instead_of_holding: {level} lines from {} run confined instead of held",
                more.join(", ")
            ));
        }
    }
    for dir in n.writable.iter().filter(|d| !o.writable.contains(d)) {
        out.push(format!(
            "confine.writable: every confined run may change {dir}"
        ));
    }
}

/// `[[program]]` entries added, changed or removed. An entry takes the place of the guess for
/// a program the gate knows nothing of (`acmectl status` allowed where it was the guess's), and
/// one taken away takes its findings with it: any change to the book may let more through, so
/// every one is a weakening rather than a judgement of which ones raise.
fn programs(o: &crate::analyse::book::Book, n: &crate::analyse::book::Book, out: &mut Vec<String>) {
    for entry in n.entries() {
        match o.entry(&entry.name) {
            None => out.push(format!(
                "[[program]] {:?} added: its commands are judged as the entry says",
                entry.name
            )),
            Some(was) if was.command != entry.command => out.push(format!(
                "[[program]] {:?} changed: its commands are judged as the entry now says",
                entry.name
            )),
            Some(_) => {}
        }
    }
    for entry in o.entries().filter(|e| n.entry(&e.name).is_none()) {
        out.push(format!(
            "[[program]] {:?} removed: what it added to the judgement is gone",
            entry.name
        ));
    }
}

/// Each way `new` is weaker than `old`, one line each; empty when `new` only keeps or raises.
pub fn weakenings(old: &Policy, new: &Policy) -> Vec<String> {
    let mut out = Vec::new();
    let (o, n) = (&old.settings, &new.settings);
    if n.observe && !o.observe {
        out.push("observe = true: nothing is held or denied any more, only audited".into());
    }
    for uid in n
        .observe_uids
        .iter()
        .filter(|u| !o.observe_uids.contains(u))
    {
        out.push(format!("observe mode for uid {uid}"));
    }
    for origin in n
        .observe_origins
        .iter()
        .filter(|x| !o.observe_origins.contains(x))
    {
        out.push(format!("observe mode for origin {}", origin.as_str()));
    }
    table(old, new, &mut out);
    rules(old, new, &mut out);
    if no_approver_rank(n.no_approver) < no_approver_rank(o.no_approver) {
        out.push(format!(
            "no_approver = {:?} (was {:?})",
            n.no_approver.as_str(),
            o.no_approver.as_str()
        ));
    }
    confine(&o.confine, &n.confine, &mut out);
    programs(&o.programs, &n.programs, &mut out);
    if o.confirm_agent_moderate && !n.confirm_agent_moderate {
        out.push("confirm_agent_moderate = false: agents' moderate changes run unasked".into());
    }
    if n.confidence_threshold < o.confidence_threshold {
        out.push(format!(
            "confidence_threshold lowered to {} (was {})",
            n.confidence_threshold, o.confidence_threshold
        ));
    }
    for (tool, threshold) in &o.tool_confidence {
        if n.tool_confidence.get(tool).is_none_or(|t| t < threshold) {
            out.push(format!("tool_confidence for {tool:?} lowered or removed"));
        }
    }
    removed_globs(
        "protected_paths",
        &o.protected_paths,
        &n.protected_paths,
        &mut out,
    );
    removed_globs(
        "sensitive_paths",
        &o.sensitive_paths,
        &n.sensitive_paths,
        &mut out,
    );
    // A directory named a project makes its files' changes moderate: naming one weakens.
    let had = o
        .project_paths
        .as_ref()
        .map(|g| g.patterns.as_slice())
        .unwrap_or(&[]);
    for pattern in n.project_paths.iter().flat_map(|g| &g.patterns) {
        if !had.contains(pattern) {
            out.push(format!(
                "project_paths: {pattern:?} added: changes to the files there are a project's"
            ));
        }
    }
    for (level, (was, now)) in o.approval.iter().zip(&n.approval).enumerate() {
        if *was == Approval::Password && *now == Approval::Click {
            out.push(format!(
                "[approval] {} = \"click\" (was \"password\")",
                level_name(level)
            ));
        }
    }
    for (agent, person) in &n.approvers {
        if o.approvers.get(agent) != Some(person) {
            out.push(format!("[approvers] uid {person} approves for uid {agent}"));
        }
    }
    for (tool, level) in &o.tools {
        match n.tools.get(tool) {
            Some(now) if now >= level => {}
            Some(now) => out.push(format!(
                "[tools] {tool:?} = {:?} (was {:?})",
                now.as_str(),
                level.as_str()
            )),
            None => out.push(format!(
                "[tools] {tool:?} removed (was {:?})",
                level.as_str()
            )),
        }
    }
    for (tool, level) in n.tools.iter().filter(|(t, _)| !o.tools.contains_key(*t)) {
        // An unknown tool is held: registering one as safe or moderate lets it through.
        if *level < Level::Destructive {
            out.push(format!("[tools] {tool:?} = {:?} added", level.as_str()));
        }
    }
    out
}

fn table(old: &Policy, new: &Policy, out: &mut Vec<String>) {
    for (level, (was, now)) in old.table.iter().zip(&new.table).enumerate() {
        for (column, origin) in [(0, "interactive"), (1, "automation")] {
            if now[column] < was[column] {
                out.push(format!(
                    "[levels] {}.{origin} = {:?} (was {:?})",
                    level_name(level),
                    now[column].as_str(),
                    was[column].as_str()
                ));
            }
        }
    }
}

/// Rules by what they say (name, decision and every condition): a rule that allows or holds
/// and is new or changed can lower a decision; a deny rule that is gone or changed no longer
/// refuses what it refused.
fn rules(old: &Policy, new: &Policy, out: &mut Vec<String>) {
    let old_keys: Vec<String> = old.rules.iter().map(key).collect();
    let new_keys: Vec<String> = new.rules.iter().map(key).collect();
    for (rule, k) in new.rules.iter().zip(&new_keys) {
        if rule.decision < Decision::Deny && !old_keys.contains(k) {
            out.push(format!(
                "rule \"{}\" ({}) {} added or changed",
                rule.name,
                rule.source,
                rule.decision.as_str()
            ));
        }
    }
    for (rule, k) in old.rules.iter().zip(&old_keys) {
        if rule.decision == Decision::Deny && !new_keys.contains(k) {
            out.push(format!("deny rule \"{}\" removed or changed", rule.name));
        }
    }
}

/// A rule's whole meaning as text (its source line left out: moving a rule changes nothing).
fn key(rule: &Rule) -> String {
    let globs = |g: &Option<Globs>| g.as_ref().map(|g| g.patterns.clone());
    format!(
        "{:?} {:?}",
        (
            &rule.name,
            rule.decision,
            &rule.message,
            rule.priority,
            rule.override_forbidden,
        ),
        (
            globs(&rule.tool),
            &rule.command,
            globs(&rule.finding),
            globs(&rule.path),
            globs(&rule.cwd),
            &rule.uid,
            &rule.user,
            rule.origin.iter().map(|o| o.as_str()).collect::<Vec<_>>(),
            globs(&rule.session),
            format!("{:?}", rule.args),
            rule.approval,
        )
    )
}

fn removed_globs(name: &str, old: &Option<Globs>, new: &Option<Globs>, out: &mut Vec<String>) {
    let now = new.as_ref().map(|g| g.patterns.as_slice()).unwrap_or(&[]);
    for pattern in old.iter().flat_map(|g| &g.patterns) {
        if !now.contains(pattern) {
            out.push(format!("{name}: {pattern:?} removed"));
        }
    }
}

/// How strict each fallback without an approver is: deny refuses, hold waits for `assent
/// approve`, ask lets the agent's own prompt decide.
fn no_approver_rank(n: NoApprover) -> u8 {
    match n {
        NoApprover::Deny => 2,
        NoApprover::Hold => 1,
        NoApprover::Ask => 0,
    }
}

fn level_name(index: usize) -> &'static str {
    [
        Level::Safe,
        Level::Moderate,
        Level::Opaque,
        Level::Destructive,
        Level::Forbidden,
    ]
    .get(index)
    .map_or("?", |l| l.as_str())
}

/// Whether a request of `origin` is judged by a policy change that waits for a person: only
/// a person's own requests are.
pub fn waits_for_person(origin: Origin) -> bool {
    origin != Origin::Interactive
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::file::parse;

    fn policy(text: &str) -> Policy {
        parse(text, "policy.toml")
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .policy
    }

    const BASE: &str = "protected_paths = [\"/srv/**\"]\n[[rule]]\nname = \"no prod\"\ncwd = \"/srv/prod/**\"\ndecision = \"deny\"\n";

    #[test]
    fn what_lets_more_through_is_a_weakening_and_what_raises_is_not() {
        let base = policy(BASE);
        let weaker = [
            ("observe = true\n", "observe = true"),
            (
                "observe_origins = [\"agent\"]\n",
                "observe mode for origin agent",
            ),
            (
                "[levels]\ndestructive = { automation = \"allow\" }\n",
                "[levels] destructive.automation",
            ),
            (
                "[[rule]]\nname = \"rm ok\"\ncommand = \"rm\"\ndecision = \"allow\"\n",
                "rule \"rm ok\"",
            ),
            ("no_approver = \"ask\"\n", "no_approver"),
            (
                "[approval]\nforbidden = \"click\"\n",
                "[approval] forbidden",
            ),
            ("[tools]\n\"db.drop\" = \"safe\"\n", "[tools] \"db.drop\""),
            ("[approvers]\n\"1001\" = 1002\n", "[approvers]"),
            ("[confine]\nenabled = false\n", "confine.enabled = false"),
            (
                "[confine]\ninstead_of_holding = { opaque = [\"agent\", \"interactive\"] }\n",
                "opaque lines from interactive",
            ),
            (
                "[confine]\nwritable = [\"~/Documents\"]\n",
                "may change ~/Documents",
            ),
            (
                "project_paths = [\"~/Documents\"]\n",
                "project_paths: \"~/Documents\" added",
            ),
            (
                "[[program]]\nname = \"acmectl\"\neffect = \"none\"\n",
                "[[program]] \"acmectl\" added",
            ),
        ];
        for (extra, says) in weaker {
            // The base's own keys stay; each case adds one thing.
            let (settings, rules) = BASE.split_at(BASE.find("[[rule]]").unwrap_or(0));
            let text = if extra.starts_with('[') {
                format!("{settings}{rules}{extra}")
            } else {
                format!("{extra}{settings}{rules}")
            };
            let found = weakenings(&base, &policy(&text));
            assert!(found.iter().any(|w| w.contains(says)), "{extra}: {found:?}");
        }
        // Taken out: the deny rule, a protected place.
        let found = weakenings(&base, &policy("protected_paths = [\"/srv/**\"]\n"));
        assert!(
            found
                .iter()
                .any(|w| w.contains("deny rule \"no prod\" removed")),
            "{found:?}"
        );
        let found = weakenings(&base, &policy(&BASE.replace("\"/srv/**\"", "")));
        assert!(
            found.iter().any(|w| w.contains("\"/srv/**\" removed")),
            "{found:?}"
        );
        // An entry changed or taken out.
        let acme = format!("{BASE}[[program]]\nname = \"acmectl\"\neffect = \"delete\"\n");
        let found = weakenings(
            &policy(&acme),
            &policy(&acme.replace("\"delete\"", "\"none\"")),
        );
        assert!(
            found.iter().any(|w| w.contains("\"acmectl\" changed")),
            "{found:?}"
        );
        let found = weakenings(&policy(&acme), &base);
        assert!(
            found.iter().any(|w| w.contains("\"acmectl\" removed")),
            "{found:?}"
        );
        assert_eq!(
            weakenings(&policy(&acme), &policy(&acme)),
            Vec::<String>::new()
        );
        // The same policy, a stricter one, a comment added: nothing to approve.
        for same_or_stricter in [
            BASE.to_string(),
            format!("# a comment\n{BASE}"),
            format!(
                "{BASE}[[rule]]\nname = \"no curl\"\ncommand = \"curl\"\ndecision = \"deny\"\n"
            ),
            format!("confirm_agent_moderate = true\n{BASE}"),
            format!("{BASE}[confine]\ninstead_of_holding = {{ opaque = [] }}\n"),
        ] {
            assert_eq!(
                weakenings(&base, &policy(&same_or_stricter)),
                Vec::<String>::new(),
                "{same_or_stricter}"
            );
        }
    }
}
