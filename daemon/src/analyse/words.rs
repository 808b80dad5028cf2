//! Words as bash would see them: brace expansion, tilde expansion, parameter expansion of
//! variables the line set, quote removal, word splitting on `$IFS`; and, for a word whose
//! value is not fully known, what it could be, piece by piece ([`Piece`]: literal text, glob
//! syntax, text only known at run time), so that `"$HOME/.ssh/id_rsa"`, `~/.ss?/id_*` and
//! `$(echo ~/.aws/credentials)` are all placed.
//!
//! A word whose value is not one literal is *dynamic*: its `text` is the word as written and
//! its `value` holds the alternatives. This module must stay pure string work: no file
//! system, no environment but what [`Env`] says.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

use tree_sitter::Node;

use super::kind;
use crate::places::{Piece, Secret};

mod ansi_c;
mod secret_names;
mod shown;

use ansi_c::ansi_c;
pub use secret_names::{credential_name, secret_variable};

/// What a word could be: each alternative a sequence of pieces.
pub type Alts = Vec<Vec<Piece>>;

/// How many alternatives a word keeps before it is just unknown.
const MAX_ALTS: usize = 16;
/// How many words one brace expansion may make before the word is taken as it is written.
const MAX_FIELDS: usize = 64;

/// One shell word.
#[derive(Debug, Clone)]
pub struct Word<'s> {
    /// The value bash would pass, or the text as written when `dynamic`.
    pub text: String,
    /// The text as written.
    pub raw: &'s str,
    /// Part of the value is only known at run time, or is a pattern.
    pub dynamic: bool,
    /// Where it is in the parsed text (not yet mapped to the original input).
    pub span: Range<usize>,
    /// What the value could be, when `text` does not say it all.
    pub value: Option<Rc<Alts>>,
}

impl<'s> Word<'s> {
    /// A literal word made by the analyser (`rm -rf -- PATH` from an inline program).
    pub fn made(text: String, raw: &'s str, span: Range<usize>) -> Word<'s> {
        Word {
            text,
            raw,
            dynamic: false,
            span,
            value: None,
        }
    }

    /// A word standing for what a program reads or finds at run time, with what it could be
    /// when that is known (`{}` of `find ~/.ssh -exec`).
    pub fn runtime(like: &Word<'s>, shown: &'static str, value: Option<Rc<Alts>>) -> Word<'s> {
        Word {
            text: shown.to_owned(),
            raw: shown,
            dynamic: true,
            span: like.span.clone(),
            value: Some(value.unwrap_or_else(|| Rc::new(vec![vec![Piece::Opaque]]))),
        }
    }

    /// The literal value, or `None` when it is only known at run time.
    pub fn literal(&self) -> Option<&str> {
        (!self.dynamic).then_some(self.text.as_str())
    }

    /// Every value the word could have, as pieces.
    pub fn alternatives(&self) -> Cow<'_, [Vec<Piece>]> {
        match &self.value {
            Some(alts) => Cow::Borrowed(alts.as_slice()),
            None => Cow::Owned(vec![vec![Piece::Lit(self.text.clone())]]),
        }
    }

    /// The word from byte `at` of its value on: the value of `--output=FILE` or `-oFILE`.
    /// `at` counts bytes of the literal start, which the caller has read.
    pub fn tail(&self, at: usize) -> Word<'s> {
        let text = self.text.get(at..).unwrap_or("").to_owned();
        // The written start is cut only when it is written as it reads (`-C` of `-C"$HOME"`):
        // the value's length says nothing of where its quotes were.
        let raw = self
            .text
            .get(..at)
            .and_then(|start| self.raw.strip_prefix(start))
            .unwrap_or(self.raw);
        let value = self
            .value
            .as_ref()
            .map(|alts| Rc::new(alts.iter().map(|alt| drop_front(alt, at)).collect::<Alts>()));
        Word {
            text,
            raw: if self.dynamic { self.raw } else { raw },
            dynamic: self.dynamic,
            span: self.span.clone(),
            value,
        }
    }
}

/// `alt` without its first `n` bytes, which must be literal; unknown if they are not.
fn drop_front(alt: &[Piece], mut n: usize) -> Vec<Piece> {
    let mut out = Vec::with_capacity(alt.len());
    let mut pieces = alt.iter();
    for piece in pieces.by_ref() {
        if n == 0 {
            out.push(piece.clone());
            break;
        }
        match piece {
            Piece::Lit(t) if t.len() <= n => n -= t.len(),
            Piece::Lit(t) => {
                out.push(Piece::Lit(t.get(n..).unwrap_or("").to_owned()));
                n = 0;
            }
            _ => return vec![unknown_of(&[alt.to_vec()])],
        }
    }
    out.extend(pieces.cloned());
    out
}

/// The strongest secret among some alternatives.
pub fn in_alts(alts: &[Vec<Piece>]) -> Option<Secret> {
    alts.iter().flatten().filter_map(Piece::secret).max()
}

/// What stands for text that is no longer followed: unknown, and secret if any of it was.
pub fn unknown_of(alts: &[Vec<Piece>]) -> Piece {
    match in_alts(alts) {
        Some(secret) => Piece::Secret(secret),
        None => Piece::Opaque,
    }
}

/// The text of a node; empty if the range is somehow not on a character boundary.
pub fn text<'s>(node: Node, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

/// What a variable assigned on the line holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Var {
    Lit(String),
    /// A value partly known: its alternatives.
    Pattern(Rc<Alts>),
    Unknown,
}

/// Variables assigned earlier on the line (see `Shell::vars`).
pub type Vars = HashMap<String, Var>;

