//! The approval side of the protocol: approval agents, remembered approvals, withdrawals.

use serde::{Deserialize, Serialize};

use super::Decided;

/// How long an allow answer is remembered (seed 004). A remembered approval matches only a
/// request with the same owner and the same signature: the command and its working directory
/// for a shell command, the tool and the argument that matters for a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Remember {
    /// This request only.
    #[default]
    Once,
    /// Until the requester's session ends: its session label (an agent's conversation) if it
    /// has one, else its login session.
    Session,
    /// For this many seconds from the answer.
    For {
        /// Seconds, at least 1.
        secs: u64,
    },
    /// Until forgotten (`assent forget`); persisted by the daemon.
    Always,
}

impl Remember {
    /// Short words for logs and lists (`once`, `session`, `for 3600 s`, `always`).
    pub fn describe(self) -> String {
        match self {
            Remember::Once => "once".to_string(),
            Remember::Session => "session".to_string(),
            Remember::For { secs } => format!("for {secs} s"),
            Remember::Always => "always".to_string(),
        }
    }
}

/// What an approval agent says about itself when it registers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApproverHello {
    /// Its name and version for logs (`assent-notify 0.1.0`).
    pub name: String,
    /// Whether what it shows requests on can show buttons to answer them (a notification
    /// server whose `GetCapabilities` lists `actions`); `None` where that does not apply (a
    /// terminal's `assent watch`). Absent before protocol 10.
    #[serde(default)]
    pub buttons: Option<bool>,
}

/// A held request that ended, pushed to the approval agents it was shown to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Withdrawn {
    /// The request's (or batch's) token.
    pub token: String,
    /// How it ended.
    pub outcome: Decided,
}

/// Where a remembered approval applies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RememberedScope {
    /// Requests of this session label.
    SessionLabel {
        /// The label.
        label: String,
    },
    /// Requests from this login session, while it lasts.
    LoginSession {
        /// The login session id.
        sid: i32,
    },
    /// Until a moment, in milliseconds since the Unix epoch.
    Until {
        /// The moment.
        ms: u64,
    },
    /// Until forgotten.
    Always,
}

/// A remembered approval, as `assent remembered` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RememberedApproval {
    /// Its id, for `assent forget ID`.
    pub id: String,
    /// The uid whose requests it allows.
    pub uid: u32,
    /// Where it applies.
    pub scope: RememberedScope,
    /// What it matches, in words (`cargo test in /home/u/proj`).
    pub signature: String,
    /// When it was made, in milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// How many requests it has allowed.
    pub uses: u64,
}

/// One page of remembered approvals, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RememberedList {
    /// As many as fit in one packet.
    pub approvals: Vec<RememberedApproval>,
    /// Where the next page starts (`ListRemembered { from }`), `None` after the last page.
    pub next: Option<u32>,
}
