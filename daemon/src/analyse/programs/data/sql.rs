//! A reader of SQL text, as the servers and their command-line clients read it: comments out
//! (`--`, `/* */`, MySQL's `#`; MySQL's `/*! … */` is code and kept), strings and quoted
//! identifiers as single tokens that neither hide nor fake keywords, statements split at `;`
//! outside them, and the clients' own commands (`\!` of psql, `.shell` of sqlite3) apart.
//!
//! A text is read once per way a server could read it (backslash escapes in strings on and
//! off: both are a setting away) and the worst reading counts. Each statement, and each
//! statement nested in parentheses (a data-modifying `WITH`), is judged by its first keyword;
//! `DELETE` and `UPDATE` need a `WHERE` that is not always true (`1=1`, `true`, `id = id`,
//! `… OR 1=1`). Reading is linear in the text: one pass to tokens per reading, one over them.
//!
//! This module says what the text does; the programs' models (`data`) say what it costs.

use super::super::super::catalogue::{self, Said};

/// How a server or client reads text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dialect {
    /// `#` starts a comment (MySQL).
    pub hash_comment: bool,
    /// `--` starts a comment only before a space or a control character (MySQL).
    pub dash_needs_space: bool,
    /// `$tag$ … $tag$` quotes (PostgreSQL).
    pub dollar: bool,
    /// `/*! … */` holds code (MySQL).
    pub exec_comment: bool,
    /// The client's own commands.
    pub meta: Meta,
}

/// How a client marks its own commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meta {
    None,
    /// `\cmd args` to the end of the line (psql, mysql).
    Backslash,
    /// `.cmd args` at the start of a line (sqlite3, duckdb).
    Dot,
}

pub const POSTGRES: Dialect = Dialect {
    hash_comment: false,
    dash_needs_space: false,
    dollar: true,
    exec_comment: false,
    meta: Meta::Backslash,
};

pub const MYSQL: Dialect = Dialect {
    hash_comment: true,
    dash_needs_space: true,
    dollar: false,
    exec_comment: true,
    meta: Meta::Backslash,
};

pub const SQLITE: Dialect = Dialect {
    hash_comment: false,
    dash_needs_space: false,
    dollar: false,
    exec_comment: false,
    meta: Meta::Dot,
};

/// What a SQL text does besides its statements: the client's own commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Act {
    /// Runs this text as a shell command line.
    Shell(String),
    /// Writes this file.
    Writes(String),
    /// Reads this file.
    Reads(String),
}

/// What a text does at worst.
#[derive(Debug, Default)]
pub struct Reading {
    /// The costliest statement: its kind and opening words.
    pub worst: Option<(Said, String)>,
    /// Code that runs and cannot be read here (`\gexec`, `.load`, dynamic SQL in `DO`).
    pub unread: Option<String>,
    pub acts: Vec<Act>,
    /// Tokens of conditions still to evaluate: past it a condition counts as always true.
    budget: usize,
}

impl Reading {
    fn said(&mut self, kind: Said, detail: String) {
        if self
            .worst
            .as_ref()
            .is_none_or(|(w, _)| cost(kind) > cost(*w))
        {
            self.worst = Some((kind, detail));
        }
    }

    fn merge(&mut self, other: Reading) {
        if let Some((kind, detail)) = other.worst {
            self.said(kind, detail);
        }
        if self.unread.is_none() {
            self.unread = other.unread;
        }
        for act in other.acts {
            if !self.acts.contains(&act) {
                self.acts.push(act);
            }
        }
    }
}

fn cost(said: Said) -> assent_client::protocol::Level {
    super::super::super::effects::level(said.effect, said.place)
}

/// Reads `text` in each of `dialects`, with and without backslash escapes in strings.
pub fn read(text: &str, dialects: &[Dialect]) -> Reading {
    let mut out = Reading::default();
    for d in dialects {
        for backslash in [false, true] {
            out.merge(read_one(text, *d, backslash, 0));
        }
    }
    out
}

/// SQL kept in a `DO` body is read once more, not deeper.
const MAX_NESTING: u32 = 1;

fn read_one(text: &str, d: Dialect, backslash: bool, nesting: u32) -> Reading {
    let tokens = lex(text, d, backslash);
    let mut out = Reading {
        budget: 4 * tokens.len() + 256,
        ..Reading::default()
    };
    let mut start = 0;
    for (i, t) in tokens.iter().enumerate() {
        match t.kind {
            Kind::Semi => {
                statement(&tokens[start..i], text, d, nesting, &mut out);
                start = i + 1;
            }
            Kind::Meta => {
                statement(&tokens[start..i], text, d, nesting, &mut out);
                meta(t, text, d, &mut out);
                start = i + 1;
            }
            _ => {}
        }
    }
    statement(&tokens[start..], text, d, nesting, &mut out);
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Word,
    Num,
    Str,
    /// A string in `$tag$` quotes: PostgreSQL's function and `DO` bodies.
    Dollar,
    Ident,
    Op,
    Open,
    Close,
    Semi,
    /// A client command: `text` is its name, `rest` its arguments to the end of the line.
    Meta,
}