/// What resolving a word knows besides its text.
#[derive(Clone, Copy)]
pub struct Env<'e> {
    pub vars: &'e Vars,
    /// The requester's home (`~`, `$HOME`).
    pub home: Option<&'e str>,
    /// The shell's directory at this point (`$PWD`, `~+`), when known.
    pub cwd: Option<&'e str>,
    /// The directory before the last `cd` on the line (`$OLDPWD`, `~-`), when known.
    pub oldpwd: Option<&'e str>,
    /// The line names `TMPDIR` other than by expanding it, so `$TMPDIR` may not be `/tmp`.
    pub tmpdir_named: bool,
    /// How deep command substitutions are being looked into.
    pub depth: u32,
    /// The shell options that change what a glob matches.
    pub globs: GlobOptions,
    /// A file of secrets was sourced earlier on the line: variables it may have set hold
    /// secrets.
    pub sourced: bool,
    /// What a command substitution prints.
    pub printed: Printed,
}

/// What the command substitution `node` (`$(…)`, `<(…)`) prints, as alternatives of a path;
/// `None` when only known at run time. Which commands print what is the reading layer's
/// (`flow::substitution`), which resolves words itself: it hands that down through the
/// [`Env`] it resolves them in.
pub type Printed = fn(Node, &str, &Env) -> Option<Alts>;

/// `shopt` options that change what a glob matches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GlobOptions {
    /// A wildcard matches a leading `.` too.
    pub dotglob: bool,
    /// Letters match either case.
    pub nocaseglob: bool,
    /// `**` matches any depth of directories.
    pub globstar: bool,
}

/// Part of a word as written.
#[derive(Debug, Clone)]
enum Tok<'t> {
    /// A character of unquoted text (escapes, globs, braces and `~` still to be read).
    Bare(char),
    /// A character that is literal whatever it is (quoted, or escaped).
    Quoted(char),
    /// An expansion or substitution; `true` inside double quotes.
    Expand(Node<'t>, bool),
    /// `$NAME` or `${NAME}` that the grammar left inside a plain word.
    Var(String),
    /// Another `$…` construct the grammar left inside a plain word: unknown.
    Unknown,
}

/// Splits a word-like node into tokens.
fn tokens<'t>(node: Node<'t>, src: &str, out: &mut Vec<Tok<'t>>) {
    let t = text(node, src);
    match kind(node) {
        "concatenation" => {
            let mut cursor = node.walk();
            for child in node.children(&mut cursor) {
                tokens(child, src, out);
            }
        }
        "word" | "number" | "brace_expression" | "extglob_pattern" => {
            let mut chars = t.chars().peekable();
            while let Some(c) = chars.next() {
                // tree-sitter-bash sometimes leaves `$HOME/x` inside a plain word after an
                // expansion (`cat${IFS}$HOME/x`); bash expands it.
                if c == '$'
                    && chars.peek().is_some_and(|n| {
                        n.is_ascii_alphabetic() || *n == '_' || *n == '{' || *n == '('
                    })
                {
                    out.push(dollar(&mut chars));
                    continue;
                }
                if c == '\\' {
                    match chars.next() {
                        // A backslash-newline is gone; `source` already joined most of them.
                        Some('\n') => {}
                        Some(n) => out.push(Tok::Quoted(n)),
                        None => out.push(Tok::Quoted('\\')),
                    }
                } else {
                    out.push(Tok::Bare(c));
                }
            }
        }
        "raw_string" => out.extend(strip(t, 1, 1).chars().map(Tok::Quoted)),
        "ansi_c_string" => out.extend(ansi_c(strip(t, 2, 1)).chars().map(Tok::Quoted)),
        "string" | "translated_string" => {
            let mut cursor = node.walk();
            // The grammar leaves some of a string's text in no child (a newline between two
            // lines of content): what lies between children is content too.
            let mut at = node.start_byte();
            for child in node.children(&mut cursor) {
                if let Some(gap) = src.get(at..child.start_byte()).filter(|g| !g.is_empty()) {
                    let mut s = String::new();
                    dq_unescape(gap, &mut s);
                    out.extend(s.chars().map(Tok::Quoted));
                }
                at = child.end_byte();
                match kind(child) {
                    "\"" | "$\"" => {}
                    "string_content" => {
                        let mut s = String::new();
                        dq_unescape(text(child, src), &mut s);
                        out.extend(s.chars().map(Tok::Quoted));
                    }
                    "$" => out.push(Tok::Quoted('$')),
                    _ => out.push(Tok::Expand(child, true)),
                }
            }
        }
        // A lone `$` the grammar split from the name after it (`cat${IFS}$HOME/x`).
        "$" => out.push(Tok::Bare('$')),
        _ => out.push(Tok::Expand(node, false)),
    }
}

/// The expansion after a `$` in a plain word's text: a variable, or something unknown.
fn dollar(chars: &mut std::iter::Peekable<std::str::Chars>) -> Tok<'static> {
    let braced = chars.peek() == Some(&'{');
    if chars.peek() == Some(&'(') {
        // `$(…)` or `$((…))` the grammar did not parse: skip to the matching `)`.
        let mut depth = 0usize;
        for c in chars.by_ref() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        return Tok::Unknown;
    }
    if braced {
        chars.next();
    }
    let mut name = String::new();
    while let Some(&c) = chars.peek() {
        if c.is_ascii_alphanumeric() || c == '_' {
            name.push(c);
            chars.next();
        } else {
            break;
        }
    }
    if braced {
        if chars.peek() == Some(&'}') {
            chars.next();
        } else {
            // `${x%…}` and the like.
            for c in chars.by_ref() {
                if c == '}' {
                    break;
                }
            }
            return Tok::Unknown;
        }
    }
    Tok::Var(name)
}

/// Appends a word to `out` as the shell makes words of it: brace expansion, then splitting
/// on `$IFS` and on blanks in unquoted values assigned on the line.
pub fn fields<'s>(node: Node, src: &'s str, env: &Env, out: &mut Vec<Word<'s>>) {
    fields_of(&[node], src, env, out);
}

