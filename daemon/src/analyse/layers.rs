//! The analyser's layers and the direction of their imports, checked on the source.
//!
//! Each module of `analyse/` sits in one layer; a module imports its own layer or the ones
//! below it, never one above (ARCHITECTURE.md, "The analyser's layers"):
//!
//! - **reading** (top): the driver in `mod.rs`, the walk, the dispatcher `command`, splitting,
//!   what statements change (`scope`), what commands print (`flow`), the files a line runs
//!   (`disk`), loops that exhaust the machine (`exhaust`);
//! - **book**: what each program's arguments are and what they do (`index`, `programs/*`,
//!   `interp/*`, the policy's `book`), and `recurse`, the interface through which a program
//!   hands back what it runs for the reading layer to read;
//! - **judging**: acts, effects and their levels, the findings' sentences, secrets, the
//!   `State` and what it exchanges with the daemon (`disk/snapshot`);
//! - **values** (bottom): the text and its spans (`source`), the grammar's names, words and
//!   arguments as a program reads them (`words`, `getopt`), the analysis's bounds (`limits`).
//!
//! A module may sit below its parent (`disk/snapshot` below `disk`): the layer is the
//! module's, the directory only groups a subject. Where a lower layer needs what a higher
//! one knows, the higher hands it down (`recurse`; `words::Env::printed`, what `$(…)` prints).
//!
//! The test reads every non-test file under `analyse/`, takes each `use` (groups expanded)
//! and each path through `super::`, `self::`, `crate::analyse::` or a child module, resolves
//! it to the module it names, and fails on an edge upward that [`ALLOWED`] does not list,
//! on a listed edge that no longer exists (so the list only shrinks), and on any edge from
//! the book to the walk or the dispatcher, which no entry may allow.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, bottom first: a module may import its own layer or one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Layer {
    Values,
    Judging,
    Book,
    Reading,
}

/// Each module's layer, by its path under `analyse/` (`""` is `mod.rs`); a module not named
/// has the layer of the nearest parent named.
const LAYERS: &[(&str, Layer)] = &[
    ("", Layer::Reading),
    ("walk", Layer::Reading),
    ("command", Layer::Reading),
    ("split", Layer::Reading),
    ("scope", Layer::Reading),
    ("flow", Layer::Reading),
    ("disk", Layer::Reading),
    ("disk/snapshot", Layer::Judging),
    ("exhaust", Layer::Reading),
    ("index", Layer::Book),
    ("programs", Layer::Book),
    ("interp", Layer::Book),
    ("book", Layer::Book),
    ("recurse", Layer::Book),
    ("state", Layer::Judging),
    ("act", Layer::Judging),
    ("effects", Layer::Judging),
    ("catalogue", Layer::Judging),
    ("secrets", Layer::Judging),
    ("source", Layer::Values),
    ("grammar", Layer::Values),
    ("words", Layer::Values),
    ("getopt", Layer::Values),
    ("limits", Layer::Values),
];

/// Modules of the reading layer the book may never import, whatever [`ALLOWED`] says: a
/// program that runs something hands it to `recurse`.
const WALK: &[&str] = &["walk", "command"];

/// Upward edges still there, each with why; the list only shrinks. Empty: every import
/// goes down.
const ALLOWED: &[(&str, &str, &str)] = &[];

