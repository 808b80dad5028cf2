//! Words as bash would see them after quote removal, and where a word points on disk.
//!
//! A word is resolved without running anything: quotes and escapes are removed, and any part
//! only known at run time (parameter, command or arithmetic expansion, an unquoted glob or
//! brace expansion) makes the whole word *dynamic*, shown as written. This module must stay
//! pure string work: no file system, no environment.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::Node;

use super::{Context, kind};

mod ansi_c;

use ansi_c::ansi_c;

/// One shell word.
#[derive(Debug, Clone)]
pub struct Word<'s> {
    /// The value bash would pass, or the text as written when `dynamic`.
    pub text: String,
    /// The text as written.
    pub raw: &'s str,
    /// Part of the value is only known at run time.
    pub dynamic: bool,
    /// Where it is in the parsed text (not yet mapped to the original input).
    pub span: Range<usize>,
}

impl Word<'_> {
    /// The literal value, or `None` when it is only known at run time.
    pub fn literal(&self) -> Option<&str> {
        (!self.dynamic).then_some(self.text.as_str())
    }
}

/// The text of a node; empty if the range is somehow not on a character boundary.
pub fn text<'s>(node: Node, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

/// Variables with literal values assigned earlier on the line (see `Shell::vars`).
pub type Vars = HashMap<String, Option<String>>;

/// Resolves a word-like node (`word`, `string`, `concatenation`, …).
pub fn resolve<'s>(node: Node, src: &'s str, vars: &Vars) -> Word<'s> {
    let raw = text(node, src);
    let mut r = Resolver {
        vars,
        out: String::with_capacity(raw.len()),
        dynamic: false,
        bracket: false,
        brace: false,
        brace_comma: false,
        split: false,
    };
    if kind(node) == "concatenation" {
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            r.part(child, src);
        }
    } else {
        r.part(node, src);
    }
    // A value with blanks splits only when it is the whole word; inside a longer word the
    // result is too uncertain to follow.
    let dynamic = r.dynamic || (r.split && kind(node) == "concatenation");
    if dynamic {
        // Shown as written; the buffer was sized for that.
        r.out.clear();
        r.out.push_str(raw);
    }
    Word {
        text: r.out,
        raw,
        dynamic,
        span: node.byte_range(),
    }
}

/// Appends a word to `out` as the shell splits it: an unquoted `$X` whose literal value holds
/// blanks becomes several words, and one whose value is empty none.
pub fn fields<'s>(node: Node, src: &'s str, vars: &Vars, out: &mut Vec<Word<'s>>) {
    let word = resolve(node, src, vars);
    let expansion = matches!(kind(node), "simple_expansion" | "expansion");
    if word.dynamic || !expansion {
        out.push(word);
        return;
    }
    out.extend(
        word.text
            .split([' ', '\t', '\n'])
            .filter(|t| !t.is_empty())
            .map(|t| Word {
                text: t.to_owned(),
                raw: word.raw,
                dynamic: word.dynamic,
                span: word.span.clone(),
            }),
    );
}

/// The value of an assignment, with `~` expanded as bash does there (at the start and after
/// `:`); `None` when it is only known at run time.
pub fn assigned_value(
    node: Option<Node>,
    src: &str,
    vars: &Vars,
    home: Option<&str>,
) -> Option<String> {
    let Some(node) = node else {
        return Some(String::new());
    };
    let word = resolve(node, src, vars);
    let value = word.literal()?;
    if !word.raw.starts_with('~') && !word.raw.contains(":~") {
        return Some(value.to_owned());
    }
    let home = home.filter(|h| h.starts_with('/'))?;
    let parts: Vec<String> = value
        .split(':')
        .map(|part| match part.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("{home}{rest}"),
            _ => part.to_owned(),
        })
        .collect();
    Some(parts.join(":"))
}

