//! Per-command rules and the redirection rule: what a known program does with its arguments.
//!
//! Each family of programs has its own module with a `COMMANDS` table mapping a program name to
//! how it is judged: known read-only, or a rule that reads its arguments and reports findings
//! from the catalogue. [`class`] looks a name up across every family. A program in no table
//! gets no finding yet. Rules see resolved words and the context only; they never touch the
//! file system.

mod cloud;
mod data;
mod disk;
mod fs;
mod general;
mod git;
mod packages;
mod readonly;
mod redirect;
mod sensitive;
mod system;

use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;

use super::catalogue::Kind;
use super::words::Word;
use super::{Context, State};

pub use fs::names_tmpdir;
pub use redirect::redirect;

/// What a rule is given besides the arguments.
pub struct Site<'x, 'c, 'a> {
    pub name: &'x str,
    /// The command's span in the original input.
    pub span: Range<usize>,
    pub st: &'x mut State<'c, 'a>,
}

impl Site<'_, '_, '_> {
    fn report(&mut self, kind: Kind, detail: &str) {
        let finding = kind.at(self.span.clone(), detail);
        self.st.add(finding);
    }

    fn ctx(&self) -> &Context<'_> {
        self.st.ctx
    }
}

type Rule = fn(&[Word], &mut Site);

/// How a program is judged.
pub enum Class {
    /// Reads only (issue 3 gives unknown programs a level; these stay safe).
    ReadOnly,
    Rule(Rule),
}

/// Every family's table. A name should appear in one table only; the first match wins.
const FAMILIES: &[&[(&str, Class)]] = &[
    fs::COMMANDS,
    git::COMMANDS,
    disk::COMMANDS,
    system::COMMANDS,
    data::COMMANDS,
    cloud::COMMANDS,
    packages::COMMANDS,
    readonly::COMMANDS,
];

/// Finds the class of a program by name; `mkfs.ext4` and friends are `mkfs`.
pub fn class(name: &str) -> Option<&'static Class> {
    // The tables hold hundreds of names and every command asks: index them once.
    static INDEX: OnceLock<HashMap<&'static str, &'static Class>> = OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let mut index = HashMap::new();
        for (n, c) in FAMILIES.iter().flat_map(|family| family.iter()) {
            index.entry(*n).or_insert(c);
        }
        index
    });
    let key = if name.starts_with("mkfs.") {
        "mkfs"
    } else {
        name
    };
    index.get(key).copied()
}

/// Judges one simple command: secrets it reads (any program), then its family's rule; a
/// program in no family is judged by the service-CLI verbs it uses (`… delete …`), else by
/// what it is (`general`).
pub fn command(name: &str, args: &[Word], span: Range<usize>, st: &mut State) {
    let site = &mut Site { name, span, st };
    sensitive::scan(args, site);
    match class(name) {
        Some(Class::Rule(rule)) => rule(args, site),
        Some(Class::ReadOnly) => {}
        None => {
            if general::project_tool(name) || !cloud::service(args, site) {
                general::unknown(args, site);
            }
        }
    }
}

/// `want` if `given` is it or an unambiguous abbreviation of it among `all`, as getopt_long
/// accepts (`--rec` is `--recursive`).
fn long_is(given: &str, want: &str, all: &[&str]) -> bool {
    if given == want {
        return true;
    }
    !given.is_empty()
        && want.starts_with(given)
        && all.iter().filter(|o| o.starts_with(given)).count() == 1
}

/// At most three words as written, for a message.
fn describe(words: &[&Word], none: &str) -> String {
    if words.is_empty() {
        return none.to_owned();
    }
    let mut out = String::new();
    for (i, w) in words.iter().take(3).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push('`');
        out.push_str(w.raw);
        out.push('`');
    }
    if words.len() > 3 {
        out.push_str(&format!(" and {} more", words.len() - 3));
    }
    out
}
