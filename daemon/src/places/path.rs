//! A path as far as it can be known before the command runs: its anchor (`/`, the home, or an
//! unknown prefix) and its components, each a name pattern or an unknown stretch.
//!
//! A word becomes a path from its [`Piece`]s: literal text, unquoted glob syntax, and text only
//! known at run time. Unknown text that may hold `/` ([`Piece::Opaque`], `$dir`) stands for
//! any number of unknown components; unknown text that cannot ([`Piece::Name`], `$USER`) stands
//! for part of one name. `.` and `..` are resolved as the kernel would on the text (a symlink
//! may differ; a person who plants one is outside this model).

use super::glob::Glob;

/// Part of a word's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Text as it is.
    Lit(String),
    /// Unquoted glob syntax (`*`, `?`, `[…]`), matched against file names when the line runs.
    Glob(String),
    /// Text only known at run time, possibly holding `/`.
    Opaque,
    /// Text only known at run time that is part of one name (`$USER`).
    Name,
    /// The requester's home, when the context does not say where it is (`~` then).
    Home,
    /// Names a listing finds below a directory, or a program computes below it: unknown
    /// components that stay below it.
    Below,
    /// Every path a walk of a directory finds (`find DIR`'s matches): unknown components that
    /// stay below it, at any depth, hidden ones included. Matched as [`Piece::Below`]; with
    /// nothing after it and the directory known, the directory's whole tree.
    Found,
    /// Text only known at run time that holds secret data (`$GITHUB_TOKEN`, what `env`
    /// prints). As a path it is [`Piece::Opaque`]; what sends it is told apart by the kind.
    Secret(Secret),
}

/// What kind of secret a [`Piece::Secret`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Secret {
    /// A value a sourced file of secrets may have set: a credential, or a setting such as the
    /// address of the service the file configures.
    Sourced,
    /// One credential (a token, a password, a key): it has a normal use, given to the service
    /// it belongs to where that service asks for it.
    Credential,
    /// Many secrets at once (the environment, a file of them): no request needs them all.
    Dump,
}

impl Piece {
    /// The secret this piece holds, if it holds one.
    pub fn secret(&self) -> Option<Secret> {
        match self {
            Piece::Secret(s) => Some(*s),
            _ => None,
        }
    }
}

/// Where a path starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Anchor {
    /// `/`.
    Root,
    /// The requester's home, when the context does not say where it is.
    Home,
    /// A prefix only known at run time: a relative path after a `cd` to somewhere unknown, or
    /// a path that starts with `$dir`.
    Unknown,
}

/// One component.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Comp {
    Name(Glob),
    /// Any number of components only known at run time, none included.
    Opaque,
    /// Any number of components whatever their names: what lies beneath a directory.
    Beneath,
    /// Any number of components a listing found: like `Opaque`, but never leaving the
    /// directory above them.
    Below,
    /// What a walk of the directory above finds (`Piece::Found`): as `Below`.
    Found,
}

/// A path pattern.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Path {
    pub anchor: Anchor,
    pub comps: Vec<Comp>,
}

impl Path {
    /// The path of an absolute literal text (`/etc/hosts`).
    pub fn absolute(text: &str) -> Path {
        let mut p = Path {
            anchor: Anchor::Root,
            comps: Vec::new(),
        };
        p.push_literal_path(text);
        p
    }

    /// Builds the path a word names. `cwd` is where a relative path starts (`None`: unknown).
    pub fn from_pieces(pieces: &[Piece], cwd: Option<&str>) -> Path {
        Path::from_pieces_in(pieces, || {
            cwd.filter(|c| c.starts_with('/')).map(Path::absolute)
        })
    }

    /// [`Path::from_pieces`], with the current directory already taken apart: `cwd` is
    /// asked only for a relative path.
    pub fn from_pieces_in(pieces: &[Piece], cwd: impl FnOnce() -> Option<Path>) -> Path {
        let starts_absolute = match pieces.first() {
            Some(Piece::Lit(t) | Piece::Glob(t)) => t.starts_with('/'),
            _ => false,
        };
        let mut path = if starts_absolute {
            Path {
                anchor: Anchor::Root,
                comps: Vec::new(),
            }
        } else if matches!(pieces.first(), Some(Piece::Home)) {
            Path {
                anchor: Anchor::Home,
                comps: Vec::new(),
            }
        } else if matches!(pieces.first(), Some(Piece::Opaque | Piece::Secret(_))) {
            // `$dir/x`: the prefix is unknown, whether absolute or not.
            Path {
                anchor: Anchor::Unknown,
                comps: Vec::new(),
            }
        } else {
            cwd().unwrap_or(Path {
                anchor: Anchor::Unknown,
                comps: Vec::new(),
            })
        };
        let mut builder = CompBuilder::default();
        for piece in pieces {
            match piece {
                Piece::Lit(text) | Piece::Glob(text) => {
                    let glob = matches!(piece, Piece::Glob(_));
                    let mut parts = text.split('/');
                    if let Some(first) = parts.next() {
                        builder.push(first, glob);
                    }
                    for part in parts {
                        path.push_comp(builder.finish());
                        builder.push(part, glob);
                    }
                }
                Piece::Opaque | Piece::Secret(_) => builder.opaque(Comp::Opaque),
                Piece::Below => builder.opaque(Comp::Below),
                Piece::Found => builder.opaque(Comp::Found),
                // The home, anywhere but at the start, is some absolute path.
                Piece::Home if std::ptr::eq(piece, &pieces[0]) => {}
                Piece::Home => builder.opaque(Comp::Opaque),
                Piece::Name => {
                    builder.name_unknown();
                }
            }
        }
        path.push_comp(builder.finish());
        path
    }

