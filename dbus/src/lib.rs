//! assent-notify: the per-user approval agent, the polkit pattern for assent.
//!
//! It runs in the user's graphical session, registers with `assentd` as the approver for its
//! uid, shows each held request as an `org.freedesktop.Notifications` notification with
//! Allow once / Allow for this session / Always allow / Deny buttons, and sends the answer
//! back. It closes a notification when the daemon withdraws its request.
//!
//! Modules, from the wire to the screen: [`daemon`] (the approver connection), [`queue`] (the
//! held requests and their notifications, pure), [`text`] (what a notification says, pure),
//! [`desktop`] (the session bus), [`trust`] (whether the server may be shown anything), and
//! [`agent`] (the loop that ties them together).
//!
//! What it must not do: answer anything a person did not click. A dismissed notification, a
//! missing notification server or a lost daemon leave the request to expire, which the daemon
//! counts as a deny once.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod agent;
pub mod daemon;
pub mod desktop;
pub mod error;
pub mod queue;
pub mod text;
pub mod trust;

pub use agent::{Config, run};
pub use error::Error;
