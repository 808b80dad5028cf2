//! TODO(issue 3): the packages family.

use super::Class;

pub const COMMANDS: &[(&str, Class)] = &[];
