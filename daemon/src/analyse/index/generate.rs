//! The built-in program book's format, checked and turned into Rust: each `[[program]]` of
//! `index/*.toml` becomes one `Entry` expression of `ENTRIES`. Used by `daemon/build.rs` (which
//! does the reading and writing) and by this crate's tests (which check what it refuses).
//! The keys are the policy's `[[program]]` keys (`policy/book.rs`: `operands`, `effect`,
//! `options` with an effect on their value) and those only the built-in book may use: the
//! grammar (`short`, `long`, `style`, or a named `grammar`), the rest of a `Spec` (`skip`,
//! `given_by`, `switch`, `tree`, `inert`) and what data cannot say, named: `model`, `runner`
//! (`module::function` in `programs/`), `wrapper` (its kind), `shell`, `interpreter`, and
//! `also` for a wrapper's or runner's own effects. A file may also hold `[[code]]` rows, where
//! programs take code to run (`generate_code.rs`), which become `CODE`.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde::Deserialize;
use toml::Spanned;

use super::generate_code::{self, CodeEntry};

/// Effects as `levels.md` names them (`Effect::name`).
const EFFECTS: &[(&str, &str)] = &[
    ("read", "Read"),
    ("write", "Write"),
    ("overwrite", "Overwrite"),
    ("erase", "Erase"),
    ("delete", "Delete"),
    ("move", "Move"),
    ("perms", "Perms"),
    ("expose", "Expose"),
    ("use", "Use"),
    ("run", "Run"),
    ("send", "Send"),
    ("publish", "Publish"),
    ("stop", "Stop"),
    ("change", "Change"),
];

/// The modules of `programs/` a model or a runner may be named from.
const MODULES: &[&str] = &[
    "archive",
    "containers",
    "data",
    "disk",
    "files",
    "gate",
    "git",
    "net",
    "packages",
    "runners",
    "system",
    "unknown",
];

const WRAPPERS: &[(&str, &str)] = &[
    ("plain", "Plain"),
    ("env", "Env"),
    ("sudo", "Sudo"),
    ("xargs", "Xargs"),
    ("flock", "Flock"),
    ("busybox", "Busybox"),
];

const INTERPRETERS: &[&str] = &["python", "perl", "ruby", "node", "php"];

/// Grammars kept in Rust because the interpreters of their languages read them too.
const GRAMMARS: &[(&str, &str)] = &[("sed", "interp::sed::SED"), ("awk", "interp::sed::AWK")];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BookFile {
    #[serde(default)]
    program: Vec<Spanned<Program>>,
    /// Where programs take code to run (`generate_code.rs`).
    #[serde(default)]
    code: Vec<Spanned<CodeEntry>>,
}

/// One `[[program]]` of the built-in book.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Program {
    names: Spanned<Vec<Spanned<String>>>,
    grammar: Option<Spanned<String>>,
    style: Option<Spanned<String>>,
    short: Option<Spanned<String>>,
    long: Option<Vec<Spanned<String>>>,
    wrapper: Option<Spanned<String>>,
    runner: Option<Spanned<String>>,
    shell: Option<Spanned<bool>>,
    interpreter: Option<Spanned<String>>,
    model: Option<Spanned<String>>,
    effect: Option<Spanned<String>>,
    skip: Option<Spanned<usize>>,
    given_by: Option<Vec<Spanned<String>>>,
    operands: Option<Spanned<String>>,
    switch: Option<Pairs>,
    options: Option<Pairs>,
    tree: Option<Vec<Spanned<String>>>,
    inert: Option<Vec<Spanned<String>>>,
    also: Option<Spanned<Judged>>,
}

impl Program {
    /// The keys that say how the program itself is judged.
    fn judged(&mut self) -> Judged {
        Judged {
            model: self.model.take(),
            effect: self.effect.take(),
            skip: self.skip.take(),
            given_by: self.given_by.take(),
            operands: self.operands.take(),
            switch: self.switch.take(),
            options: self.options.take(),
            tree: self.tree.take(),
            inert: self.inert.take(),
        }
    }
}

/// How a tool is judged: a model, nothing (`effect = "none"`), or a spec.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Judged {
    model: Option<Spanned<String>>,
    effect: Option<Spanned<String>>,
    skip: Option<Spanned<usize>>,
    given_by: Option<Vec<Spanned<String>>>,
    operands: Option<Spanned<String>>,
    switch: Option<Pairs>,
    options: Option<Pairs>,
    tree: Option<Vec<Spanned<String>>>,
    inert: Option<Vec<Spanned<String>>>,
}

/// A table of option → effect, in the order written (the order effects are reported in).
#[derive(Default)]
struct Pairs(Vec<(String, Spanned<String>)>);