/// A module's path under `analyse/`, from its file's.
fn module_of(rel: &Path) -> String {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.last_mut() {
        *last = last.trim_end_matches(".rs").to_owned();
    }
    if parts.last().is_some_and(|l| l == "mod") {
        parts.pop();
    }
    parts.join("/")
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("analyse/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source without comments, string and character literals (their insides could look
/// like paths).
fn strip(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &src[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |e| e + 2);
        } else if let Some(len) = raw_string(rest, i == 0 || is_ident(b[i - 1])) {
            out.push_str("\"\"");
            i += len;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i = j + 1;
        } else if b[i] == b'\'' {
            // A character literal ('x', '\n', '\u{..}'); a lifetime has no closing quote.
            let len = match rest.get(1..).and_then(|r| r.char_indices().nth(1)) {
                Some((n, '\'')) if !rest[1..].starts_with('\\') => Some(n + 2),
                _ if rest[1..].starts_with('\\') => rest[2..].find('\'').map(|e| e + 3),
                _ => None,
            };
            match len {
                Some(len) => {
                    out.push_str("' '");
                    i += len;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            let c = rest.chars().next().expect("not at the end");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The length of a raw string literal at the start of `rest` (`r"…"`, `r#"…"#`).
fn raw_string(rest: &str, starts_token: bool) -> Option<usize> {
    let body = rest.strip_prefix('r').filter(|_| starts_token)?;
    let hashes = body.len() - body.trim_start_matches('#').len();
    let open = body[hashes..].strip_prefix('"')?;
    let close = format!("\"{}", "#".repeat(hashes));
    let end = open.find(&close)?;
    Some(1 + hashes + 1 + end + close.len())
}

/// The source without the items under `#[cfg(test)]`.
fn without_tests(src: &str) -> String {
    const MARK: &str = "#[cfg(test)]";
    let mut out = String::new();
    let mut rest = src;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        let item = &rest[at + MARK.len()..];
        let mut depth = 0usize;
        let mut end = item.len();
        for (i, c) in item.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// The child modules declared `#[cfg(test)] mod NAME;`.
fn test_children(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in src.match_indices("#[cfg(test)]") {
        let after = src[at + "#[cfg(test)]".len()..].trim_start();
        let after = ["pub(crate) ", "pub(super) ", "pub "]
            .iter()
            .find_map(|p| after.strip_prefix(p))
            .unwrap_or(after);
        if let Some(decl) = after.strip_prefix("mod ")
            && let Some(name) = decl.split(';').next()
            && name.trim().bytes().all(is_ident)
        {
            out.push(name.trim().to_owned());
        }
    }
    out
}

/// The paths a `use` tree names, groups expanded (`a::{b, c::{d}}` is `a::b`, `a::c::d`).
fn expand(tree: &str) -> Vec<String> {
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or(&tree);
        return vec![path.replace(' ', "")];
    };
    let prefix = tree[..open].replace(' ', "");
    let inner = tree[open + 1..]
        .strip_suffix('}')
        .unwrap_or(&tree[open + 1..]);
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(expand)
        .map(|p| format!("{prefix}{p}"))
        .collect()
}

/// Every path in `code` (tests removed) that starts at `super`, `self`, `crate` or one of
/// `children`.
fn paths(code: &str, children: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = String::new();
    let mut s = code;
    // `use` items first, their groups expanded; the rest of the text is searched for paths.
    while let Some(at) = find_word(s, "use") {
        rest.push_str(&s[..at]);
        let item = &s[at + 3..];
        let end = item.find(';').unwrap_or(item.len());
        out.extend(expand(&item[..end]));
        s = item.get(end + 1..).unwrap_or("");
    }
    rest.push_str(s);
    let b = rest.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if is_ident(b[i]) && (i == 0 || !(is_ident(b[i - 1]) || b[i - 1] == b':')) {
            let mut j = i;
            while j < b.len() && (is_ident(b[j]) || b[j] == b':') {
                j += 1;
            }
            let path = &rest[i..j];
            let head = path.split("::").next().unwrap_or("");
            if path.contains("::")
                && (matches!(head, "super" | "self" | "crate") || children.contains(head))
            {
                out.push(path.to_owned());
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Where `word` starts as a whole word in `s`.
fn find_word(s: &str, word: &str) -> Option<usize> {
    let b = s.as_bytes();
    s.match_indices(word).map(|(i, _)| i).find(|&i| {
        (i == 0 || !is_ident(b[i - 1]))
            && b.get(i + word.len())
                .is_some_and(|c| c.is_ascii_whitespace())
    })
}

/// The names each module re-exports (`pub(crate) use state::{State, Shell}` in `mod.rs`),
/// and the module each comes from: a path through a re-export names where the item lives.
type Reexports = BTreeMap<(String, String), String>;

fn reexports(sources: &BTreeMap<String, String>, modules: &BTreeSet<String>) -> Reexports {
    let mut out = Reexports::new();
    for (module, src) in sources {
        let code = without_tests(src);
        let mut s = code.as_str();
        while let Some(at) = find_word(s, "use") {
            let before = s[..at].trim_end();
            let item = &s[at + 3..];
            let end = item.find(';').unwrap_or(item.len());
            if before.ends_with("pub") || before.ends_with("pub(crate)") {
                for path in expand(&item[..end]) {
                    let name = path.rsplit("::").next().unwrap_or("").to_owned();
                    let bare = Reexports::new();
                    if let Some(to) = resolve(module, &path, modules, &bare)
                        && &to != module
                        && !modules.contains(&join(&to, &name))
                    {
                        out.insert((module.clone(), name), to);
                    }
                }
            }
            s = item.get(end + 1..).unwrap_or("");
        }
    }
    out
}

fn join(module: &str, child: &str) -> String {
    if module.is_empty() {
        child.to_owned()
    } else {
        format!("{module}/{child}")
    }
}

/// The module `path`, written in `module`, names: the longest module it starts with, or the
/// module an item it names is re-exported from.
fn resolve(
    module: &str,
    path: &str,
    modules: &BTreeSet<String>,
    reexported: &Reexports,
) -> Option<String> {
    let mut segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let mut cur: Vec<&str> = module.split('/').filter(|s| !s.is_empty()).collect();
    match segs.first().copied() {
        Some("crate") => {
            if segs.get(1) != Some(&"analyse") {
                return None;
            }
            cur.clear();
            segs.drain(..2);
        }
        Some("super" | "self") => {
            while let Some(s) = segs
                .first()
                .copied()
                .filter(|s| *s == "super" || *s == "self")
            {
                if s == "super" {
                    cur.pop()?;
                }
                segs.remove(0);
            }
        }
        _ => {}
    }
    for s in segs {
        let mut next = cur.clone();
        next.push(s);
        if !modules.contains(&next.join("/")) {
            if let Some(to) = reexported.get(&(cur.join("/"), s.to_owned())) {
                return Some(to.clone());
            }
            break;
        }
        cur = next;
    }
    Some(cur.join("/"))
}

fn layer(module: &str) -> Layer {
    let mut best: Option<(&str, Layer)> = None;
    for &(name, l) in LAYERS {
        let under = name.is_empty() || module == name || module.starts_with(&format!("{name}/"));
        if under && best.is_none_or(|(b, _)| name.len() > b.len()) {
            best = Some((name, l));
        }
    }
    best.map_or(Layer::Reading, |(_, l)| l)
}

/// Every edge between two modules of `analyse/` in non-test code, with the paths behind it.
fn edges() -> BTreeMap<(String, String), BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/analyse");
    let mut all = Vec::new();
    files(&root, &mut all);
    let mut sources = BTreeMap::new();
    for file in &all {
        let rel = file.strip_prefix(&root).expect("under analyse/");
        let text = std::fs::read_to_string(file).expect("a source file is UTF-8");
        sources.insert(module_of(rel), strip(&text));
    }
    let modules: BTreeSet<String> = sources.keys().cloned().collect();
    let mut tests = BTreeSet::new();
    for (module, src) in &sources {
        for child in test_children(src) {
            let joined = if module.is_empty() {
                child
            } else {
                format!("{module}/{child}")
            };
            tests.insert(joined);
        }
    }
    let reexported = reexports(&sources, &modules);
    let mut out: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for (module, src) in &sources {
        if tests
            .iter()
            .any(|t| module == t || module.starts_with(&format!("{t}/")))
        {
            continue;
        }
        let prefix = if module.is_empty() {
            String::new()
        } else {
            format!("{module}/")
        };
        let children: BTreeSet<String> = modules
            .iter()
            .filter_map(|m| m.strip_prefix(&prefix))
            .filter(|m| !m.is_empty() && !m.contains('/'))
            .map(str::to_owned)
            .collect();
        for path in paths(&without_tests(src), &children) {
            if let Some(to) = resolve(module, &path, &modules, &reexported)
                && &to != module
            {
                out.entry((module.clone(), to)).or_default().insert(path);
            }
        }
    }
    out
}

fn shown(module: &str) -> &str {
    if module.is_empty() { "mod" } else { module }
}

#[test]
fn imports_go_down_the_layers() {
    let edges = edges();
    let listed = |from: &str, to: &str| ALLOWED.iter().any(|(f, t, _)| *f == from && *t == to);
    let mut wrong = Vec::new();
    let mut upward = BTreeSet::new();
    for ((from, to), via) in &edges {
        let (from, to) = (shown(from), shown(to));
        let to_walk = WALK
            .iter()
            .any(|w| to == *w || to.starts_with(&format!("{w}/")));
        if layer(from) == Layer::Book && to_walk {
            wrong.push(format!(
                "{from} -> {to} (the book imports the walk): {via:?}"
            ));
        } else if layer(to) > layer(from) {
            upward.insert((from.to_owned(), to.to_owned()));
            if !listed(from, to) {
                wrong.push(format!(
                    "{from} ({:?}) -> {to} ({:?}), upward: {via:?}",
                    layer(from),
                    layer(to)
                ));
            }
        }
    }
    for (from, to, _) in ALLOWED {
        if !upward.contains(&((*from).to_owned(), (*to).to_owned())) {
            wrong.push(format!(
                "{from} -> {to} is listed as allowed but is gone: remove it"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `cargo test -p assentd --lib layers::map -- --ignored --nocapture` prints every edge.
#[test]
#[ignore = "prints the map; run by hand"]
fn map() {
    for ((from, to), via) in edges() {
        let (from, to) = (shown(&from), shown(&to));
        let up = if layer(to) > layer(from) { " UP" } else { "" };
        println!(
            "{from} ({:?}) -> {to} ({:?}){up}  {via:?}",
            layer(from),
            layer(to)
        );
    }
}

#[test]
fn the_reader_finds_paths() {
    let src = strip(
        "use super::super::{a, b::{c, d as e}};\n// super::x\nlet s = \"super::y\";\n\
         fn f() { super::z::g(); let c = 'x'; }\n",
    );
    let got = paths(&src, &BTreeSet::new());
    assert_eq!(
        got,
        [
            "super::super::a",
            "super::super::b::c",
            "super::super::b::d",
            "super::z::g"
        ]
    );
    assert_eq!(without_tests("a;\n#[cfg(test)]\nmod t { b }\nc"), "a;\n\nc");
}