/// [`fields`] of nodes that touch one another: bash reads them as one word, where the grammar
/// sometimes splits one (`cat${IFS}$` and `HOME/x`).
pub fn fields_of<'s>(nodes: &[Node], src: &'s str, env: &Env, out: &mut Vec<Word<'s>>) {
    let (Some(first), Some(last)) = (nodes.first(), nodes.last()) else {
        return;
    };
    // Most words are plain: no quoting, expansion, pattern, brace or tilde to resolve.
    if let [node] = nodes
        && kind(*node) == "word"
    {
        let raw = text(*node, src);
        let plain = !raw.is_empty()
            && raw.bytes().all(|b| {
                b.is_ascii_alphanumeric()
                    || matches!(
                        b,
                        b'-' | b'_' | b'.' | b'/' | b',' | b'+' | b'@' | b'%' | b'=' | b':'
                    )
            });
        if plain {
            out.push(Word::made(raw.to_owned(), raw, node.byte_range()));
            return;
        }
    }
    let mut toks = Vec::new();
    for node in nodes {
        tokens(*node, src, &mut toks);
    }
    let raw_range = first.start_byte()..last.end_byte();
    let expanded = brace_expand(toks);
    let many = expanded.len() > 1;
    for toks in expanded {
        for part in split_ifs(toks, src, env) {
            let word = resolve_tokens(&part, raw_range.clone(), src, env);
            split_blanks(word, &part, many, out);
        }
    }
}

/// Resolves a word-like node to one word (no brace expansion or splitting: a redirection's
/// target, an assignment's value).
pub fn resolve<'s>(node: Node, src: &'s str, env: &Env) -> Word<'s> {
    let mut toks = Vec::new();
    tokens(node, src, &mut toks);
    resolve_tokens(&toks, node.byte_range(), src, env)
}

/// An unquoted expansion alone whose literal value holds blanks makes several words.
fn split_blanks<'s>(word: Word<'s>, toks: &[Tok], from_braces: bool, out: &mut Vec<Word<'s>>) {
    let lone_expansion = matches!(toks, [Tok::Expand(n, false)] if matches!(kind(*n), "simple_expansion" | "expansion"));
    if word.dynamic || !lone_expansion || from_braces {
        out.push(word);
        return;
    }
    out.extend(
        word.text
            .split([' ', '\t', '\n'])
            .filter(|t| !t.is_empty())
            .map(|t| Word::made(t.to_owned(), word.raw, word.span.clone())),
    );
}

/// Splits a word into fields as bash does: the value of an unquoted expansion is cut at the
/// characters of `$IFS` (blanks unless the line set it), while the word's own text, quoted or
/// not, is never cut. `x=rm; y=' -rf ~'; $x$y` is `rm -rf ~`; with `IFS=,` the value
/// `rm,-rf,~` is too. A value that is known is put in the word's place as unquoted text that
/// only globs (its quotes, `$`, `~` and braces are plain characters, as bash leaves them).
fn split_ifs<'t>(toks: Vec<Tok<'t>>, src: &str, env: &Env) -> Vec<Vec<Tok<'t>>> {
    let separators: Vec<char> = match env.vars.get("IFS") {
        None => vec![' ', '\t', '\n'],
        Some(Var::Lit(v)) => v.chars().collect(),
        // Split at characters only known when the line runs: left whole.
        Some(_) => return vec![toks],
    };
    if separators.is_empty() {
        return vec![toks];
    }
    let mut out = vec![Vec::new()];
    let cut = |out: &mut Vec<Vec<Tok<'t>>>| {
        if out.last().is_some_and(|f| !f.is_empty()) {
            out.push(Vec::new());
        }
    };
    for tok in toks {
        let value = match &tok {
            Tok::Expand(n, false) => simple_name(text(*n, src)).and_then(|name| known(env, name)),
            Tok::Var(name) => known(env, name),
            _ => None,
        };
        let Some(value) = value.filter(|v| v.chars().any(|c| separators.contains(&c))) else {
            if let Some(last) = out.last_mut() {
                last.push(tok);
            }
            continue;
        };
        for c in value.chars() {
            if separators.contains(&c) {
                cut(&mut out);
            } else if let Some(last) = out.last_mut() {
                last.push(if matches!(c, '*' | '?' | '[') {
                    Tok::Bare(c)
                } else {
                    Tok::Quoted(c)
                });
            }
        }
    }
    out.retain(|f| !f.is_empty());
    if out.is_empty() {
        out.push(Vec::new());
    }
    out
}

/// The name in `$NAME` or `${NAME}`, nothing more elaborate.
fn simple_name(expansion: &str) -> Option<&str> {
    let inner = expansion.strip_prefix('$')?;
    let name = inner
        .strip_prefix('{')
        .and_then(|i| i.strip_suffix('}'))
        .unwrap_or(inner);
    let mut chars = name.chars();
    let first = chars.next()?;
    ((first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
    .then_some(name)
}

/// A variable's value when the line set it to known text; `IFS` unset is its default.
fn known<'e>(env: &'e Env, name: &str) -> Option<&'e str> {
    match env.vars.get(name) {
        Some(Var::Lit(v)) => Some(v.as_str()),
        None if name == "IFS" => Some(" \t\n"),
        _ => None,
    }
}

/// Brace expansion over unquoted text: `a{b,c}d` is two words, `x{1..3}` three. A word that
/// would make more than [`MAX_FIELDS`] is left as it is (and stays a pattern).
fn brace_expand(toks: Vec<Tok>) -> Vec<Vec<Tok>> {
    let mut done = Vec::new();
    let mut todo = vec![toks];
    while let Some(t) = todo.pop() {
        match expand_first(&t) {
            Some(parts) => {
                if done.len() + todo.len() + parts.len() > MAX_FIELDS {
                    return vec![t];
                }
                // Keep the order bash gives: the first alternative first.
                todo.extend(parts.into_iter().rev());
            }
            None => done.push(t),
        }
        if done.len() > MAX_FIELDS {
            break;
        }
    }
    done
}