impl<'de> Deserialize<'de> for Pairs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Pairs;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a table of options and effects")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Pairs, A::Error> {
                let mut out = Vec::new();
                while let Some(pair) = map.next_entry()? {
                    out.push(pair);
                }
                Ok(Pairs(out))
            }
        }
        d.deserialize_map(Visit)
    }
}

/// A refusal: the byte offset in the file and why.
pub type Refusal = (usize, String);

/// The Rust text of `ENTRIES` and `CODE` from the book's files (`(name shown, text)`, in
/// order), or `file:line:column: why` for the first thing refused.
pub fn generate(files: &[(String, String)]) -> Result<String, String> {
    let mut out = String::from(
        "// Generated by build.rs from the book's data files: edit those, not this.\n\
         /// Every program the gate knows, from the book's files in order.\n\
         pub const ENTRIES: &[Entry] = &[\n",
    );
    let mut code = String::from(
        "/// Where programs take code to run, by program: read by `programs::code` beside the\n\
         /// program's own entry, for programs known or not.\n\
         pub const CODE: &[(&[&str], &[Code])] = &[\n",
    );
    let (mut seen, mut seen_code) = (HashMap::new(), HashMap::new());
    for (shown, text) in files {
        let book: BookFile = toml::from_str(text).map_err(|e| format!("{shown}: {e}"))?;
        let at = |(offset, why): Refusal| {
            let (line, col) = line_col(text, offset);
            format!("{shown}:{line}:{col}: {why}")
        };
        for program in book.program {
            let (line, _) = line_col(text, program.span().start);
            let entry = entry(program.into_inner(), &mut seen, shown, line).map_err(at)?;
            let _ = writeln!(out, "    // {shown}:{line}\n    {entry},");
        }
        for row in book.code {
            let (line, _) = line_col(text, row.span().start);
            let row =
                generate_code::row(row.into_inner(), &mut seen_code, shown, line).map_err(at)?;
            let _ = writeln!(code, "    // {shown}:{line}\n    {row},");
        }
    }
    out.push_str("];\n");
    code.push_str("];\n");
    out.push_str(&code);
    Ok(out)
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before
        .rfind('\n')
        .map_or(before.len(), |n| before.len() - n - 1)
        + 1;
    (line, col)
}

/// One entry as a Rust `Entry` expression.
fn entry(
    mut p: Program,
    seen: &mut HashMap<String, String>,
    file: &str,
    line: usize,
) -> Result<String, Refusal> {
    let names_at = p.names.span().start;
    if p.names.get_ref().is_empty() {
        return Err((names_at, "a program needs at least one name".into()));
    }
    for name in p.names.get_ref() {
        let n = name.get_ref();
        if n.is_empty() || n.contains('/') || n.contains(char::is_whitespace) {
            return Err((
                name.span().start,
                format!("{n:?}: a name is a command's base name"),
            ));
        }
        if let Some(first) = seen.insert(n.clone(), format!("{file}:{line}")) {
            return Err((
                name.span().start,
                format!("{n:?} is named already at {first}"),
            ));
        }
    }
    let names = strings(p.names.get_ref().iter().map(|n| n.get_ref().as_str()));
    let grammar = grammar(&p)?;
    let judged = p.judged();
    let roles = [
        p.wrapper.as_ref().map(|w| w.span().start),
        p.runner.as_ref().map(|r| r.span().start),
        p.shell.as_ref().map(|s| s.span().start),
        p.interpreter.as_ref().map(|i| i.span().start),
    ];
    let mut given = roles.iter().flatten();
    if let (Some(_), Some(second)) = (given.next(), given.next()) {
        return Err((
            *second,
            "an entry is one of a wrapper, a runner, a shell or an interpreter".into(),
        ));
    }
    let role = if let Some(kind) = &p.wrapper {
        let kind = word(kind, WRAPPERS, "wrapper")?;
        let j = &judged;
        if let Some(at) = j
            .model
            .as_ref()
            .map(|m| m.span().start)
            .or(j.effect.as_ref().map(|e| e.span().start))
            .or(j.operands.as_ref().map(|o| o.span().start))
        {
            return Err((at, "a wrapper's own effects are said in `also`".into()));
        }
        if j.given_by.is_some() || j.switch.is_some() || j.options.is_some() || j.tree.is_some() {
            return Err((
                names_at,
                "a wrapper's own effects are said in `also`".into(),
            ));
        }
        let skip = j.skip.as_ref().map_or(0, |s| *s.get_ref());
        let inert = options(j.inert.as_deref().unwrap_or(&[]))?;
        let also = also(&p.also)?;
        format!(
            "Role::Wrapper(Wrap {{ skip: {skip}, inert: {inert}, kind: WrapKind::{kind}, also: {also} }})"
        )
    } else if let Some(runner) = &p.runner {
        let runner = rust_fn(runner)?;
        no_judge(
            &judged,
            names_at,
            "a runner's own effects are said in `also`",
        )?;
        format!("Role::Runner(programs::{runner}, {})", also(&p.also)?)
    } else if let Some(shell) = &p.shell {
        if !shell.get_ref() {
            return Err((shell.span().start, "`shell` is `true` or left out".into()));
        }
        no_judge(&judged, names_at, "a shell is judged by what it runs")?;
        no_also(&p.also)?;
        "Role::Shell".into()
    } else if let Some(lang) = &p.interpreter {
        if !INTERPRETERS.contains(&lang.get_ref().as_str()) {
            return Err((
                lang.span().start,
                format!(
                    "unknown interpreter {:?}; expected one of {}",
                    lang.get_ref(),
                    INTERPRETERS.join(", ")
                ),
            ));
        }
        no_judge(&judged, names_at, "an interpreter is judged by its program")?;
        no_also(&p.also)?;
        format!(
            "Role::Interpreter(&interp::{})",
            lang.get_ref().to_uppercase()
        )
    } else {
        no_also(&p.also)?;
        format!("Role::Tool({})", judge(&judged, names_at)?)
    };
    Ok(format!(
        "Entry {{ names: {names}, grammar: {grammar}, role: {role} }}"
    ))
}