    /// Appends the components of a literal `/`-separated text.
    fn push_literal_path(&mut self, text: &str) {
        for part in text.split('/') {
            self.push_comp(Some(Built::Part(part.to_owned(), false)));
        }
    }

    fn push_comp(&mut self, built: Option<Built>) {
        match built {
            None => {}
            Some(Built::Part(text, glob)) => match text.as_str() {
                "" | "." => {}
                ".." => self.up(),
                _ => self.comps.push(Comp::Name(if glob {
                    Glob::parse(&text)
                } else {
                    Glob::literal(&text)
                })),
            },
            Some(Built::Glob(g)) => self.comps.push(Comp::Name(g)),
            Some(Built::Opaque(tail, comp)) => {
                if self.comps.last() != Some(&comp)
                    && !(self.anchor == Anchor::Unknown && self.comps.is_empty())
                {
                    self.comps.push(comp);
                }
                if let Some(tail) = tail {
                    self.comps.push(Comp::Name(tail));
                }
            }
        }
    }

    /// `..`: the parent, as far as it is known.
    fn up(&mut self) {
        // Below `/proc/PID/cwd`, `..` leaves the working directory, not `/proc/PID`: keep it
        // for [`Path::through_proc`].
        let literal = |i: usize| match self.comps.get(i) {
            Some(Comp::Name(g)) => g.as_literal(),
            _ => None,
        };
        if self.anchor == Anchor::Root
            && literal(0).as_deref() == Some("proc")
            && self.comps.len() >= 3
            && literal(2).as_deref() == Some("cwd")
            && self.comps[3..]
                .iter()
                .all(|c| matches!(c, Comp::Name(g) if g.as_literal().as_deref() == Some("..")))
        {
            self.comps.push(Comp::Name(Glob::literal("..")));
            return;
        }
        match self.comps.last() {
            Some(Comp::Name(_)) => {
                self.comps.pop();
            }
            // The parent of something unknown is unknown; `/..` is `/`.
            Some(Comp::Opaque | Comp::Beneath | Comp::Below | Comp::Found) => {}
            None => match self.anchor {
                Anchor::Root => {}
                Anchor::Home | Anchor::Unknown => self.anchor = Anchor::Unknown,
            },
        }
    }

    /// The path with the kernel's own links followed: `/proc/self/root/x` is `/x`,
    /// `/proc/self/cwd/x` is `x` in the working directory (`cwd`, when known).
    pub fn through_proc(self, cwd: Option<&str>) -> Path {
        // A PID only known at run time (`/proc/$$/root`) is any process.
        let is = |c: Option<&Comp>, name: &str| match c {
            Some(Comp::Name(g)) => g.meets(&Glob::literal(name)),
            _ => false,
        };
        if self.anchor != Anchor::Root || !is(self.comps.first(), "proc") || self.comps.len() < 3 {
            return self;
        }
        let rest = &self.comps[3..];
        if is(self.comps.get(2), "root") {
            return Path {
                anchor: Anchor::Root,
                comps: rest.to_vec(),
            };
        }
        if is(self.comps.get(2), "cwd") {
            let self_process = is(self.comps.get(1), "self");
            let mut base = match cwd.filter(|c| c.starts_with('/') && self_process) {
                Some(c) => Path::absolute(c),
                None => Path {
                    anchor: Anchor::Unknown,
                    comps: Vec::new(),
                },
            };
            for c in rest {
                match c {
                    Comp::Name(g) if g.as_literal().as_deref() == Some("..") => base.up(),
                    c => base.comps.push(c.clone()),
                }
            }
            return base;
        }
        self
    }

    /// The path with one more component: `name` (`.` and `..` resolved).
    pub fn push_literal(&mut self, name: &str) {
        self.push_comp(Some(Built::Part(name.to_owned(), false)));
    }

