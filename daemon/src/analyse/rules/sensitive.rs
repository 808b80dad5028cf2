//! TODO(issue 3): the sensitive family.

use super::super::words::Word;
use super::Site;

/// Reports secrets that `args` read, whatever the program (stub until issue 3).
pub fn scan(_args: &[Word], _site: &mut Site) -> () {}
