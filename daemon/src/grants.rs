//! One-time grants: an allowed line handed from an agent's hook to the door that runs it
//! confined (`assent sh --grant TOKEN -c LINE`), so that door does not judge the line again
//! (and hold a line a person already approved a second time).
//!
//! A grant is given only with an allow that carries a confinement, to a check that asked for
//! one (`Context::grant`), and is bound to the requester's uid, the exact subject (command and
//! working directory) and that confinement. It is spent by its first redeem, whatever the
//! outcome (a wrong line burns it), and lives [`GRANT_TTL`]: the agent runs the rewritten call
//! right after its hook answers. Grants live in memory only; a daemon restart forgets them.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use assent_client::protocol::{
    AuditEvent, Confinement, DecidedBy, Decision, Granted, Level, Origin, Subject,
};

use crate::error::RequestError;
use crate::pending;

/// How long a grant can be redeemed: the agent runs the call at once after its hook.
pub const GRANT_TTL: Duration = Duration::from_secs(15);
/// The most grants alive at once; past it the oldest are dropped (an agent that never runs
/// what it was allowed cannot fill the daemon's memory).
const MAX_GRANTS: usize = 4096;
/// The most of a peer's token an audit event keeps.
const MAX_SHOWN: usize = 64;

#[derive(Debug)]
struct Grant {
    uid: u32,
    exact: String,
    granted: Granted,
    expires_at: Instant,
}

/// The grants given and not yet redeemed.
#[derive(Debug, Default)]
pub struct Grants {
    map: Mutex<HashMap<String, Grant>>,
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
                expires_at: now + GRANT_TTL,
            },
        );
    }

    /// Redeem `token` for `subject` as `uid`: what to run it with. The grant is spent either way.
    pub fn redeem(
        &self,
        token: &str,
        uid: u32,
        subject: &Subject,
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
                "grant {token} expired ({} s after it was given); nothing was run",
                GRANT_TTL.as_secs()
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
        Ok(grant.granted)
    }
}

/// The grant for a line a policy or a person allowed to run confined: the verdict's
/// confinement, with what only a person grants taken away unless a person allowed it.
pub fn granted(confine: &Confinement, approved: bool) -> Granted {
    let mut confine = confine.clone();
    confine.write_anywhere &= approved;
    Granted { confine, approved }
}

/// What happened to a grant, for the audit trail.
#[derive(Debug, Clone, Copy)]
pub enum Step<'a> {
    /// Given with an allow (`by` the policy, or a person's answer to a held line).
    Issued(DecidedBy),
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
            .give(1000, &shell("make", "/p"), granted(&confine, false))
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
            let first = grants.redeem(&token, uid, &shell(command, cwd));
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
            let again = grants.redeem(&token, 1000, &shell("make", "/p"));
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
            .redeem(&token, 1000, &shell("make", "/p"))
            .expect_err("expired")
            .to_string();
        assert!(error.contains("expired"), "{error}");
        assert!(
            grants
                .redeem("pg_nope", 1000, &shell("make", "/p"))
                .is_err()
        );
    }

    #[test]
    fn a_person_s_allow_keeps_what_only_a_person_grants() {
        let confine = Confinement {
            write_anywhere: true,
            ..Confinement::default()
        };
        assert!(granted(&confine, true).confine.write_anywhere);
        assert!(granted(&confine, true).approved);
        assert!(!granted(&confine, false).confine.write_anywhere);
    }

    #[test]
    fn grants_are_bounded() {
        let grants = Grants::default();
        for i in 0..MAX_GRANTS + 10 {
            grants.give_as(
                format!("t{i}"),
                1,
                &shell("ls", "/"),
                granted(&Confinement::default(), false),
            );
        }
        assert!(grants.map.lock().expect("lock").len() <= MAX_GRANTS);
    }
}
