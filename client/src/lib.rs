//! assent's client library: the wire protocol shared with `assentd`, its codec, and a
//! blocking connection.
//!
//! This crate sits on the hot path of every gated command, so it stays small: serde, the
//! codec, nix and thiserror. No async runtime, no parser, no D-Bus. The `assent` binary's own
//! dependencies (clap and the rest) come with the default `cli` feature, which the daemon,
//! `assent-notify` and the bash builtin leave off; `cargo tree -p assent-bash -e normal` is the
//! check.

#![deny(missing_docs)]
// No unsafe code, but in the modules of `confine` that make system calls no binding offers.
#![deny(unsafe_code)]

pub mod codec;
#[cfg(feature = "plan")]
pub mod confine;
pub mod connection;
pub mod error;
pub mod man;
pub mod paths;
#[cfg(feature = "plan")]
pub mod plan;
pub mod protocol;
pub mod say;
pub mod shown;
pub mod whose;

pub use connection::Connection;
pub use error::{CodecError, Error};
