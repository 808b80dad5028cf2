//! A word as a finding names it: one level of quoting, the finding's own backticks. A word
//! written with quotes, escapes or expansions whose value is known is shown as the shell
//! passes it (`'/home/u'` is `/home/u`, `.e''nv` is `.env`); one only known at run time as
//! written, less one pair of double quotes around all of it (`"$tmp"` is `$tmp`), which says
//! nothing a person needs; a plain word as written (`~/.ssh`).
//!
//! Commands and code shown whole (`git config core.pager 'less -R'`) keep their quotes: there
//! they are part of what is shown. This module only says how a single word reads.

use std::borrow::Cow;

use super::Word;

/// What makes a written word read otherwise than its value: quotes, escapes, expansions. A
/// word without them is shown as written (`~/.ssh` stays `~/.ssh`).
const QUOTING: &[char] = &['\'', '"', '\\', '$'];

impl Word<'_> {
    /// The word for a person, without the backticks a finding puts around it.
    pub fn shown(&self) -> Cow<'_, str> {
        if self.raw.is_empty() {
            return Cow::Borrowed(&self.text);
        }
        if !self.dynamic && !self.text.is_empty() && self.raw.contains(QUOTING) {
            return Cow::Borrowed(&self.text);
        }
        Cow::Borrowed(without_outer_quotes(self.raw))
    }

    /// [`Word::shown`] in the backticks of a finding.
    pub fn quoted(&self) -> String {
        format!("`{}`", self.shown())
    }
}

/// `raw` without the double quotes around it, when one pair encloses all of it (`"$(dirname
/// "$PWD")"`); else `raw` as it is. Conservative: a word it cannot read for certain is left as
/// written.
fn without_outer_quotes(raw: &str) -> &str {
    let Some(inner) = raw
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
    else {
        return raw;
    };
    // Depth of `$(…)` and backquotes; a double quote at depth 0 ends the first pair early.
    let mut depth = 0usize;
    let mut in_backquote = false;
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // The closing quote escaped: it is not one.
            '\\' if chars.next().is_none() => return raw,
            '`' => in_backquote = !in_backquote,
            '$' if chars.peek() == Some(&'(') => {
                chars.next();
                depth += 1;
            }
            '(' if depth > 0 => depth += 1,
            ')' if depth > 0 => depth -= 1,
            '"' if depth == 0 && !in_backquote => return raw,
            _ => {}
        }
    }
    if depth == 0 && !in_backquote {
        inner
    } else {
        raw
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str, raw: &'static str, dynamic: bool) -> Word<'static> {
        Word {
            text: text.to_owned(),
            raw,
            dynamic,
            span: 0..raw.len(),
            value: None,
        }
    }

    #[test]
    fn a_word_reads_with_one_level_of_quoting() {
        let table: &[(&str, &'static str, bool, &str)] = &[
            // value known: as the shell passes it
            ("/home/u", "'/home/u'", false, "/home/u"),
            ("a b", "\"a b\"", false, "a b"),
            (".env", ".e''nv", false, ".env"),
            ("/home/u/.ssh", "$'/home/u/.ss\\x68'", false, "/home/u/.ssh"),
            (
                "/root/Documents",
                "\"$HOME\"/Documents",
                false,
                "/root/Documents",
            ),
            // plain: as written
            ("/root/Documents", "~/Documents", false, "~/Documents"),
            ("src", "src", false, "src"),
            // only known at run time: as written, less the quotes around all of it
            ("\"$tmp\"", "\"$tmp\"", true, "$tmp"),
            (
                "\"$(dirname \"$(pwd)\")\"",
                "\"$(dirname \"$(pwd)\")\"",
                true,
                "$(dirname \"$(pwd)\")",
            ),
            ("\"$a\"/\"$b\"", "\"$a\"/\"$b\"", true, "\"$a\"/\"$b\""),
            ("\"$a\\\"\"", "\"$a\\\"\"", true, "$a\\\""),
            ("\"$a\\\"", "\"$a\\\"", true, "\"$a\\\""),
            ("\"`pwd`\"", "\"`pwd`\"", true, "`pwd`"),
            ("\"$(pwd\"", "\"$(pwd\"", true, "\"$(pwd\""),
            ("*.txt", "*.txt", true, "*.txt"),
            // an empty value is shown as written
            ("", "''", false, "''"),
        ];
        for &(text, raw, dynamic, shown) in table {
            assert_eq!(word(text, raw, dynamic).shown(), shown, "{raw}");
        }
        assert_eq!(word("/home/u", "'/home/u'", false).quoted(), "`/home/u`");
    }
}
