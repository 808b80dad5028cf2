//! Properties of the places vocabulary: [`classify`] answers any pieces; a glob that could
//! name a secret file is a secret; [`Glob::meets`] never misses a name both sides match and
//! [`Glob::within`] never claims one it does not hold; a literal path is placed alike however
//! `.`, `..` and `//` spell it. Only paths are built here; nothing is run or read.

use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, TestRunner};

use super::vocabulary::{At, ENTRIES, Says};
use super::*;

const HOME: &str = "/home/u";
const CWD: &str = "/home/u/proj";

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

fn lit(t: &str) -> Piece {
    Piece::Lit(t.to_owned())
}

// ---- Any pieces ----

fn piece() -> impl Strategy<Value = Piece> {
    let text = prop_oneof![
        select(
            &[
                "/", "//", ".", "..", "/..", "./", "../", "~", "home", "u", ".ssh", "id_rsa",
                "etc", "shadow", "proc", "self", "cwd", "root", "tmp", "target", ".env", "x.pem",
                "日本", "a b", "",
            ][..]
        )
        .prop_map(str::to_owned),
        "[/.a-z~é*?\\[\\]!\\\\-]{0,8}",
    ];
    let glob = select(
        &[
            "*",
            "?",
            "**",
            "[a-z]",
            "[!.]",
            "[",
            "]",
            "[]",
            "[!]",
            "[]]",
            "\\",
            "\\*",
            "[[:alpha:]]",
            "[[:x",
            "[z-a]",
            "*.pem",
            ".*",
            "id_*",
            "[\\]",
            "[^a]",
            "a/b*",
            "*/",
        ][..],
    );
    prop_oneof![
        4 => text.prop_map(Piece::Lit),
        2 => glob.prop_map(|g| Piece::Glob(g.to_owned())),
        1 => Just(Piece::Opaque),
        1 => Just(Piece::Name),
        1 => Just(Piece::Home),
        1 => Just(Piece::Below),
    ]
}

fn place() -> impl Strategy<Value = Option<&'static str>> {
    proptest::option::of(select(
        &[
            "/home/u/proj",
            "/home/u",
            "/",
            "/etc",
            "/tmp/x",
            "/proc/self/cwd",
            "relative",
            "",
            "/home/u/proj/",
            "//home//u/./proj/..",
        ][..],
    ))
}

/// Any pieces, from any directory, for any home: a place comes back, and a literal path's
/// text reads back as the same path.
#[test]
fn any_pieces_are_placed() {
    let strategy = (
        prop::collection::vec(piece(), 0..8),
        place(),
        place(),
        any::<bool>(),
    );
    runner(1000)
        .run(&strategy, |(pieces, cwd, home, tree)| {
            let w = Where::new(cwd, home);
            let path = Path::from_pieces(&pieces, cwd);
            prop_assert!(
                !classify(&path, tree, &w).is_empty(),
                "every path is somewhere: {pieces:?}"
            );
            if let Some(text) = path.literal_text() {
                prop_assert!(path.is_literal());
                prop_assert_eq!(&Path::absolute(&text), &path, "{:?}", pieces);
            }
            let through = path.clone().through_proc(cwd);
            let _ = classify(&through, tree, &w);
            let _ = classify(&path.beneath(), tree, &w);
            if let Some(dir) = path.everything_in() {
                let _ = classify(&dir, true, &w);
            }
            Ok(())
        })
        .expect("any pieces are placed");
}

// ---- Secrets, spelled as globs ----

/// A concrete path, each character marked with whether it is literal text of the
/// vocabulary's pattern (not what a wildcard or `**` was filled with).
type Marked = Vec<(char, bool)>;