fn grammar(p: &Program) -> Result<String, Refusal> {
    if let Some(named) = &p.grammar {
        if let Some(at) = p
            .short
            .as_ref()
            .map(|s| s.span().start)
            .or(p.style.as_ref().map(|s| s.span().start))
        {
            return Err((at, "a named grammar has its options already".into()));
        }
        if p.long.is_some() {
            return Err((
                named.span().start,
                "a named grammar has its options already".into(),
            ));
        }
        return word(named, GRAMMARS, "grammar");
    }
    let style = match &p.style {
        None => "Gnu".to_owned(),
        Some(s) => word(s, &[("gnu", "Gnu"), ("posix", "Posix")], "style")?,
    };
    let short = p.short.as_ref().map_or("", |s| s.get_ref().as_str());
    if let Some(s) = &p.short
        && (s.get_ref().starts_with(':')
            || !s
                .get_ref()
                .chars()
                .all(|c| c.is_ascii_graphic() && c != '-'))
    {
        return Err((s.span().start, "short options are letters, each followed by `:` when it takes a value, `::` when the value is optional".into()));
    }
    let long = p.long.as_deref().unwrap_or(&[]);
    for l in long {
        let name = l.get_ref();
        let bare = ["==", "=?", "="]
            .iter()
            .find_map(|s| name.strip_suffix(s))
            .unwrap_or(name);
        if bare.is_empty()
            || bare.starts_with('-')
            || !bare
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err((
                l.span().start,
                format!(
                    "long option {name:?}: a name without dashes, then `=` (takes a value), `=?` (optional, attached) or `==` (two words)"
                ),
            ));
        }
    }
    Ok(format!(
        "Grammar {{ short: {short:?}, long: {}, style: Style::{style} }}",
        strings(long.iter().map(|l| l.get_ref().as_str()))
    ))
}

fn also(also: &Option<Spanned<Judged>>) -> Result<String, Refusal> {
    match also {
        None => Ok("None".into()),
        Some(j) => Ok(format!("Some({})", judge(j.get_ref(), j.span().start)?)),
    }
}

fn no_also(also: &Option<Spanned<Judged>>) -> Result<(), Refusal> {
    match also {
        Some(a) => Err((
            a.span().start,
            "`also` is for a wrapper's or a runner's own effects".into(),
        )),
        None => Ok(()),
    }
}

fn no_judge(j: &Judged, names_at: usize, why: &str) -> Result<(), Refusal> {
    let at = [
        j.model.as_ref().map(|s| s.span().start),
        j.effect.as_ref().map(|s| s.span().start),
        j.operands.as_ref().map(|s| s.span().start),
        j.skip.as_ref().map(|s| s.span().start),
    ];
    if let Some(at) = at.iter().flatten().next() {
        return Err((*at, why.into()));
    }
    if j.given_by.is_some()
        || j.switch.is_some()
        || j.options.is_some()
        || j.tree.is_some()
        || j.inert.is_some()
    {
        return Err((names_at, why.into()));
    }
    Ok(())
}

