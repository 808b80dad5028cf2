//! TODO(issue 3): the cloud family.

use super::super::words::Word;
use super::{Class, Site};

pub const COMMANDS: &[(&str, Class)] = &[];

/// A service CLI's destructive verb (`… delete …`); true if something was reported (stub).
pub fn service(_args: &[Word], _site: &mut Site) -> bool {
    false
}