#[derive(Debug, Clone)]
struct Token {
    kind: Kind,
    /// The token's text (a string's or identifier's contents without quotes).
    text: std::ops::Range<usize>,
    /// Where it is in the input, quotes included.
    span: std::ops::Range<usize>,
    rest: std::ops::Range<usize>,
}

fn lex(text: &str, d: Dialect, backslash: bool) -> Vec<Token> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    let mut in_exec = false;
    let tok = |kind, text: std::ops::Range<usize>, span| Token {
        kind,
        text,
        span,
        rest: 0..0,
    };
    while i < b.len() {
        let c = b[i];
        let at_line_start = line_start;
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        line_start = false;
        let next = b.get(i + 1).copied();
        // Comments.
        if c == b'-' && next == Some(b'-') {
            let after = b.get(i + 2).copied();
            if !d.dash_needs_space || after.is_none_or(|a| a.is_ascii_whitespace() || a < 0x20) {
                i = line_end(b, i);
                continue;
            }
        }
        if c == b'#' && d.hash_comment {
            i = line_end(b, i);
            continue;
        }
        if c == b'/' && next == Some(b'*') {
            if d.exec_comment && b.get(i + 2) == Some(&b'!') {
                // `/*!50000 code */`: the code runs.
                i += 3;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                in_exec = true;
                continue;
            }
            i = match find(b, i + 2, b"*/") {
                Some(end) => end + 2,
                None => b.len(),
            };
            continue;
        }
        if c == b'*' && next == Some(b'/') && in_exec {
            in_exec = false;
            i += 2;
            continue;
        }
        // Client commands.
        if c == b'\\' && d.meta == Meta::Backslash {
            let name_start = i + 1;
            let mut j = name_start;
            if b.get(j).is_some_and(u8::is_ascii_alphabetic) {
                while b
                    .get(j)
                    .is_some_and(|x| x.is_ascii_alphanumeric() || *x == b'_' || *x == b'+')
                {
                    j += 1;
                }
            } else if j < b.len() {
                j += utf8_len(b[j]);
            }
            let end = line_end(b, j);
            out.push(Token {
                kind: Kind::Meta,
                text: name_start..j.min(b.len()),
                span: i..end,
                rest: j.min(end)..end,
            });
            i = end;
            continue;
        }
        if c == b'.'
            && d.meta == Meta::Dot
            && at_line_start
            && next.is_some_and(|n| n.is_ascii_alphabetic())
        {
            let mut j = i + 1;
            while b
                .get(j)
                .is_some_and(|x| x.is_ascii_alphanumeric() || *x == b'_')
            {
                j += 1;
            }
            let end = line_end(b, j);
            out.push(Token {
                kind: Kind::Meta,
                text: i + 1..j,
                span: i..end,
                rest: j..end,
            });
            i = end;
            continue;
        }
        // Strings and quoted identifiers.
        if c == b'\'' || c == b'"' || c == b'`' {
            // `E'…'` always has escapes.
            let escapes = backslash
                || (c == b'\''
                    && i > 0
                    && matches!(b[i - 1], b'e' | b'E')
                    && out
                        .last()
                        .is_some_and(|t: &Token| t.span.end == i && t.span.len() == 1));
            let (inner, end) = quoted(b, i + 1, c, escapes && c != b'`');
            let kind = if c == b'\'' { Kind::Str } else { Kind::Ident };
            out.push(tok(kind, i + 1..inner, i..end));
            i = end;
            continue;
        }
        if c == b'$'
            && d.dollar
            && let Some((tag_end, body_end, end)) = dollar(b, i)
        {
            out.push(tok(Kind::Dollar, tag_end..body_end, i..end));
            i = end;
            continue;
        }
        if c == b';' {
            out.push(tok(Kind::Semi, i..i + 1, i..i + 1));
            i += 1;
            continue;
        }
        if c == b'(' || c == b')' {
            let kind = if c == b'(' { Kind::Open } else { Kind::Close };
            out.push(tok(kind, i..i + 1, i..i + 1));
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && next.is_some_and(|n| n.is_ascii_digit())) {
            let mut j = i + 1;
            while b
                .get(j)
                .is_some_and(|x| x.is_ascii_alphanumeric() || *x == b'.' || *x == b'_')
            {
                j += 1;
            }
            out.push(tok(Kind::Num, i..j, i..j));
            i = j;
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            let mut j = i;
            while b.get(j).is_some_and(|x| {
                x.is_ascii_alphanumeric() || *x == b'_' || *x == b'$' || *x >= 0x80
            }) {
                j += 1;
            }
            out.push(tok(Kind::Word, i..j, i..j));
            i = j;
            continue;
        }
        // Operators: the comparison and logic ones are read whole.
        let three = b.get(i..i + 3);
        let two = b.get(i..i + 2);
        let len = if three == Some(b"<=>") {
            3
        } else if two.is_some_and(|t| {
            matches!(
                t,
                b"<>" | b"!=" | b"<=" | b">=" | b"==" | b"||" | b"&&" | b"::"
            )
        }) {
            2
        } else {
            utf8_len(c)
        };
        let end = (i + len).min(b.len());
        out.push(tok(Kind::Op, i..end, i..end));
        i = end;
    }
    out
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