/// A `Judge`: `model = "files::rm"`, `effect = "none"`, or the keys of a `Spec`.
fn judge(j: &Judged, at: usize) -> Result<String, Refusal> {
    let spec = j.skip.is_some()
        || j.given_by.is_some()
        || j.operands.is_some()
        || j.switch.is_some()
        || j.options.is_some()
        || j.tree.is_some()
        || j.inert.is_some();
    match (&j.model, &j.effect, spec) {
        (Some(m), None, false) => Ok(format!("Judge::Model(programs::{})", rust_fn(m)?)),
        (None, Some(e), false) if e.get_ref() == "none" => Ok("Judge::Nothing".into()),
        (None, Some(e), _) => Err((e.span().start, "`effect` here is \"none\" alone: its operands are not places and it changes nothing".into())),
        (None, None, true) => {
            let operands = match &j.operands {
                None => return Err((at, "a spec says `operands`: their effect, or \"none\" when they are not places".into())),
                Some(o) if o.get_ref() == "none" => "None".to_owned(),
                Some(o) => format!("Some({})", effect(o)?),
            };
            Ok(format!(
                "Judge::Spec(&Spec {{ skip: {}, given_by: {}, operands: {operands}, switch: {}, values: {}, tree: {}, inert: {} }})",
                j.skip.as_ref().map_or(0, |s| *s.get_ref()),
                options(j.given_by.as_deref().unwrap_or(&[]))?,
                pairs(j.switch.as_ref())?,
                pairs(j.options.as_ref())?,
                options(j.tree.as_deref().unwrap_or(&[]))?,
                options(j.inert.as_deref().unwrap_or(&[]))?,
            ))
        }
        (Some(m), _, _) => Err((m.span().start, "a model judges the whole command: no other key says how".into())),
        (None, None, false) => Err((at, "says nothing of what it does: give it `model`, `effect = \"none\"` or a spec (`operands`, `options`, …)".into())),
    }
}

fn effect(e: &Spanned<String>) -> Result<String, Refusal> {
    word(e, EFFECTS, "effect").map(|v| format!("Effect::{v}"))
}

/// A value from a fixed list, as its Rust name.
fn word(
    w: &Spanned<String>,
    table: &[(&str, &'static str)],
    what: &str,
) -> Result<String, Refusal> {
    table
        .iter()
        .find(|(name, _)| name == w.get_ref())
        .map(|(_, rust)| (*rust).to_owned())
        .ok_or_else(|| {
            let all: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
            (
                w.span().start,
                format!(
                    "unknown {what} {:?}; expected one of {}",
                    w.get_ref(),
                    all.join(", ")
                ),
            )
        })
}

/// `module::function` in `programs/`.
fn rust_fn(f: &Spanned<String>) -> Result<String, Refusal> {
    let ok = f
        .get_ref()
        .split_once("::")
        .is_some_and(|(module, function)| {
            MODULES.contains(&module)
                && !function.is_empty()
                && function
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        });
    if !ok {
        return Err((
            f.span().start,
            format!(
                "{:?}: a function of programs/, as `module::function`; modules: {}",
                f.get_ref(),
                MODULES.join(", ")
            ),
        ));
    }
    Ok(f.get_ref().clone())
}

/// An option as a command gives it (`-o`, `--output`), as the getopt name (`o`, `output`).
fn option(o: &Spanned<String>) -> Result<String, Refusal> {
    let text = o.get_ref();
    let name = match text.strip_prefix("--") {
        Some(long) if !long.is_empty() => long,
        Some(_) => "",
        None => text
            .strip_prefix('-')
            .filter(|s| s.chars().count() == 1)
            .unwrap_or(""),
    };
    if name.is_empty() || name.contains(['=', ' ']) {
        return Err((
            o.span().start,
            format!("option {text:?}: written as a command gives it, `-x` or `--name`"),
        ));
    }
    Ok(name.to_owned())
}

fn options(list: &[Spanned<String>]) -> Result<String, Refusal> {
    let names: Vec<String> = list.iter().map(option).collect::<Result<_, _>>()?;
    Ok(strings(names.iter().map(String::as_str)))
}

fn pairs(p: Option<&Pairs>) -> Result<String, Refusal> {
    let mut out = String::from("&[");
    for (o, e) in p.map_or(&[][..], |p| &p.0[..]) {
        let name = option(&Spanned::new(e.span(), o.clone()))?;
        let _ = write!(out, "({name:?}, {}), ", effect(e)?);
    }
    out.push(']');
    Ok(out)
}

fn strings<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let mut out = String::from("&[");
    for s in items {
        let _ = write!(out, "{s:?}, ");
    }
    out.push(']');
    out
}