    /// The path with an unknown name below it.
    pub fn push_unknown(&mut self) {
        self.comps.push(Comp::Below);
    }

    /// The path and everything beneath it.
    pub fn beneath(&self) -> Path {
        let mut p = self.clone();
        p.comps.push(Comp::Beneath);
        p
    }

    /// Every component is a literal name.
    pub fn is_literal(&self) -> bool {
        self.anchor == Anchor::Root
            && self
                .comps
                .iter()
                .all(|c| matches!(c, Comp::Name(g) if g.is_literal()))
    }

    /// The text of a literal absolute path.
    pub fn literal_text(&self) -> Option<String> {
        if self.anchor != Anchor::Root {
            return None;
        }
        let mut out = String::new();
        for c in &self.comps {
            let Comp::Name(g) = c else { return None };
            out.push('/');
            out.push_str(&g.as_literal()?);
        }
        if out.is_empty() {
            out.push('/');
        }
        Some(out)
    }

    /// The literal components from the root up to the first that is not (`/p/build` of
    /// `/p/build/*.o`): the directory a change to this path stays within. `None` when the
    /// path does not start from a known directory.
    pub fn literal_prefix(&self) -> Option<String> {
        if self.anchor != Anchor::Root {
            return None;
        }
        let mut out = String::new();
        for c in &self.comps {
            let Comp::Name(g) = c else { break };
            let Some(name) = g.as_literal() else { break };
            out.push('/');
            out.push_str(&name);
        }
        if out.is_empty() {
            out.push('/');
        }
        Some(out)
    }

    /// The path as a pattern in glob syntax: `/home/u/.ssh/id_*`, `~/x`, a part only known
    /// at run time as `*` (any run of components as `**`), an unknown start as `**/`.
    pub fn pattern_text(&self) -> String {
        let mut out = match self.anchor {
            Anchor::Root => String::new(),
            Anchor::Home => "~".to_owned(),
            Anchor::Unknown => "**".to_owned(),
        };
        for c in &self.comps {
            out.push('/');
            match c {
                Comp::Name(g) => out.push_str(&g.text()),
                Comp::Opaque => out.push('*'),
                Comp::Beneath | Comp::Below | Comp::Found => out.push_str("**"),
            }
        }
        if out.is_empty() {
            out.push('/');
        }
        out
    }

    /// The directory whose every entry a trailing wildcard-only component names (`~/*`,
    /// `/usr/[a-z]*`): deleting those is deleting what the directory holds.
    /// The directory whose tree this path stands for, when it is what a walk found below a
    /// known directory with nothing after it (`find DIR`'s matches, unnamed): `DIR`.
    pub fn found_tree(&self) -> Option<Path> {
        let (last, dir) = self.comps.split_last()?;
        let known = dir
            .iter()
            .all(|c| matches!(c, Comp::Name(g) if g.is_literal()));
        (matches!(last, Comp::Found) && known && self.anchor != Anchor::Unknown).then(|| Path {
            anchor: self.anchor,
            comps: dir.to_vec(),
        })
    }

    /// The path any file of one name a walk found below a known directory could be (`find
    /// DIR -name N`'s matches): `DIR/**/N`, with `DIR`'s text and whether `N` is a literal name.
    pub fn found_named(&self) -> Option<(Path, Option<String>, bool)> {
        let [dir @ .., Comp::Found, Comp::Name(name)] = self.comps.as_slice() else {
            return None;
        };
        let known = dir
            .iter()
            .all(|c| matches!(c, Comp::Name(g) if g.is_literal()));
        if !known || self.anchor == Anchor::Unknown {
            return None;
        }
        let start = Path {
            anchor: self.anchor,
            comps: dir.to_vec(),
        };
        let mut comps = dir.to_vec();
        comps.push(Comp::Beneath);
        comps.push(Comp::Name(name.clone()));
        let wide = Path {
            anchor: self.anchor,
            comps,
        };
        Some((wide, start.literal_text(), name.is_literal()))
    }

    pub fn everything_in(&self) -> Option<Path> {
        match self.comps.last() {
            Some(Comp::Name(g)) if g.is_everything() => {
                let mut dir = self.clone();
                dir.comps.pop();
                Some(dir)
            }
            _ => None,
        }
    }
}

/// `text` when it is an absolute path of one file the daemon may read or look up: never below
/// `/proc`, `/sys` or `/dev`, which are not read.
pub fn disk_file(text: String) -> Option<String> {
    let hidden = ["/proc", "/sys", "/dev"]
        .iter()
        .any(|p| text == *p || text.starts_with(&format!("{p}/")));
    (text.starts_with('/') && !hidden).then_some(text)
}

/// A finished component.
enum Built {
    /// Text of one component; `true` when it holds glob syntax.
    Part(String, bool),
    Glob(Glob),
    /// Unknown components, the last ending in this pattern when known, as this component
    /// (`Opaque`, or `Below`/`Found` when a listing found them: they stay below).
    Opaque(Option<Glob>, Comp),
}