fn line_end(b: &[u8], from: usize) -> usize {
    b[from.min(b.len())..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| from + p)
}

fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

/// Where the contents of a quoted run starting at `from` end, and where the run ends (after
/// the closing quote); a doubled quote stands for itself, and with `escapes` a backslash
/// takes the next character.
fn quoted(b: &[u8], mut from: usize, quote: u8, escapes: bool) -> (usize, usize) {
    while from < b.len() {
        let c = b[from];
        if escapes && c == b'\\' {
            from += 1 + b.get(from + 1).map_or(0, |n| utf8_len(*n));
            continue;
        }
        if c == quote {
            if b.get(from + 1) == Some(&quote) {
                from += 2;
                continue;
            }
            return (from, from + 1);
        }
        from += 1;
    }
    (b.len(), b.len())
}

/// `$tag$ body $tag$` at `at`: where the body starts and ends, and the end.
fn dollar(b: &[u8], at: usize) -> Option<(usize, usize, usize)> {
    let mut j = at + 1;
    while b
        .get(j)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    {
        j += 1;
    }
    // `$1` is a parameter, not a quote.
    if b.get(j) != Some(&b'$') || b.get(at + 1).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let tag = &b[at..=j];
    let body = j + 1;
    match find(b, body, tag) {
        Some(close) => Some((body, close, close + tag.len())),
        None => Some((body, b.len(), b.len())),
    }
}

fn word_is(t: &Token, text: &str, w: &str) -> bool {
    t.kind == Kind::Word && text[t.text.clone()].eq_ignore_ascii_case(w)
}

/// What a statement is, by its first keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stmt {
    Read,
    Write,
    Drop,
    Alter,
    Delete,
    Update,
    Do,
    /// `WITH …`, `EXPLAIN ANALYZE`, `PREPARE … AS`: the statement is a later keyword.
    Pending,
    /// Not a statement (an expression in parentheses), or one explained without running.
    Skip,
}

fn classify(word: &str) -> Stmt {
    match word.to_ascii_lowercase().as_str() {
        "drop" | "truncate" => Stmt::Drop,
        "alter" => Stmt::Alter,
        "delete" => Stmt::Delete,
        "update" => Stmt::Update,
        "do" => Stmt::Do,
        "with" | "prepare" => Stmt::Pending,
        "select" | "show" | "describe" | "desc" | "values" | "table" | "pragma" | "begin"
        | "start" | "commit" | "end" | "rollback" | "savepoint" | "release" | "use" | "fetch"
        | "declare" | "close" | "listen" | "unlisten" | "discard" | "help" | "abort" => Stmt::Read,
        _ => Stmt::Write,
    }
}

/// Keywords that may be a statement when they open a parenthesis.
const NESTED: &[&str] = &[
    "delete", "update", "insert", "drop", "truncate", "alter", "merge", "with",
];

/// Keywords that end a `WHERE` clause at its depth.
const AFTER_WHERE: &[&str] = &[
    "returning",
    "order",
    "limit",
    "group",
    "having",
    "window",
    "offset",
    "fetch",
    "for",
    "union",
    "except",
    "intersect",
];

/// One frame per statement being read: the outer one, and one per parenthesis.
struct Frame {
    stmt: Stmt,
    /// Index of its first token.
    first: usize,
    /// Tokens of its `WHERE` clause, once seen.
    cond: Option<(usize, Option<usize>)>,
    /// `ALTER … DROP`, `SELECT … INTO`.
    marked: bool,
}

