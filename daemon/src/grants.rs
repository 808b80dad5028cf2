//! One-time grants: an allowed line handed from an agent's hook to the door that runs it
//! confined (`assent sh --grant TOKEN -c LINE`), so that door does not judge the line again
//! (and hold a line a person already approved a second time).
//!
//! A grant is given only with an allow that carries a confinement, to a check that asked for
//! one (`Context::grant`), and is bound to the requester's uid, the exact subject (command and
//! working directory) and that confinement. It is spent by its first redeem, whatever the
//! outcome (a wrong line burns it), and lives [`GRANT_TTL`]: the agent runs the rewritten call
//! right after its hook answers. Grants live in memory only; a daemon restart forgets them.
//!
//! A grant for the agent's own prompt (a hook that answers "ask", the call rewritten) is given
//! *before* the person answers there, with what a person's approval adds, and lives as long as
//! a hold would: a key lying around while the person reads the prompt, and for ever after if
//! they refuse it. Its token is not secret from the user's processes (the agent writes the
//! hook's answer into its transcript, and a command line is in `/proc`), so it is bound to the
//! agent that asked (its pid and start time) and only a process whose parents reach that agent
//! without passing through a door may redeem it ([`under_agent`]): the agent's own shell after
//! the person said yes, never a confined line of an earlier call (its door stays its parent),
//! nor what left the agent (an orphan is re-parented to init), nor another program. And no
//! process from the redeemer up to the agent may be confined already: the kernel marks every
//! confined process `no_new_privs` (a door sets it before `landlock_restrict_self`, and so does
//! the bash builtin that confines an agent's shell in place, which leaves no door between), and
//! the mark cannot be taken off.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use assent_client::protocol::{
    AuditEvent, Confinement, DecidedBy, Decision, Granted, Level, Origin, Subject,
};

use crate::error::RequestError;
use crate::peer::Proc;
use crate::pending;

/// How long a grant can be redeemed: the agent runs the call at once after its hook.
pub const GRANT_TTL: Duration = Duration::from_secs(15);
/// The most grants alive at once; past it the oldest are dropped (an agent that never runs
/// what it was allowed cannot fill the daemon's memory).
const MAX_GRANTS: usize = 4096;
/// The most of a peer's token an audit event keeps.
const MAX_SHOWN: usize = 64;
/// The gate's own client, as a process is named: a door that runs a line confined stays the
/// parent of what the line runs.
const DOORS: &[&str] = &["assent", "assent-sh"];
/// Shells the bash builtin may confine in place (bash, and what some systems name it).
const SHELLS: &[&str] = &["bash", "sh"];

#[derive(Debug)]
struct Grant {
    uid: u32,
    exact: String,
    granted: Granted,
    expires_at: Instant,
    /// For the agent's own prompt: the agent that asked, which the redeemer must descend from.
    agent: Option<Proc>,
}

/// The grants given and not yet redeemed.
#[derive(Debug)]
pub struct Grants {
    map: Mutex<HashMap<String, Grant>>,
    /// Whether a process is confined already (`no_new_privs`); `None` when it cannot be read.
    confined: fn(&Proc) -> Option<bool>,
}

impl Default for Grants {
    fn default() -> Grants {
        Grants {
            map: Mutex::default(),
            confined: crate::peer::no_new_privs,
        }
    }
}

impl Grants {
    /// Give `uid` a grant under a fresh token to run `subject` with `granted`.
    pub fn give(
        &self,
        uid: u32,
        subject: &Subject,
        granted: Granted,
    ) -> Result<String, RequestError> {
        let token = format!("pg_{}", pending::new_token()?.trim_start_matches("pa_"));
        self.give_as(token.clone(), uid, subject, granted);
        Ok(token)
    }

    /// Give a grant under `token` (a held request's token, once a person allowed it).
    pub fn give_as(&self, token: String, uid: u32, subject: &Subject, granted: Granted) {
        self.insert(token, uid, subject, granted, GRANT_TTL, None);
    }

