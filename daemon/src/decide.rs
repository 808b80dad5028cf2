//! The decision after the policy: what becomes of a request the policy has ruled on, given the
//! remembered approvals, whether an approval agent could ask a person, and the no-approver
//! setting. One pure function for a single check and for every item of a batch; `conn/` turns
//! its outcomes into packets, holds and audit events.
//!
//! ```text
//! policy: allow / deny ────────────────────────────────► Policy (as ruled)
//! policy: confirm ─┬─ a remembered approval covers it ─► Remembered (allow)
//!                  ├─ nobody can be asked ─────────────► NoApprover (deny, or ask)
//!                  └─ else ────────────────────────────► Hold
//! ```
//!
//! "Nobody can be asked" is judged once per request: no approval agent is registered for its
//! owner, the setting is not `hold`, and none of its held items is a person's own (of origin
//! interactive), since a person can always be asked at their terminal or answer from another.
//! So a batch either holds all of its items that need a person, or none.

use assent_client::protocol::{Decision, Origin};

use crate::policy::NoApprover;

/// What the decision needs to know of one item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Item {
    /// What the policy ruled.
    pub ruled: Decision,
    /// Its judged origin (a tool call is a tool call, whatever the caller claims).
    pub origin: Origin,
    /// Whether a remembered approval of its owner covers it (looked up only for a confirm).
    pub remembered: bool,
}

/// What becomes of one item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Allowed or denied as the policy ruled.
    Policy(Decision),
    /// Allowed by a remembered approval.
    Remembered,
    /// Held for a person.
    Hold,
    /// Needed a person, but nobody can be asked: denied, or (with `ask`) handed to the
    /// caller's own prompt, nothing held.
    NoApprover {
        /// `no_approver = "ask"`.
        ask: bool,
    },
}

impl Outcome {
    /// The decision the reply carries: a confirm for a hold and for an ask (the caller tells
    /// them apart by the token only a hold has).
    pub fn decision(self) -> Decision {
        match self {
            Outcome::Policy(decision) => decision,
            Outcome::Remembered => Decision::Allow,
            Outcome::Hold | Outcome::NoApprover { ask: true } => Decision::Confirm,
            Outcome::NoApprover { ask: false } => Decision::Deny,
        }
    }

    /// The decision the counters record: an ask holds nothing and allows nothing, so it is a
    /// deny there.
    pub fn recorded(self) -> Decision {
        match self {
            Outcome::NoApprover { .. } => Decision::Deny,
            outcome => outcome.decision(),
        }
    }

    /// The decision the audit trail shows: an ask is a confirm handed to the caller's own
    /// prompt (by `no_approver`, with no token: nothing was held), which decides it there; a
    /// refusal without an approver is a deny.
    pub fn audited(self) -> Decision {
        match self {
            Outcome::NoApprover { ask: true } => Decision::Confirm,
            outcome => outcome.recorded(),
        }
    }
}

