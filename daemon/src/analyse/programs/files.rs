//! Files and directories: deleting (`rm`, `shred`), copying, moving and linking (`cp`, `mv`,
//! `ln`, `install`: what they carry keeps its place at the destination), raw writes (`dd`),
//! owners and permissions (`chmod`, `chown`), `find`'s own effects (its `-exec` commands are
//! `runners`'), and readers whose operands do different things (`uniq IN OUT`).

use super::super::act::{Carry, Site};
use super::super::catalogue;
use super::super::effects::Effect::{Change, Delete, Erase, Move, Overwrite, Read, Run, Write};
use super::super::index::{Spec, each};
use super::super::words::Word;
use super::spec;
use crate::places::{Kind, Path, Piece};

mod modes;

pub use modes::{chmod, chown, grant_on, perms_after_first};

const RM: Spec = Spec {
    tree: &["r", "R", "recursive"],
    ..each(Delete)
};

/// `rm`: deletes what it is given, trees with `-r`; `--no-preserve-root` is there to delete
/// `/`.
pub fn rm<'s>(_: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if site.args.only_help() {
        return;
    }
    if site.args.has(&["no-preserve-root"]) {
        site.place(
            Delete,
            Kind::Root,
            "anything, `--no-preserve-root` given".to_owned(),
        );
    }
    // `rm` alone fails, but a line built around it (`xargs rm`, `… | rm`) may hand it files.
    if site.args.operands.is_empty() {
        site.place(
            Delete,
            Kind::Unknown,
            "paths it is not given here".to_owned(),
        );
    }
    spec(&RM, site);
}

/// `shred`: erases what it is given, and deletes it with `-u`.
pub fn shred<'s>(_: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let effect = if site.args.has(&["u", "remove"]) {
        Delete
    } else {
        Erase
    };
    spec(&each(effect), site);
}

/// Where a copy-like command puts things: `onto`, the destination itself, which it replaces
/// when it is a file (one source, a destination written without a trailing `/`); `into`,
/// each source's name inside it, which it creates when the destination is a directory. Both
/// are possible; which one the file system decides.
struct Copies<'s> {
    onto: Vec<Path>,
    into: Vec<Path>,
    sources: Vec<Word<'s>>,
    dest: Option<Word<'s>>,
}

impl Copies<'_> {
    fn all(&self) -> Vec<Path> {
        self.onto.iter().chain(&self.into).cloned().collect()
    }
}

fn copies<'s>(site: &Site<'_, 's, '_, '_>) -> Copies<'s> {
    let ops: Vec<Word<'s>> = site.args.operands.iter().map(|w| (*w).clone()).collect();
    let target_dir = site.args.value(&["t", "target-directory"]).cloned();
    let to_dir = target_dir.is_some();
    let (dest, sources) = match target_dir {
        Some(dir) => (Some(dir), ops),
        None => match ops.split_last() {
            Some((last, rest)) if !rest.is_empty() => (Some(last.clone()), rest.to_vec()),
            // `ln -s TARGET`: a link in the working directory.
            _ => (None, ops),
        },
    };
    let base = match &dest {
        Some(d) => site.paths(d),
        None => site.paths(&Word::made(".".to_owned(), ".", 0..0)),
    };
    let may_be_file = dest
        .as_ref()
        .is_some_and(|d| !to_dir && sources.len() == 1 && !d.raw.ends_with('/'));
    let mut onto = Vec::new();
    let mut into = Vec::new();
    for b in &base {
        if may_be_file {
            onto.push(b.clone());
        }
        for s in &sources {
            let mut inside = b.clone();
            match s
                .literal()
                .and_then(|t| t.trim_end_matches('/').rsplit('/').next())
            {
                Some(name) if !matches!(name, "" | "." | "..") => inside.push_literal(name),
                _ => inside.push_unknown(),
            }
            into.push(inside);
        }
    }
    Copies {
        onto,
        into,
        sources,
        dest,
    }
}

/// Shows a destination as written.
fn dest_shown(dest: &Option<Word>) -> String {
    match dest {
        Some(d) => d.quoted(),
        None => "the working directory".to_owned(),
    }
}

/// Reports what a copy-like command puts at its destination: `onto` is replaced, unless it
/// never replaces (`-n`); `into` is created.
fn land<'s>(site: &mut Site<'_, 's, '_, '_>, c: &Copies<'s>, tree: bool) {
    let replace = if site.args.has(&["n", "no-clobber"]) {
        Write
    } else {
        Overwrite
    };
    let shown = dest_shown(&c.dest);
    if !c.onto.is_empty() {
        site.on_paths(replace, c.onto.clone(), tree, shown.clone());
    }
    if !c.into.is_empty() {
        site.on_paths(Write, c.into.clone(), tree, shown);
    }
}

