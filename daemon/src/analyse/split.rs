//! Cutting a long line where bash cuts it, so that the parser sees it in pieces:
//! tree-sitter-bash takes time that grows faster than the line on long pipelines and `&&`
//! chains (8,000 stages: over 100 ms), while each piece alone is microseconds.
//!
//! The cut is made only where it cannot change the meaning: at top-level `;`, `&`, `&&`, `||`,
//! newlines and `|`, outside quotes, substitutions, parentheses and braces. A line with a
//! heredoc, a compound command (`if`, `case`, loops, `{ … }`, `[[ … ]]`, `(( … ))`, a function)
//! or anything the lexer is not sure of is not cut: `None`, and the line is parsed whole.

use std::ops::Range;

/// What joins a part to the part before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Joint {
    /// `;`, `&`, a newline: the next statement.
    List,
    /// `&&`, `||`: the next statement, which must be there.
    AndOr,
    /// `|` or `|&`: the next stage of a pipeline.
    Pipe,
}

/// A piece of the line and what joins it to the one before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub range: Range<usize>,
    pub joint: Joint,
}

/// Words that open or close compound commands: a line holding one at the start of a
/// statement is not cut.
const RESERVED: &[&str] = &[
    "if", "then", "elif", "else", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "function", "{", "}", "[[", "((", "coproc",
];

/// The top-level parts of `text`, or `None` when it must be parsed whole.
pub fn parts(text: &str) -> Option<Vec<Part>> {
    let b = text.as_bytes();
    let mut parts = Vec::new();
    let mut start = 0;
    let mut joint = Joint::List;
    let mut i = 0;
    let mut at_word_start = true;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\\' => {
                i += 2;
                at_word_start = false;
                continue;
            }
            // Quotes, substitutions and parentheses are one unit each: the skip lands just
            // after it, where the next byte may be a joint.
            b'\'' | b'"' | b'`' | b'(' | b'$'
                if c != b'$' || matches!(b.get(i + 1), Some(b'(' | b'{' | b'\'')) =>
            {
                i = match (c, b.get(i + 1)) {
                    (b'\'', _) => skip_single(b, i)?,
                    (b'"', _) => skip_double(b, i)?,
                    (b'`', _) => skip_backtick(b, i)?,
                    (b'$', Some(b'(')) => skip_parens(b, i + 1)?,
                    (b'$', Some(b'{')) => skip_braces(b, i + 1)?,
                    (b'$', _) => skip_ansi(b, i + 1)?,
                    // A subshell or a process substitution (`<(…)`, `>(…)`).
                    _ => skip_parens(b, i)?,
                };
                at_word_start = false;
                continue;
            }
            b')' => return None,
            b'#' if at_word_start => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'<' if b.get(i + 1) == Some(&b'<') && b.get(i + 2) != Some(&b'<') => return None,
            b';' | b'\n' | b'&' | b'|' => {
                // `>|` and `>&`, `<&`, `&>` are redirections, not joints.
                let prev = i.checked_sub(1).map(|p| b[p]);
                let redirect = match c {
                    b'|' => prev == Some(b'>'),
                    b'&' => matches!(prev, Some(b'>' | b'<')) || b.get(i + 1) == Some(&b'>'),
                    _ => false,
                };
                if redirect {
                    i += 1;
                    at_word_start = false;
                    continue;
                }
                if c == b';' && b.get(i + 1) == Some(&b';') {
                    return None;
                }
                let (len, next) = match (c, b.get(i + 1)) {
                    (b'&', Some(b'&')) | (b'|', Some(b'|')) => (2, Joint::AndOr),
                    (b'|', Some(b'&')) => (2, Joint::Pipe),
                    (b'|', _) => (1, Joint::Pipe),
                    _ => (1, Joint::List),
                };
                push(&mut parts, text, start..i, joint)?;
                i += len;
                start = i;
                joint = next;
                at_word_start = true;
                continue;
            }
            _ => {}
        }
        at_word_start = matches!(c, b' ' | b'\t');
        i += 1;
    }
    push(&mut parts, text, start..b.len().min(i), joint)?;
    Some(parts)
}

/// Adds a non-blank part; `None` when it starts with a reserved word or when a pipe joins
/// nothing.
fn push(parts: &mut Vec<Part>, text: &str, range: Range<usize>, joint: Joint) -> Option<()> {
    let piece = text.get(range.clone())?;
    // A comment runs to the end of the line, which ends the part: a part that starts with
    // one is blank.
    let first = piece
        .split_whitespace()
        .next()
        .filter(|w| !w.starts_with('#'));
    match first {
        // `a |` or `a &&` with nothing after: not a line bash runs; parsed whole, it is
        // reported as such.
        None if matches!(joint, Joint::Pipe | Joint::AndOr) => None,
        None => Some(()),
        Some(word) => {
            if RESERVED.contains(&word) || word.starts_with("((") || word.ends_with("()") {
                return None;
            }
            parts.push(Part { range, joint });
            Some(())
        }
    }
}

