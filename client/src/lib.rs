//! assent's client library: the wire protocol shared with `assentd`, its codec, and a
//! blocking connection.
//!
//! This crate sits on the hot path of every gated command, so it stays small: serde, the
//! codec, nix and (for the binary) clap with its own `clap_complete` and `clap_mangen`, which
//! only `assent completions` and `assent man` reach. No async runtime, no parser, no D-Bus;
//! `cargo tree -p assent-client` is the check.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod codec;
pub mod connection;
pub mod error;
pub mod paths;
pub mod protocol;
pub mod say;

pub use connection::Connection;
pub use error::{CodecError, Error};
