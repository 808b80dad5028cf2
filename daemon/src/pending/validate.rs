//! Who may answer a held request, and the outcome an answer gives it.
//!
//! Pure checks on the request's requester, owner and session label: no lock, no settling.

use assent_client::protocol::{Decided, DecidedBy};

use super::{Answerer, Requester};
use crate::error::RequestError;

/// A person's answer as an outcome.
pub(super) fn answered(by: &Answerer, allow: bool) -> Decided {
    let who = if by.uid == 0 {
        "root".to_string()
    } else {
        format!("uid {}", by.uid)
    };
    let verb = if allow { "allowed" } else { "denied" };
    Decided {
        allow,
        by: DecidedBy::User,
        reason: format!("{verb} by {who} (pid {})", by.pid),
    }
}

/// May `by` answer a request of `requester`, owned by `owner`, of session label `session`?
pub(super) fn authorise(
    requester: &Requester,
    owner: u32,
    session: &Option<String>,
    by: &Answerer,
) -> Result<(), RequestError> {
    if by.uid != owner && by.uid != 0 {
        return Err(RequestError::UserMismatch {
            caller: by.uid,
            owner,
        });
    }
    if by.session.is_some() && by.session != *session {
        return Err(RequestError::SessionMismatch {
            caller: by.session.clone(),
            owner: session.clone(),
        });
    }
    check_not_self(requester, by)
}

/// The requester may not answer itself: not on its own connection, not from its own process,
/// not from any process of its login session (an agent could run `assent approve` itself). An
/// answerer whose session cannot be established is refused rather than assumed different.
fn check_not_self(owner: &Requester, by: &Answerer) -> Result<(), RequestError> {
    if by.conn_id == owner.conn_id || (by.pid > 0 && by.pid == owner.pid) {
        return Err(RequestError::SelfApproval);
    }
    match (owner.sid, by.sid) {
        (_, None) => Err(RequestError::Identity(
            "the answering process's login session could not be established".into(),
        )),
        (Some(a), Some(b)) if a == b => Err(RequestError::SelfApproval),
        // The requester's session is unknown (it left before it could be pinned): it could be
        // the answerer's own, so the same uid may not answer; another uid (root) still may.
        (None, Some(_)) if by.uid == owner.uid => Err(RequestError::SelfApproval),
        _ => Ok(()),
    }
}