/// A path the vocabulary `pattern` names: the home one of the usual ones, `**/` a directory
/// in or out of the project, wildcards filled with nothing (`short`) or with text.
fn instance(pattern: &str, start: &str, short: bool) -> Marked {
    let rest = ["~*/", "~/", "**/", "/"]
        .iter()
        .find_map(|p| pattern.strip_prefix(p))
        .unwrap_or(pattern);
    let mut out: Marked = start.chars().map(|c| (c, false)).collect();
    for (i, comp) in rest.split('/').enumerate() {
        if i > 0 && out.last().is_some_and(|(c, _)| *c != '/') {
            out.push(('/', false));
        }
        if comp == "**" {
            if !short {
                out.extend("d/e".chars().map(|c| (c, false)));
            }
            continue;
        }
        let mut chars = comp.chars();
        while let Some(c) = chars.next() {
            match c {
                '*' if !short => out.extend("key".chars().map(|c| (c, false))),
                '*' => {}
                '?' => out.push(('q', false)),
                '[' => {
                    let class: String = chars.by_ref().take_while(|c| *c != ']').collect();
                    let first = class.trim_start_matches(['!', '^']).chars().next();
                    let c = if class.starts_with(['!', '^']) {
                        'Q'
                    } else {
                        first.unwrap_or('Q')
                    };
                    out.push((c, false));
                }
                c => out.push((c, true)),
            }
        }
    }
    while out.len() > 1 && out.last().is_some_and(|(c, _)| *c == '/') {
        out.pop();
    }
    out
}

fn text_of(m: &Marked) -> String {
    m.iter().map(|(c, _)| *c).collect()
}

/// Concrete paths the vocabulary names secret, with the pattern they come from.
fn secret_paths(w: &Where) -> Vec<(Marked, At)> {
    let mut out = Vec::new();
    for (pattern, says, _) in ENTRIES {
        if !matches!(says, Says::Is(Kind::Secret) | Says::Both(Kind::Secret, _)) {
            continue;
        }
        let (at, starts): (At, &[&str]) = if pattern.starts_with("~*/") {
            (At::AnyHome, &["/home/u/", "/home/bob/", "/root/"])
        } else if pattern.starts_with("~/") {
            (At::Home, &["/home/u/"])
        } else if pattern.starts_with("**/") {
            (
                At::Anywhere,
                &["/home/u/proj/", "/home/u/proj/sub/", "/srv/app/", "/tmp/"],
            )
        } else {
            (At::Root, &["/"])
        };
        for start in starts {
            for short in [true, false] {
                let m = instance(pattern, start, short);
                let path = Path::from_pieces(&[Piece::Lit(text_of(&m))], w.cwd());
                if classify(&path, false, w).has(Kind::Secret) {
                    out.push((m, at));
                }
            }
        }
    }
    out
}

/// Glob syntax that matches `c`, or `None` to keep it literal. `die` picks which.
fn wildcard_for(c: char, die: u8) -> Option<String> {
    const AWKWARD: &[char] = &[']', '!', '^', '\\', '-', '[', ':', '/'];
    let near = |d: i64| char::from_u32(u32::from(c).checked_add_signed(d as i32)?);
    match die % 12 {
        0..=5 => None,
        6 => Some("?".to_owned()),
        7 => Some("*".to_owned()),
        8 if !AWKWARD.contains(&c) => Some(format!("[{c}]")),
        9 => match (near(-1), near(1)) {
            (Some(lo), Some(hi)) if ![lo, c, hi].iter().any(|x| AWKWARD.contains(x)) => {
                Some(format!("[{lo}-{hi}]"))
            }
            _ => Some("?".to_owned()),
        },
        10 => Some(if c == 'z' { "[!y]" } else { "[!z]" }.to_owned()),
        11 if c.is_ascii_alphabetic() => Some("[[:alpha:]]".to_owned()),
        _ => Some("?".to_owned()),
    }
}

/// `name` with some characters written as wildcards that match them, keeping what bash needs
/// to match it: a leading `.` stays literal, and so does the character at `keep`.
fn globify_name(name: &[(char, bool)], dice: &[u8], keep: Option<usize>) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    for (k, &(c, _)) in name.iter().enumerate() {
        let die = dice.get(k % dice.len().max(1)).copied().unwrap_or(0);
        let wild = if (k == 0 && c == '.') || keep == Some(k) {
            None
        } else {
            wildcard_for(c, die)
        };
        match wild {
            Some(g) => {
                if !text.is_empty() {
                    pieces.push(Piece::Lit(std::mem::take(&mut text)));
                }
                pieces.push(Piece::Glob(g));
            }
            None => text.push(c),
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Lit(text));
    }
    pieces
}

