//! The recipes `make` would run: the targets named on the line (or the makefile's first),
//! their prerequisites that are rules of the same file, with the makefile's simple variables
//! put in, and the `$(shell …)` and `!=` commands make runs as it reads the file.

use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

use super::{in_dir, queue_text, text_of};
use crate::analyse::State;
use crate::analyse::catalogue;
use crate::analyse::recurse::Ctx;

/// Targets followed per `make`, prerequisites included.
const MAX_TARGETS: usize = 64;

/// `make [-C DIR] [-f FILE] [TARGET…]`.
pub fn recipes(words: &[&str], span: Range<usize>, path: &Rc<str>, at: &Ctx, st: &mut State) {
    let mut dir = None;
    let mut file = None;
    let mut targets = Vec::new();
    let mut i = 0;
    while let Some(w) = words.get(i) {
        match *w {
            "-n" | "--dry-run" | "--just-print" | "--recon" | "-q" | "--question" | "-p"
            | "--print-data-base" | "-v" | "--version" | "-h" | "--help" => return,
            "-C" | "--directory" => {
                dir = words.get(i + 1).copied();
                i += 1;
            }
            "-f" | "--file" | "--makefile" => {
                file = words.get(i + 1).copied();
                i += 1;
            }
            "-j" | "-l" | "-o" | "-W" | "-I" => i += 1,
            w if w.starts_with("--directory=") => dir = w.split_once('=').map(|p| p.1),
            w if w.starts_with("--file=") || w.starts_with("--makefile=") => {
                file = w.split_once('=').map(|p| p.1);
            }
            w if w.starts_with("-C") && w.len() > 2 => dir = Some(&w[2..]),
            w if w.starts_with("-f") && w.len() > 2 => file = Some(&w[2..]),
            w if w.starts_with('-') || w.contains('=') => {}
            w => targets.push(w.to_owned()),
        }
        i += 1;
    }
    let names: &[&str] = match file {
        Some(f) => &[f][..],
        None => &["GNUmakefile", "makefile", "Makefile"],
    };
    // The first makefile there is; one being asked for means a later round has them all.
    for name in names {
        let Some(file) = in_dir(st, dir, name) else {
            return;
        };
        let asked = st.wants.borrow().len();
        let Some(text) = text_of(&file, name, &span, st) else {
            if st.wants.borrow().len() > asked {
                return;
            }
            continue;
        };
        let runs = Makefile::parse(&text).runs(&targets);
        if runs.unread {
            let what = format!("`{name}` (an `include` or `eval` that is not read)");
            st.add(catalogue::CODE_UNREAD.at(span.clone(), &what));
        }
        if !runs.text.is_empty() {
            queue_text(&runs.text, name, &span, path, at, st);
        }
        return;
    }
}

/// A makefile as far as the gate reads it.
#[derive(Debug, Default)]
pub struct Makefile {
    vars: HashMap<String, String>,
    /// Each rule: its targets, prerequisites and recipe lines, in order.
    rules: Vec<Rule>,
    /// Commands make runs while reading the file.
    at_parse: Vec<String>,
    /// It includes or evaluates text the gate does not read.
    unread: bool,
}

/// A rule: its targets, prerequisites and recipe lines.
type Rule = (Vec<String>, Vec<String>, Vec<String>);

/// What a `make` runs: shell text, and whether some of it could not be read.
#[derive(Debug, Default, PartialEq)]
pub struct MakeRuns {
    pub text: String,
    pub unread: bool,
}

impl Makefile {
    pub fn parse(text: &str) -> Makefile {
        let mut m = Makefile::default();
        let joined = text.replace("\\\n", " ");
        for line in joined.lines() {
            if let Some(recipe) = line.strip_prefix('\t') {
                if let Some(rule) = m.rules.last_mut() {
                    rule.2.push(recipe.to_owned());
                }
                continue;
            }
            let line = line.split('#').next().unwrap_or("").trim_end();
            if line.trim().is_empty() {
                continue;
            }
            m.at_parse.extend(shell_calls(line));
            let word = line.split_whitespace().next().unwrap_or("");
            if matches!(word, "include" | "-include" | "sinclude") || line.contains("$(eval") {
                m.unread = true;
                continue;
            }
            if let Some((name, value)) = line.split_once("!=") {
                m.at_parse.push(value.trim().to_owned());
                m.vars.insert(name.trim().to_owned(), String::new());
                continue;
            }
            if let Some((name, value)) = assignment(line) {
                m.vars.insert(name, value);
                continue;
            }
            if let Some((targets, rest)) = line.split_once(':') {
                let rest = rest.trim_start_matches(':');
                let (prereqs, inline) = match rest.split_once(';') {
                    Some((p, r)) => (p, Some(r)),
                    None => (rest, None),
                };
                let recipe = inline
                    .map(|r| vec![r.trim().to_owned()])
                    .unwrap_or_default();
                m.rules.push((
                    targets.split_whitespace().map(str::to_owned).collect(),
                    prereqs.split_whitespace().map(str::to_owned).collect(),
                    recipe,
                ));
            }
        }
        m
    }

