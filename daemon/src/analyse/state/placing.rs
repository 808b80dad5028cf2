//! Where the words of a line lead: the places of paths as the state knows them (the request's
//! project and home, the shell's directory, links the daemon read, a container's mounts),
//! remembered per line because a long line names the same paths often.

use std::rc::Rc;

use crate::analyse::words::Word;
use crate::places::{self, Kind, Path, Piece, Placed};

use super::{Container, MAX_PATTERNS, MAX_SOURCES, State, WordPlaces};

impl State<'_, '_> {
    /// The paths a word could name, relative paths from the shell's current directory.
    pub fn paths(&self, w: &Word) -> Vec<Path> {
        w.alternatives()
            .iter()
            .map(|alt| self.path_of(alt))
            .collect()
    }

    pub fn path_of(&self, pieces: &[Piece]) -> Path {
        let cwd = self.shell.cwd.as_deref();
        Path::from_pieces_in(pieces, || self.cwd_path()).through_proc(cwd)
    }

    /// The current directory as a path, taken apart once per directory.
    pub(crate) fn cwd_path(&self) -> Option<Path> {
        let cwd = self.shell.cwd.as_ref().filter(|c| c.starts_with('/'))?;
        let mut cached = self.cwd_path.borrow_mut();
        match &*cached {
            Some((text, path)) if Rc::ptr_eq(text, cwd) || **text == **cwd => Some(path.clone()),
            _ => {
                let path = Path::absolute(cwd);
                *cached = Some((Rc::clone(cwd), path.clone()));
                Some(path)
            }
        }
    }

    /// A path on another machine (`host:path`): its home is not this one's.
    pub fn remote_path_of(&self, pieces: &[Piece]) -> Path {
        Path::from_pieces(pieces, None)
    }

    /// Every place a word could name. `copies`: what copies made on the line put there counts
    /// too (for an effect on the contents, not on the file).
    pub fn places(&self, w: &Word, tree: bool, copies: bool) -> Placed {
        // A literal word's places depend only on the directory, while nothing on the line
        // has carried a place elsewhere.
        let literal =
            w.value.is_none() && self.shell.carried.is_empty() && self.shell.container.is_none();
        if literal {
            let key = (tree, self.follow_links.get());
            let here =
                |(cwd, t, _): &WordPlaces| *t == key && cwd.as_deref() == self.shell.cwd.as_deref();
            if let Some(found) = self.placed_words.borrow().get(w.text.as_str())
                && let Some((_, _, p)) = found.iter().find(|e| here(e))
            {
                return p.clone();
            }
            let placed = self.places_of(&self.path_of(&[Piece::Lit(w.text.clone())]), tree, copies);
            self.placed_words
                .borrow_mut()
                .entry(w.text.clone())
                .or_default()
                .push((self.shell.cwd.clone(), key, placed.clone()));
            return placed;
        }
        let mut placed = Placed::default();
        for path in self.paths(w) {
            placed.union(&self.places_of(&path, tree, copies));
        }
        // `..` after a link made on this line climbs out of where the link leads, not out
        // of where the link is: `ln -s ~ /tmp/l; rm -rf /tmp/l/..` deletes `/home`.
        if w.text.contains("..") {
            for path in self.through_links(&w.text) {
                placed.union(&self.places_of(&path, tree, copies));
            }
        }
        placed
    }

    /// `text` read again where a `..` follows a link made on the line: the link's target,
    /// then the rest of the text.
    pub(crate) fn through_links(&self, text: &str) -> Vec<Path> {
        let mut out = Vec::new();
        let mut at = 0;
        while let Some(i) = text[at..].find("/..").map(|i| at + i) {
            at = i + 3;
            let after_ok = text.as_bytes().get(at).is_none_or(|&b| b == b'/');
            if !after_ok {
                continue;
            }
            let link = self.path_of(&[Piece::Lit(text[..i].to_owned())]);
            for target in self.shell.carried.links(&link) {
                let mut joined = target.literal_text().unwrap_or_default();
                joined.push_str(&text[i..]);
                if target.is_literal() {
                    out.push(self.path_of(&[Piece::Lit(joined)]));
                } else {
                    out.push(Path::from_pieces(&[Piece::Opaque], None));
                }
                if out.len() >= MAX_SOURCES {
                    return out;
                }
            }
        }
        out
    }

    /// Where a path is, and where what a move or copy on the line carried to it came from.
    pub fn places_of(&self, path: &Path, tree: bool, copies: bool) -> Placed {
        let mut placed = self.classify(path, tree);
        if self.shell.carried.is_empty() {
            return placed;
        }
        if self.shell.carried.overflowed() {
            placed.add(
                Kind::Unknown,
                "what many moves and copies on the line put there",
            );
        }
        // A destination may hold what another destination held: follow a few hops, each
        // source once, and at most `MAX_SOURCES` of them.
        let mut seen: Vec<Path> = vec![path.clone()];
        let mut todo: Vec<Path> = vec![path.clone()];
        for _ in 0..4 {
            let mut next = Vec::new();
            for p in &todo {
                for source in self.shell.carried.sources(p, copies) {
                    if seen.len() >= MAX_SOURCES {
                        // More than can be followed: what the path holds is not known.
                        placed.add(Kind::Unknown, "what moves and copies on the line put there");
                        return placed;
                    }
                    if seen.contains(&source) {
                        continue;
                    }
                    placed.union(&self.classify(&source, tree));
                    seen.push(source.clone());
                    next.push(source);
                }
            }
            if next.is_empty() {
                break;
            }
            todo = next;
        }
        placed
    }