    /// Give `uid` a grant for the agent's own prompt: redeemable for `ttl` (as long as a person
    /// may take there), only by a process under `agent` that no door stands between.
    pub fn give_for_prompt(
        &self,
        uid: u32,
        subject: &Subject,
        granted: Granted,
        agent: Proc,
        ttl: Duration,
    ) -> Result<String, RequestError> {
        let token = format!("pg_{}", pending::new_token()?.trim_start_matches("pa_"));
        self.insert(token.clone(), uid, subject, granted, ttl, Some(agent));
        Ok(token)
    }

    fn insert(
        &self,
        token: String,
        uid: u32,
        subject: &Subject,
        granted: Granted,
        ttl: Duration,
        agent: Option<Proc>,
    ) {
        let now = Instant::now();
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        map.retain(|_, grant| grant.expires_at > now);
        if map.len() >= MAX_GRANTS {
            let oldest = map
                .iter()
                .min_by_key(|(_, grant)| grant.expires_at)
                .map(|(token, _)| token.clone());
            if let Some(oldest) = oldest {
                map.remove(&oldest);
            }
        }
        map.insert(
            token,
            Grant {
                uid,
                exact: pending::exact(subject),
                granted,
                expires_at: now + ttl,
                agent,
            },
        );
    }

    /// Redeem `token` for `subject` as `uid`, from the process whose parents `chain` reads
    /// (asked only for a grant bound to an agent): what to run it with. The grant is spent
    /// either way.
    pub fn redeem(
        &self,
        token: &str,
        uid: u32,
        subject: &Subject,
        chain: impl FnOnce() -> Vec<Proc>,
    ) -> Result<Granted, RequestError> {
        let grant = self
            .map
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(token)
            .ok_or_else(|| {
                RequestError::Invalid(format!(
                    "grant {token} is unknown or already used; nothing was run"
                ))
            })?;
        if grant.expires_at <= Instant::now() {
            return Err(RequestError::Invalid(format!(
                "grant {token} expired; nothing was run"
            )));
        }
        if grant.uid != uid {
            return Err(RequestError::Invalid(format!(
                "grant {token} was given to uid {}, not uid {uid}; nothing was run",
                grant.uid
            )));
        }
        if grant.exact != pending::exact(subject) {
            return Err(RequestError::Invalid(format!(
                "grant {token} was given for another command or working directory; nothing was run"
            )));
        }
        if let Some(agent) = &grant.agent
            && let Err(why) = self.under_agent(&chain(), agent)
        {
            return Err(RequestError::Invalid(format!(
                "grant {token} was given for {agent}'s own prompt and may only be redeemed by that agent's own shell: {why}; nothing was run"
            )));
        }
        Ok(grant.granted)
    }

    /// [`under_agent`], and nothing from the redeemer up to the agent confined already: a
    /// line of an earlier call, whether a door stayed its parent or the bash builtin confined
    /// the agent's shell of that call in place.
    fn under_agent(&self, chain: &[Proc], agent: &Proc) -> Result<(), String> {
        under_agent(chain, agent)?;
        let below_agent = chain
            .iter()
            .take_while(|p| !(p.pid == agent.pid && p.start == agent.start));
        for p in below_agent {
            match (self.confined)(p) {
                Some(false) => {}
                Some(true) => {
                    return Err(format!(
                        "{} runs in {p}, which is confined already (an earlier call's line)",
                        chain[0]
                    ));
                }
                None => return Err(format!("whether {p} is confined cannot be read")),
            }
        }
        Ok(())
    }
}

