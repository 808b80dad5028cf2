//! The places a line changes, as `act` records them while it writes findings: what a run
//! confined to the line's judgement may change (`crate::confine`).

use crate::places::Path;

/// The places a line changes (writes, overwrites, erases, deletes, moves, changes the
/// permissions or settings of, or gives to a program the gate does not know), as far as the
/// line says: what a run confined to its judgement may change.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Changes {
    /// Absolute paths the line changes, each named whole. At most [`MAX_CHANGED`].
    pub paths: Vec<String>,
    /// The directories above a part only known at run time (`rm build/*.o` changes within
    /// `/p/build`, `open(join(HOME, x), 'w')` within the home): wider than what the line
    /// names, so granted only to a line a person approved. At most [`MAX_CHANGED`].
    pub within: Vec<String>,
    /// A change somewhere no path says: a relative path after a `cd` to an unknown place, a
    /// word only known at run time, more than [`MAX_CHANGED`] places.
    pub anywhere: bool,
    /// It installs or removes software (what package managers change lies in their own
    /// directories, which no word names).
    pub packages: bool,
}

/// Changed places kept per analysis; past this many the line may change anywhere.
pub const MAX_CHANGED: usize = 32;

impl Changes {
    /// Records a change to what `path` names.
    pub(crate) fn add(&mut self, path: &Path) {
        let (list, text) = match path.literal_text() {
            Some(text) => (&mut self.paths, text),
            None => match path.literal_prefix() {
                Some(text) => (&mut self.within, text),
                None => {
                    self.anywhere = true;
                    return;
                }
            },
        };
        if list.contains(&text) {
        } else if list.len() < MAX_CHANGED {
            list.push(text);
        } else {
            self.anywhere = true;
        }
    }
}
