//! What the daemon decides and why: the levels and decisions, a verdict with its findings, how
//! a client reads one ([`Verdict::outcome`]), and the final word on a held request.

use serde::{Deserialize, Serialize};

/// How risky a request is. Ordered: a request's level is the highest of its findings'.
///
/// `Opaque` sits below `Destructive` (DESIGN's table lists it after): a line that both deletes
/// data and hides something must be held for a person too, which ordering it higher would not do.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Reads only.
    #[default]
    Safe,
    /// Changes that can be undone.
    Moderate,
    /// Cannot be analysed.
    Opaque,
    /// Data or history lost, or published.
    Destructive,
    /// Never from automation.
    Forbidden,
}

/// What the gate decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Run it.
    Allow,
    /// Hold it for a person.
    Confirm,
    /// Refuse it.
    Deny,
}

/// A byte range in the analysed input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

/// One reason for a level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable id from the catalogue, such as `fs.rm_recursive`.
    pub id: String,
    /// The level this finding alone gives.
    pub level: Level,
    /// A sentence a person understands.
    pub message: String,
    /// Where in the input it was found.
    pub span: Span,
}

/// The daemon's answer to a check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Allow, confirm (held) or deny.
    pub decision: Decision,
    /// The highest level among the findings.
    pub level: Level,
    /// Why.
    pub findings: Vec<Finding>,
    /// Which rule decided, in words (`default policy: destructive from agent`).
    pub reason: String,
    /// The held request's token. A `Confirm` with no token was not held: see
    /// [`Outcome::Ask`]. Always read a verdict through [`Verdict::outcome`].
    pub token: Option<String>,
    /// Milliseconds until a held request expires.
    pub expires_in_ms: Option<u64>,
    /// What the kernel is to let the run do, for a door that runs the command and said it
    /// confines ([`super::Context::confines`]); for a held request, what it runs with once a
    /// person allows it. With a [`Verdict::grant`] the places travel with the grant, to the door
    /// that redeems it: the verdict then says only that the line runs confined, in which project
    /// and whether it must ([`Confinement::told_with_grant`]).
    pub confine: Option<Confinement>,
    /// A one-time grant to run this allowed line confined, when the request asked for one
    /// ([`super::Context::grant`]): redeemed with [`super::Request::Grant`].
    pub grant: Option<String>,
    /// Held for another person to answer (the policy's `[approvers]` maps the requester to
    /// another user, who is not named): the requester cannot answer it, not even elsewhere.
    #[serde(default)]
    pub another_answers: bool,
}

/// The Landlock domain a door builds from a verdict before it runs the command: the places
/// the line may change, the places it may not read, and whether it may use TCP.
///
/// Paths are absolute. A door grants what exists when the run starts; a place that does not
/// exist yet cannot be granted (Landlock rules are made from open directories).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Confinement {
    /// Where the run may create, change, rename and remove (and read), each with all beneath.
    pub write: Vec<String>,
    /// The project the run may also change: the repository around the working directory (or
    /// a directory the policy names, or outside the home the working directory itself), as
    /// the daemon found it on the disk as the requester and judged the line by. The door
    /// grants this and looks for no other, so the judgement and the domain agree on one
    /// project. `None`: no project, as in `~/Documents`.
    pub project: Option<String>,
    /// Directories within which the line changes what is only known when it runs (`rm
    /// ~/old/*`): granted only for a line a person allowed, like `write_anywhere`.
    pub write_within: Vec<String>,
    /// The line changes a place only known when it runs: once a person approves it, the run
    /// may change anything (reads, signals and the network are still confined). A door grants
    /// it only for a line a person allowed, never for one the policy let through by itself.
    pub write_anywhere: bool,
    /// What the run may not read: secret places (a last component may be a glob, `config*`).
    pub hide: Vec<String>,
    /// TCP connections and listening are refused: the line was judged to send nothing.
    pub offline: bool,
    /// The gate let the line through only because it runs confined: a door that cannot build
    /// the domain must not run it.
    pub required: bool,
    /// The requester's home as the daemon knows it (from the user database), not as the
    /// environment says: the door never takes it, or anything above it, for a project.
    pub home: Option<String>,
    /// Ask the kernel to log what it refuses to the run after it starts its program (Landlock
    /// ABI 7's `LOG_NEW_EXEC_ON`): the daemon reads those records, so that after a failed run
    /// it can name the refused place ([`super::Request::Refused`]).
    #[serde(default)]
    pub log_denials: bool,
}

