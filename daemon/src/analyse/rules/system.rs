//! TODO(issue 3): the system family.

use super::Class;

pub const COMMANDS: &[(&str, Class)] = &[];
