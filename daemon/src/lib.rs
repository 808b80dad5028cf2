//! assentd: the daemon that judges commands and tool calls.
//!
//! A request goes top to bottom through one module per stage: [`server`] accepts, [`conn`]
//! serves one peer (identity from [`peer`]), [`judge`] runs [`analyse`] then [`policy`],
//! [`pending`] holds what needs a person, [`audit`] records every decision. `main.rs` only
//! parses flags, sets up logging, binds, and calls [`server::run`].

pub mod analyse;
pub mod approvers;
pub mod audit;
pub mod config;
pub mod confine;
pub mod conn;
pub mod decide;
pub mod denials;
pub mod error;
pub mod grants;
pub mod judge;
pub mod landlock;
pub mod peer;
pub mod pending;
pub mod places;
pub mod policy;
pub mod polkit;
pub mod project;
pub mod read;
pub mod remember;
pub mod request;
pub mod rulesets;
pub mod server;
pub mod stats;
// Socket activation adopts the descriptor systemd passed (`OwnedFd::from_raw_fd`).
#[allow(unsafe_code)]
pub mod systemd;

pub use config::{Config, Mode};
pub use error::Error;
pub use server::{Loaded, bind, run, serve};