impl Confinement {
    /// What a verdict that carries a grant says of its confinement: no places (the door that
    /// redeems the grant is given them), the rest as it is. A hook that rewrites the call only
    /// needs to know the line runs confined; sending the places twice cost every call.
    #[must_use]
    pub fn told_with_grant(&self) -> Confinement {
        Confinement {
            write: Vec::new(),
            project: self.project.clone(),
            write_within: Vec::new(),
            write_anywhere: self.write_anywhere,
            hide: Vec::new(),
            offline: self.offline,
            required: self.required,
            home: self.home.clone(),
            log_denials: self.log_denials,
        }
    }
}

/// What a [`Verdict`] asks of its caller: the one reading of a verdict every client uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome<'a> {
    /// Run it.
    Allow,
    /// Do not run it.
    Deny,
    /// Held for a person under this token: wait on the connection for the answer (a
    /// [`super::Response::Decided`] follows when the request asked to wait), or hand the token
    /// on.
    Held(&'a str),
    /// It needs a person, but nothing was held: no approval agent is registered for its owner
    /// and the policy hands such requests to the caller's own prompt (`no_approver = "ask"`).
    /// A caller that can ask its user does; any other does not run it.
    Ask,
}

impl Verdict {
    /// What the caller is to do (see [`Outcome`]).
    pub fn outcome(&self) -> Outcome<'_> {
        self.outcome_with(self.token.as_deref())
    }

    /// [`Verdict::outcome`] of one item of a batch, whose held items share the batch's
    /// `token`.
    pub fn outcome_with<'a>(&self, token: Option<&'a str>) -> Outcome<'a> {
        match (self.decision, token) {
            (Decision::Allow, _) => Outcome::Allow,
            (Decision::Deny, _) => Outcome::Deny,
            (Decision::Confirm, Some(token)) => Outcome::Held(token),
            (Decision::Confirm, None) => Outcome::Ask,
        }
    }
}

/// One simple command the analyser found, for `assent explain`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandInfo {
    /// Where it sits in the line, such as `list[1] > pipeline[0]`.
    pub path: String,
    /// Its words as bash would resolve them; a word only known at run time is shown as written.
    pub argv: Vec<String>,
    /// Its place in the input.
    pub span: Span,
}

/// The daemon's answer to an explain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Explanation {
    /// What a check would decide (never holds: `token` is always `None`).
    pub verdict: Verdict,
    /// The simple commands found.
    pub commands: Vec<CommandInfo>,
}

/// Who settled a held request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// The policy alone.
    Policy,
    /// A person answered.
    User,
    /// A remembered approval matched.
    Remembered,
    /// Nobody answered before the request expired.
    Timeout,
    /// No approver could be asked.
    NoApprover,
    /// The requester withdrew it.
    Cancelled,
    /// The daemon stopped while it was held.
    Shutdown,
}

/// The final outcome of a held request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decided {
    /// Run it or not.
    pub allow: bool,
    /// Who settled it.
    pub by: DecidedBy,
    /// In words, for the person (`denied by uid 1000`, `expired after 300 s`).
    pub reason: String,
}

impl Level {
    /// Lowercase name, as in policy files and output.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Safe => "safe",
            Level::Moderate => "moderate",
            Level::Opaque => "opaque",
            Level::Destructive => "destructive",
            Level::Forbidden => "forbidden",
        }
    }
}

impl Decision {
    /// Lowercase name, as in policy files and output.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Confirm => "confirm",
            Decision::Deny => "deny",
        }
    }
}

impl DecidedBy {
    /// Lowercase name, as in audit events.
    pub fn as_str(self) -> &'static str {
        match self {
            DecidedBy::Policy => "policy",
            DecidedBy::User => "user",
            DecidedBy::Remembered => "remembered",
            DecidedBy::Timeout => "timeout",
            DecidedBy::NoApprover => "no_approver",
            DecidedBy::Cancelled => "cancelled",
            DecidedBy::Shutdown => "shutdown",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_confirm_without_a_token_asks_and_one_with_a_token_is_held() {
        let verdict = |decision, token: Option<&str>| Verdict {
            decision,
            level: Level::Destructive,
            findings: Vec::new(),
            reason: String::new(),
            token: token.map(str::to_string),
            expires_in_ms: None,
            confine: None,
            grant: None,
            another_answers: false,
        };
        assert_eq!(verdict(Decision::Allow, None).outcome(), Outcome::Allow);
        assert_eq!(
            verdict(Decision::Deny, Some("pa_x")).outcome(),
            Outcome::Deny
        );
        assert_eq!(
            verdict(Decision::Confirm, Some("pa_x")).outcome(),
            Outcome::Held("pa_x")
        );
        assert_eq!(verdict(Decision::Confirm, None).outcome(), Outcome::Ask);
        // A batch item's token is the batch's.
        let item = verdict(Decision::Confirm, None);
        assert_eq!(item.outcome_with(Some("pa_b")), Outcome::Held("pa_b"));
        assert_eq!(item.outcome_with(None), Outcome::Ask);
    }
}