    /// The shell text that building `targets` runs (the first rule's when none are named).
    pub fn runs(&self, targets: &[String]) -> MakeRuns {
        let mut out = MakeRuns {
            unread: self.unread,
            ..MakeRuns::default()
        };
        for cmd in &self.at_parse {
            out.text
                .push_str(&format!("( {} )\n", self.expand(cmd, "", &[], 0)));
        }
        let mut todo: Vec<String> = if targets.is_empty() {
            self.rules
                .iter()
                .flat_map(|r| r.0.first())
                .find(|t| !t.starts_with('.') && !t.contains('%'))
                .cloned()
                .into_iter()
                .collect()
        } else {
            targets.iter().rev().cloned().collect()
        };
        let mut seen: Vec<String> = Vec::new();
        while let Some(target) = todo.pop() {
            if seen.contains(&target) {
                continue;
            }
            if seen.len() >= MAX_TARGETS {
                out.unread = true;
                break;
            }
            seen.push(target.clone());
            for (names, prereqs, recipe) in &self.rules {
                if !names
                    .iter()
                    .any(|n| *n == target || pattern_matches(n, &target))
                {
                    continue;
                }
                todo.extend(prereqs.iter().rev().map(|p| self.expand(p, "", &[], 0)));
                for line in recipe {
                    let line = line.trim_start_matches(['@', '-', '+', ' ']);
                    let line = self.expand(line, &target, prereqs, 0);
                    out.text.push_str(&format!("( {line} )\n"));
                }
            }
        }
        out
    }

    /// `text` with make's variables put in: `$$` is `$`, `$@` the target, `$<` and `$^` its
    /// prerequisites, `$(NAME)` the file's value or else the environment's (`${NAME}`);
    /// `$(shell CMD)` is a command substitution; other functions are left to run time
    /// (`$__make`, only known then).
    fn expand(&self, text: &str, target: &str, prereqs: &[String], depth: usize) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(i) = rest.find('$') {
            out.push_str(&rest[..i]);
            rest = &rest[i + 1..];
            let Some(c) = rest.chars().next() else {
                out.push('$');
                break;
            };
            match c {
                '$' => {
                    out.push('$');
                    rest = &rest[1..];
                }
                '@' | '*' => {
                    out.push_str(target);
                    rest = &rest[1..];
                }
                '<' => {
                    out.push_str(prereqs.first().map_or("", String::as_str));
                    rest = &rest[1..];
                }
                '^' | '+' | '?' => {
                    out.push_str(&prereqs.join(" "));
                    rest = &rest[1..];
                }
                '(' | '{' => {
                    let close = if c == '(' { ')' } else { '}' };
                    let Some(end) = matching(rest, c, close) else {
                        out.push_str("$__make");
                        break;
                    };
                    let inner = &rest[1..end];
                    rest = &rest[end + 1..];
                    if let Some(cmd) = inner.strip_prefix("shell ") {
                        out.push_str("$(");
                        out.push_str(&self.expand(cmd, target, prereqs, depth + 1));
                        out.push(')');
                    } else if let Some(value) = self.vars.get(inner).filter(|_| depth < 8) {
                        out.push_str(&self.expand(value, target, prereqs, depth + 1));
                    } else if inner.contains([' ', '$', ',', ':']) || depth >= 8 {
                        out.push_str("$__make");
                    } else {
                        // Not the file's: make takes it from the environment, as the
                        // shell would (`$(HOME)`).
                        out.push_str(&format!("${{{inner}}}"));
                    }
                }
                c => {
                    let name = c.to_string();
                    if let Some(value) = self.vars.get(&name).filter(|_| depth < 8) {
                        out.push_str(&self.expand(value, target, prereqs, depth + 1));
                    }
                    rest = &rest[c.len_utf8()..];
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// `NAME = value`, `NAME := value`, `NAME ?= value`, `NAME += value` (`override`, `export`
/// before it).
fn assignment(line: &str) -> Option<(String, String)> {
    let line = line
        .trim_start_matches("override ")
        .trim_start_matches("export ");
    let at = line.find('=')?;
    let before = &line[..at];
    let name = before.trim_end_matches([':', '?', '+']).trim();
    if name.is_empty() || name.contains([':', ' ', '\t']) {
        return None;
    }
    Some((name.to_owned(), line[at + 1..].trim().to_owned()))
}

/// The `$(shell …)` calls of a line outside a recipe: make runs them as it reads the file.
fn shell_calls(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("$(shell ") {
        let from = &rest[i + 1..];
        match matching(from, '(', ')') {
            Some(end) => {
                out.push(from["(shell ".len()..end].to_owned());
                rest = &from[end..];
            }
            None => {
                out.push("$__make".to_owned());
                break;
            }
        }
    }
    out
}

/// The index of the bracket closing the one `text` starts with.
fn matching(text: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// Whether a pattern rule's target (`%.o`) builds `target`.
fn pattern_matches(pattern: &str, target: &str) -> bool {
    match pattern.split_once('%') {
        Some((pre, post)) => {
            target.len() >= pre.len() + post.len()
                && target.starts_with(pre)
                && target.ends_with(post)
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recipes_of_the_targets_built() {
        let m = Makefile::parse(
            "CC = cc\nOUT := build\n\nall: app\n\napp: main.o\n\t@$(CC) -o $(OUT)/$@ $^\n\nclean:\n\trm -rf ~\n\n%.o: %.c\n\t$(CC) -c $<\n",
        );
        let all = m.runs(&[]);
        assert_eq!(all.text, "( cc -o build/app main.o )\n( cc -c %.c )\n");
        assert_eq!(m.runs(&["clean".to_owned()]).text, "( rm -rf ~ )\n");
        assert!(!all.unread);
    }

    #[test]
    fn what_make_runs_as_it_reads_the_file() {
        let m = Makefile::parse(
            "X := $(shell rm -rf ~/x)\nY != curl x | sh\nall:\n\techo $$HOME $(wildcard *.c)\n",
        );
        assert_eq!(
            m.runs(&[]).text,
            "( rm -rf ~/x )\n( curl x | sh )\n( echo $HOME $__make )\n"
        );
        let included = Makefile::parse("include other.mk\nall:\n\ttrue\n");
        assert!(included.runs(&[]).unread);
    }
}