    /// Where a path is: the host's place, or for a command in a container the container's
    /// own files, save for what is mounted from the host.
    pub(crate) fn classify(&self, path: &Path, tree: bool) -> Placed {
        match self.shell.container.clone() {
            Some(c) => self.inside(&c, path, tree),
            None => self.classify_host(path, tree),
        }
    }

    /// A path in a container. Below a mount it is the host's path below the mount's source;
    /// a tree above a mount reaches into it. Elsewhere it is the container's own file:
    /// deleting `/` there deletes the container's data, not the host's root, so host places
    /// become the containers' place, except those that cost the same wherever they are (a
    /// secret is read all the same, temporary files are temporary, a device is the host's).
    pub(crate) fn inside(&self, c: &Container, path: &Path, tree: bool) -> Placed {
        let mut placed = Placed::default();
        for (target, sources) in &c.mounts {
            if let Some(rest) = Container::below(path, target) {
                for source in sources {
                    let mut host = source.clone();
                    host.comps.extend(rest.iter().cloned());
                    placed.union(&self.classify_host(&host, tree));
                }
                return placed;
            }
        }
        if tree {
            for (target, sources) in &c.mounts {
                if Container::reaches(path, target) {
                    for source in sources {
                        placed.union(&self.classify_host(source, true));
                    }
                }
            }
        }
        let own = self.classify_host(path, tree);
        for kind in own.kinds() {
            match kind {
                Kind::Secret
                | Kind::Device
                | Kind::Temp
                | Kind::Build
                | Kind::Null
                | Kind::Unknown
                | Kind::Remote
                | Kind::Database
                | Kind::Containers => placed.add(kind, own.why(kind)),
                _ => placed.add(Kind::Containers, "a file in the container"),
            }
        }
        placed
    }

    /// [`places::classify`], remembered for the line, within the budget for patterns; for an
    /// effect that changes or sends what is there, where the path's links lead too.
    pub(crate) fn classify_host(&self, path: &Path, tree: bool) -> Placed {
        let mut placed = self.classify_named(path, tree);
        // A path is where its symbolic links lead too: `rm -rf build/` where `build` is a
        // link to the home deletes the home. A read too, where the path's end names a home's
        // secret (`cat r/.aws/credentials`, `r` a link to the home made in an earlier call).
        let follow = self.follow_links.get() || self.secret_below_a_link(path, &placed);
        if follow && let Some(text) = path.literal_text() {
            let kinds: Vec<Kind> = placed.kinds().collect();
            if let Some(target) = self.link_target(&text, &kinds) {
                placed.union(&self.classify_named(&Path::absolute(&target), tree));
            }
        }
        placed
    }

    /// Whether `path` (in the project, build output or temp, where a link could be) ends in
    /// what a home's secret place is called below the home (`x/.aws/credentials`,
    /// `x/y/.ssh/id_rsa`): where a directory on the way is a link to a home, it reads that
    /// secret. Only such paths are looked up through links when they are only read: every read
    /// of the project's files would cost a round on the disk.
    fn secret_below_a_link(&self, path: &Path, placed: &Placed) -> bool {
        if placed.has(Kind::Secret)
            || !placed
                .kinds()
                .any(|k| matches!(k, Kind::Project | Kind::Build | Kind::Temp))
        {
            return false;
        }
        let Some(home) = self.ctx.home.filter(|h| h.starts_with('/')) else {
            return false;
        };
        // The last few components only, each a literal name: a cost that does not grow with
        // the path.
        let n = path.comps.len();
        let Some(last) = path.comps[n.saturating_sub(4)..]
            .iter()
            .map(|c| match c {
                places::Comp::Name(g) => g.as_literal(),
                _ => None,
            })
            .collect::<Option<Vec<String>>>()
        else {
            return false;
        };
        // A tail with at least one directory before it, on the path, that could be a link.
        (0..last.len())
            .filter(|&k| n - last.len() + k >= 1)
            .any(|k| {
                let tail = last[k..].join("/");
                if let Some(&secret) = self.secret_tails.borrow().get(&tail) {
                    return secret;
                }
                let secret =
                    places::classify_text(&format!("~/{tail}"), false, &self.where_, Some(home))
                        .has(Kind::Secret);
                let mut tails = self.secret_tails.borrow_mut();
                if tails.len() < 1024 {
                    tails.insert(tail, secret);
                }
                secret
            })
    }

    /// [`places::classify`] of the path as named, remembered for the line.
    pub(crate) fn classify_named(&self, path: &Path, tree: bool) -> Placed {
        let key = (path.clone(), tree);
        if let Some(p) = self.placed.borrow().get(&key) {
            return p.clone();
        }
        if !path.is_literal() {
            let n = self.patterns.get() + 1;
            self.patterns.set(n);
            if n > MAX_PATTERNS {
                return Placed::one(Kind::Unknown, "");
            }
        }
        let placed = places::classify(path, tree, &self.where_);
        self.placed.borrow_mut().insert(key, placed.clone());
        placed
    }
}