fn skip_single(b: &[u8], open: usize) -> Option<usize> {
    let close = b[open + 1..].iter().position(|&c| c == b'\'')?;
    Some(open + 1 + close + 1)
}

fn skip_ansi(b: &[u8], open: usize) -> Option<usize> {
    let mut i = open + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\'' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn skip_backtick(b: &[u8], open: usize) -> Option<usize> {
    let mut i = open + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'`' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn skip_double(b: &[u8], open: usize) -> Option<usize> {
    let mut i = open + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            b'`' => i = skip_backtick(b, i)?,
            b'$' if b.get(i + 1) == Some(&b'(') => i = skip_parens(b, i + 1)?,
            b'$' if b.get(i + 1) == Some(&b'{') => i = skip_braces(b, i + 1)?,
            _ => i += 1,
        }
    }
    None
}

/// From the `(` at `open` to after its `)`, across quotes and nested constructs. A heredoc
/// inside is not followed: `None`.
fn skip_parens(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                i += 2;
                continue;
            }
            b'\'' => {
                i = skip_single(b, i)?;
                continue;
            }
            b'"' => {
                i = skip_double(b, i)?;
                continue;
            }
            b'`' => {
                i = skip_backtick(b, i)?;
                continue;
            }
            b'<' if b.get(i + 1) == Some(&b'<') && b.get(i + 2) != Some(&b'<') => return None,
            // `case` inside a substitution puts unbalanced `)` in it.
            b'c' if b[i..].starts_with(b"case") => return None,
            b'(' => depth += 1,
            b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn skip_braces(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                i += 2;
                continue;
            }
            b'\'' => {
                i = skip_single(b, i)?;
                continue;
            }
            b'"' => {
                i = skip_double(b, i)?;
                continue;
            }
            b'{' => depth += 1,
            b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(text: &str) -> Option<Vec<(&str, Joint)>> {
        parts(text).map(|ps| {
            ps.into_iter()
                .map(|p| (text[p.range].trim(), p.joint))
                .collect()
        })
    }

    #[test]
    fn cuts_where_bash_does() {
        use Joint::{AndOr, List, Pipe};
        assert_eq!(
            cut("a | b && c; d & e || f |& g\nh"),
            Some(vec![
                ("a", List),
                ("b", Pipe),
                ("c", AndOr),
                ("d", List),
                ("e", List),
                ("f", AndOr),
                ("g", Pipe),
                ("h", List),
            ])
        );
        assert_eq!(
            cut("echo 'a | b' \"c; $(d | e)\" `f;g` $(h && i) ${j:-;} | k"),
            Some(vec![
                ("echo 'a | b' \"c; $(d | e)\" `f;g` $(h && i) ${j:-;}", List),
                ("k", Pipe)
            ])
        );
        assert_eq!(
            cut("a >| f 2>&1 &> g | b"),
            Some(vec![("a >| f 2>&1 &> g", List), ("b", Pipe)])
        );
        assert_eq!(cut("(a; b) | c"), Some(vec![("(a; b)", List), ("c", Pipe)]));
        assert_eq!(
            cut("a # b; c\nd"),
            Some(vec![("a # b; c", List), ("d", List)])
        );
    }

    #[test]
    fn a_joint_right_after_a_quote_is_a_joint() {
        use Joint::List;
        assert_eq!(
            cut("echo 'x'; cd /"),
            Some(vec![("echo 'x'", List), ("cd /", List)])
        );
        assert_eq!(
            cut("echo $(a)|b"),
            Some(vec![("echo $(a)", List), ("b", Joint::Pipe)])
        );
        assert_eq!(cut("a &&"), None);
        assert_eq!(cut("a || # c"), None);
    }

    #[test]
    fn leaves_whole_what_it_is_not_sure_of() {
        for text in [
            "if a; then b; fi",
            "a; while b; do c; done",
            "cat <<EOF\nx;y\nEOF",
            "case x in a) b;; esac",
            "[[ a && b ]] && c",
            "f() { a; }; f",
            "{ a; b; }",
            "a 'unterminated",
            "a )",
            "a | | b",
            "echo $(case x in a) b;; esac)",
        ] {
            assert_eq!(cut(text), None, "{text}");
        }
    }
}