fn statement(tokens: &[Token], text: &str, d: Dialect, nesting: u32, out: &mut Reading) {
    let Some(first) = tokens.first() else { return };
    // mysql's own commands, written as words at the start of a statement.
    if d == MYSQL || d.hash_comment {
        let name = &text[first.text.clone()];
        let rest = || {
            tokens
                .get(1)
                .zip(tokens.last())
                .map_or(String::new(), |(a, z)| {
                    text[a.span.start..z.span.end].to_owned()
                })
        };
        if first.kind == Kind::Word {
            match name.to_ascii_lowercase().as_str() {
                "system" | "pager" => return out.acts.push(Act::Shell(rest())),
                "tee" => return out.acts.push(Act::Writes(unquote(&rest()))),
                "source" => {
                    return out.said(catalogue::DATA_WRITE, "SQL read from a file".to_owned());
                }
                _ => {}
            }
        }
    }
    let lower = |t: &Token| text[t.text.clone()].to_ascii_lowercase();
    // `COPY … TO PROGRAM 'cmd'`, `COPY … FROM PROGRAM 'cmd'`: the server runs cmd in a shell.
    if first.kind == Kind::Word && lower(first) == "copy" {
        for pair in tokens.windows(2) {
            if pair[0].kind == Kind::Word && lower(&pair[0]) == "program" {
                let command = unquote(&text[pair[1].text.clone()]);
                out.acts.push(Act::Shell(command));
            }
        }
    }
    // `PREPARE s FROM @q`: a statement built at run time.
    if first.kind == Kind::Word && lower(first) == "prepare" {
        let from = tokens
            .iter()
            .position(|t| t.kind == Kind::Word && lower(t) == "from");
        if let Some(source) = from.and_then(|f| tokens.get(f + 1))
            && text[source.text.clone()].starts_with('@')
            && out.unread.is_none()
        {
            out.unread = Some("a statement prepared from a variable".to_owned());
        }
    }
    // In a procedural body (`DO $$ … $$`) statements sit among `BEGIN`, `IF … THEN`, `LOOP`:
    // the first statement keyword is the statement.
    let outer = if nesting > 0 && !named(&text[first.text.clone()].to_ascii_lowercase()) {
        Stmt::Pending
    } else {
        start_of(tokens, 0, text, true)
    };
    let mut frames: Vec<Frame> = vec![Frame {
        stmt: outer,
        first: 0,
        cond: None,
        marked: false,
    }];
    for (i, t) in tokens.iter().enumerate() {
        match t.kind {
            Kind::Open => {
                frames.push(Frame {
                    stmt: start_of(tokens, i + 1, text, false),
                    first: i + 1,
                    cond: None,
                    marked: false,
                });
                continue;
            }
            Kind::Close => {
                if frames.len() > 1
                    && let Some(f) = frames.pop()
                {
                    judge(&f, &tokens[..i], text, d, nesting, out);
                }
                continue;
            }
            _ => {}
        }
        let Some(f) = frames.last_mut() else { continue };
        if i == f.first || t.kind != Kind::Word {
            continue;
        }
        let w = text[t.text.clone()].to_ascii_lowercase();
        match f.stmt {
            Stmt::Pending => {
                let explain = word_is(&tokens[f.first], text, "explain");
                if !explain || w != "analyze" {
                    let s = classify(&w);
                    if named(&w) {
                        f.stmt = s;
                        f.first = i;
                    }
                }
            }
            Stmt::Alter if matches!(w.as_str(), "drop" | "truncate" | "discard") => f.marked = true,
            Stmt::Read if w == "into" && word_is(&tokens[f.first], text, "select") => {
                f.marked = true;
            }
            Stmt::Delete | Stmt::Update => match &mut f.cond {
                None if w == "where" => f.cond = Some((i + 1, None)),
                Some((_, end @ None)) if AFTER_WHERE.contains(&w.as_str()) => *end = Some(i),
                _ => {}
            },
            _ => {}
        }
    }
    while let Some(f) = frames.pop() {
        judge(&f, tokens, text, d, nesting, out);
    }
}

/// Keywords that open a statement wherever they stand after `WITH`, `EXPLAIN ANALYZE` or in a
/// procedural body.
fn named(w: &str) -> bool {
    matches!(
        w,
        "select"
            | "insert"
            | "update"
            | "delete"
            | "merge"
            | "replace"
            | "values"
            | "table"
            | "drop"
            | "truncate"
            | "alter"
            | "create"
            | "upsert"
    )
}

/// What the statement starting at `at` is. `outer`: the statement itself, not a parenthesis.
fn start_of(tokens: &[Token], at: usize, text: &str, outer: bool) -> Stmt {
    let Some(t) = tokens.get(at) else {
        return Stmt::Skip;
    };
    if t.kind != Kind::Word {
        return if outer { Stmt::Write } else { Stmt::Skip };
    }
    let w = text[t.text.clone()].to_ascii_lowercase();
    if w == "explain" {
        // `EXPLAIN ANALYZE` (or `EXPLAIN (ANALYZE)`) runs the statement.
        let runs = tokens
            .iter()
            .skip(at + 1)
            .take(6)
            .any(|t| word_is(t, text, "analyze") || word_is(t, text, "analyse"));
        return if runs { Stmt::Pending } else { Stmt::Skip };
    }
    if !outer && !NESTED.contains(&w.as_str()) {
        return Stmt::Skip;
    }
    classify(&w)
}