/// The words the first brace expression makes, or `None` when there is none.
fn expand_first<'t>(toks: &[Tok<'t>]) -> Option<Vec<Vec<Tok<'t>>>> {
    let bare = |i: usize, c: char| matches!(toks.get(i), Some(Tok::Bare(x)) if *x == c);
    for open in 0..toks.len() {
        if !bare(open, '{') || (open > 0 && bare(open - 1, '$')) {
            continue;
        }
        // The matching `}`, and the top-level commas.
        let mut depth = 0usize;
        let mut commas = Vec::new();
        let mut close = None;
        for i in open + 1..toks.len() {
            if bare(i, '{') {
                depth += 1;
            } else if bare(i, '}') {
                if depth == 0 {
                    close = Some(i);
                    break;
                }
                depth -= 1;
            } else if bare(i, ',') && depth == 0 {
                commas.push(i);
            }
        }
        let Some(close) = close else { continue };
        let (prefix, suffix) = (&toks[..open], &toks[close + 1..]);
        let make = |middle: &[Tok<'t>]| -> Vec<Tok<'t>> {
            let mut w = prefix.to_vec();
            w.extend_from_slice(middle);
            w.extend_from_slice(suffix);
            w
        };
        if !commas.is_empty() {
            let mut bounds = vec![open];
            bounds.extend(&commas);
            bounds.push(close);
            return Some(
                bounds
                    .windows(2)
                    .map(|w| make(&toks[w[0] + 1..w[1]]))
                    .collect(),
            );
        }
        // A sequence: `{1..5}`, `{a..e}`.
        let inner: Option<String> = toks[open + 1..close]
            .iter()
            .map(|t| match t {
                Tok::Bare(c) => Some(*c),
                _ => None,
            })
            .collect();
        if let Some(items) = inner.as_deref().and_then(sequence) {
            return Some(
                items
                    .into_iter()
                    .map(|item| make(&item.chars().map(Tok::Quoted).collect::<Vec<_>>()))
                    .collect(),
            );
        }
    }
    None
}

/// The items of a brace sequence `a..b` (numbers or single letters), when few.
fn sequence(inner: &str) -> Option<Vec<String>> {
    let (a, b) = inner.split_once("..")?;
    let b = b.split("..").next()?;
    if let (Ok(x), Ok(y)) = (a.parse::<i64>(), b.parse::<i64>()) {
        let n = x.abs_diff(y) + 1;
        if n as usize > MAX_FIELDS {
            return None;
        }
        let step = if y >= x { 1 } else { -1 };
        return Some((0..n as i64).map(|k| (x + k * step).to_string()).collect());
    }
    let (mut ca, mut cb) = (a.chars(), b.chars());
    let (Some(x), None, Some(y), None) = (ca.next(), ca.next(), cb.next(), cb.next()) else {
        return None;
    };
    let (lo, hi) = (x.min(y), x.max(y));
    let items: Vec<String> = (lo..=hi).map(String::from).collect();
    (items.len() <= MAX_FIELDS).then_some(items)
}

/// Builds the word from its tokens.
fn resolve_tokens<'s>(toks: &[Tok], range: Range<usize>, src: &'s str, env: &Env) -> Word<'s> {
    let raw = src.get(range.clone()).unwrap_or("");
    let mut b = Builder::default();
    let mut i = tilde(toks, env, &mut b);
    // `NAME=~/x` as an argument: bash expands the tilde after `=` too.
    let assignment_like = is_assignment_prefix(toks);
    while i < toks.len() {
        // A wildcard at the start of a name matches a leading `.` under `dotglob`.
        let leads = i == 0 || matches!(toks[i - 1], Tok::Bare('/') | Tok::Quoted('/'));
        match &toks[i] {
            Tok::Bare('*')
                if env.globs.globstar
                    && leads
                    && matches!(toks.get(i + 1), Some(Tok::Bare('*')))
                    && matches!(toks.get(i + 2), None | Some(Tok::Bare('/'))) =>
            {
                // Any depth of directories below where it is, never `..`; hidden ones too
                // under `dotglob`, which a listing's names are not taken to be.
                b.piece(if env.globs.dotglob {
                    Piece::Opaque
                } else {
                    Piece::Below
                });
                i += 2;
            }
            Tok::Bare('*') | Tok::Bare('?') => {
                b.glob_at(&toks[i..=i], leads && env.globs.dotglob);
                i += 1;
            }
            Tok::Bare('[') => match class_end(toks, i) {
                Some(end) => {
                    b.glob_at(&toks[i..=end], leads && env.globs.dotglob);
                    i = end + 1;
                }
                None => {
                    b.lit('[');
                    i += 1;
                }
            },
            Tok::Bare('$') => {
                let (name, used) = bare_variable(&toks[i + 1..]);
                match name {
                    Some(name) => variable(&name, false, env, &mut b),
                    None => b.lit('$'),
                }
                i += 1 + used;
            }
            Tok::Bare(c @ ('=' | ':')) if assignment_like => {
                b.lit(*c);
                i += 1;
                i += tilde(&toks[i..], env, &mut b);
            }
            Tok::Bare(c) | Tok::Quoted(c) => {
                b.lit(*c);
                i += 1;
            }
            Tok::Expand(n, quoted) => {
                expand(*n, *quoted, src, env, &mut b);
                i += 1;
            }
            Tok::Var(name) => {
                variable(name, false, env, &mut b);
                i += 1;
            }
            Tok::Unknown => {
                b.piece(Piece::Opaque);
                i += 1;
            }
        }
    }
    if env.globs.nocaseglob {
        b.fold_case();
    }
    b.finish(raw, range)
}

/// A variable name in bare text after a `$`: `NAME` or `{NAME}`, and how many tokens it took.
fn bare_variable(toks: &[Tok]) -> (Option<String>, usize) {
    let braced = matches!(toks.first(), Some(Tok::Bare('{')));
    let mut name = String::new();
    let mut i = usize::from(braced);
    while let Some(Tok::Bare(c)) = toks.get(i) {
        if c.is_ascii_alphanumeric() || *c == '_' {
            name.push(*c);
            i += 1;
        } else {
            break;
        }
    }
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) && name.len() > 1 {
        return (None, 0);
    }
    if braced {
        if !matches!(toks.get(i), Some(Tok::Bare('}'))) {
            return (None, 0);
        }
        i += 1;
    }
    (Some(name), i)
}

