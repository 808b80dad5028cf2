//! The request path between a packet and its reply: `Check` and `CheckBatch` go down one
//! road, and a single check is a batch of one. Rate limit → owner → judge each subject →
//! remembered approvals → [`decide`] → count and audit → hold what needs a person. The
//! connection (`conn/check.rs`) turns what comes out into packets.
//!
//! The policy rules, [`decide`] decides what becomes of the ruling; this carries the outcome
//! to the counters, the audit trail and the store of held requests.

use std::sync::Arc;

use assent_client::protocol::{AuditEvent, Context, Decided, DecidedBy, Decision, Origin, Subject};

use crate::analyse::{Disk, Got};
use crate::decide::{self, Outcome};
use crate::error::RequestError;
use crate::judge::{self, Caller, Judgement};
use crate::peer::PeerIdentity;
use crate::pending::{self, Held, Hold, Requester, Sent};
use crate::policy::{Policy, tools};
use crate::remember::{self, SessionKey};
use crate::server::Shared;
use crate::{project, read};

mod wanted;
pub use wanted::Wanted;

/// Commands longer than this are analysed off the async workers.
const ANALYSE_INLINE_MAX: usize = 4096;

/// Who asks, as the request path needs to know it: the peer of one connection.
#[derive(Debug, Clone, Copy)]
pub struct Asker<'a> {
    /// The daemon's shared state.
    pub shared: &'a Shared,
    /// The peer, as the kernel named it.
    pub peer: &'a PeerIdentity,
    /// Its connection.
    pub conn_id: u64,
    /// Its home directory, for the places of its paths.
    pub home: Option<&'a str>,
    /// Its user name, for `~user` forms.
    pub user: Option<&'a str>,
}

/// A request's subjects after the decision: each judged, with the reply's decision and reason
/// in its ruling, and the hold when any needs a person.
pub struct Ruled {
    /// Each subject and its judgement, in order.
    pub judged: Vec<(Judgement, Subject)>,
    /// The hold, when any item needs a person.
    pub held: Option<Held>,
}

