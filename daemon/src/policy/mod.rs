//! From findings to a decision.
//!
//! This is the embedded default policy of DESIGN's "Policy" section: a table of level × origin,
//! plus findings that are held for automation whatever their level (a plain `git push`
//! publishes; so does disabling, archiving or rolling back something on a remote service). Policy files, rules and observe mode extend this module; the table stays the
//! fallback, so `assentd` always runs with no file at all.
//!
//! Decisions only ever move up from the table: a caller's `requires_confirmation` or low
//! confidence can raise one, nothing a caller sends can lower one.

use assent_client::protocol::{Context, Decision, Level, Origin};

use crate::analyse::Finding;

/// Below this confidence (seed 001), a change is confirmed even if its level would allow it.
pub const DEFAULT_CONFIDENCE_THRESHOLD: f32 = 0.85;

/// The decision and the words that say why.
#[derive(Debug, Clone, PartialEq)]
pub struct Ruling {
    /// Allow, confirm or deny.
    pub decision: Decision,
    /// Which part of the policy decided, for the person and the audit trail.
    pub reason: String,
}

/// A policy: the level × origin table and the findings held for automation.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Indexed by `[level][origin is automation]`.
    table: [[Decision; 2]; 5],
    /// Finding ids that are confirmed for agents and tools even below `Opaque`.
    held_for_automation: Vec<&'static str>,
    /// Seed 001's threshold.
    confidence_threshold: f32,
}

impl Policy {
    /// The policy compiled into the daemon.
    pub fn embedded() -> Policy {
        use Decision::{Allow, Confirm, Deny};
        Policy {
            //       interactive  agent/tool
            table: [
                [Allow, Allow],     // safe
                [Allow, Allow],     // moderate
                [Allow, Confirm],   // opaque
                [Confirm, Confirm], // destructive
                [Confirm, Deny],    // forbidden
            ],
            held_for_automation: vec!["git.push", "cloud.remote_change"],
            confidence_threshold: DEFAULT_CONFIDENCE_THRESHOLD,
        }
    }

    /// Decide a request.
    pub fn decide(
        &self,
        level: Level,
        findings: &[Finding],
        origin: Origin,
        context: &Context,
    ) -> Ruling {
        let automation = origin != Origin::Interactive;
        let mut ruling = Ruling {
            decision: self.table[level as usize][usize::from(automation)],
            reason: format!(
                "default policy: {} from {}",
                level.as_str(),
                origin.as_str()
            ),
        };
        if automation
            && let Some(held) = findings
                .iter()
                .find(|f| self.held_for_automation.contains(&f.id))
        {
            ruling.raise(
                Decision::Confirm,
                format!("default policy: {} is held for automation", held.id),
            );
        }
        if context.requires_confirmation == Some(true) {
            ruling.raise(
                Decision::Confirm,
                "the caller asked for confirmation".into(),
            );
        }
        if let Some(confidence) = context.confidence
            && level >= Level::Moderate
            // NaN compares as nothing: it counts as below any threshold.
            && !matches!(
                confidence.partial_cmp(&self.confidence_threshold),
                Some(std::cmp::Ordering::Greater | std::cmp::Ordering::Equal)
            )
        {
            ruling.raise(
                Decision::Confirm,
                format!(
                    "confidence {confidence:.2} is below the threshold {:.2} for a change",
                    self.confidence_threshold
                ),
            );
        }
        ruling
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
mod tests {
    use super::*;

    fn finding(id: &'static str, level: Level) -> Finding {
        Finding {
            id,
            level,
            message: String::new(),
            span: 0..0,
        }
    }

    #[test]
    fn the_default_table() {
        use Decision::*;
        use Level::*;
        use Origin::*;
        let policy = Policy::embedded();
        let cases = [
            (Safe, Interactive, Allow),
            (Safe, Agent, Allow),
            (Moderate, Interactive, Allow),
            (Moderate, Tool, Allow),
            (Opaque, Interactive, Allow),
            (Opaque, Agent, Confirm),
            (Destructive, Interactive, Confirm),
            (Destructive, Agent, Confirm),
            (Forbidden, Interactive, Confirm),
            (Forbidden, Agent, Deny),
            (Forbidden, Tool, Deny),
        ];
        for (level, origin, want) in cases {
            let got = policy.decide(level, &[], origin, &Context::default());
            assert_eq!(got.decision, want, "{level:?} from {origin:?}");
        }
    }

    #[test]
    fn git_push_is_held_for_agents_only() {
        let policy = Policy::embedded();
        let push = [finding("git.push", Level::Moderate)];
        let agent = policy.decide(Level::Moderate, &push, Origin::Agent, &Context::default());
        assert_eq!(agent.decision, Decision::Confirm);
        assert!(agent.reason.contains("git.push"));
        let person = policy.decide(
            Level::Moderate,
            &push,
            Origin::Interactive,
            &Context::default(),
        );
        assert_eq!(person.decision, Decision::Allow);
    }

    #[test]
    fn claims_raise_and_never_lower() {
        let policy = Policy::embedded();
        let asks = Context {
            requires_confirmation: Some(true),
            ..Context::default()
        };
        assert_eq!(
            policy
                .decide(Level::Safe, &[], Origin::Agent, &asks)
                .decision,
            Decision::Confirm
        );
        let waves = Context {
            requires_confirmation: Some(false),
            confidence: Some(1.0),
            ..Context::default()
        };
        assert_eq!(
            policy
                .decide(Level::Forbidden, &[], Origin::Agent, &waves)
                .decision,
            Decision::Deny
        );
        let unsure = Context {
            confidence: Some(0.5),
            ..Context::default()
        };
        assert_eq!(
            policy
                .decide(Level::Moderate, &[], Origin::Agent, &unsure)
                .decision,
            Decision::Confirm
        );
        assert_eq!(
            policy
                .decide(Level::Safe, &[], Origin::Agent, &unsure)
                .decision,
            Decision::Allow
        );
        let nan = Context {
            confidence: Some(f32::NAN),
            ..Context::default()
        };
        assert_eq!(
            policy
                .decide(Level::Moderate, &[], Origin::Agent, &nan)
                .decision,
            Decision::Confirm
        );
    }
}