/// `NAME=` at the start of unquoted text.
fn is_assignment_prefix(toks: &[Tok]) -> bool {
    let mut name = String::new();
    for t in toks {
        match t {
            Tok::Bare('=') => {
                return name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
            }
            Tok::Bare(c) if c.is_ascii_alphanumeric() || *c == '_' => name.push(*c),
            _ => return false,
        }
    }
    false
}

/// The index of the `]` closing a bracket expression opened at `open`, within bare text.
fn class_end(toks: &[Tok], open: usize) -> Option<usize> {
    let mut i = open + 1;
    if matches!(toks.get(i), Some(Tok::Bare('!' | '^'))) {
        i += 1;
    }
    // A `]` right after the opening is a member.
    if matches!(toks.get(i), Some(Tok::Bare(']'))) {
        i += 1;
    }
    while let Some(t) = toks.get(i) {
        match t {
            Tok::Bare(']') => return Some(i),
            // `[:alpha:]`, `[.a.]`, `[=a=]` inside the brackets end with their own `:]`.
            Tok::Bare('[') if let Some(close) = named_class_end(toks, i) => i = close + 1,
            Tok::Bare(_) | Tok::Quoted(_) => i += 1,
            Tok::Expand(..) | Tok::Var(_) | Tok::Unknown => return None,
        }
    }
    None
}

/// Literal text in glob syntax: the characters a glob reads escaped.
fn glob_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A glob whose letters match either case: `a` is `[aA]`, `[C]` is `[Cc]`.
fn fold_glob(glob: &str) -> String {
    let mut out = String::with_capacity(glob.len() * 2);
    let mut in_class = false;
    let mut chars = glob.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.push(c);
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            c if c.is_alphabetic() && in_class => {
                let mut ahead = chars.clone();
                match (ahead.next(), ahead.next()) {
                    // A range: itself, then the same range in the other case.
                    (Some('-'), Some(hi)) if hi.is_alphabetic() => {
                        chars = ahead;
                        out.extend([c, '-', hi]);
                        let other = |x: char| {
                            if x.is_lowercase() {
                                x.to_uppercase().next().unwrap_or(x)
                            } else {
                                x.to_lowercase().next().unwrap_or(x)
                            }
                        };
                        out.extend([other(c), '-', other(hi)]);
                    }
                    _ => {
                        out.push(c);
                        out.extend(c.to_lowercase().chain(c.to_uppercase()).filter(|o| *o != c));
                    }
                }
            }
            c if c.is_alphabetic() => {
                out.push('[');
                out.push(c);
                out.extend(c.to_lowercase().chain(c.to_uppercase()).filter(|o| *o != c));
                out.push(']');
            }
            c => out.push(c),
        }
    }
    out
}

/// The index of the `]` closing a `[:name:]` (or `[.x.]`, `[=x=]`) that opens at `open`.
fn named_class_end(toks: &[Tok], open: usize) -> Option<usize> {
    let Some(Tok::Bare(kind @ (':' | '.' | '='))) = toks.get(open + 1) else {
        return None;
    };
    // Class names are short (`alpha`, `xdigit`): the search stops soon, so a word of
    // unclosed `[:` costs in proportion to its length.
    let end = toks.len().saturating_sub(1).min(open + 2 + 16);
    (open + 2..end).find_map(|j| {
        let closes =
            matches!(toks[j], Tok::Bare(k) if k == *kind) && matches!(toks[j + 1], Tok::Bare(']'));
        closes.then_some(j + 1)
    })
}

/// A tilde prefix at the start of `toks`: `~`, `~/…`, `~NAME`, `~+` (the directory), `~-`
/// (the one before). Returns how many tokens it used.
fn tilde(toks: &[Tok], env: &Env, b: &mut Builder) -> usize {
    if !matches!(toks.first(), Some(Tok::Bare('~'))) {
        return 0;
    }
    let mut name = String::new();
    let mut n = 1;
    while let Some(Tok::Bare(c)) = toks.get(n) {
        if *c == '/' || *c == ':' {
            break;
        }
        name.push(*c);
        n += 1;
    }
    // Only unquoted characters make the prefix; `~"x"` is no tilde prefix.
    if matches!(
        toks.get(n),
        Some(Tok::Quoted(_) | Tok::Expand(..) | Tok::Var(_) | Tok::Unknown)
    ) {
        return 0;
    }
    let valid = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    match name.as_str() {
        "" => match env.home.filter(|h| h.starts_with('/')) {
            Some(home) => b.lit_str(home),
            None => b.piece(Piece::Home),
        },
        "+" => match env.cwd {
            Some(cwd) => b.lit_str(cwd),
            None => b.piece(Piece::Opaque),
        },
        "-" => match env.oldpwd {
            Some(old) => b.lit_str(old),
            None => b.piece(Piece::Opaque),
        },
        "root" => b.lit_str("/root"),
        other if other.chars().all(valid) => b.lit_str(&format!("/home/{other}")),
        _ => return 0,
    }
    b.dynamic_if_unknown();
    n
}

