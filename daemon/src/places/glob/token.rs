//! The tokens of a component pattern (a character, `?`, `*`, a bracket expression) as bash
//! reads them, and whether two tokens can accept one same character.

/// One token of a component pattern.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Tok {
    Char(char),
    /// `?`: any one character.
    One,
    /// `*`: any run of characters, empty included.
    Any,
    /// `[…]`: one character in (or, negated, not in) the ranges.
    Class {
        ranges: Vec<(char, char)>,
        negated: bool,
    },
}

impl Tok {
    pub(super) fn accepts(&self, c: char) -> bool {
        match self {
            Tok::Char(x) => *x == c,
            Tok::One | Tok::Any => true,
            Tok::Class { ranges, negated } => {
                ranges.iter().any(|(lo, hi)| (*lo..=*hi).contains(&c)) != *negated
            }
        }
    }

    /// Characters worth trying when looking for one both tokens accept: their own characters
    /// and range ends, their neighbours (for negated classes), and a few ordinary ones.
    fn candidates(&self, out: &mut Vec<char>) {
        let near = |c: char, out: &mut Vec<char>| {
            out.push(c);
            out.extend(char::from_u32(u32::from(c).wrapping_sub(1)));
            out.extend(char::from_u32(u32::from(c).wrapping_add(1)));
        };
        match self {
            Tok::Char(c) => out.push(*c),
            Tok::One | Tok::Any => {}
            Tok::Class { ranges, .. } => {
                for (lo, hi) in ranges {
                    near(*lo, out);
                    near(*hi, out);
                }
            }
        }
    }
}

/// Characters that any two wildcards can agree on: a private-use character no class in
/// practice names, and ordinary letters and digits.
const ORDINARY: [char; 5] = ['a', 'Z', '0', '_', '\u{e000}'];

/// Whether some character other than `/` is accepted by both tokens (not `.` unless
/// `dot_ok`).
pub(super) fn shared_char(a: &Tok, b: &Tok, dot_ok: bool) -> bool {
    let ok = |c: char| c != '/' && (dot_ok || c != '.') && a.accepts(c) && b.accepts(c);
    match (a, b) {
        (Tok::Char(x), _) => ok(*x),
        (_, Tok::Char(y)) => ok(*y),
        _ => {
            let mut cands = Vec::with_capacity(16);
            a.candidates(&mut cands);
            b.candidates(&mut cands);
            cands.extend(ORDINARY);
            cands.into_iter().any(ok)
        }
    }
}

/// A bracket expression starting at `open`: the class token and the index after its `]`.
pub(super) fn class(chars: &[char], open: usize) -> Option<(Tok, usize)> {
    let mut i = open + 1;
    let negated = matches!(chars.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    while let Some(&c) = chars.get(i) {
        if c == ']' && !first {
            return Some((Tok::Class { ranges, negated }, i + 1));
        }
        first = false;
        // `[:alpha:]` and friends: take them as any character of their kind, roughly.
        if c == '[' && chars.get(i + 1) == Some(&':') {
            let end = (i + 2..chars.len().saturating_sub(1))
                .find(|&k| chars[k] == ':' && chars[k + 1] == ']')?;
            let name: String = chars[i + 2..end].iter().collect();
            ranges.extend(named_class(&name));
            i = end + 2;
            continue;
        }
        let lo = if c == '\\' {
            i += 1;
            *chars.get(i)?
        } else {
            c
        };
        if chars.get(i + 1) == Some(&'-') && chars.get(i + 2).is_some_and(|h| *h != ']') {
            let hi = chars[i + 2];
            ranges.push((lo.min(hi), lo.max(hi)));
            i += 3;
        } else {
            ranges.push((lo, lo));
            i += 1;
        }
    }
    None
}

fn named_class(name: &str) -> Vec<(char, char)> {
    match name {
        "alpha" => vec![('a', 'z'), ('A', 'Z')],
        "digit" => vec![('0', '9')],
        "alnum" => vec![('a', 'z'), ('A', 'Z'), ('0', '9')],
        "lower" => vec![('a', 'z')],
        "upper" => vec![('A', 'Z')],
        "space" | "blank" => vec![(' ', ' '), ('\t', '\t')],
        "punct" => vec![('!', '/'), (':', '@'), ('[', '`'), ('{', '~')],
        "xdigit" => vec![('0', '9'), ('a', 'f'), ('A', 'F')],
        // Anything printable: the whole range a name uses.
        _ => vec![(' ', '\u{10ffff}')],
    }
}