fn judge(f: &Frame, tokens: &[Token], text: &str, d: Dialect, nesting: u32, out: &mut Reading) {
    let opening = || opening(&tokens[f.first.min(tokens.len())..], text);
    let kind = match f.stmt {
        Stmt::Read if f.marked => catalogue::DATA_WRITE,
        Stmt::Read | Stmt::Skip | Stmt::Pending => return,
        Stmt::Write => catalogue::DATA_WRITE,
        Stmt::Drop => catalogue::DATA_DROP,
        Stmt::Alter if f.marked => catalogue::DATA_DROP,
        Stmt::Alter => catalogue::DATA_WRITE,
        Stmt::Delete | Stmt::Update => {
            let cond = f.cond.map(|(start, end)| {
                let end = end.unwrap_or(tokens.len()).min(tokens.len());
                &tokens[start.min(end)..end]
            });
            let everything = match cond {
                None => true,
                // Past what is evaluated, a condition is taken at its worst.
                Some(c) if out.budget < c.len() => true,
                Some(c) => {
                    out.budget -= c.len();
                    always_true(c, text)
                }
            };
            match (f.stmt, everything) {
                (Stmt::Delete, true) => catalogue::DATA_DELETE_ALL,
                (Stmt::Update, true) => catalogue::DATA_UPDATE_ALL,
                _ => catalogue::DATA_WRITE,
            }
        }
        Stmt::Do => {
            let body = tokens[f.first..]
                .iter()
                .find(|t| matches!(t.kind, Kind::Dollar | Kind::Str));
            match body {
                Some(b) if nesting < MAX_NESTING => {
                    let code = &text[b.text.clone()];
                    let inner = read_one(
                        code,
                        Dialect {
                            meta: Meta::None,
                            ..d
                        },
                        false,
                        nesting + 1,
                    );
                    let dynamic = lex(code, d, false)
                        .iter()
                        .any(|t| word_is(t, code, "execute"));
                    if dynamic && out.unread.is_none() {
                        out.unread = Some(format!("the `DO` block {}", opening()));
                    }
                    out.merge(inner);
                    catalogue::DATA_WRITE
                }
                _ => {
                    if out.unread.is_none() {
                        out.unread = Some(format!("the `DO` block {}", opening()));
                    }
                    return;
                }
            }
        }
    };
    out.said(kind, opening());
}

/// The first three tokens as written, in backquotes.
fn opening(tokens: &[Token], text: &str) -> String {
    let (Some(first), Some(last)) = (tokens.first(), tokens.get(2).or(tokens.last())) else {
        return String::new();
    };
    let shown: String = text[first.span.start..last.span.end.max(first.span.start)]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let shown: String = shown.chars().take(80).collect();
    format!("`{shown}`")
}

/// Splits `tokens` at the top-level words or operators in `seps`.
fn split<'t>(tokens: &'t [Token], text: &str, seps: &[&str]) -> Vec<&'t [Token]> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, t) in tokens.iter().enumerate() {
        match t.kind {
            Kind::Open => depth += 1,
            Kind::Close => depth = depth.saturating_sub(1),
            Kind::Word | Kind::Op if depth == 0 => {
                let s = &text[t.text.clone()];
                if seps.iter().any(|sep| s.eq_ignore_ascii_case(sep)) {
                    parts.push(&tokens[start..i]);
                    start = i + 1;
                }
            }
            _ => {}
        }
    }
    parts.push(&tokens[start..]);
    parts
}

/// Whether one pair of parentheses encloses all of `tokens`.
fn unwrap(tokens: &[Token]) -> &[Token] {
    let mut t = tokens;
    let mut layers = 0;
    while layers < MAX_TRUTH_DEPTH
        && t.len() >= 2
        && t[0].kind == Kind::Open
        && t[t.len() - 1].kind == Kind::Close
    {
        let mut depth = 0usize;
        let closes_at_end = t.iter().enumerate().all(|(i, x)| {
            match x.kind {
                Kind::Open => depth += 1,
                Kind::Close => depth = depth.saturating_sub(1),
                _ => {}
            }
            depth > 0 || i == t.len() - 1
        });
        if !closes_at_end {
            break;
        }
        t = &t[1..t.len() - 1];
        layers += 1;
    }
    t
}

/// Whether a condition holds for every row: a disjunction with a true part, a conjunction of
/// true parts, a true constant, constants that compare true, an expression compared with
/// itself.
fn always_true(tokens: &[Token], text: &str) -> bool {
    truth(tokens, text, 0) == Some(true)
}

/// Conditions nested deeper than this are not evaluated.
const MAX_TRUTH_DEPTH: u32 = 8;

