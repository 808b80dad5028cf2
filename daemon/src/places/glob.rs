//! One path component as a pattern: a literal name, or a glob as bash matches file names
//! (`*`, `?`, `[…]`), and the two questions the vocabulary asks of a pair of them: could one
//! name match both ([`Glob::meets`]), and does every name one matches also match the other
//! ([`Glob::within`], answered conservatively).
//!
//! A component never holds `/`. Bash does not let a wildcard match a leading `.` of a name
//! (`dotglob` off), so `~/*/id_rsa` cannot reach `~/.ssh/id_rsa` while `~/.*/id_rsa` can: the
//! side that is a command's word obeys that rule, the vocabulary's side does not (its patterns
//! describe names, not expansions).

mod token;

use token::{Tok, class, shared_char};

/// A component pattern.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Glob {
    toks: Vec<Tok>,
}

impl Glob {
    /// A name matched only by itself.
    pub fn literal(name: &str) -> Glob {
        Glob {
            toks: name.chars().map(Tok::Char).collect(),
        }
    }

    /// A component in glob syntax: `*`, `?`, `[a-z]`, `[!x]`/`[^x]`, `\c` for a literal `c`.
    /// A `[` without its `]` is a literal, as bash takes it.
    pub fn parse(text: &str) -> Glob {
        let chars: Vec<char> = text.chars().collect();
        let mut toks = Vec::with_capacity(chars.len());
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '\\' if i + 1 < chars.len() => {
                    toks.push(Tok::Char(chars[i + 1]));
                    i += 2;
                    continue;
                }
                '*' => {
                    // `**` is `*` within one component.
                    if toks.last() != Some(&Tok::Any) {
                        toks.push(Tok::Any);
                    }
                }
                '?' => toks.push(Tok::One),
                '[' => {
                    if let Some((class, next)) = class(&chars, i) {
                        toks.push(class);
                        i = next;
                        continue;
                    }
                    toks.push(Tok::Char('['));
                }
                c => toks.push(Tok::Char(c)),
            }
            i += 1;
        }
        Glob { toks }
    }

    /// A file type and nothing more: `*` then a literal extension (`*.json`, `*.tar.gz`).
    pub fn is_file_type(&self) -> bool {
        matches!(self.toks.as_slice(), [Tok::Any, Tok::Char('.'), rest @ ..]
            if !rest.is_empty() && rest.iter().all(|t| matches!(t, Tok::Char(c) if *c != '/')))
    }

    /// The pattern written in glob syntax, without escapes: `id_*`, `[a-c]x`.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for t in &self.toks {
            match t {
                Tok::Char(c) => out.push(*c),
                Tok::One => out.push('?'),
                Tok::Any => out.push('*'),
                Tok::Class { ranges, negated } => {
                    out.push('[');
                    if *negated {
                        out.push('!');
                    }
                    for (lo, hi) in ranges {
                        out.push(*lo);
                        if lo != hi {
                            out.push('-');
                            out.push(*hi);
                        }
                    }
                    out.push(']');
                }
            }
        }
        out
    }

    /// Appends a pattern written in glob syntax to this one (a word made of literal and
    /// unquoted parts: `"$d"*.pem`).
    pub fn push_glob(&mut self, text: &str) {
        for tok in Glob::parse(text).toks {
            if tok == Tok::Any && self.toks.last() == Some(&Tok::Any) {
                continue;
            }
            self.toks.push(tok);
        }
    }

    /// Appends another pattern.
    pub fn append(&mut self, other: &Glob) {
        for tok in &other.toks {
            if *tok == Tok::Any && self.toks.last() == Some(&Tok::Any) {
                continue;
            }
            self.toks.push(tok.clone());
        }
    }

    /// Appends literal text.
    pub fn push_literal(&mut self, text: &str) {
        self.toks.extend(text.chars().map(Tok::Char));
    }

    /// The name, when the pattern matches exactly one.
    pub fn as_literal(&self) -> Option<String> {
        self.toks
            .iter()
            .map(|t| match t {
                Tok::Char(c) => Some(*c),
                _ => None,
            })
            .collect()
    }

    pub fn is_literal(&self) -> bool {
        self.toks.iter().all(|t| matches!(t, Tok::Char(_)))
    }

    /// Holds no literal character at all (`*`, `?*`, `[!.]*`): it could name any entry of a
    /// directory.
    pub fn is_wildcard_only(&self) -> bool {
        !self.toks.is_empty() && self.toks.iter().all(|t| !matches!(t, Tok::Char(_)))
    }

    /// Matches nearly any name: wildcard-only, starting with `*`, `?`, a negated class or a
    /// wide one (`*`, `?*`, `[!.]*`, `[a-z]*`, but not `[eu]*`).
    pub fn is_everything(&self) -> bool {
        self.is_wildcard_only()
            && match &self.toks[0] {
                Tok::Any | Tok::One => true,
                Tok::Class { negated: true, .. } => true,
                Tok::Class { ranges, .. } => {
                    ranges
                        .iter()
                        .map(|(lo, hi)| u32::from(*hi) - u32::from(*lo) + 1)
                        .sum::<u32>()
                        >= 26
                }
                Tok::Char(_) => false,
            }
    }

    pub fn is_empty(&self) -> bool {
        self.toks.is_empty()
    }

    /// Whether `name` matches, as a vocabulary pattern matches a name (no leading-dot rule).
    pub fn matches(&self, name: &str) -> bool {
        self.matches_chars(name.chars(), false)
    }

    /// Whether the characters match; `dot_rule`: a leading `.` needs a literal `.` in the
    /// pattern (bash's file-name matching).
    fn matches_chars(&self, name: impl Iterator<Item = char>, dot_rule: bool) -> bool {
        let n = self.toks.len();
        if n >= 64 {
            let name: Vec<char> = name.collect();
            if dot_rule && name.first() == Some(&'.') && self.toks.first() != Some(&Tok::Char('.'))
            {
                return false;
            }
            return self.matches_slow(&name);
        }
        // Positions in the pattern reachable after each character, as bits: a small NFA run.
        let close = |mut states: u64| {
            for i in 0..n {
                if states & (1 << i) != 0 && self.toks[i] == Tok::Any {
                    states |= 1 << (i + 1);
                }
            }
            states
        };
        let mut states = close(1);
        for (k, c) in name.enumerate() {
            if k == 0 && dot_rule && c == '.' && self.toks.first() != Some(&Tok::Char('.')) {
                return false;
            }
            let mut next = 0u64;
            for i in 0..n {
                if states & (1 << i) != 0 && self.toks[i].accepts(c) {
                    next |= if self.toks[i] == Tok::Any {
                        1 << i
                    } else {
                        1 << (i + 1)
                    };
                }
            }
            states = close(next);
            if states == 0 {
                return false;
            }
        }
        states & (1 << n) != 0
    }

    fn matches_slow(&self, name: &[char]) -> bool {
        let mut states = vec![false; self.toks.len() + 1];
        states[0] = true;
        self.close(&mut states);
        for &c in name {
            let mut next = vec![false; self.toks.len() + 1];
            for (i, on) in states.iter().enumerate() {
                if !on {
                    continue;
                }
                if let Some(tok) = self.toks.get(i)
                    && tok.accepts(c)
                {
                    if *tok == Tok::Any {
                        next[i] = true;
                    } else {
                        next[i + 1] = true;
                    }
                }
            }
            self.close(&mut next);
            states = next;
            if !states.iter().any(|s| *s) {
                return false;
            }
        }
        states[self.toks.len()]
    }

    /// `*` may match nothing: a state before one reaches the state after it.
    fn close(&self, states: &mut [bool]) {
        for i in 0..self.toks.len() {
            if states[i] && self.toks[i] == Tok::Any {
                states[i + 1] = true;
            }
        }
    }

    /// Whether some name matches both: `self` is a word's component (bash's leading-dot rule
    /// applies to it), `rule` a vocabulary pattern.
    pub fn meets(&self, rule: &Glob) -> bool {
        // Most components on both sides are plain names.
        match (self.is_literal(), rule.is_literal()) {
            (true, true) => self.toks == rule.toks,
            (true, false) => rule.matches_chars(self.chars(), false),
            (false, true) => self.matches_chars(rule.chars(), true),
            (false, false) => self.product(rule, false),
        }
    }

    /// The characters of a literal pattern.
    fn chars(&self) -> impl Iterator<Item = char> + '_ {
        self.toks.iter().filter_map(|t| match t {
            Tok::Char(c) => Some(*c),
            _ => None,
        })
    }

    /// [`Glob::meets`], where the word must also spell out part of what the rule names: some
    /// character of the rule's literal text is matched by the word's own (`id_*` and `*.pem`
    /// name keys; `*` and `notes-*` could match `x.pem` but name nothing in particular).
    pub fn names(&self, rule: &Glob) -> bool {
        if self.is_wildcard_only() {
            return false;
        }
        if self.is_literal() {
            return self.meets(rule);
        }
        self.product(rule, true)
    }

    fn product(&self, rule: &Glob, pin: bool) -> bool {
        let (n, m) = (self.toks.len(), rule.toks.len());
        // State (i, j, started, pinned): positions in both, whether a character was consumed,
        // whether a literal of the word met a literal of the rule.
        let idx = |i: usize, j: usize, s: bool, p: bool| {
            ((i * (m + 1) + j) * 2 + usize::from(s)) * 2 + usize::from(p)
        };
        let states = (n + 1) * (m + 1) * 4;
        let mut small = [false; 1024];
        let mut large = Vec::new();
        let seen: &mut [bool] = if states <= small.len() {
            &mut small[..states]
        } else {
            large.resize(states, false);
            &mut large
        };
        let mut stack = Vec::with_capacity(16);
        stack.push((0usize, 0usize, false, !pin));
        while let Some((i, j, s, p)) = stack.pop() {
            if seen[idx(i, j, s, p)] {
                continue;
            }
            seen[idx(i, j, s, p)] = true;
            if i == n && j == m && p {
                return true;
            }
            let a = self.toks.get(i);
            let b = rule.toks.get(j);
            if a == Some(&Tok::Any) {
                stack.push((i + 1, j, s, p));
            }
            if b == Some(&Tok::Any) {
                stack.push((i, j + 1, s, p));
            }
            let (Some(a), Some(b)) = (a, b) else { continue };
            // Bash lets only a pattern that starts with a literal `.` match a leading one.
            let leading_dot_ok = s || (i == 0 && *a == Tok::Char('.'));
            let shared = shared_char(a, b, leading_dot_ok);
            if shared {
                let ni = if *a == Tok::Any { i } else { i + 1 };
                let nj = if *b == Tok::Any { j } else { j + 1 };
                // A letter or digit, or the leading dot of a dot file, spells something out;
                // a `.` in the middle (`*.*`) does not.
                let pinned = p
                    || match (a, b) {
                        (Tok::Char(x), Tok::Char(_)) => x.is_alphanumeric() || (*x == '.' && !s),
                        _ => false,
                    };
                stack.push((ni, nj, true, pinned));
            }
        }
        false
    }

    /// Whether every name `self` matches (under the leading-dot rule) also matches `rule`.
    /// Conservative: `false` when not sure, which makes a vocabulary exception not apply.
    pub fn within(&self, rule: &Glob) -> bool {
        if let Some(name) = self.as_literal() {
            return rule.matches(&name);
        }
        if let Some(names) = self.expand(64) {
            return names.iter().all(|n| rule.matches(n));
        }
        if self == rule || rule.toks.iter().all(|t| *t == Tok::Any) {
            return true;
        }
        // `rule` = literal prefix, `*`, literal suffix; `self` must carry both literally.
        let any = rule.toks.iter().filter(|t| **t == Tok::Any).count();
        if any != 1
            || rule
                .toks
                .iter()
                .any(|t| matches!(t, Tok::One | Tok::Class { .. }))
        {
            return false;
        }
        let star = rule.toks.iter().position(|t| *t == Tok::Any).unwrap_or(0);
        let (prefix, suffix) = (&rule.toks[..star], &rule.toks[star + 1..]);
        self.toks.len() >= prefix.len() + suffix.len()
            && self.toks.starts_with(prefix)
            && self.toks.ends_with(suffix)
    }
}