/// A rename or a link replaces the node at its destination, not what the node leads to:
/// `mv f /dev/null` puts a file where the null device was, for every program after it.
fn replaces_node<'s>(site: &mut Site<'_, 's, '_, '_>, c: &Copies<'s>) {
    let nulls: Vec<Path> = c
        .onto
        .iter()
        .filter(|p| site.st.places_of(p, false, false).has(Kind::Null))
        .cloned()
        .collect();
    if !nulls.is_empty() {
        let shown = dest_shown(&c.dest);
        site.on_paths(Delete, nulls, false, shown);
    }
}

/// `cp`: reads its sources (whole trees with `-r`) and writes what it copies.
pub fn cp<'s>(_: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if site.args.only_help() {
        return;
    }
    let tree = site.args.has(&["r", "R", "a", "recursive", "archive"]);
    let c = copies(site);
    for s in &c.sources {
        if tree {
            site.tree(Read, s);
        } else {
            site.on(Read, s);
        }
    }
    land(site, &c, tree);
    // `cp -l` and `cp -s` make links: what is done through them is done to the source.
    let how = if site.args.has(&["l", "link", "s", "symbolic-link"]) {
        Carry::Same
    } else {
        Carry::Copy
    };
    if let Some(source) = c.sources.first() {
        site.carries(&c.all(), source, how);
    }
}

/// `mv`: takes its sources away and puts them at the destination.
pub fn mv<'s>(_: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if site.args.only_help() {
        return;
    }
    let c = copies(site);
    for s in &c.sources {
        site.tree(Move, s);
    }
    // Your files into temp: the first half of a deletion (`mv ~/Documents /tmp/x`, then
    // `rm -rf /tmp/x`, each moderate on its own line).
    if let Some(dest) = &c.dest
        && site.placed(dest, false).has(Kind::Temp)
    {
        for s in &c.sources {
            let placed = site.placed(s, true);
            if placed.has(Kind::Data) || placed.has(Kind::Home) {
                let shown = format!("mv {} {}", s.raw, dest.raw);
                site.say(catalogue::MOVE_TO_TEMP, &shown);
            }
        }
    }
    land(site, &c, true);
    replaces_node(site, &c);
    if let Some(source) = c.sources.first() {
        site.carries(&c.all(), source, Carry::Same);
    }
}

/// `ln`: makes a link where it lands, over what was there with `-f`; the link then leads to
/// its target, so deleting through it deletes the target.
pub fn ln<'s>(_: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if site.args.only_help() {
        return;
    }
    let c = copies(site);
    land(site, &c, false);
    replaces_node(site, &c);
    if let Some(target) = c.sources.first() {
        site.carries(&c.all(), target, Carry::Same);
    }
}

/// `install`: copies like `cp` (with the modes it is told), or makes directories with `-d`.
pub fn install<'s>(_: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if site.args.only_help() {
        return;
    }
    modes::install_mode(site);
    if site.args.has(&["d", "directory"]) {
        spec(&each(Write), site);
        return;
    }
    let c = copies(site);
    for s in &c.sources {
        site.on(Read, s);
    }
    land(site, &c, false);
}

/// `dd if=IN of=OUT`: reads IN, writes raw bytes over OUT.
pub fn dd<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    for w in words {
        let Some((key, _)) = w.literal().and_then(|t| t.split_once('=')).or_else(|| {
            // `of=$x`: the key is literal even if the value is not.
            w.raw
                .split_once('=')
                .filter(|(k, _)| matches!(*k, "if" | "of"))
        }) else {
            continue;
        };
        let value = w.tail(key.len() + 1);
        match key {
            "if" => site.on(Read, &value),
            "of" => site.on(Erase, &value),
            _ => {}
        }
    }
}

/// Tests of `find` that take one value, so that `-name -delete` is not an action.
const FIND_VALUE_TESTS: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-lname",
    "-ilname",
    "-type",
    "-xtype",
    "-perm",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-size",
    "-newer",
    "-anewer",
    "-cnewer",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-used",
    "-links",
    "-inum",
    "-samefile",
    "-fstype",
    "-maxdepth",
    "-mindepth",
    "-printf",
    "-context",
    "-regextype",
    "-files0-from",
];

/// Actions of `find` that write their value, a file (`-fprint FILE`).
const FIND_WRITES: &[&str] = &["-fprint", "-fprint0", "-fls", "-fprintf"];

/// The parts of a `find` command: its starting points, and what it finds (each starting
/// point, anything beneath, with the name its `-name` tests ask for when they all agree).
pub struct Found<'s> {
    pub starts: Vec<Word<'s>>,
    /// The paths it finds, as alternatives of pieces.
    pub found: Vec<Vec<Piece>>,
}