/// What a condition is for every row, when that is known.
fn truth(tokens: &[Token], text: &str, depth: u32) -> Option<bool> {
    if depth > MAX_TRUTH_DEPTH {
        return None;
    }
    let tokens = unwrap(tokens);
    let ors = split(tokens, text, &["or", "||"]);
    if ors.len() > 1 {
        let parts: Vec<Option<bool>> = ors.iter().map(|p| truth(p, text, depth + 1)).collect();
        if parts.contains(&Some(true)) {
            return Some(true);
        }
        return parts.iter().all(|p| *p == Some(false)).then_some(false);
    }
    let ands = split(tokens, text, &["and", "&&"]);
    if ands.len() > 1 {
        let parts: Vec<Option<bool>> = ands.iter().map(|p| truth(p, text, depth + 1)).collect();
        if parts.contains(&Some(false)) {
            return Some(false);
        }
        return parts.iter().all(|p| *p == Some(true)).then_some(true);
    }
    if let Some((not, rest)) = tokens.split_first()
        && word_is(not, text, "not")
    {
        return truth(rest, text, depth + 1).map(|t| !t);
    }
    if let [one] = tokens {
        return constant(one, text).map(|c| c.truthy());
    }
    if every_row(tokens, text) {
        return Some(true);
    }
    // A comparison at the top level.
    let mut level = 0usize;
    let op = tokens.iter().position(|t| {
        match t.kind {
            Kind::Open => level += 1,
            Kind::Close => level = level.saturating_sub(1),
            _ => {}
        }
        level == 0
            && (matches!(t.kind, Kind::Op)
                && matches!(
                    &text[t.text.clone()],
                    "=" | "==" | "<=>" | "!=" | "<>" | "<" | ">" | "<=" | ">="
                )
                || word_is(t, text, "like")
                || word_is(t, text, "is"))
    })?;
    let (left, right) = (unwrap(&tokens[..op]), unwrap(&tokens[op + 1..]));
    let op = text[tokens[op].text.clone()].to_ascii_lowercase();
    if let ([l], [r]) = (left, right)
        && let (Some(l), Some(r)) = (constant(l, text), constant(r, text))
    {
        return l.compare(&r, &op);
    }
    let same = !left.is_empty()
        && left.len() == right.len()
        && left.iter().zip(right).all(|(a, b)| {
            a.kind == b.kind && text[a.text.clone()].eq_ignore_ascii_case(&text[b.text.clone()])
        })
        // A function may give another value each time (`random() = random()`).
        && !left.iter().any(|t| t.kind == Kind::Open);
    (same
        && matches!(
            op.as_str(),
            "=" | "==" | "<=>" | "<=" | ">=" | "like" | "is"
        ))
    .then_some(true)
}

/// Conditions that hold for every row a table keeps in practice: `col IS NOT NULL`, `col
/// LIKE '%'`, a key compared with what no key is below (`id > 0`, `rowid >= -1`), a constant
/// in a list that holds it (`1 IN (1, 2)`).
fn every_row(tokens: &[Token], text: &str) -> bool {
    let words: Vec<String> = tokens
        .iter()
        .map(|t| text[t.text.clone()].to_ascii_lowercase())
        .collect();
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    let key = |name: &str| {
        let name = name
            .rsplit('.')
            .next()
            .unwrap_or(name)
            .trim_matches(['"', '`', '[', ']']);
        matches!(name, "id" | "rowid" | "oid" | "_rowid_" | "pk") || name.ends_with("_id")
    };
    match w.as_slice() {
        [_, "is", "not", "null"] => true,
        [_, "like", pattern] => matches!(unquote(pattern).as_str(), "%" | "%%"),
        // A negative bound: every key is above it.
        [col, ">" | ">=", "-", n] if key(col) => n.parse::<f64>().is_ok(),
        [col, op @ (">" | ">="), n] if key(col) => n
            .trim_matches(['\'', '"'])
            .parse::<f64>()
            .is_ok_and(|n| if *op == ">" { n < 1.0 } else { n <= 1.0 }),
        [left, "in", "(", rest @ .., ")"] => {
            let Some(l) = tokens.first().and_then(|t| constant(t, text)) else {
                return false;
            };
            rest.iter()
                .zip(&tokens[3..])
                .any(|(_, t)| constant(t, text).is_some_and(|c| l.compare(&c, "=") == Some(true)))
                && !left.is_empty()
        }
        _ => false,
    }
}

enum Const {
    Num(f64),
    Text(String),
    Bool(bool),
}

impl Const {
    fn truthy(&self) -> bool {
        match self {
            Const::Num(n) => *n != 0.0,
            // MySQL reads a string as the number it starts with.
            Const::Text(t) => t.trim().parse::<f64>().is_ok_and(|n| n != 0.0),
            Const::Bool(b) => *b,
        }
    }

    fn compare(&self, other: &Const, op: &str) -> Option<bool> {
        let ord = match (self, other) {
            (Const::Num(a), Const::Num(b)) => a.partial_cmp(b)?,
            (Const::Text(a), Const::Text(b)) => a.cmp(b),
            (Const::Bool(a), Const::Bool(b)) => a.cmp(b),
            _ => return None,
        };
        use std::cmp::Ordering::{Equal, Greater, Less};
        Some(match op {
            "=" | "==" | "<=>" | "is" | "like" => ord == Equal,
            "!=" | "<>" => ord != Equal,
            "<" => ord == Less,
            ">" => ord == Greater,
            "<=" => ord != Greater,
            ">=" => ord != Less,
            _ => return None,
        })
    }
}

fn constant(t: &Token, text: &str) -> Option<Const> {
    let s = &text[t.text.clone()];
    match t.kind {
        Kind::Num => s.parse().ok().map(Const::Num),
        Kind::Str => Some(Const::Text(s.to_owned())),
        Kind::Word if s.eq_ignore_ascii_case("true") => Some(Const::Bool(true)),
        Kind::Word if s.eq_ignore_ascii_case("false") => Some(Const::Bool(false)),
        _ => None,
    }
}