/// A parameter expansion, command substitution or arithmetic, by what the line knows.
fn expand(node: Node, quoted: bool, src: &str, env: &Env, b: &mut Builder) {
    match kind(node) {
        "simple_expansion" | "expansion" => {
            if let Some(name) = expansion_name_of_text(node, src) {
                variable(name, quoted, env, b);
            } else if let Some(name) = array_name(node, src) {
                b.alternatives(var_alts(name, env));
            } else if let Some(alts) = trimmed(node, src, env) {
                b.alternatives(alts);
            } else if let Some((name, default)) = default_value(node, src, env) {
                // `${X:-/tmp}`: the value, or the default.
                let mut alts = var_alts(name, env);
                alts.extend(default);
                b.alternatives(alts);
            } else if indirect_value(node, src) {
                // `${!v}`: the value of a variable named at run time, any credential included.
                b.piece(Piece::Secret(Secret::Credential));
            } else {
                b.piece(Piece::Opaque);
            }
        }
        "command_substitution" => match (env.printed)(node, src, env) {
            Some(alts) => b.alternatives(alts),
            None => b.piece(Piece::Opaque),
        },
        "arithmetic_expansion" => b.piece(Piece::Name),
        // `<(…)` is a pipe's name, `/dev/fd/N`.
        // What flows through the pipe follows its name when it is secret, so that what reads
        // the pipe is seen to read a secret.
        "process_substitution" => {
            b.piece(Piece::Lit("/dev/fd/63".to_owned()));
            if let Some(secret) = (env.printed)(node, src, env).as_deref().and_then(in_alts) {
                b.piece(Piece::Secret(secret));
            }
            b.dynamic = true;
        }
        _ => b.piece(Piece::Opaque),
    }
}

/// `${!NAME}`, `${!NAME[N]}`: the value of the variable whose name `NAME` holds. (`${!P@}`
/// and `${!A[@]}` expand to names and indices, not values.)
fn indirect_value(node: Node, src: &str) -> bool {
    let Some(inner) = text(node, src)
        .strip_prefix("${!")
        .and_then(|r| r.strip_suffix('}'))
    else {
        return false;
    };
    let name_end = inner
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(inner.len());
    let rest = &inner[name_end..];
    name_end > 0 && !rest.ends_with("@]") && !rest.ends_with("*]") && !matches!(rest, "@" | "*")
}

/// The variable of a plain `$X`, `${X}`, `$1`, `$$`.
fn expansion_name_of_text<'s>(node: Node, src: &'s str) -> Option<&'s str> {
    let t = text(node, src);
    let inner = t
        .strip_prefix("${")
        .and_then(|r| r.strip_suffix('}'))
        .or_else(|| t.strip_prefix('$'))?;
    let valid = !inner.is_empty()
        && (inner.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            || matches!(inner, "$" | "?" | "!" | "#" | "@" | "*" | "-"));
    valid.then_some(inner)
}

/// `${NAME:?msg}` is the value (or an error); `${NAME%pat}`, `${NAME#pat}` and their doubled
/// forms cut a literal suffix or prefix off a literal value.
fn trimmed(node: Node, src: &str, env: &Env) -> Option<Alts> {
    let inner = text(node, src).strip_prefix("${")?.strip_suffix('}')?;
    let at = inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    let (name, rest) = inner.split_at(at);
    if name.is_empty() {
        return None;
    }
    if rest.starts_with(":?") || rest.starts_with('?') {
        return Some(var_alts(name, env));
    }
    let (op, pattern) = ["%%", "##", "%", "#"]
        .iter()
        .find_map(|op| rest.strip_prefix(op).map(|p| (*op, p)))?;
    if pattern.contains(['*', '?', '[', '$', '`', '"', '\'', '\\']) {
        return None;
    }
    let alts = var_alts(name, env);
    let [one] = alts.as_slice() else { return None };
    let [Piece::Lit(value)] = one.as_slice() else {
        return None;
    };
    let cut = match op {
        "%" | "%%" => value.strip_suffix(pattern).unwrap_or(value),
        _ => value.strip_prefix(pattern).unwrap_or(value),
    };
    Some(vec![vec![Piece::Lit(cut.to_owned())]])
}

/// `${NAME[@]}`, `${NAME[*]}`, `${NAME[N]}`: an element of an array.
fn array_name<'s>(node: Node, src: &'s str) -> Option<&'s str> {
    let inner = text(node, src).strip_prefix("${")?.strip_suffix('}')?;
    let (name, index) = inner.split_once('[')?;
    let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (valid && index.ends_with(']')).then_some(name)
}

/// `${NAME:-WORD}` or `${NAME-WORD}`: the variable, and the default's alternatives when it
/// is literal text and `$HOME`-like variables.
fn default_value<'s>(node: Node, src: &'s str, env: &Env) -> Option<(&'s str, Alts)> {
    let t = text(node, src);
    let inner = t.strip_prefix("${")?.strip_suffix('}')?;
    let at = inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    let (name, rest) = inner.split_at(at);
    let default = rest
        .strip_prefix(":-")
        .or_else(|| rest.strip_prefix('-'))
        .or_else(|| rest.strip_prefix(":="))
        .or_else(|| rest.strip_prefix('='))?;
    if name.is_empty() || default.contains(['`', '"', '\'', '\\', '{', '}', '*', '?', '[', '(']) {
        return None;
    }
    // `$NAME` at the start of the default, then literal text.
    let mut alt = Vec::new();
    let rest = match default.strip_prefix('$') {
        Some(after) => {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            let (var, rest) = after.split_at(end);
            let mut alts = var_alts(var, env);
            if alts.len() != 1 {
                return None;
            }
            alt.append(&mut alts[0]);
            rest
        }
        None => default,
    };
    if rest.contains('$') {
        return None;
    }
    match alt.last_mut() {
        Some(Piece::Lit(t)) => t.push_str(rest),
        _ => alt.push(Piece::Lit(rest.to_owned())),
    }
    Some((name, vec![alt]))
}

/// A variable's value: assigned on the line, or one the environment is known to hold.
fn variable(name: &str, quoted: bool, env: &Env, b: &mut Builder) {
    let alts = var_alts(name, env);
    match alts.as_slice() {
        [one] => {
            for piece in one {
                match piece {
                    // Unquoted, a value's glob characters glob.
                    Piece::Lit(v) if !quoted && v.contains(['*', '?', '[']) => {
                        b.piece(Piece::Glob(v.clone()));
                    }
                    p => b.piece(p.clone()),
                }
            }
        }
        _ => b.alternatives(alts),
    }
}

