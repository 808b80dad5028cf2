//! What the daemon reports: held requests as approvers list them, its status, audit events.

use serde::{Deserialize, Serialize};

use super::{DecidedBy, Decision, Finding, Level, Origin};

/// A held item of a batch, as listed for approvers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingBatchItem {
    /// Its number in the batch, from 1 (`assent approve TOKEN --item N`).
    pub item: u32,
    /// The command or `tool NAME ARGS`.
    pub subject: String,
    /// The working directory of a shell command.
    pub cwd: Option<String>,
    /// Its level.
    pub level: Level,
    /// Its findings.
    pub findings: Vec<Finding>,
}

/// A held request, as listed for approvers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingItem {
    /// Its token.
    pub token: String,
    /// The requester's uid (from the kernel).
    pub uid: u32,
    /// The requester's pid (from the kernel).
    pub pid: i32,
    /// Who asked.
    pub origin: Origin,
    /// The command or `tool NAME ARGS`.
    pub subject: String,
    /// The working directory of a shell command.
    pub cwd: Option<String>,
    /// Its level.
    pub level: Level,
    /// Its findings.
    pub findings: Vec<Finding>,
    /// The requester's session label.
    pub session: Option<String>,
    /// Milliseconds until it expires.
    pub expires_in_ms: u64,
    /// For a batch: its items still held (then `subject` summarises the batch). Empty for a
    /// single request.
    pub items: Vec<PendingBatchItem>,
    /// The requesting program's name (its `comm`, from the kernel), such as `claude`.
    pub program: String,
    /// What an "always" or "session" answer would remember, in words (`cargo test in
    /// /home/u/proj`, `reading /etc/hosts`).
    pub signature: String,
    /// The agent the requester says it serves (`Claude Code`): its own claim, not checked.
    pub agent: Option<String>,
    /// A digest of the whole request as the daemon holds it (every item's full command or
    /// tool call and cwd, the origin, requester, program, session label and agent name), keyed
    /// with a secret of this daemon run: two requests with the same digest are the same
    /// request, whatever part of them a listing shortened. Only comparable within one run
    /// (version 8).
    pub digest: String,
}

/// One page of the held requests a caller may see, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PendingList {
    /// As many as fit in one packet (long commands are shortened).
    pub items: Vec<PendingItem>,
    /// Where the next page starts (`ListPending { from }`), `None` after the last page.
    pub next: Option<u32>,
}

/// One page of recent audit events, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LogPage {
    /// As many as fit in one packet.
    pub events: Vec<AuditEvent>,
    /// Where the next page starts (`Log { from }`), `None` after the last page.
    pub next: Option<u32>,
}

/// The daemon's state, for `assent status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusInfo {
    /// The daemon's package version.
    pub version: String,
    /// The protocol version it speaks.
    pub protocol: u32,
    /// `system` or `user`.
    pub mode: String,
    /// The socket it listens on.
    pub socket: String,
    /// Seconds since it started.
    pub uptime_secs: u64,
    /// Checks allowed since start.
    pub allowed: u64,
    /// Checks denied since start (by policy or by answer).
    pub denied: u64,
    /// Checks that were held.
    pub held: u64,
    /// Requests held right now.
    pub pending: u32,
    /// Where the policy in force came from (a file, or the embedded default).
    pub policy: String,
    /// Why the last policy reload failed (the running policy was kept); none after a good one.
    pub policy_error: Option<String>,
    /// Approval agents registered for the caller's uid (every uid's, for root).
    pub approvers: u32,
    /// Which sessions "the requester's own session" compares: `audit` where the kernel keeps
    /// audit sessions, else `posix`.
    pub sessions: String,
    /// What an agent's request that needs a person meets when no approval agent is
    /// registered: `deny`, `hold` or `ask` (the flag's value, else the policy's).
    pub no_approver: String,
    /// Why the audit trail cannot be written right now (with since when), while it cannot.
    pub audit_failing: Option<String>,
    /// Audit events taken and not yet written.
    pub audit_waiting: u64,
    /// Audit events that could not be kept (the disk failed for longer than the backlog).
    pub audit_lost: u64,
    /// Why the state (remembered approvals) could not be written last time, while it could
    /// not.
    pub state_error: Option<String>,
    /// Whom observe mode lets through unjudged (`everyone`, `uids 1000`, `origins agent`),
    /// while it is on: then nothing those callers send is held or denied, only audited.
    pub observe: Option<String>,
    /// While a policy change that weakens the gate is in force for the person's own requests
    /// only, waiting for their approval before it judges agents (user mode): what it weakens.
    pub policy_waiting: Option<String>,
    /// The kernel's Landlock ABI as the daemon found it (0: none), and whether it is enough
    /// to confine what `assent run`/`sh` run (files, TCP and signals: ABI 6 or later).
    pub landlock_abi: u32,
    /// How long a request is held for a person before it expires (the hold TTL in force), in
    /// seconds: an agent that kills its hook sooner runs the call unanswered.
    pub hold_ttl_secs: u64,
    /// Of `approvers`, those showing requests on a notification server that shows no
    /// buttons: there a person answers with `assent watch` or `assent approve`.
    #[serde(default)]
    pub approvers_without_buttons: u32,
    /// Why a confined run that failed cannot be told what the kernel refused it (the kernel's
    /// audit is off, the daemon may not read it, the ABI logs nothing); `None` when it can.
    #[serde(default)]
    pub refusals_unknown: Option<String>,
    /// Confinements whose Landlock ruleset the daemon keeps ready for the doors (version 15):
    /// a door given one does not work out its plan from the disk.
    #[serde(default)]
    pub kept_rulesets: u32,
    /// Rulesets the daemon has passed to doors since it started.
    #[serde(default)]
    pub rulesets_passed: u64,
}

/// One audit event, as `assent log` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditEvent {
    /// Milliseconds since the Unix epoch.
    pub time_ms: u64,
    /// Requester uid.
    pub uid: u32,
    /// Requester pid.
    pub pid: i32,
    /// Who asked.
    pub origin: Origin,
    /// The command or tool call, shortened.
    pub subject: String,
    /// Its level.
    pub level: Level,
    /// Finding ids.
    pub findings: Vec<String>,
    /// `allow` or `deny` for a final outcome, `confirm` when a request was held.
    pub decision: Decision,
    /// Who decided.
    pub by: DecidedBy,
    /// In words.
    pub reason: String,
    /// The held request's token.
    pub token: Option<String>,
    /// The requesting program, as the daemon saw it (`claude`, `bash`).
    pub program: Option<String>,
    /// The agent the requester says it serves (`Claude Code`): its own claim, not checked.
    pub agent: Option<String>,
    /// The working directory the command was to run in (a tool call's, when it gave one).
    /// Absent from events written before protocol 10.
    #[serde(default)]
    pub cwd: Option<String>,
    /// For an answer the daemon refused (`self_approval`): why; the request stays held, and
    /// `uid` and `pid` are the answerer's. Absent from events written before protocol 10.
    #[serde(default)]
    pub refused: Option<String>,
    /// For a confined run that failed: what the kernel refused it, each as `ACCESS PATH
    /// (PLACE)`. Absent from events written before protocol 13.
    #[serde(default)]
    pub refused_places: Vec<String>,
    /// For a one-time grant (`assent sh --grant`): `issued`, `redeemed`, or `refused: WHY`
    /// (spent, expired, another uid or line). Absent from events written before protocol 13.
    #[serde(default)]
    pub grant: Option<String>,
}
