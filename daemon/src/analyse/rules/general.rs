//! TODO(issue 3): the general family.

use super::super::words::Word;
use super::Site;

/// What a program in no family is judged by (stub until issue 3).
pub fn unknown(_args: &[Word], _site: &mut Site) -> () {}