/// What a variable could hold, for other modules.
pub fn var_value(env: &Env, name: &str) -> Alts {
    var_alts(name, env)
}

/// What a variable could hold.
fn var_alts(name: &str, env: &Env) -> Alts {
    match env.vars.get(name) {
        Some(Var::Lit(v)) => return vec![vec![Piece::Lit(v.clone())]],
        Some(Var::Pattern(alts)) => return alts.as_ref().clone(),
        Some(Var::Unknown) => return vec![vec![Piece::Opaque]],
        None => {}
    }
    let piece = match name {
        "HOME" => match env.home.filter(|h| h.starts_with('/')) {
            Some(h) => Piece::Lit(h.to_owned()),
            None => Piece::Home,
        },
        "PWD" => match env.cwd {
            Some(c) => Piece::Lit(c.to_owned()),
            None => Piece::Opaque,
        },
        "OLDPWD" => match env.oldpwd {
            Some(c) => Piece::Lit(c.to_owned()),
            None => Piece::Opaque,
        },
        "TMPDIR" if !env.tmpdir_named => Piece::Lit("/tmp".to_owned()),
        // The user's runtime directory, `/run/user/UID`, where a user daemon's socket lies.
        "XDG_RUNTIME_DIR" => return vec![vec![Piece::Lit("/run/user/".to_owned()), Piece::Name]],
        // The gate's socket, wherever it was put: a client of it talks to the gate.
        "ASSENT_SOCKET" => Piece::Lit("/run/assent/socket".to_owned()),
        // Variables that name a place by convention: their usual value.
        _ if let Some(rest) = usual_place(name) => match env.home.filter(|h| h.starts_with('/')) {
            Some(h) => Piece::Lit(format!("{h}{rest}")),
            None => return vec![vec![Piece::Home, Piece::Lit(rest.to_owned())]],
        },
        // Names and numbers: part of one path component at most.
        "USER" | "LOGNAME" | "HOSTNAME" | "UID" | "EUID" | "PPID" | "RANDOM" | "SECONDS"
        | "LINENO" | "$" | "?" | "!" | "#" | "BASHPID" | "SHLVL" => Piece::Name,
        // A credential's name, or any variable a sourced file of secrets may have set.
        _ if let Some(secret) = secret_variable(name, env.sourced) => Piece::Secret(secret),
        _ => Piece::Opaque,
    };
    vec![vec![piece]]
}

/// Where a variable that names a place usually points, below the home.
fn usual_place(name: &str) -> Option<&'static str> {
    Some(match name {
        "XDG_CONFIG_HOME" => "/.config",
        "XDG_DATA_HOME" => "/.local/share",
        "XDG_STATE_HOME" => "/.local/state",
        "XDG_CACHE_HOME" => "/.cache",
        "GNUPGHOME" => "/.gnupg",
        "CARGO_HOME" => "/.cargo",
        "RUSTUP_HOME" => "/.rustup",
        "KUBECONFIG" => "/.kube/config",
        "AWS_SHARED_CREDENTIALS_FILE" => "/.aws/credentials",
        "AWS_CONFIG_FILE" => "/.aws/config",
        "DOCKER_CONFIG" => "/.docker",
        "CODEX_HOME" => "/.codex",
        "CLAUDE_CONFIG_DIR" => "/.claude",
        "GEMINI_CONFIG_DIR" => "/.gemini",
        "NPM_CONFIG_USERCONFIG" => "/.npmrc",
        "PASSWORD_STORE_DIR" => "/.password-store",
        "GOOGLE_APPLICATION_CREDENTIALS" => "/.config/gcloud/application_default_credentials.json",
        "CLOUDSDK_CONFIG" => "/.config/gcloud",
        "AZURE_CONFIG_DIR" => "/.azure",
        "VAULT_CONFIG_PATH" => "/.vault-token",
        "NETRC" => "/.netrc",
        "GIT_CONFIG_GLOBAL" => "/.gitconfig",
        "ZDOTDIR" => "",
        _ => return None,
    })
}

/// Collects a word's value.
#[derive(Default)]
struct Builder {
    /// The alternatives so far; empty means one empty alternative.
    alts: Vec<Vec<Piece>>,
    dynamic: bool,
    /// Characters added so far, over all alternatives.
    len: usize,
    /// Past [`MAX_WORD`]: the rest of the word is unknown.
    cut: bool,
}

/// The most characters one word is built of; past it the rest of the word is unknown.
const MAX_WORD: usize = 64 * 1024;

impl Builder {
    fn each(&mut self) -> &mut Vec<Vec<Piece>> {
        if self.alts.is_empty() {
            self.alts.push(Vec::new());
        }
        &mut self.alts
    }

    fn lit(&mut self, c: char) {
        if self.cut {
            return;
        }
        if self.len >= MAX_WORD {
            self.cut = true;
            self.piece(Piece::Opaque);
            return;
        }
        self.len += self.alts.len().max(1);
        for alt in self.each() {
            match alt.last_mut() {
                Some(Piece::Lit(t)) => t.push(c),
                _ => alt.push(Piece::Lit(c.to_string())),
            }
        }
    }

    fn lit_str(&mut self, s: &str) {
        for c in s.chars() {
            self.lit(c);
        }
    }

    fn piece(&mut self, piece: Piece) {
        if let Piece::Lit(t) = &piece {
            self.lit_str(t);
            return;
        }
        self.dynamic = true;
        for alt in self.each() {
            alt.push(piece.clone());
        }
    }