/// A path with some characters of its names written as wildcards. For an entry that names
/// files anywhere (`**/*.pem`), the last name keeps one of the pattern's own letters: `cat *`
/// names no key in particular, by design ([`Glob::names`]).
fn globify(path: &Marked, at: At, dice: &[u8], pin: usize) -> Vec<Piece> {
    let comps: Vec<&[(char, bool)]> = path.split(|(c, _)| *c == '/').collect();
    let mut pieces = vec![lit("/")];
    for (i, comp) in comps.iter().enumerate().skip(1) {
        let keep = if at == At::Anywhere && i + 1 == comps.len() {
            let own: Vec<usize> = (0..comp.len())
                .filter(|&k| comp[k].1 && comp[k].0.is_alphanumeric())
                .collect();
            own.get(pin % own.len().max(1)).copied()
        } else {
            None
        };
        let offset = comps[..i].iter().map(|c| c.len() + 1).sum::<usize>() % dice.len().max(1);
        let die = dice.get(offset).copied().unwrap_or(0);
        if keep.is_none() && die % 4 == 3 {
            // The whole name as one wildcard: `*`, `??????`, `[a-z]*`; `.*` for a dot file.
            let (dot, name) = match comp.split_first() {
                Some(((first, _), name)) if *first == '.' => (true, name),
                _ => (false, &comp[..]),
            };
            if dot {
                pieces.push(lit("."));
            }
            pieces.push(Piece::Glob(match (die / 4) % 3 {
                0 => "*".to_owned(),
                1 => "?".repeat(name.len()),
                _ if name.first().is_some_and(|(c, _)| c.is_ascii_lowercase()) => {
                    "[a-z]*".to_owned()
                }
                _ => "*".to_owned(),
            }));
        } else {
            pieces.extend(globify_name(comp, &dice[offset..], keep));
        }
        if i + 1 < comps.len() {
            pieces.push(lit("/"));
        }
    }
    pieces
}

/// A glob that matches a path the vocabulary names secret is placed as a secret: `cat
/// ~/.s?h/id_*` reads keys as `cat ~/.ssh/id_rsa` does.
#[test]
fn a_glob_that_could_name_a_secret_is_a_secret() {
    let w = Where::new(Some(CWD), Some(HOME));
    let secrets = secret_paths(&w);
    assert!(
        secrets.len() > 100,
        "the vocabulary's secrets are found: {}",
        secrets.len()
    );
    let strategy = (
        0..secrets.len(),
        prop::collection::vec(any::<u8>(), 1..64),
        any::<usize>(),
    );
    runner(2000)
        .run(&strategy, |(i, dice, pin)| {
            let (path, at) = &secrets[i];
            let pieces = globify(path, *at, &dice, pin);
            let glob = Path::from_pieces(&pieces, w.cwd());
            let placed = classify(&glob, false, &w);
            prop_assert!(
                placed.has(Kind::Secret),
                "{} matches {:?}, placed {:?}",
                show(&pieces),
                text_of(path),
                placed.kinds().collect::<Vec<_>>()
            );
            Ok(())
        })
        .expect("a glob that could name a secret is a secret");
}

fn show(pieces: &[Piece]) -> String {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Lit(t) | Piece::Glob(t) => t.clone(),
            other => format!("<{other:?}>"),
        })
        .collect()
}

/// Found by `a_glob_that_could_name_a_secret_is_a_secret` (fixed in 2f017fb): a trailing
/// wildcard-only component was read as the directory as a whole (`/etc` is a system
/// directory) and the secrets directly in it were not looked for, so `cat /etc/*` was safe
/// while `cat /etc/s*` read a secret. The same for `/etc/ssh/*` (host keys), `/proc/*`
/// (`/proc/kcore`) and `~/*` (`~/_netrc`).
#[test]
fn reading_every_file_of_a_directory_reads_its_secrets() {
    let w = Where::new(Some(CWD), Some(HOME));
    for spec in [
        "/etc/*",
        "/etc/??????",
        "/etc/[a-z]*",
        "/etc/ssh/*",
        "/proc/*",
        "/home/u/*",
        "/home/bob/*",
    ] {
        let (dir, glob) = spec.rsplit_once('/').expect("the spec has a slash");
        let pieces = [Piece::Lit(format!("{dir}/")), Piece::Glob(glob.to_owned())];
        let placed = classify(&Path::from_pieces(&pieces, w.cwd()), false, &w);
        assert!(
            placed.has(Kind::Secret),
            "{spec}: {:?}",
            placed.kinds().collect::<Vec<_>>()
        );
    }
}

// ---- Globs against names ----