/// The variable an expansion node names, when it is a plain `$X` or `${X}`.
fn expansion_name<'s>(node: Node, src: &'s str) -> Option<&'s str> {
    let mut cursor = node.walk();
    let named: Vec<Node> = node.named_children(&mut cursor).collect();
    match named.as_slice() {
        [name] if kind(*name) == "variable_name" => {
            let t = text(node, src);
            let plain = t.starts_with("${") && t.len() == text(*name, src).len() + 3
                || t.len() == text(*name, src).len() + 1;
            plain.then(|| text(*name, src))
        }
        _ => None,
    }
}

struct Resolver<'v> {
    vars: &'v Vars,
    /// An unquoted expansion produced blanks: the word splits.
    split: bool,
    out: String,
    dynamic: bool,
    /// An unquoted `[` was seen: a later unquoted `]` makes a glob.
    bracket: bool,
    /// An unquoted `{` was seen, and then an unquoted `,`: a later `}` makes a brace expansion.
    brace: bool,
    brace_comma: bool,
}

impl Resolver<'_> {
    fn part(&mut self, node: Node, src: &str) {
        let t = text(node, src);
        match kind(node) {
            "word" => self.unquoted(t),
            "number" => self.out.push_str(t),
            "raw_string" => self.out.push_str(strip(t, 1, 1)),
            "ansi_c_string" => self.out.push_str(&ansi_c(strip(t, 2, 1))),
            "string" | "translated_string" => self.double_quoted(node, src),
            "simple_expansion" | "expansion" => match self.value(node, src) {
                Some(v) => {
                    // Unquoted, the value is split and globbed.
                    if v.contains(['*', '?', '[']) {
                        self.dynamic = true;
                    }
                    self.split |= v.contains([' ', '\t', '\n']);
                    self.out.push_str(&v);
                }
                None => self.dynamic = true,
            },
            _ => self.dynamic = true,
        }
    }

    /// The literal value of a plain `$X`, if the line assigned it one.
    fn value(&self, node: Node, src: &str) -> Option<String> {
        let name = expansion_name(node, src)?;
        self.vars.get(name)?.clone()
    }

    fn unquoted(&mut self, t: &str) {
        // Most words hold nothing that quoting, globbing or braces would change.
        let special = |b: u8| matches!(b, b'\\' | b'*' | b'?' | b'[' | b']' | b'{' | b',' | b'}');
        if !t.bytes().any(special) {
            self.out.push_str(t);
            return;
        }
        let mut chars = t.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some(next) => self.out.push(next),
                    None => self.out.push('\\'),
                },
                '*' | '?' => self.dynamic = true,
                '[' => self.bracket = true,
                ']' if self.bracket => self.dynamic = true,
                '{' => self.brace = true,
                ',' if self.brace => self.brace_comma = true,
                '}' if self.brace_comma => self.dynamic = true,
                _ => {}
            }
            if c != '\\' {
                self.out.push(c);
            }
        }
    }

    fn double_quoted(&mut self, node: Node, src: &str) {
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match kind(child) {
                "\"" | "$\"" => {}
                "string_content" => dq_unescape(text(child, src), &mut self.out),
                "$" => self.out.push('$'),
                "simple_expansion" | "expansion" => match self.value(child, src) {
                    Some(v) => self.out.push_str(&v),
                    None => self.dynamic = true,
                },
                _ => self.dynamic = true,
            }
        }
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