/// Whether the process at the head of `chain` (itself, then its parents) may redeem a grant
/// bound to `agent`: `agent`, by pid and start time, is among its parents, and no door stands
/// between (a process named as the gate's client, or as a redeemer that is no shell is itself:
/// a line a door runs confined is that door's child as long as it runs, and whatever it starts
/// descends from it).
pub fn under_agent(chain: &[Proc], agent: &Proc) -> Result<(), String> {
    let Some((redeemer, above)) = chain.split_first() else {
        return Err("its process could not be read".into());
    };
    let Some(at) = above
        .iter()
        .position(|p| p.pid == agent.pid && p.start == agent.start)
    else {
        return Err(format!("{redeemer} does not descend from {agent}"));
    };
    // A door under another name (a copy the hook names) is known by the redeemer's own name;
    // a shell that redeems (the bash builtin, confining the agent's shell in place) may run
    // under the agent's other shells (Gemini CLI runs each call in a subshell), and the shells
    // of earlier calls that confined themselves are known by `Grants::confined_in_place`.
    let shell = SHELLS.contains(&redeemer.comm.as_str());
    match above[..at]
        .iter()
        .find(|p| DOORS.contains(&p.comm.as_str()) || (!shell && p.comm == redeemer.comm))
    {
        Some(door) => Err(format!(
            "{redeemer} runs under the door {door}, inside an earlier call"
        )),
        None => Ok(()),
    }
}

/// The grant for a line a policy or a person allowed to run confined: the verdict's
/// confinement, with what only a person grants taken away unless a person allowed it.
pub fn granted(mut confine: Confinement, approved: bool) -> Granted {
    confine.write_anywhere &= approved;
    Granted { confine, approved }
}

/// What happened to a grant, for the audit trail.
#[derive(Debug, Clone, Copy)]
pub enum Step<'a> {
    /// Given with an allow (`by` the policy, or a person's answer to a held line).
    Issued(DecidedBy),
    /// Given with an ask, for the agent's own prompt, before the person answers there.
    ForPrompt,
    /// Redeemed by the door that runs the line.
    Redeemed,
    /// Redeemed and refused: unknown, spent, expired, another uid or line.
    Refused(&'a str),
}

/// Who a grant's audit event is about: the peer that was given or redeemed it.
#[derive(Debug, Clone, Copy)]
pub struct Who {
    pub uid: u32,
    pub pid: i32,
    pub origin: Origin,
}