/// Whether bash lets the word-side pattern `glob` match `name`: a leading `.` of a name only
/// matches a literal `.`.
fn dot_ok(glob: &str, name: &str) -> bool {
    !name.starts_with('.') || glob.starts_with('.') || glob.starts_with("\\.")
}

/// Pieces as one text in glob syntax, literal text escaped.
fn as_glob_text(pieces: &[Piece]) -> String {
    let mut out = String::new();
    for p in pieces {
        match p {
            Piece::Lit(t) => {
                for c in t.chars() {
                    if matches!(c, '*' | '?' | '[' | ']' | '\\') {
                        out.push('\\');
                    }
                    out.push(c);
                }
            }
            Piece::Glob(g) => out.push_str(g),
            _ => {}
        }
    }
    out
}

/// Glob syntax that matches `name`, with some characters written as wildcards (not a
/// leading `.`).
fn glob_for(name: &str, dice: &[u8]) -> String {
    let marked: Vec<(char, bool)> = name.chars().map(|c| (c, true)).collect();
    as_glob_text(&globify_name(&marked, dice, None))
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        select(
            &[
                ".ssh",
                "id_rsa",
                ".env.local",
                "key.pem",
                "config",
                "日本",
                "a]b",
                "x*y"
            ][..]
        )
        .prop_map(str::to_owned),
        "\\.?[a-zA-Z0-9._*?\\[\\]\\\\é-]{0,10}",
    ]
}

/// Names near `name`: itself, one character changed, one more or less, dotted.
fn near_names(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = vec![name.to_owned(), format!("{name}x"), format!(".{name}")];
    for k in 0..chars.len() {
        let mut other = chars.clone();
        other[k] = if other[k] == 'a' { 'b' } else { 'a' };
        out.push(other.into_iter().collect());
        let mut fewer = chars.clone();
        fewer.remove(k);
        out.push(fewer.into_iter().collect());
    }
    out
}

/// `matches` is `meets` against a literal: a vocabulary pattern matches a name exactly when
/// the name, as a word, meets it; a word's pattern meets a name when it matches it and bash's
/// leading-dot rule lets it.
#[test]
fn matching_a_name_is_meeting_it() {
    let strategy = (
        name(),
        prop::collection::vec(any::<u8>(), 1..16),
        prop::option::of("[a-z.*?\\[\\]!-]{0,6}"),
    );
    runner(3000)
        .run(&strategy, |(name, dice, random)| {
            let text = random.unwrap_or_else(|| glob_for(&name, &dice));
            let glob = Glob::parse(&text);
            for n in near_names(&name) {
                let matches = glob.matches(&n);
                prop_assert_eq!(
                    Glob::literal(&n).meets(&glob),
                    matches,
                    "{:?} as a name meets {:?}",
                    n,
                    text
                );
                prop_assert_eq!(
                    glob.meets(&Glob::literal(&n)),
                    matches && dot_ok(&text, &n),
                    "{:?} as a word meets {:?}",
                    text,
                    n
                );
            }
            Ok(())
        })
        .expect("matching a name is meeting it");
}

/// Two patterns that both match one name meet (when bash lets the word match it), a word
/// that names a pattern meets it, and a word `within` a pattern matches only names the
/// pattern matches.
#[test]
fn meets_and_within_agree_with_names() {
    let strategy = (
        name(),
        prop::collection::vec(any::<u8>(), 1..16),
        prop::collection::vec(any::<u8>(), 1..16),
        0usize..4,
    );
    runner(3000)
        .run(&strategy, |(name, word_dice, rule_dice, widen)| {
            let word_text = glob_for(&name, &word_dice);
            let chars: Vec<char> = name.chars().collect();
            let cut = chars.len() / 2;
            let head: String = chars[..cut].iter().collect();
            let tail: String = chars[cut..].iter().collect();
            let rule_text = match widen {
                0 => glob_for(&name, &rule_dice),
                1 => "*".to_owned(),
                2 => format!("{}*", as_glob_text(&[Piece::Lit(head)])),
                _ => format!("*{}", as_glob_text(&[Piece::Lit(tail)])),
            };
            let (word, rule) = (Glob::parse(&word_text), Glob::parse(&rule_text));
            prop_assert!(
                word.matches(&name) && rule.matches(&name),
                "both match {name:?}"
            );
            if dot_ok(&word_text, &name) {
                prop_assert!(word.meets(&rule), "{word_text:?} meets {rule_text:?}");
            }
            if word.names(&rule) {
                prop_assert!(word.meets(&rule), "{word_text:?} names {rule_text:?}");
            }
            if word.within(&rule) {
                for n in near_names(&name) {
                    if word.matches(&n) && dot_ok(&word_text, &n) {
                        prop_assert!(
                            rule.matches(&n),
                            "{word_text:?} within {rule_text:?}, but {n:?}"
                        );
                    }
                }
            }
            Ok(())
        })
        .expect("meets and within agree with the names matched");
}