impl Asker<'_> {
    /// The decision for every subject of one request (a `batch`, or a single check), under one policy even if a reload lands
    /// meanwhile: counted and audited (before the caller replies), the remembered approvals
    /// it used flushed, and the items that need a person held under one token. An error is
    /// the reply; nothing of the request is allowed.
    pub async fn rule(
        &self,
        subjects: Vec<Subject>,
        origin: Origin,
        mut context: Context,
        wait: bool,
        batch: bool,
    ) -> Result<Ruled, RequestError> {
        let policy = self.shared.policy.for_origin(origin);
        // One request against the rate limit, however many subjects it carries.
        if let Err(error) = self
            .shared
            .take_rate(self.peer.uid, policy.settings.rate_limit)
        {
            self.shared.stats.record(Decision::Deny);
            return Err(error);
        }
        let owner = policy.owner_of(self.peer.uid);
        let no_approver = self
            .shared
            .config
            .no_approver
            .unwrap_or(policy.settings.no_approver);
        let mut judged = Vec::with_capacity(subjects.len());
        for subject in subjects {
            match self
                .judge(Arc::clone(&policy), subject, origin, context)
                .await
            {
                Ok((judgement, subject, back)) => {
                    judged.push((judgement, subject));
                    context = back;
                }
                Err(error) if batch => {
                    return Err(RequestError::InBatch {
                        item: judged.len() + 1,
                        error: Box::new(error),
                    });
                }
                Err(error) => return Err(error),
            }
        }
        // Only what the policy held can be remembered or held: an allowed or denied line, the
        // usual case, makes no signature and asks no store.
        let key = SessionKey::of(context.session.as_deref(), self.peer.sid);
        let mut signatures = Vec::with_capacity(judged.len());
        let mut remembered = Vec::with_capacity(judged.len());
        let mut items = Vec::with_capacity(judged.len());
        for (judgement, subject) in &judged {
            let (signature, id) = match judgement.ruling.decision {
                Decision::Confirm => {
                    let signature = remember::signature(subject);
                    let id = self.shared.remembered.lookup(owner, &signature, &key);
                    (signature, id)
                }
                _ => (String::new(), None),
            };
            items.push(decide::Item {
                ruled: judgement.ruling.decision,
                origin: judgement.origin,
                remembered: id.is_some(),
            });
            signatures.push(signature);
            remembered.push(id);
        }
        let approvers = || {
            self.shared
                .pending
                .approvers()
                .available(owner, self.peer.sid)
        };
        let mut outcomes = decide::decide(&items, approvers, no_approver);
        // A hook under `--ask-when-held` hands what needs a person to the agent's own prompt,
        // where the person is, approval agent or not: nothing is held (and no notification
        // flashes up only to be withdrawn).
        if context.asks_when_held {
            for outcome in &mut outcomes {
                if matches!(outcome, Outcome::Hold | Outcome::NoApprover { .. }) {
                    *outcome = Outcome::NoApprover { ask: true };
                }
            }
        }
        for (index, (judgement, _)) in judged.iter_mut().enumerate() {
            match outcomes[index] {
                Outcome::Remembered => {
                    let id = remembered[index].as_deref().unwrap_or_default();
                    judgement.ruling.reason =
                        format!("remembered approval {id}: {}", signatures[index]);
                }
                // Handed to the agent's prompt by the hook's choice, approver or not.
                Outcome::NoApprover { ask: true } if context.asks_when_held => {}
                Outcome::NoApprover { ask } => {
                    judgement.ruling.reason = no_approver_reason(
                        &judgement.ruling.reason,
                        owner,
                        ask,
                        &self.shared.config.policy_file,
                    );
                }
                Outcome::Policy(_) | Outcome::Hold => {}
            }
            judgement.ruling.decision = outcomes[index].decision();
        }
        if remembered.iter().any(Option::is_some) {
            // Their use counts are kept when the store next writes.
            self.shared.remembered.flush();
        }
        let agent = context.agent.as_deref();
        let held = if outcomes.contains(&Outcome::Hold) {
            let requester = self.requester();
            let program = crate::peer::asking_program(&requester.chain)
                .unwrap_or_else(|| self.peer.program());
            let hold = Hold {
                owner,
                requester,
                session: context.session.clone(),
                origin: if judged.iter().all(|(j, _)| j.origin == Origin::Tool) {
                    Origin::Tool
                } else {
                    origin
                },
                sent: match judged.first() {
                    Some((_, subject)) if !batch => Sent::One {
                        exact: pending::exact(subject),
                    },
                    _ => Sent::Batch,
                },
                items: judged
                    .iter()
                    .zip(signatures)
                    .zip(&outcomes)
                    .map(|(((judgement, subject), signature), &outcome)| {
                        held_item(judgement, subject, signature, outcome)
                    })
                    .collect(),
                wait,
                program,
                agent: crate::peer::claimed_agent(agent),
            };
            match self.shared.pending.hold(hold) {
                Ok(held) => Some(held),
                Err(error) => {
                    // Refused as a whole: nothing of it is allowed.
                    for (judgement, subject) in &judged {
                        self.shared.stats.record(Decision::Deny);
                        self.audit(
                            judgement,
                            subject,
                            Decision::Deny,
                            None,
                            DecidedBy::Policy,
                            agent,
                        );
                    }
                    return Err(error);
                }
            }
        } else {
            None
        };
        let token = held.as_ref().map(|held| held.token.as_str());
        for ((judgement, subject), &outcome) in judged.iter().zip(&outcomes) {
            self.shared.stats.record(outcome.recorded());
            self.audit(
                judgement,
                subject,
                outcome.audited(),
                token,
                by(outcome),
                agent,
            );
        }
        Ok(Ruled { judged, held })
    }

    /// Run the policy's pipe for a subject, off the async workers when the input is large.
    pub async fn judge(
        &self,
        policy: Arc<Policy>,
        subject: Subject,
        origin: Origin,
        context: Context,
    ) -> Result<(Judgement, Subject, Context), RequestError> {
        let cwd = match &subject {
            Subject::Shell { cwd, .. } => Some(cwd),
            Subject::Tool { cwd, .. } => cwd.as_ref(),
        };
        if let Some(cwd) = cwd
            && !cwd.starts_with('/')
        {
            return Err(RequestError::Invalid(format!(
                "the working directory must be an absolute path, not {cwd:?}"
            )));
        }
        let large = match &subject {
            Subject::Shell { command, .. } => command.len() > ANALYSE_INLINE_MAX,
            Subject::Tool { args_json, .. } => args_json.len() > ANALYSE_INLINE_MAX,
        };

        let home = self.home.map(str::to_owned);
        let user = self.user.map(str::to_owned);
        let uid = self.peer.uid;
        let who = read::As {
            uid,
            gid: self.peer.gid,
            groups: self.peer.groups(),
            named: cwd
                .iter()
                .map(|c| c.to_string())
                .chain(home.clone())
                .collect(),
        };
        // The project, from the disk as the requester: never the client's word.
        let dir = match &subject {
            Subject::Shell { cwd, .. } => Some(cwd.clone()),
            Subject::Tool { args_json, cwd, .. } => tools::working_dir(args_json, cwd.as_deref()),
        };
        let project = match &dir {
            Some(dir) => {
                let git = self
                    .shared
                    .projects
                    .repository(&who, dir, home.as_deref())
                    .await;
                let named = policy.settings.project_paths.as_ref();
                project::choose(dir, home.as_deref(), git.as_deref(), named)
                    .filter(|project| !project::holds_the_gate(project, &self.shared.config))
            }
            None => None,
        };
        // What a project's narrowing is applied with, once the line is judged.
        let (narrow_policy, narrow_home, narrow_root) =
            (Arc::clone(&policy), home.clone(), project.clone());
        let mut disk: Option<Disk> = None;
        let mut spent = read::Spent::default();
        let mut round = 0;
        let mut subject = subject;
        let mut context = context;
        // The line's tree, parsed once for all its rounds.
        let mut parsed = crate::analyse::Parsed::default();
        // A line judged here before reads what it wanted then first: its first round, without
        // the disk, would only say the same again.
        let key = wanted::Key::of(uid, &subject, home.as_deref(), project.as_deref());
        let before = key
            .as_ref()
            .and_then(|k| self.shared.wanted.before(k, &policy));
        if let Some(wants) = before {
            round += 1;
            let (mut read, now) = read::read(wants, who.clone(), Disk::default(), spent).await;
            spent = now;
            read.complete = round >= read::MAX_ROUNDS;
            disk = Some(read);
        }
        loop {
            let judged = disk.clone();
            let policy = Arc::clone(&policy);
            let home = home.clone();
            let user = user.clone();
            let project = project.clone();
            let run = move || {
                let judgement = judge::judge_read(
                    &policy,
                    &subject,
                    origin,
                    &context,
                    &Caller {
                        uid: Some(uid),
                        user: user.as_deref(),
                        home: home.as_deref(),
                        project: project.as_deref(),
                    },
                    &judge::Seen {
                        disk: judged.as_ref(),
                        parsed: Some(&parsed),
                    },
                );
                (judgement, subject, context, parsed)
            };
            // A long script read from the disk is analysed off the async workers too.
            let read_text: usize = disk
                .iter()
                .flat_map(|d| d.files.values())
                .map(|g| match g {
                    Got::Text(t) => t.len(),
                    _ => 0,
                })
                .sum();
            let (judgement, back, ctx, trees) = if large || read_text > ANALYSE_INLINE_MAX {
                tokio::task::spawn_blocking(run)
                    .await
                    .map_err(|e| RequestError::Invalid(format!("analysis failed: {e}")))?
            } else {
                run()
            };
            // What the line runs from the disk is read as the requester, then judged again
            // with it; a line that reads nothing is analysed once.
            let last = disk.as_ref().is_some_and(|d| d.complete);
            if judgement.analysis.wants.is_empty() || last {
                let mut judgement = judgement;
                // A project may only narrow what its confined runs may do.
                if let (Some(confine), Some(root)) = (judgement.confine.as_mut(), &narrow_root) {
                    let narrowing = self
                        .shared
                        .projects
                        .narrowings
                        .narrowing(&who, root, narrow_home.as_deref())
                        .await;
                    let writable = &narrow_policy.settings.confine.writable;
                    narrowing.apply(confine, narrow_home.as_deref(), writable);
                }
                return Ok((judgement, back, ctx));
            }
            (subject, context, parsed) = (back, ctx, trees);
            let wants = judgement.analysis.wants;
            if round == 0
                && let Some(key) = key.clone()
            {
                self.shared.wanted.learnt(key, &narrow_policy, &wants);
            }
            round += 1;
            let (mut read, now) =
                read::read(wants, who.clone(), disk.take().unwrap_or_default(), spent).await;
            spent = now;
            read.complete = round >= read::MAX_ROUNDS;
            disk = Some(read);
        }
    }

    /// Audit a decision made by `by`, with the judgement's reason.
    pub fn audit(
        &self,
        judgement: &Judgement,
        subject: &Subject,
        decision: Decision,
        token: Option<&str>,
        by: DecidedBy,
        agent: Option<&str>,
    ) {
        self.shared.audit.record(AuditEvent {
            time_ms: pending::now_ms(),
            uid: self.peer.uid,
            pid: self.peer.pid,
            origin: judgement.origin,
            subject: subject.summary(),
            level: judgement.analysis.level,
            findings: judgement
                .analysis
                .findings
                .iter()
                .map(|f| f.id.to_string())
                .collect(),
            decision,
            by,
            reason: judgement.ruling.reason.clone(),
            token: token.map(str::to_string),
            agent: crate::peer::claimed_agent(agent),
            program: None,
            cwd: subject.cwd().map(str::to_string),
            refused: None,
            refused_places: Vec::new(),
            grant: None,
        });
    }

    /// The agent above the requesting process (its pid and start time), read as a hold
    /// records it; `None` when there is none, or it cannot be read.
    pub fn asking_agent(&self) -> Option<crate::peer::Proc> {
        self.requester().agent.map(|agent| agent.proc)
    }

    /// This connection's peer as the requester of a held request.
    fn requester(&self) -> Requester {
        // Read while the pidfd shows the peer is still the process that connected; a chain
        // read after it went could name another process's parents.
        let chain = crate::peer::requester_chain(self.peer.pid, self.peer.uid);
        let chain = if self.peer.pidfd.is_none() || self.peer.still_alive() {
            chain
        } else {
            Vec::new()
        };
        Requester {
            uid: self.peer.uid,
            pid: self.peer.pid,
            sid: self.peer.sid,
            conn_id: self.conn_id,
            audit_session: self.peer.audit_session(),
            agent: crate::peer::agent_facts(&chain),
            chain,
        }
    }
}