/// Collects the pieces of one component.
#[derive(Default)]
struct CompBuilder {
    /// The component so far, when it holds glob syntax or unknown parts.
    glob: Option<Glob>,
    /// The component so far, while it is literal.
    text: String,
    /// The component starts with unknown text that may hold `/`: what follows is the end of
    /// the last of some unknown components.
    opaque_lead: bool,
    /// What that unknown text is (`Comp::Opaque` unless a listing found it).
    lead: Option<Comp>,
    started: bool,
}

impl CompBuilder {
    fn pattern(&mut self) -> &mut Glob {
        let text = &self.text;
        self.glob.get_or_insert_with(|| Glob::literal(text))
    }

    fn push(&mut self, text: &str, glob: bool) {
        if text.is_empty() {
            return;
        }
        self.started = true;
        if glob {
            self.pattern().push_glob(text);
        } else if let Some(g) = &mut self.glob {
            g.push_literal(text);
        } else {
            self.text.push_str(text);
        }
    }

    fn name_unknown(&mut self) {
        self.started = true;
        self.pattern().push_glob("*");
    }

    /// Unknown text that may hold `/`. At the start of a component it may stand for whole
    /// components; after a literal start (`/etc/sha$x`) it is read as the rest of that name.
    fn opaque(&mut self, lead: Comp) {
        if self.started {
            self.name_unknown();
        } else {
            self.started = true;
            self.opaque_lead = true;
            self.lead = Some(lead);
        }
    }

    fn finish(&mut self) -> Option<Built> {
        let done = std::mem::take(self);
        if done.opaque_lead {
            let tail = done
                .glob
                .or_else(|| (!done.text.is_empty()).then(|| Glob::literal(&done.text)))
                .map(|g| {
                    let mut t = Glob::parse("*");
                    t.append(&g);
                    t
                })
                .filter(|t| !t.is_wildcard_only());
            return Some(Built::Opaque(tail, done.lead.unwrap_or(Comp::Opaque)));
        }
        if !done.started {
            // An empty component: `a//b`, or the root's.
            return Some(Built::Part(String::new(), false));
        }
        match done.glob {
            // A part of a pattern with no wildcard in it is a name like any other: `.` and
            // `..` in `/tmp/x/../../etc/sha*` move as they do in a literal path.
            Some(g) => match g.as_literal() {
                Some(text) => Some(Built::Part(text, false)),
                None => Some(Built::Glob(g)),
            },
            None => Some(Built::Part(done.text, false)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(t: &str) -> Piece {
        Piece::Lit(t.to_owned())
    }

    fn show(p: &Path) -> String {
        let mut out = match p.anchor {
            Anchor::Root => String::new(),
            Anchor::Home => "~".to_owned(),
            Anchor::Unknown => "?".to_owned(),
        };
        for c in &p.comps {
            out.push('/');
            match c {
                Comp::Name(g) => match g.as_literal() {
                    Some(t) => out.push_str(&t),
                    None => out.push_str("<glob>"),
                },
                Comp::Opaque => out.push_str("<opaque>"),
                Comp::Below => out.push_str("<below>"),
                Comp::Found => out.push_str("<found>"),
                Comp::Beneath => out.push_str("**"),
            }
        }
        out
    }

    #[test]
    fn paths_from_pieces() {
        let cwd = Some("/home/u/proj");
        let cases: Vec<(Vec<Piece>, &str)> = vec![
            (vec![lit("/etc/../etc/./shadow")], "/etc/shadow"),
            (vec![lit("src//main.rs")], "/home/u/proj/src/main.rs"),
            (vec![lit("../../.ssh/id_rsa")], "/home/.ssh/id_rsa"),
            (vec![lit("/..")], ""),
            (vec![Piece::Opaque, lit("/.ssh/id_rsa")], "?/.ssh/id_rsa"),
            (vec![lit("/home/"), Piece::Opaque], "/home/<opaque>"),
            (
                vec![lit("/home/"), Piece::Name, lit("/.ssh")],
                "/home/<glob>/.ssh",
            ),
            (vec![lit("/x/"), Piece::Opaque, lit("/..")], "/x/<opaque>"),
            (vec![Piece::Glob("*".into())], "/home/u/proj/<glob>"),
            (vec![Piece::Opaque, lit(".pem")], "?/<glob>"),
        ];
        for (pieces, want) in cases {
            let p = Path::from_pieces(&pieces, cwd);
            assert_eq!(show(&p), want, "{pieces:?}");
        }
        assert_eq!(
            show(&Path::from_pieces(&[lit("x")], None)),
            "?/x",
            "a relative path in an unknown directory"
        );
    }
}
