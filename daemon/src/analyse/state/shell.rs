//! The shell as the line runs it: what a text to parse starts from ([`Source`], [`Start`]),
//! what the shell knows as it runs ([`Shell`]: directory, variables, functions, the container
//! it runs in), and the names of a command's place in the line (`list[1] > pipeline[0]`).

use std::collections::HashSet;
use std::rc::Rc;

use crate::analyse::act::Carried;
use crate::analyse::source::SpanMap;
use crate::analyse::words::{self, Var, Vars};
use crate::places::{self, Anchor, Path, Piece};

use super::Bodies;

/// A text to parse: the input, or an inner command string found in it.
pub(crate) struct Source {
    pub text: String,
    pub map: Rc<SpanMap>,
    /// Path of the command that runs this text.
    pub path: Rc<str>,
    pub depth: u32,
    /// What the shell that runs this text knows when it starts.
    pub shell: Start,
    /// The file read from the disk this text comes from, as findings name it (`in x.sh`).
    pub from: Option<Rc<str>>,
}

/// Where a text's shell starts.
pub(crate) enum Start {
    /// A shell of its own (an inner command string), knowing this.
    Fresh(Shell),
    /// The next statements of a line cut in pieces, from where the piece before left off.
    /// `first` is the index of the first statement in the whole line; `many` says whether
    /// the line holds more than one (how the statements are named).
    Continue { first: usize, many: bool },
    /// Stages of a pipeline cut in pieces, from stage `first_stage` on: each in a subshell of
    /// the shell before the pipeline, the first reading what the stage before it printed.
    Stage { first_stage: usize },
}

/// What the shell knows as the line runs: where it is, the variables assigned on the line, the
/// functions defined on it, what moves and copies carried where. Subshells, pipeline stages
/// and substitutions work on a copy that is dropped when they end.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shell {
    /// The current directory; `None` once a `cd` went somewhere only known at run time.
    pub cwd: Option<Rc<str>>,
    /// The directory before the last `cd` on the line (`cd -`, `~-`).
    pub oldpwd: Option<Rc<str>>,
    /// Variables assigned on the line. A variable not here comes from the environment.
    pub vars: Rc<Vars>,
    /// Functions defined on the line: calling one runs a body already analysed.
    pub functions: Rc<HashSet<String>>,
    /// Variables declared references to others (`declare -n r=HOME`): `$r` is the other's
    /// value, and assigning `r` assigns the other.
    pub namerefs: Rc<HashSet<String>>,
    /// The bodies of the functions defined on the line, as text and where they are in the
    /// input, read again when a call gives them arguments (`f ~/.ssh/id_rsa`).
    pub bodies: Rc<Bodies>,
    /// Paths that hold what a move, copy or link on the line put there.
    pub carried: Rc<Carried>,
    /// The container the commands run in (`docker exec`, `kubectl exec`), if any: its paths
    /// are its own, except those below the host directories mounted into it.
    pub container: Option<Rc<Container>>,
    /// `shopt` options that change what globs match (`dotglob`, `nocaseglob`, `globstar`).
    pub globs: words::GlobOptions,
    /// A file of secrets (`.env`) was sourced: the variables it set hold secrets.
    pub sourced: bool,
}

/// A container's view of the host: which host paths are mounted where.
#[derive(Debug, Default)]
pub(crate) struct Container {
    /// A mount's target in the container, and the host paths its source could be.
    pub mounts: Vec<(Path, Vec<Path>)>,
}

/// Mounts followed per container; more make any path reach the host.
pub(crate) const MAX_MOUNTS: usize = 32;

impl Container {
    /// Whether `path` in the container could be at or below `target`, and the rest after it.
    pub(super) fn below<'p>(path: &'p Path, target: &Path) -> Option<&'p [places::Comp]> {
        if path.anchor != target.anchor || path.comps.len() < target.comps.len() {
            return None;
        }
        let (head, rest) = path.comps.split_at(target.comps.len());
        (head == target.comps.as_slice()).then_some(rest)
    }

    /// Whether a whole tree at `path` could hold `target` (`rm -rf /` with a mount at
    /// `/data`): the path is above it, or a pattern or an unknown part could lead there.
    pub(super) fn reaches(path: &Path, target: &Path) -> bool {
        if path.anchor != Anchor::Root {
            return true;
        }
        for (i, c) in path.comps.iter().enumerate() {
            match (c, target.comps.get(i)) {
                (_, None) => return false,
                (places::Comp::Name(g), Some(t)) if g.is_literal() => {
                    if Some(c) != Some(t) {
                        return false;
                    }
                }
                _ => return true,
            }
        }
        true
    }
}

/// The longest value a variable keeps, in bytes; a longer one is unknown. `x=$x$x` doubles a
/// value at each step: kept whole, twenty steps would be a mebibyte for each.
pub(super) const MAX_VALUE: usize = 4096;

impl Shell {
    pub fn set_var(&mut self, name: &str, value: Var) {
        let size = |alts: &words::Alts| -> usize {
            alts.iter()
                .flatten()
                .map(|p| match p {
                    Piece::Lit(t) | Piece::Glob(t) => t.len(),
                    _ => 1,
                })
                .sum()
        };
        let value = match value {
            Var::Lit(t) if t.len() > MAX_VALUE => Var::Unknown,
            Var::Pattern(alts) if size(&alts) > MAX_VALUE => Var::Unknown,
            other => other,
        };
        Rc::make_mut(&mut self.vars).insert(name.to_owned(), value);
    }
}

/// How much of a deep path is kept before its middle is left out: `sudo sudo sudo …` nests
/// once per word, and a path spelled out in full at every level would cost the square of
/// the line.
pub(super) const MAX_PATH_HEAD: usize = 120;

/// `path` with its middle left out when it is long: its first [`MAX_PATH_HEAD`] bytes, then
/// `… > `. Only the head is kept, so a path shortened once stays that short.
pub(super) fn path_head(path: &str) -> (&str, &str) {
    if path.len() <= 2 * MAX_PATH_HEAD {
        return (path, " > ");
    }
    let mut end = MAX_PATH_HEAD;
    while !path.is_char_boundary(end) {
        end -= 1;
    }
    // Cut after a whole segment when there is one.
    let end = path[..end].rfind(" > ").unwrap_or(end);
    (&path[..end], " > … > ")
}

/// `a > b`, or `b` when `a` is empty.
pub(crate) fn join_path(path: &str, segment: &str) -> Rc<str> {
    if path.is_empty() {
        return Rc::from(segment);
    }
    let (head, joint) = path_head(path);
    let mut out = String::with_capacity(head.len() + joint.len() + segment.len());
    out.push_str(head);
    out.push_str(joint);
    out.push_str(segment);
    Rc::from(out)
}

/// `a > name[index]`: [`join_path`] for list items and pipeline stages, one per command on a
/// long line, without formatting the segment apart.
pub(crate) fn join_indexed(path: &str, name: &str, index: usize) -> Rc<str> {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = index;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let digits = std::str::from_utf8(&digits[at..]).unwrap_or("0");
    let (head, joint) = path_head(path);
    let mut out = String::with_capacity(head.len() + joint.len() + name.len() + digits.len() + 2);
    if !path.is_empty() {
        out.push_str(head);
        out.push_str(joint);
    }
    out.push_str(name);
    out.push('[');
    out.push_str(digits);
    out.push(']');
    Rc::from(out)
}