/// Who decided an outcome, as the audit trail names it.
fn by(outcome: Outcome) -> DecidedBy {
    match outcome {
        Outcome::Remembered => DecidedBy::Remembered,
        Outcome::NoApprover { .. } => DecidedBy::NoApprover,
        Outcome::Policy(_) | Outcome::Hold => DecidedBy::Policy,
    }
}

/// One item of a request to hold: held for a person, or carrying the outcome it already has.
fn held_item(
    judgement: &Judgement,
    subject: &Subject,
    signature: String,
    outcome: Outcome,
) -> pending::Item {
    pending::Item {
        subject: subject.summary(),
        cwd: match subject {
            Subject::Shell { cwd, .. } => Some(cwd.clone()),
            Subject::Tool { .. } => None,
        },
        level: judgement.analysis.level,
        findings: judge::wire_findings(&judgement.analysis.findings),
        reason: judgement.ruling.reason.clone(),
        decided: (outcome != Outcome::Hold).then(|| Decided {
            allow: outcome.recorded() == Decision::Allow,
            by: by(outcome),
            reason: judgement.ruling.reason.clone(),
        }),
        signature,
        approval: judgement.ruling.approval,
    }
}

/// Why a request that needed a person was not held: nobody could be asked.
fn no_approver_reason(
    policy_reason: &str,
    owner: u32,
    ask: bool,
    policy_file: &std::path::Path,
) -> String {
    let then = if ask {
        "the agent's own prompt decides"
    } else {
        "denied"
    };
    format!(
        "{policy_reason}; but no approval agent is running for uid {owner}, so {then}. Start one: \
         `assent watch` in a terminal (SSH, tmux), or assent-notify on the desktop \
         (`systemctl --user start assent-notify`); or hold such requests for `assent approve` \
         with `no_approver = \"hold\"` in {} (or `assentd --no-approver hold`)",
        policy_file.display()
    )
}