// ---- One path, many spellings ----

/// Components of literal paths, `.` and `..` included.
const NAMES: &[&str] = &[
    "etc", "shadow", ".ssh", "id_rsa", "home", "u", "bob", "proj", ".env", "src", "tmp", "target",
    "proc", "self", "cwd", "root", "日本", "a b", ".", "..", "usr",
];

/// `/./`, `//` and `x/../` add nothing to a literal path: the path, and so its places, are
/// those of the plain spelling. Cutting the text into pieces does not change it either.
#[test]
fn a_literal_path_is_one_path_however_spelled() {
    let strategy = (
        prop::collection::vec(select(NAMES), 0..7),
        any::<bool>(),
        prop::collection::vec((0usize..8, 0u8..3), 0..4),
        any::<bool>(),
        prop::collection::vec(1usize..12, 0..3),
        place(),
    );
    runner(1500)
        .run(
            &strategy,
            |(names, absolute, inserts, trailing, cuts, cwd)| {
                let lead = if absolute { "/" } else { "" };
                let plain = format!("{lead}{}", names.join("/"));
                let mut spelled: Vec<&str> = names.clone();
                for (at, what) in inserts {
                    let at = at.min(spelled.len());
                    match what {
                        0 => spelled.insert(at, "."),
                        // An empty name first would make a relative path absolute.
                        1 if at > 0 || absolute => spelled.insert(at, ""),
                        1 => {}
                        _ => {
                            spelled.insert(at, "..");
                            spelled.insert(at, "zz");
                        }
                    }
                }
                let mut text = format!("{lead}{}", spelled.join("/"));
                // (A slash after nothing would make a relative path absolute.)
                if trailing && !text.is_empty() {
                    text.push('/');
                }
                let mut pieces = Vec::new();
                let mut rest = text.as_str();
                for cut in cuts {
                    let at = rest
                        .char_indices()
                        .map(|(i, _)| i)
                        .nth(cut)
                        .unwrap_or(rest.len());
                    // A first piece that is empty is not the start of an absolute path.
                    if at == 0 || at == rest.len() {
                        continue;
                    }
                    pieces.push(lit(&rest[..at]));
                    rest = &rest[at..];
                }
                pieces.push(lit(rest));
                let want = Path::from_pieces(&[lit(&plain)], cwd);
                let got = Path::from_pieces(&pieces, cwd);
                prop_assert_eq!(&got, &want, "{:?} is {:?}", pieces, plain);
                let w = Where::new(cwd, Some(HOME));
                for tree in [false, true] {
                    prop_assert_eq!(classify(&got, tree, &w), classify(&want, tree, &w));
                }
                Ok(())
            },
        )
        .expect("a literal path is one path however it is spelled");
}

/// Found by the `places` fuzz target: the text of a glob piece is cut at `/` and each part
/// read as glob syntax; a `.` or `..` in it must move as in a literal path. An unquoted
/// variable holding glob characters expands to such a piece, and so does a tool call's path
/// with a wildcard: `v=/tmp/x/../../etc/sha*; cat $v` reads a secret, as `cat
/// /tmp/x/../../etc/sha*` does.
#[test]
fn dots_in_a_glob_piece_are_resolved() {
    let w = Where::new(Some(CWD), Some(HOME));
    for (text, lit_part, glob_part) in [
        ("/tmp/x/../../etc/sha*", "/tmp/x/../../etc/sha", "*"),
        ("/etc/./shado?", "/etc/./shado", "?"),
    ] {
        let whole = Path::from_pieces(&[Piece::Glob(text.to_owned())], w.cwd());
        let parts = Path::from_pieces(&[lit(lit_part), Piece::Glob(glob_part.to_owned())], w.cwd());
        assert_eq!(whole, parts, "{text}");
        assert!(classify(&whole, false, &w).has(Kind::Secret), "{text}");
    }
}