/// A client command: what it runs, writes or reads.
fn meta(t: &Token, text: &str, d: Dialect, out: &mut Reading) {
    let name = text[t.text.clone()].to_ascii_lowercase();
    let rest = text[t.rest.clone()].trim();
    let arg = unquote(rest.split_whitespace().next().unwrap_or(""));
    let piped = |out: &mut Reading, arg: &str| -> bool {
        let unquoted = unquote(rest);
        if let Some(cmd) = unquoted.trim_start().strip_prefix('|') {
            out.acts.push(Act::Shell(cmd.trim().to_owned()));
            true
        } else {
            !arg.is_empty() && {
                out.acts.push(Act::Writes(arg.to_owned()));
                true
            }
        }
    };
    let unread = |out: &mut Reading, what: String| {
        if out.unread.is_none() {
            out.unread = Some(what);
        }
    };
    match (d.meta, name.as_str()) {
        (Meta::Backslash, "!") | (Meta::Dot, "shell" | "system") => {
            out.acts.push(Act::Shell(rest.to_owned()));
        }
        // mysql's pager runs its output through a command.
        (Meta::Backslash, "p") if d.hash_comment => out.acts.push(Act::Shell(rest.to_owned())),
        (Meta::Backslash, "o" | "out" | "w" | "write" | "g" | "gx" | "t")
        | (Meta::Dot, "output" | "once" | "log" | "trace") => {
            if !matches!(
                arg.as_str(),
                "" | "stdout" | "stderr" | "off" | "-e" | "-x" | "--bom"
            ) {
                piped(out, &arg);
            } else if matches!(arg.as_str(), "-e" | "-x") {
                unread(
                    out,
                    format!("`.{name} {arg}`, which opens the output in another program"),
                );
            }
        }
        (Meta::Dot, "save" | "backup" | "clone") => {
            if let Some(file) = rest.split_whitespace().last() {
                out.acts.push(Act::Writes(unquote(file)));
            }
        }
        (Meta::Backslash, "i" | "include" | "ir" | "include_relative" | ".") => {
            out.said(catalogue::DATA_WRITE, format!("SQL read from `{arg}`"));
        }
        (Meta::Dot, "read") if !piped_read(out, rest) => {
            out.said(catalogue::DATA_WRITE, format!("SQL read from `{arg}`"));
        }
        (Meta::Dot, "import") => {
            if !arg.is_empty() {
                out.acts.push(Act::Reads(arg.clone()));
            }
            out.said(catalogue::DATA_WRITE, format!("`.import {arg}`"));
        }
        (Meta::Dot, "restore") => out.said(catalogue::DATA_REPLACE, format!("`.restore {rest}`")),
        (Meta::Backslash, "copy") => {
            let lower = rest.to_ascii_lowercase();
            if lower.contains("program") {
                unread(out, "`\\copy … program`, which runs a command".to_owned());
            } else if let Some(to) = lower.find(" to ") {
                let target = rest.get(to + 4..).unwrap_or("").split_whitespace().next();
                if let Some(file) = target.filter(|f| !f.eq_ignore_ascii_case("stdout")) {
                    out.acts.push(Act::Writes(unquote(file)));
                }
            } else {
                out.said(catalogue::DATA_WRITE, "`\\copy … from`".to_owned());
            }
        }
        (Meta::Backslash, "gexec") => unread(
            out,
            "`\\gexec`, which runs the SQL a query builds".to_owned(),
        ),
        (Meta::Backslash, "e" | "edit" | "ef" | "ev") | (Meta::Dot, "load" | "edit") => {
            unread(out, format!("the client command `{name}`"));
        }
        _ => {}
    }
}