/// Reads `find`'s starting points and `-name` tests.
pub fn found<'s>(args: &[Word<'s>]) -> Found<'s> {
    let mut i = 0;
    // Leading options: -H -L -P, -O3, -D debugopts.
    while let Some(t) = args.get(i).and_then(Word::literal) {
        match t {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            _ if t.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let mut starts = Vec::new();
    while let Some(w) = args.get(i) {
        if w.literal()
            .is_some_and(|t| t.starts_with('-') || matches!(t, "(" | "!" | ")" | ","))
        {
            break;
        }
        starts.push(w.clone());
        i += 1;
    }
    if starts.is_empty() {
        starts.push(Word::made(".".to_owned(), ".", 0..0));
    }
    // A name every match has: one `-name` test and no `-o`.
    let rest = &args[i..];
    let names: Vec<&Word> = rest
        .windows(2)
        .filter(|w| matches!(w[0].literal(), Some("-name" | "-iname")))
        .map(|w| &w[1])
        .collect();
    // `-iname` matches any case: the name as files are usually written, in lower case.
    let any_case = rest.iter().any(|w| w.literal() == Some("-iname"));
    let or = rest
        .iter()
        .any(|w| matches!(w.literal(), Some("-o" | "-or" | ",")));
    let name = match names.as_slice() {
        // `-name '*'` narrows nothing.
        [one] if !or => one.literal().filter(|n| *n != "*").map(|n| {
            if any_case {
                n.to_lowercase()
            } else {
                n.to_owned()
            }
        }),
        _ => None,
    };
    let shallow = rest
        .windows(2)
        .any(|w| w[0].literal() == Some("-maxdepth") && w[1].literal() == Some("0"));
    let mut found = Vec::new();
    for s in &starts {
        for alt in s.alternatives().iter() {
            let mut f = alt.clone();
            if !shallow {
                f.push(Piece::Lit("/".to_owned()));
                f.push(Piece::Found);
                if let Some(n) = &name {
                    f.push(Piece::Lit("/".to_owned()));
                    f.push(Piece::Glob(n.clone()));
                }
            }
            found.push(f);
        }
    }
    Found { starts, found }
}

/// `find … -delete`: deletes what it finds; from `/`, a home or a system directory it is
/// `rm -r` of that tree, whatever the tests. `-fprint FILE` and friends write FILE.
pub fn find<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let mut deletes = false;
    let mut in_exec = false;
    let mut prev = "";
    let mut writes = Vec::new();
    for (i, w) in args.iter().enumerate() {
        let t = w.literal().unwrap_or("");
        if in_exec {
            in_exec = !(t == ";" || (t == "+" && prev == "{}"));
        } else if matches!(t, "-exec" | "-execdir" | "-ok" | "-okdir") {
            in_exec = true;
        } else if t == "-delete" && !FIND_VALUE_TESTS.contains(&prev) {
            deletes = true;
        } else if FIND_WRITES.contains(&t) && !FIND_VALUE_TESTS.contains(&prev) {
            writes.extend(args.get(i + 1).cloned());
        }
        prev = if FIND_VALUE_TESTS.contains(&prev) && !in_exec {
            ""
        } else {
            t
        };
    }
    for w in &writes {
        site.on(Overwrite, w);
    }
    if !deletes {
        return;
    }
    let f = found(args);
    for start in &f.starts {
        let placed = site.placed(start, true);
        if [Kind::Root, Kind::Home, Kind::System]
            .iter()
            .any(|k| placed.has(*k))
        {
            site.tree(Delete, start);
        }
    }
    let paths: Vec<Path> = f.found.iter().map(|alt| site.st.path_of(alt)).collect();
    let shown = super::describe(&f.starts.iter().collect::<Vec<_>>(), "");
    site.on_paths(Delete, paths, true, format!("what it finds under {shown}"));
}

/// `rg PATTERN PATH…` (or `rg --files PATH…`): reads what it searches, whole trees;
/// `--pre COMMAND` runs a program on every file.
pub fn ripgrep<'s>(_: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let lists = site.args.has(&["files", "type-list", "help", "version"]);
    let given = site.args.has(&["e", "f", "regexp", "file"]);
    let skip = usize::from(!given && !lists);
    let ops: Vec<Word> = site
        .args
        .operands
        .iter()
        .skip(skip)
        .map(|w| (*w).clone())
        .collect();
    if !lists {
        for w in &ops {
            site.tree(Read, w);
        }
    }
    let values: Vec<Word> = site
        .args
        .values(&["f", "file", "ignore-file"])
        .cloned()
        .collect();
    for v in &values {
        site.on(Read, v);
    }
    let pre: Vec<Word> = site.args.values(&["pre"]).cloned().collect();
    for p in &pre {
        site.on(Run, p);
    }
}

