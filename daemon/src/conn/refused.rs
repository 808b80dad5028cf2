//! `Refused`: what the kernel refused to the confined run a door made, named in the
//! vocabulary's words and kept in the audit trail. The domains are those the peer's pid made
//! (the socket's credentials); the line is the door's own word, kept beside them.

use assent_client::protocol::{
    AuditEvent, DecidedBy, Decision, Level, Refusal, Refusals, RefusedRequest, Response,
};

use super::Conn;
use crate::denials::Refused;
use crate::pending;
use crate::places::{self, Where};

impl Conn {
    pub(super) async fn refused(&mut self, request: RefusedRequest) -> Response {
        // Each answer may wait for the kernel's records and write an audit event: counted against
        // the policy's rate limit like a check.
        let policy = self.shared.policy.for_origin(request.origin);
        if let Err(error) = self
            .shared
            .take_rate(self.peer.uid, policy.settings.rate_limit)
        {
            return Response::Error(error.to_wire());
        }
        let (pid, uid) = (self.peer.pid, self.peer.uid);
        // The door marked its run's end by a refused signal to its parent.
        let parent = self.peer.parent();
        let found = self.shared.denials.refused(pid, uid, parent).await;
        let refused = match found {
            Ok(refused) => refused,
            Err(why) => {
                return Response::Refusals(Refusals {
                    unknown: Some(why),
                    refused: Vec::new(),
                });
            }
        };
        let home = self.home.as_deref();
        let refusals: Vec<Refusal> = refused
            .iter()
            .map(|r| named(r, request.subject.cwd(), home))
            .collect();
        if !refusals.is_empty() {
            self.audit_refusals(&request, &refusals);
        }
        Response::Refusals(Refusals {
            unknown: None,
            refused: refusals,
        })
    }

    fn audit_refusals(&self, request: &RefusedRequest, refusals: &[Refusal]) {
        let places: Vec<String> = refusals
            .iter()
            .map(|r| match &r.path {
                Some(path) => format!("{} {path} ({})", r.access, r.place),
                None => format!("{} ({})", r.access, r.place),
            })
            .collect();
        self.shared.audit.record(AuditEvent {
            time_ms: pending::now_ms(),
            uid: self.peer.uid,
            pid: self.peer.pid,
            origin: request.origin,
            subject: request.subject.summary(),
            level: Level::Safe,
            findings: refusals
                .iter()
                .map(|r| format!("confine.{}", r.access))
                .collect(),
            decision: Decision::Deny,
            by: DecidedBy::Policy,
            reason: format!("the confined run was refused {}", places.join("; ")),
            token: None,
            program: None,
            agent: None,
            cwd: request.subject.cwd().map(str::to_owned),
            refused: None,
            refused_places: places,
            grant: None,
        });
    }
}

/// A refusal with its place in the vocabulary's words.
fn named(refused: &Refused, cwd: Option<&str>, home: Option<&str>) -> Refusal {
    let place = match (&refused.path, refused.access.split('.').next()) {
        (Some(path), _) => {
            let placed = places::classify_text(path, false, &Where::new(cwd, home), home);
            placed
                .kinds()
                .next()
                .map_or("a place outside what the line may change", |k| {
                    placed.why(k)
                })
        }
        (None, Some("net")) => "the network",
        (None, Some("scope")) => "a process outside the run",
        (None, _) => "a place the kernel did not name",
    };
    Refusal {
        access: refused.access.clone(),
        path: refused.path.clone(),
        place: place.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_place_is_named_in_the_vocabulary_s_words() {
        let home = Some("/home/u");
        for (access, path, place) in [
            (
                "fs.make_reg",
                Some("/home/u/Documents/old"),
                "files outside the project",
            ),
            (
                "fs.read_file",
                Some("/home/u/.ssh/id_ed25519"),
                "an SSH private key",
            ),
            ("net.connect_tcp", None, "the network"),
            ("scope.signal", None, "a process outside the run"),
        ] {
            let refused = Refused {
                target: None,
                access: access.into(),
                path: path.map(str::to_owned),
            };
            let named = named(&refused, Some("/work/p"), home);
            assert!(named.place.contains(place), "{access} {path:?}: {named:?}");
        }
    }
}