/// The audit event for `step` of grant `token` for `subject`. A token a peer sent (and a
/// refusal that repeats it) is kept only a few dozen characters long.
pub fn event(token: &str, who: Who, subject: &Subject, step: Step) -> AuditEvent {
    let token: String = token.chars().take(MAX_SHOWN).collect();
    let (decision, by, grant) = match step {
        Step::Issued(by) => (Decision::Allow, by, "issued".to_owned()),
        Step::ForPrompt => (
            Decision::Confirm,
            DecidedBy::Policy,
            "issued for the agent's own prompt".to_owned(),
        ),
        Step::Redeemed => (Decision::Allow, DecidedBy::Policy, "redeemed".to_owned()),
        Step::Refused(why) => {
            let why: String = why.chars().take(4 * MAX_SHOWN).collect();
            (Decision::Deny, DecidedBy::Policy, format!("refused: {why}"))
        }
    };
    AuditEvent {
        time_ms: pending::now_ms(),
        uid: who.uid,
        pid: who.pid,
        origin: who.origin,
        subject: subject.summary(),
        level: Level::Safe,
        findings: Vec::new(),
        decision,
        by,
        reason: format!("grant {token} {grant}"),
        token: Some(token),
        program: None,
        agent: None,
        cwd: subject.cwd().map(str::to_owned),
        refused: None,
        refused_places: Vec::new(),
        grant: Some(grant),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(command: &str, cwd: &str) -> Subject {
        Subject::Shell {
            command: command.into(),
            cwd: cwd.into(),
            truncated: false,
        }
    }

    fn given() -> (Grants, String) {
        let grants = Grants::default();
        let confine = Confinement {
            project: Some("/p".into()),
            write_anywhere: true,
            ..Confinement::default()
        };
        let token = grants
            .give(1000, &shell("make", "/p"), granted(confine.clone(), false))
            .expect("a token");
        (grants, token)
    }

    #[test]
    fn a_grant_runs_its_line_once_and_nothing_else() {
        // (what is redeemed, as whom, redeemed?)
        let cases: [(&str, &str, u32, bool); 5] = [
            ("make", "/p", 1000, true),
            ("make; rm -rf ~", "/p", 1000, false),
            ("make", "/other", 1000, false),
            ("make", "/p", 1001, false),
            ("make ", "/p", 1000, false),
        ];
        for (command, cwd, uid, redeemed) in cases {
            let (grants, token) = given();
            let first = grants.redeem(&token, uid, &shell(command, cwd), Vec::new);
            assert_eq!(first.is_ok(), redeemed, "{command:?} in {cwd} as {uid}");
            if let Ok(granted) = first {
                assert_eq!(granted.confine.project.as_deref(), Some("/p"));
                assert!(
                    !granted.confine.write_anywhere,
                    "a policy's allow never writes anywhere"
                );
                assert!(!granted.approved);
            }
            // Spent, whatever the first redeem made of it.
            let again = grants.redeem(&token, 1000, &shell("make", "/p"), Vec::new);
            let error = again.expect_err("a grant is used once").to_string();
            assert!(error.contains("already used"), "{error}");
        }
    }

    #[test]
    fn an_expired_or_unknown_grant_is_refused() {
        let (grants, token) = given();
        if let Some(grant) = grants.map.lock().expect("lock").get_mut(&token) {
            grant.expires_at = Instant::now() - Duration::from_millis(1);
        }
        let error = grants
            .redeem(&token, 1000, &shell("make", "/p"), Vec::new)
            .expect_err("expired")
            .to_string();
        assert!(error.contains("expired"), "{error}");
        assert!(
            grants
                .redeem("pg_nope", 1000, &shell("make", "/p"), Vec::new)
                .is_err()
        );
    }

    #[test]
    fn a_person_s_allow_keeps_what_only_a_person_grants() {
        let confine = Confinement {
            write_anywhere: true,
            ..Confinement::default()
        };
        assert!(granted(confine.clone(), true).confine.write_anywhere);
        assert!(granted(confine.clone(), true).approved);
        assert!(!granted(confine.clone(), false).confine.write_anywhere);
    }

    fn proc(pid: i32, start: u64, comm: &str) -> Proc {
        Proc {
            pid,
            start,
            comm: comm.into(),
        }
    }

    /// Who may redeem a grant for the agent's own prompt: the chain from the redeemer up.
    #[test]
    fn a_prompt_s_grant_is_redeemed_only_under_its_agent_with_no_door_between() {
        let agent = proc(100, 7, "claude");
        let door = |pid| proc(pid, 50, "assent");
        let shell = |pid| proc(pid, 50, "bash");
        // (chain from the redeemer up, redeemable?)
        let cases: Vec<(Vec<Proc>, bool)> = vec![
            // The agent's own shell runs the rewritten call.
            (vec![door(300), shell(200), agent.clone(), shell(10)], true),
            (vec![door(300), shell(201), shell(200), agent.clone()], true),
            // A confined line of an earlier call: its door stands between.
            (
                vec![
                    door(400),
                    proc(390, 50, "make"),
                    shell(380),
                    door(370),
                    shell(200),
                    agent.clone(),
                ],
                false,
            ),
            (
                vec![
                    door(400),
                    shell(380),
                    proc(370, 50, "assent-sh"),
                    agent.clone(),
                ],
                false,
            ),
            // A door installed under another name is known by the redeemer's own.
            (
                vec![
                    proc(400, 50, "gate"),
                    shell(380),
                    proc(370, 50, "gate"),
                    agent.clone(),
                ],
                false,
            ),
            // Not under the agent: another terminal, an orphan re-parented to init.
            (
                vec![door(500), shell(490), proc(480, 50, "tmux: server")],
                false,
            ),
            (vec![door(500)], false),
            (vec![], false),
            // The agent's pid taken by a later process.
            (vec![door(300), shell(200), proc(100, 8, "claude")], false),
            // The agent itself is not a door's child of interest: a door above it is fine.
            (vec![door(300), shell(200), agent.clone(), door(50)], true),
        ];
        for (chain, redeemable) in cases {
            let names: Vec<String> = chain.iter().map(ToString::to_string).collect();
            assert_eq!(under_agent(&chain, &agent).is_ok(), redeemable, "{names:?}");
        }
    }

    #[test]
    fn a_prompt_s_grant_lives_its_own_time_and_asks_for_the_redeemer_s_parents() {
        let grants = Grants {
            confined: |_| Some(false),
            ..Grants::default()
        };
        let agent = proc(100, 7, "claude");
        let subject = shell("rm -rf src", "/p");
        let confine = Confinement::default();
        let give = || {
            grants
                .give_for_prompt(
                    1000,
                    &subject,
                    granted(confine.clone(), true),
                    agent.clone(),
                    Duration::from_secs(300),
                )
                .expect("a token")
        };
        let token = give();
        let expires = grants.map.lock().expect("lock")[&token].expires_at;
        assert!(expires > Instant::now() + GRANT_TTL, "as long as a hold");
        let under_a_door = || {
            vec![
                proc(400, 50, "assent"),
                proc(370, 50, "assent"),
                agent.clone(),
            ]
        };
        let error = grants
            .redeem(&token, 1000, &subject, under_a_door)
            .expect_err("refused under a door")
            .to_string();
        assert!(error.contains("own prompt"), "{error}");
        // Spent by the refusal: the agent's own shell cannot use it after either.
        let own = || {
            vec![
                proc(300, 50, "assent"),
                proc(200, 50, "bash"),
                agent.clone(),
            ]
        };
        assert!(grants.redeem(&token, 1000, &subject, own).is_err());
        let token = give();
        let run = grants
            .redeem(&token, 1000, &subject, own)
            .expect("redeemed");
        assert!(run.approved, "with what a person's approval adds");
    }

    /// Nothing from the redeemer up to the agent may be confined already (`no_new_privs`):
    /// a line of an earlier call whose shell the bash builtin confined in place has no door
    /// above it; the next call's own shell, in the agent's other shells (Gemini CLI runs each
    /// call in a subshell), may redeem.
    #[test]
    fn nothing_confined_already_may_redeem_a_prompt_s_grant() {
        let grants = Grants {
            confined: |p| match p.comm.as_str() {
                "unreadable" => None,
                _ => Some(p.start == 66),
            },
            ..Grants::default()
        };
        let agent = proc(100, 7, "claude");
        let subject = shell("rm -rf src", "/p");
        let give = || {
            grants
                .give_for_prompt(
                    1000,
                    &subject,
                    granted(Confinement::default(), true),
                    agent.clone(),
                    Duration::from_secs(300),
                )
                .expect("a token")
        };
        let confined_shell = proc(200, 66, "bash");
        for chain in [
            // A door the earlier call's program runs, under the shell confined in place.
            vec![
                proc(400, 50, "assent"),
                proc(390, 50, "python3"),
                confined_shell.clone(),
                agent.clone(),
            ],
            // A program of that call that names itself bash and loads the builtin.
            vec![proc(401, 50, "bash"), confined_shell.clone(), agent.clone()],
            // The confined shell itself.
            vec![confined_shell.clone(), agent.clone()],
            // One whose mark cannot be read.
            vec![proc(402, 50, "unreadable"), agent.clone()],
        ] {
            let names: Vec<&str> = chain.iter().map(|p| p.comm.as_str()).collect();
            let error = grants
                .redeem(&give(), 1000, &subject, || chain.clone())
                .expect_err("refused")
                .to_string();
            assert!(error.contains("own prompt"), "{names:?}: {error}");
        }
        let own = || vec![proc(500, 50, "bash"), agent.clone()];
        assert!(grants.redeem(&give(), 1000, &subject, own).is_ok());
        let subshell = || vec![proc(502, 50, "bash"), proc(501, 50, "bash"), agent.clone()];
        assert!(grants.redeem(&give(), 1000, &subject, subshell).is_ok());
    }

    #[test]
    fn grants_are_bounded() {
        let grants = Grants::default();
        for i in 0..MAX_GRANTS + 10 {
            grants.give_as(
                format!("t{i}"),
                1,
                &shell("ls", "/"),
                granted(Confinement::default(), false),
            );
        }
        assert!(grants.map.lock().expect("lock").len() <= MAX_GRANTS);
    }
}