    /// Glob syntax as written; `dot`: it starts a name and may match a leading `.` too.
    fn glob_at(&mut self, toks: &[Tok], dot: bool) {
        if !dot {
            self.glob(toks);
            return;
        }
        let mut plain = Builder::default();
        plain.glob(toks);
        let glob = plain.alts.pop().unwrap_or_default();
        // `*` may also be `.*`; `?` and `[…]` may also be the `.` itself.
        let dotted = if matches!(toks, [Tok::Bare('*')]) {
            let mut d = vec![Piece::Lit(".".to_owned())];
            d.extend(glob.iter().cloned());
            d
        } else {
            vec![Piece::Lit(".".to_owned())]
        };
        self.alternatives(vec![glob, dotted]);
    }

    /// Under `nocaseglob`, the letters of a word that is a pattern match either case.
    fn fold_case(&mut self) {
        for alt in &mut self.alts {
            if !alt.iter().any(|p| matches!(p, Piece::Glob(_))) {
                continue;
            }
            for piece in alt.iter_mut() {
                let folded = match piece {
                    Piece::Lit(t) => fold_glob(&glob_escape(t)),
                    Piece::Glob(g) => fold_glob(g),
                    _ => continue,
                };
                *piece = Piece::Glob(folded);
            }
        }
    }

    /// Glob syntax as written.
    fn glob(&mut self, toks: &[Tok]) {
        let mut g = String::new();
        for t in toks {
            match t {
                Tok::Bare(c) => g.push(*c),
                Tok::Quoted(c) => {
                    if matches!(c, '*' | '?' | '[' | ']' | '\\' | '!' | '^' | '-') {
                        g.push('\\');
                    }
                    g.push(*c);
                }
                Tok::Expand(..) | Tok::Var(_) | Tok::Unknown => {}
            }
        }
        self.piece(Piece::Glob(g));
    }

    fn alternatives(&mut self, alts: Alts) {
        self.dynamic = true;
        if alts.is_empty() {
            self.piece(Piece::Opaque);
            return;
        }
        let current = std::mem::take(&mut self.alts);
        let current = if current.is_empty() {
            vec![Vec::new()]
        } else {
            current
        };
        if current.len() * alts.len() > MAX_ALTS {
            self.alts = current;
            self.piece(unknown_of(&alts));
            return;
        }
        for head in &current {
            for tail in &alts {
                let mut alt = head.clone();
                for p in tail {
                    match (alt.last_mut(), p) {
                        (Some(Piece::Lit(a)), Piece::Lit(b)) => a.push_str(b),
                        _ => alt.push(p.clone()),
                    }
                }
                self.alts.push(alt);
            }
        }
    }

    /// A tilde whose home was not known makes the word a pattern.
    fn dynamic_if_unknown(&mut self) {
        if self
            .alts
            .iter()
            .flatten()
            .any(|p| !matches!(p, Piece::Lit(_)))
        {
            self.dynamic = true;
        }
    }

    fn finish<'s>(self, raw: &'s str, span: Range<usize>) -> Word<'s> {
        let literal = match self.alts.as_slice() {
            [] => Some(String::new()),
            [one] if !self.dynamic => match one.as_slice() {
                [] => Some(String::new()),
                [Piece::Lit(t)] => Some(t.clone()),
                _ => None,
            },
            _ => None,
        };
        match literal {
            Some(text) => Word {
                text,
                raw,
                dynamic: false,
                span,
                value: None,
            },
            None => Word {
                text: raw.to_owned(),
                raw,
                dynamic: true,
                span,
                value: Some(Rc::new(self.alts)),
            },
        }
    }
}

/// What an assignment stores: `~` is expanded at the start and after `:` (bash does that in
/// assignments).
pub fn assigned_value(node: Option<Node>, src: &str, env: &Env) -> Var {
    let Some(node) = node else {
        return Var::Lit(String::new());
    };
    let mut toks = Vec::new();
    tokens(node, src, &mut toks);
    // Assignments are not brace-expanded or split; `~` after `:` expands.
    let mut b = Builder::default();
    let mut i = tilde(&toks, env, &mut b);
    while i < toks.len() {
        match &toks[i] {
            Tok::Bare(':') => {
                b.lit(':');
                i += 1;
                i += tilde(&toks[i..], env, &mut b);
            }
            Tok::Bare(c) | Tok::Quoted(c) => {
                b.lit(*c);
                i += 1;
            }
            Tok::Expand(n, _) => {
                // The value of an assignment is not split or globbed: quoted, in effect.
                expand(*n, true, src, env, &mut b);
                i += 1;
            }
            Tok::Var(name) => {
                variable(name, true, env, &mut b);
                i += 1;
            }
            Tok::Unknown => {
                b.piece(Piece::Opaque);
                i += 1;
            }
        }
    }
    let word = b.finish(text(node, src), node.byte_range());
    match (word.literal(), &word.value) {
        (Some(t), _) => Var::Lit(t.to_owned()),
        (None, Some(alts)) if alts.iter().flatten().any(|p| !matches!(p, Piece::Opaque)) => {
            Var::Pattern(Rc::clone(alts))
        }
        _ => Var::Unknown,
    }
}

/// `t` without `front` leading and `back` trailing bytes, or empty if too short.
fn strip(t: &str, front: usize, back: usize) -> &str {
    t.get(front..t.len().saturating_sub(back)).unwrap_or("")
}

/// Backslash inside double quotes escapes only `$`, `` ` ``, `"`, `\` and newline.
fn dq_unescape(t: &str, out: &mut String) {
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some(&n @ ('$' | '`' | '"' | '\\')) => {
                    out.push(n);
                    chars.next();
                    continue;
                }
                Some('\n') => {
                    chars.next();
                    continue;
                }
                _ => {}
            }
        }
        out.push(c);
    }
}

/// `/bin/rm` → `rm`: the program is judged by its name wherever it lives.
pub fn basename(name: &str) -> &str {
    match name.rsplit_once('/') {
        Some((_, base)) if !base.is_empty() => base,
        _ => name,
    }
}

/// `NAME=value` with a valid shell name.
pub fn is_assignment(t: &str) -> bool {
    match t.split_once('=') {
        Some((name, _)) => {
            name.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

#[cfg(test)]
mod tests;