/// A path made absolute against `cwd` (if needed) and cleaned of `.`, `..` and doubled slashes.
fn normalise(path: &str, cwd: &str) -> String {
    // Most paths are clean already: join them without taking them apart.
    if path.starts_with('/') {
        if is_clean(path) {
            return path.to_owned();
        }
    } else if is_clean(cwd) && clean_parts(path) {
        let cwd = if cwd == "/" { "" } else { cwd };
        let mut out = String::with_capacity(cwd.len() + 1 + path.len());
        out.push_str(cwd);
        out.push('/');
        out.push_str(path);
        return out;
    }
    let mut parts: Vec<&str> = Vec::new();
    let joined = if path.starts_with('/') {
        [path, ""]
    } else {
        [cwd, path]
    };
    for piece in joined {
        for part in piece.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    parts.pop();
                }
                p => parts.push(p),
            }
        }
    }
    let mut out = String::with_capacity(path.len() + 1);
    for p in &parts {
        out.push('/');
        out.push_str(p);
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// An absolute path that [`normalise`] leaves as it is.
fn is_clean(path: &str) -> bool {
    path == "/" || path.strip_prefix('/').is_some_and(clean_parts)
}

/// Components joined by single slashes, none of them empty, `.` or `..`.
fn clean_parts(path: &str) -> bool {
    path.split('/').all(|part| !matches!(part, "" | "." | ".."))
}

/// Where a word points, as far as can be known before the line runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Place {
    /// A cleaned absolute path; a trailing `*` component stays literal.
    Path(String),
    /// Inside the home directory, which the context does not name: the cleaned path below
    /// it, `/` for home itself.
    Home(String),
    Unknown,
}

/// Resolves a word to a place: literal paths against `ctx.cwd`, and the forms of home that
/// bash expands (`~`, `~/…`, `$HOME`, `${HOME}`, quoted `"$HOME"/…`).
pub fn place(word: &Word, ctx: &Context) -> Place {
    if let Some(other) = other_user_home(word) {
        return Place::Path(other);
    }
    let home_rest = home_rest(word);
    let Some(rest) = home_rest.as_deref() else {
        if word.dynamic && !is_glob_of_literal(word.raw) {
            return Place::Unknown;
        }
        let t = if word.dynamic {
            word.raw
        } else {
            word.text.as_str()
        };
        if !t.starts_with('/') && !ctx.cwd.starts_with('/') {
            return Place::Unknown;
        }
        return Place::Path(normalise(t, ctx.cwd));
    };
    match ctx.home.filter(|h| h.starts_with('/')) {
        Some(home) => Place::Path(normalise(&format!("{home}/{rest}"), "/")),
        None => Place::Home(normalise(rest, "/")),
    }
}

/// `~NAME/…` is NAME's home; without a password database to ask, it is placed where homes
/// usually are (`/root` for root, else `/home/NAME`), which the rules treat as a home.
fn other_user_home(word: &Word) -> Option<String> {
    if word.dynamic || !word.raw.starts_with('~') {
        return None;
    }
    let after = word.text.strip_prefix('~')?;
    let (name, rest) = after.split_at(after.find('/').unwrap_or(after.len()));
    let valid = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    if name.is_empty() || !name.chars().all(valid) {
        return None;
    }
    let home = if name == "root" {
        "/root".to_owned()
    } else {
        format!("/home/{name}")
    };
    Some(normalise(&format!("{home}{rest}"), "/"))
}

/// The part of a home-relative word after the home prefix, or `None` if it is not one.
fn home_rest(word: &Word) -> Option<String> {
    if !word.dynamic {
        // Only an unquoted tilde expands; `"~"` is a file named `~`.
        let t = word.text.as_str();
        let rest = t.strip_prefix('~').filter(|_| word.raw.starts_with('~'))?;
        return (rest.is_empty() || rest.starts_with('/')).then(|| rest.to_owned());
    }
    let raw = word.raw;
    let after = ["\"$HOME\"", "\"${HOME}\"", "$HOME", "${HOME}", "~"]
        .iter()
        .find_map(|p| raw.strip_prefix(p))?;
    let rest: String = after.chars().filter(|&c| c != '"' && c != '\'').collect();
    let literal_rest = !rest.contains(['$', '`', '\\']);
    (literal_rest && (rest.is_empty() || rest.starts_with('/'))).then_some(rest)
}

/// A word that is dynamic only through `*`/`?` globs, such as `/*`: its shape is still known.
fn is_glob_of_literal(raw: &str) -> bool {
    !raw.contains(['$', '`', '"', '\'', '\\', '[', '{'])
}