/// The outcome of each item, in order. `approvers` says whether an approval agent is
/// registered that would show the request to its owner; it is asked only when an item needs
/// a person (an allowed or denied line, the usual case, never looks).
pub fn decide(
    items: &[Item],
    approvers: impl FnOnce() -> bool,
    no_approver: NoApprover,
) -> Vec<Outcome> {
    let needs_person = |item: &Item| item.ruled == Decision::Confirm && !item.remembered;
    let nobody_to_ask = no_approver != NoApprover::Hold
        && items.iter().any(needs_person)
        && !items
            .iter()
            .any(|item| needs_person(item) && item.origin == Origin::Interactive)
        && !approvers();
    items
        .iter()
        .map(|item| match item.ruled {
            Decision::Confirm if item.remembered => Outcome::Remembered,
            Decision::Confirm if nobody_to_ask => Outcome::NoApprover {
                ask: no_approver == NoApprover::Ask,
            },
            Decision::Confirm => Outcome::Hold,
            ruled => Outcome::Policy(ruled),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use Decision::{Allow, Confirm, Deny};
    use Origin::{Agent, Interactive, Tool};

    fn item(ruled: Decision, origin: Origin, remembered: bool) -> Item {
        Item {
            ruled,
            origin,
            remembered,
        }
    }

    const HOLD: Outcome = Outcome::Hold;
    const DENIED: Outcome = Outcome::NoApprover { ask: false };
    const ASKED: Outcome = Outcome::NoApprover { ask: true };

    /// One item: every ruling, origin, remembered or not, approver or not, and setting.
    #[test]
    fn a_single_request() {
        use NoApprover::{Ask, Deny as Refuse, Hold};
        #[rustfmt::skip]
        let table: &[(Decision, Origin, bool, bool, NoApprover, Outcome)] = &[
            // ruled, origin, remembered, approvers, setting => outcome
            (Allow, Agent, false, false, Refuse, Outcome::Policy(Allow)),
            (Deny, Agent, false, true, Hold, Outcome::Policy(Deny)),
            // A remembered approval counts only for what needs a person.
            (Deny, Agent, true, true, Hold, Outcome::Policy(Deny)),
            (Confirm, Agent, true, false, Refuse, Outcome::Remembered),
            (Confirm, Agent, false, true, Refuse, HOLD),
            (Confirm, Agent, false, false, Refuse, DENIED),
            (Confirm, Tool, false, false, Ask, ASKED),
            (Confirm, Agent, false, false, Hold, HOLD),
            // A person can always be asked.
            (Confirm, Interactive, false, false, Refuse, HOLD),
            (Confirm, Interactive, false, false, Ask, HOLD),
        ];
        for &(ruled, origin, remembered, approvers, setting, expected) in table {
            let got = decide(&[item(ruled, origin, remembered)], || approvers, setting);
            assert_eq!(
                got,
                [expected],
                "{ruled:?} {origin:?} remembered={remembered} approvers={approvers} {setting:?}"
            );
        }
    }

    /// A batch holds all of its items that need a person, or none.
    #[test]
    fn a_batch() {
        let agent_items = [
            item(Allow, Tool, false),
            item(Confirm, Tool, false),
            item(Confirm, Tool, true),
            item(Deny, Tool, false),
        ];
        assert_eq!(
            decide(&agent_items, || false, NoApprover::Deny),
            [
                Outcome::Policy(Allow),
                DENIED,
                Outcome::Remembered,
                Outcome::Policy(Deny)
            ]
        );
        assert_eq!(
            decide(&agent_items, || true, NoApprover::Deny),
            [
                Outcome::Policy(Allow),
                HOLD,
                Outcome::Remembered,
                Outcome::Policy(Deny)
            ]
        );
        // One item a person asked for, and held: the person can be asked, so all are held.
        let mixed = [
            item(Confirm, Interactive, false),
            item(Confirm, Tool, false),
        ];
        assert_eq!(decide(&mixed, || false, NoApprover::Deny), [HOLD, HOLD]);
        // A person's item a remembered approval covers is not held: it does not count.
        let mixed = [item(Confirm, Interactive, true), item(Confirm, Tool, false)];
        assert_eq!(
            decide(&mixed, || false, NoApprover::Ask),
            [Outcome::Remembered, ASKED]
        );
    }

    /// Whether an approver is available is asked only when someone needs a person.
    #[test]
    fn approvers_are_looked_up_only_when_needed() {
        let asked = std::cell::Cell::new(0);
        let look = || {
            asked.set(asked.get() + 1);
            false
        };
        decide(&[item(Allow, Agent, false)], look, NoApprover::Deny);
        decide(&[item(Confirm, Agent, true)], look, NoApprover::Deny);
        decide(&[item(Confirm, Agent, false)], look, NoApprover::Hold);
        assert_eq!(asked.get(), 0);
        decide(&[item(Confirm, Agent, false)], look, NoApprover::Deny);
        assert_eq!(asked.get(), 1);
    }

    #[test]
    fn what_the_reply_and_the_audit_say() {
        assert_eq!(HOLD.decision(), Confirm);
        assert_eq!(ASKED.decision(), Confirm);
        assert_eq!(ASKED.recorded(), Deny);
        assert_eq!(ASKED.audited(), Confirm);
        assert_eq!(DENIED.audited(), Deny);
        assert_eq!(DENIED.decision(), Deny);
        assert_eq!(Outcome::Remembered.recorded(), Allow);
        assert_eq!(Outcome::Policy(Allow).recorded(), Allow);
    }
}