/// `uniq [IN [OUT]]`, `xxd [IN [OUT]]`: reads IN, overwrites OUT.
pub fn in_out<'s>(_: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let ops: Vec<Word> = site.args.operands.iter().map(|w| (*w).clone()).collect();
    if let Some(input) = ops.first().filter(|w| w.literal() != Some("-")) {
        site.on(Read, input);
    }
    if let Some(output) = ops.get(1).filter(|w| w.literal() != Some("-")) {
        site.on(Overwrite, output);
    }
}

/// `split [INPUT [PREFIX]]`: reads INPUT, writes files named from PREFIX. (Split.io's CLI
/// has the same name: `split splits delete NAME` deletes a feature flag.)
pub fn split<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if super::cloud::service(words, site) {
        return;
    }
    in_out(&[], site);
}

/// `gpg`: reads and writes what it is given; exporting secret keys reads the key ring.
pub fn gpg<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if words.iter().any(|w| {
        w.literal()
            .is_some_and(|t| t.starts_with("--export-secret") || t == "--export-ownertrust")
    }) {
        site.place(Read, Kind::Secret, "GnuPG's secret keys".to_owned());
    }
    spec(
        &Spec {
            values: &[("o", Overwrite), ("output", Overwrite)],
            ..each(Read)
        },
        site,
    );
}

/// `openssl CMD -in FILE -out FILE -inkey KEY`: single-dash options.
/// `tee FILE…` writes what it reads into each file, over it (after it with `-a`): a secret it
/// reads is in them for the rest of the line.
pub fn tee<'s>(_: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let effect = if site.args.has(&["a", "append"]) {
        Write
    } else {
        Overwrite
    };
    let files: Vec<Word> = site
        .args
        .operands
        .iter()
        .filter(|w| w.literal() != Some("-"))
        .map(|w| (*w).clone())
        .collect();
    for f in &files {
        site.on(effect, f);
        if let Some(secret) = site.input {
            site.keeps(f, secret);
        }
    }
}

pub fn openssl<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    // `openssl s_client -connect HOST:PORT` sends what it reads.
    if words.first().and_then(Word::literal) == Some("s_client") {
        super::net::connects(&words[1..], site);
    }
    for (i, w) in words.iter().enumerate() {
        let Some(t) = w.literal() else { continue };
        // OpenSSL 3 takes `-opt value`, `--opt value` and `-opt=value` alike.
        let bare = t.trim_start_matches('-');
        let (opt, value) = match bare.split_once('=') {
            Some((opt, _)) => (opt, Some(w.tail(t.len() - (bare.len() - opt.len() - 1)))),
            None => (bare, words.get(i + 1).cloned()),
        };
        if !t.starts_with('-') {
            continue;
        }
        let Some(value) = value else { break };
        match opt {
            "in" | "inkey" | "key" | "CAkey" | "CAfile" | "cert" | "signkey" | "kfile" | "pass"
            | "passin" | "rand" | "sess_in" | "certfile" | "chain" => {
                let v = value
                    .literal()
                    .and_then(|v| v.strip_prefix("file:"))
                    .map(|_| value.tail(5));
                site.on(Read, v.as_ref().unwrap_or(&value));
            }
            "out" | "keyout" | "writerand" | "sess_out" | "msgfile" | "CAserial" => {
                site.on(Overwrite, &value)
            }
            _ => {}
        }
    }
}

/// `date -s TIME` sets the clock; `date -r FILE` reads a file's time.
pub fn date<'s>(_: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if site.args.has(&["s", "set"]) {
        site.place(Change, Kind::Machine, "the system clock".to_owned());
    }
}

/// `hostname NAME` renames the machine.
pub fn hostname<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if words
        .iter()
        .any(|w| !w.literal().is_some_and(|t| t.starts_with('-')))
    {
        site.place(Change, Kind::Machine, "the machine's name".to_owned());
    }
}

/// Editors write the files they open; scripted (`vim -es -c '%print'`, `ex`, `ed`) they can
/// also print them, so they read them too. `-R` and `view` only read.
pub fn edit<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let scripted = matches!(site.name, "ex" | "ed")
        || words.iter().any(|w| {
            w.literal().is_some_and(|t| {
                t.starts_with('+')
                    || t == "--cmd"
                    || (t.starts_with('-')
                        && !t.starts_with("--")
                        && t.contains(['e', 'E', 's', 'c', 'S']))
            })
        });
    let read_only = site.name == "view" || site.args.has(&["R"]);
    let files: Vec<Word> = site
        .args
        .operands
        .iter()
        .filter(|w| !w.literal().is_some_and(|t| t.starts_with('+') || t == "-"))
        .map(|w| (*w).clone())
        .collect();
    for f in &files {
        if scripted || read_only {
            site.on(Read, f);
        }
        if !read_only {
            site.on(Write, f);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