impl Place {
    /// The path below the home directory (`/` for home itself), if the place is in it.
    pub fn in_home(&self, ctx: &Context) -> Option<&str> {
        match self {
            Place::Home(rest) => Some(rest),
            Place::Path(p) => {
                let home = ctx.home.filter(|h| h.starts_with('/'))?;
                let home = if is_clean(home) {
                    Cow::Borrowed(home)
                } else {
                    Cow::Owned(normalise(home, "/"))
                };
                if home == "/" {
                    return Some(p);
                }
                let rest = p.strip_prefix(&*home)?;
                if rest.is_empty() {
                    Some("/")
                } else {
                    rest.starts_with('/').then_some(rest)
                }
            }
            Place::Unknown => None,
        }
    }

    /// `/`, `/*`, home or everything in home.
    pub fn is_root_or_home(&self, ctx: &Context) -> bool {
        let everything = |p: &str| p == "/" || p == "/*";
        if let Place::Path(p) = self
            && everything(p)
        {
            return true;
        }
        self.in_home(ctx).is_some_and(everything)
    }

    pub fn as_path(&self) -> Option<&str> {
        match self {
            Place::Path(p) => Some(p),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_word(src: &str) -> Word<'_> {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&tree_sitter_bash::LANGUAGE.into())
            .expect("the bundled grammar matches the tree-sitter version");
        let line = format!("echo {src}");
        let tree = parser.parse(&line, None).expect("no timeout is set");
        let cmd = tree.root_node().named_child(0).expect("one command");
        let mut cursor = cmd.walk();
        let arg = cmd
            .children_by_field_name("argument", &mut cursor)
            .next()
            .expect("echo has an argument");
        let w = resolve(arg, &line, &Vars::new());
        Word {
            text: w.text,
            raw: src,
            dynamic: w.dynamic,
            span: w.span,
        }
    }

    #[test]
    fn words_resolve_like_bash() {
        let cases: &[(&str, &str, bool)] = &[
            ("r''m", "rm", false),
            ("\"r\"m", "rm", false),
            ("\\rm", "rm", false),
            ("'a b'\"c\\\"d\"", "a bc\"d", false),
            ("$'a\\tb\\x41\\101\\u00e9'", "a\tbAAé", false),
            ("\"a\\$b\\e\"", "a$b\\e", false),
            ("foo\\ bar", "foo bar", false),
            ("$HOME", "$HOME", true),
            ("\"$x\"", "\"$x\"", true),
            ("*.c", "*.c", true),
            ("a[1]", "a[1]", true),
            ("{a,b}", "{a,b}", true),
            ("\\*", "*", false),
            ("[", "[", false),
            ("~/x", "~/x", false),
        ];
        for (input, text, dynamic) in cases {
            let w = parse_word(input);
            assert_eq!(
                (w.text.as_str(), w.dynamic),
                (*text, *dynamic),
                "word {input}"
            );
        }
    }

    #[test]
    fn places() {
        let ctx = Context {
            cwd: "/home/u/repo",
            home: Some("/home/u"),
            truncated: false,
        };
        let cases: &[(&str, Place)] = &[
            ("/", Place::Path("/".into())),
            ("/*", Place::Path("/*".into())),
            ("~", Place::Path("/home/u".into())),
            ("\"$HOME\"/.ssh", Place::Path("/home/u/.ssh".into())),
            ("..", Place::Path("/home/u".into())),
            ("x/../../.bashrc", Place::Path("/home/u/.bashrc".into())),
            ("$x", Place::Unknown),
        ];
        for (input, want) in cases {
            assert_eq!(&place(&parse_word(input), &ctx), want, "word {input}");
        }
        let no_home = Context {
            cwd: "/",
            home: None,
            truncated: false,
        };
        assert_eq!(
            place(&parse_word("${HOME}/"), &no_home),
            Place::Home("/".into())
        );
        assert!(place(&parse_word("~/*"), &no_home).is_root_or_home(&no_home));
    }
}