/// `.read '|cmd'`: the output of a command is read as SQL.
fn piped_read(out: &mut Reading, rest: &str) -> bool {
    let cmd = unquote(rest);
    match cmd.trim_start().strip_prefix('|') {
        Some(c) => {
            out.acts.push(Act::Shell(c.trim().to_owned()));
            if out.unread.is_none() {
                out.unread = Some("SQL printed by a command".to_owned());
            }
            true
        }
        None => false,
    }
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    for q in ['\'', '"'] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner.to_owned();
        }
    }
    s.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worst(text: &str, d: Dialect) -> Option<&'static str> {
        let r = read(text, &[d]);
        r.worst.map(|(k, _)| k.template)
    }

    #[test]
    fn statements_and_conditions() {
        let drop = Some(catalogue::DATA_DROP.template);
        let all = Some(catalogue::DATA_DELETE_ALL.template);
        let every = Some(catalogue::DATA_UPDATE_ALL.template);
        let write = Some(catalogue::DATA_WRITE.template);
        #[rustfmt::skip]
        let cases: &[(&str, Dialect, Option<&str>)] = &[
            ("DROP/**/TABLE users", POSTGRES, drop),
            ("/*x*/DELETE FROM t", POSTGRES, all),
            ("SELECT 'DROP TABLE x'", POSTGRES, None),
            ("SELECT \"drop\" FROM t", POSTGRES, None),
            ("SELECT 1 -- DROP TABLE t", POSTGRES, None),
            ("SELECT 1 --1; DROP TABLE t", MYSQL, drop),
            ("SELECT 1 # it's\n; DROP TABLE t", MYSQL, drop),
            ("SELECT 1 # 1; DROP TABLE t", POSTGRES, drop),
            ("SELECT 'a\\'; DROP TABLE t; -- '", MYSQL, drop),
            ("/*!50000 DROP TABLE t */", MYSQL, drop),
            ("DELETE FROM t WHERE 1=1", POSTGRES, all),
            ("DELETE FROM t WHERE id = 3", POSTGRES, write),
            ("DELETE FROM t WHERE id = 3 OR 1", MYSQL, all),
            ("DELETE FROM t WHERE id = 3 AND 1 = 1", POSTGRES, write),
            ("DELETE FROM t WHERE NOT false", POSTGRES, all),
            ("DELETE FROM t WHERE t.id = t.id", POSTGRES, all),
            ("DELETE FROM t WHERE random() = random()", POSTGRES, write),
            ("DELETE FROM t WHERE id > 0", POSTGRES, all),
            ("DELETE FROM t WHERE id > 100", POSTGRES, write),
            ("DELETE FROM t WHERE user_id IS NOT NULL", POSTGRES, all),
            ("DELETE FROM t WHERE email LIKE '%'", POSTGRES, all),
            ("DELETE FROM t WHERE email LIKE '%@x.com'", POSTGRES, write),
            ("DELETE FROM t WHERE 2 IN (1, 2)", POSTGRES, all),
            ("UPDATE t SET a = 1 WHERE 'x' = 'x'", SQLITE, every),
            ("UPDATE t SET a = 1 WHERE true RETURNING id", POSTGRES, every),
            ("UPDATE t SET a = 1 WHERE id IN (SELECT id FROM u WHERE 1 = 1)", POSTGRES, write),
            ("WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d", POSTGRES, all),
            ("WITH x AS (SELECT 1) UPDATE t SET a = 2", POSTGRES, every),
            ("EXPLAIN DELETE FROM t", POSTGRES, None),
            ("EXPLAIN (ANALYZE) DELETE FROM t", POSTGRES, all),
            ("ALTER TABLE t DROP COLUMN c", POSTGRES, drop),
            ("ALTER TABLE t ADD COLUMN c int", POSTGRES, write),
            ("REPLACE INTO t VALUES (1)", MYSQL, write),
            ("INSERT INTO t SELECT * FROM u", POSTGRES, write),
            ("SELECT * INTO backup FROM t", POSTGRES, write),
            ("DELETE FROM t USING u WHERE t.a = u.a", POSTGRES, write),
            ("SELECT $$DROP TABLE t$$", POSTGRES, None),
            ("DO $$ BEGIN DELETE FROM t; END $$", POSTGRES, all),
            ("DO $$ BEGIN IF true THEN DROP TABLE t; END IF; END $$", POSTGRES, drop),
            ("DO $$ BEGIN EXECUTE 'x'; END $$", POSTGRES, write),
            ("select 1; truncate t", SQLITE, drop),
            ("SELECT coalesce(a, b) FROM t WHERE (x = 1)", POSTGRES, None),
        ];
        for (text, d, want) in cases {
            assert_eq!(worst(text, *d), *want, "{text}");
        }
    }

    #[test]
    fn client_commands() {
        let r = read("\\! rm -rf /x", &[POSTGRES]);
        assert_eq!(r.acts, vec![Act::Shell("rm -rf /x".to_owned())]);
        let r = read(".shell rm x\n.tables", &[SQLITE]);
        assert_eq!(r.acts, vec![Act::Shell("rm x".to_owned())]);
        let r = read("SELECT 1\n\\gexec", &[POSTGRES]);
        assert!(r.unread.is_some());
        let r = read("\\o /tmp/out.txt\nSELECT 1;", &[POSTGRES]);
        assert_eq!(r.acts, vec![Act::Writes("/tmp/out.txt".to_owned())]);
        assert!(read("\\dt", &[POSTGRES]).worst.is_none());
        assert!(read(".schema users", &[SQLITE]).worst.is_none());
        let r = read("system rm -rf /x", &[MYSQL]);
        assert_eq!(r.acts, vec![Act::Shell("rm -rf /x".to_owned())]);
    }

    #[test]
    fn reads_anything_without_panic() {
        for text in [
            "'", "\"", "$a", "$$", "/*", "/*!", "\\", "(((", ")))", "é'", "WHERE", "x\\é",
        ] {
            for d in [POSTGRES, MYSQL, SQLITE] {
                let _ = read(text, &[d]);
                let _ = read(&format!("DELETE FROM t WHERE {text}"), &[d]);
            }
        }
    }
}
