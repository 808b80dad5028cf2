//! TODO(issue 3): the data family.

use super::Class;

pub const COMMANDS: &[(&str, Class)] = &[];