impl Glob {
    /// Every name a pattern of literal characters and small classes matches, when there are
    /// at most `limit`.
    fn expand(&self, limit: usize) -> Option<Vec<String>> {
        let mut names = vec![String::new()];
        for tok in &self.toks {
            let chars: Vec<char> = match tok {
                Tok::Char(c) => vec![*c],
                Tok::Class {
                    ranges,
                    negated: false,
                } => {
                    let mut cs = Vec::new();
                    for (lo, hi) in ranges {
                        for c in *lo..=*hi {
                            cs.push(c);
                            if cs.len() > limit {
                                return None;
                            }
                        }
                    }
                    cs
                }
                _ => return None,
            };
            if names.len() * chars.len() > limit {
                return None;
            }
            names = names
                .iter()
                .flat_map(|n| chars.iter().map(move |c| format!("{n}{c}")))
                .collect();
        }
        Some(names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matching_names() {
        let cases: &[(&str, &str, bool)] = &[
            ("*.pem", "key.pem", true),
            ("*.pem", "key.pe", false),
            (".env.*", ".env.local", true),
            ("id_*", "id_rsa", true),
            ("[a-c]x", "bx", true),
            ("[!a-c]x", "bx", false),
            ("?", "", false),
            ("a\\*", "a*", true),
            ("a\\*", "ab", false),
            ("[", "[", true),
        ];
        for (glob, name, want) in cases {
            assert_eq!(Glob::parse(glob).matches(name), *want, "{glob} ~ {name}");
        }
    }

    #[test]
    fn words_meet_rules() {
        let cases: &[(&str, &str, bool)] = &[
            (".ss?", ".ssh", true),
            ("*", ".ssh", false),
            (".*", ".ssh", true),
            ("?ssh", ".ssh", false),
            ("[.]ssh", ".ssh", false),
            ("*", "id_rsa", true),
            ("id_*", "*.pub", true),
            ("*.pem", "id_rsa", false),
            ("[a-z]*", "*.pem", true),
            (".e[n]v", ".env", true),
            (".env", ".env.*", false),
            ("e[n]v", "env", true),
            (".env*", ".env.*", true),
            ("[!.]*", ".bashrc", false),
            ("*rc", ".bashrc", false),
            (".*rc", ".bashrc", true),
        ];
        for (word, rule, want) in cases {
            assert_eq!(
                Glob::parse(word).meets(&Glob::parse(rule)),
                *want,
                "{word} ∩ {rule}"
            );
        }
    }

    #[test]
    fn within_is_conservative() {
        let cases: &[(&str, &str, bool)] = &[
            ("id_rsa.pub", "*.pub", true),
            ("*.pub", "*.pub", true),
            ("id_*.pub", "*.pub", true),
            ("*", "*.pub", false),
            (".env.ex*", ".env.example", false),
            ("anything", "*", true),
            ("known_hosts*", "known_hosts*", true),
        ];
        for (word, rule, want) in cases {
            assert_eq!(
                Glob::parse(word).within(&Glob::parse(rule)),
                *want,
                "{word} ⊆ {rule}"
            );
        }
    }
}
