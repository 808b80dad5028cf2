//! Reading a program's arguments the way the program does: clustered short options with an
//! attached or separate value (`-xzf a.tgz`, `-ofile`, `-o file`), `--opt=value` and
//! `--opt value`, long options abbreviated to a unique prefix (GNU getopt_long and git's
//! parse-options both accept `--recur` for `--recursive`), `--` ending the options, `-` as an
//! operand. GNU programs take options after operands too (`rm x -rf`); POSIX ones stop at the
//! first operand (`sudo`, `env`, `xargs`: what follows is the command).
//!
//! A prefix that several long options share is taken as all of them, so a guess can only add
//! effects. A word only known at run time is an operand: it could be anything. A program's
//! grammar is one entry of the program book (`analyse/index/*.toml`, read into `index.rs`).

use std::borrow::Cow;

use super::words::Word;

/// When options end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Options anywhere until `--` (GNU's argument permutation).
    Gnu,
    /// Options until the first operand; the rest are operands as they are.
    Posix,
}

/// What a program accepts.
#[derive(Debug, Clone, Copy)]
pub struct Grammar {
    /// Short options, getopt(3) style: a letter, then `:` when it takes a value (attached or
    /// the next word), `::` when the value is optional and only attached. Letters not named
    /// are flags.
    pub short: &'static str,
    /// Long options: `name` a flag, `name=` with a value (`--name=v` or `--name v`),
    /// `name=?` with an optional value (`--name=v` only).
    pub long: &'static [&'static str],
    pub style: Style,
}

impl Grammar {
    /// No options known: every `-x` is a flag, every `--x` a flag or `--x=value`.
    pub const NONE: Grammar = Grammar {
        short: "",
        long: &[],
        style: Style::Gnu,
    };

    /// What a short option letter takes.
    fn short_takes(&self, c: char) -> Takes {
        let mut chars = self.short.chars().peekable();
        while let Some(x) = chars.next() {
            let mut colons = 0;
            while chars.peek() == Some(&':') {
                chars.next();
                colons += 1;
            }
            if x == c {
                return match colons {
                    0 => Takes::Nothing,
                    1 => Takes::Value,
                    _ => Takes::Optional,
                };
            }
        }
        Takes::Nothing
    }

    /// The long options a given name means: itself if it is one, else every option it is a
    /// prefix of. Each with what it takes.
    fn long_named(&self, given: &str) -> Vec<(&'static str, Takes)> {
        let spec = |l: &'static str| -> (&'static str, Takes) {
            if let Some(name) = l.strip_suffix("==") {
                (name, Takes::Two)
            } else if let Some(name) = l.strip_suffix("=?") {
                (name, Takes::Optional)
            } else if let Some(name) = l.strip_suffix('=') {
                (name, Takes::Value)
            } else {
                (l, Takes::Nothing)
            }
        };
        let all = self.long.iter().map(|l| spec(l));
        if let Some(exact) = all.clone().find(|(n, _)| *n == given) {
            return vec![exact];
        }
        if given.is_empty() {
            return Vec::new();
        }
        all.filter(|(n, _)| n.starts_with(given)).collect()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Takes {
    Nothing,
    Value,
    Optional,
    /// Two words (`jq --rawfile NAME FILE`): the value is the second.
    Two,
}

/// One option given.
#[derive(Debug, Clone)]
pub struct Opt<'s> {
    /// `r` for `-r`, `recursive` for `--rec` (the full name when the grammar knows it).
    pub name: Cow<'static, str>,
    pub value: Option<Word<'s>>,
}

/// The arguments, sorted.
#[derive(Debug, Clone, Default)]
pub struct Args<'a, 's> {
    pub opts: Vec<Opt<'s>>,
    pub operands: Vec<&'a Word<'s>>,
    /// Where the operands start in the words, for a POSIX grammar: the rest is what it runs.
    pub rest: usize,
    /// Operands from here on came after `--`.
    pub after_dashdash: Option<usize>,
}

impl<'s> Args<'_, 's> {
    /// Whether any of `names` was given (`&["r", "R", "recursive"]`).
    pub fn has(&self, names: &[&str]) -> bool {
        self.opts.iter().any(|o| names.contains(&o.name.as_ref()))
    }

    /// The last value given to any of `names`.
    pub fn value<'x>(&'x self, names: &'x [&'x str]) -> Option<&'x Word<'s>> {
        self.values(names).last()
    }

    /// Every value given to any of `names`, in order.
    pub fn values<'x>(&'x self, names: &'x [&'x str]) -> impl Iterator<Item = &'x Word<'s>> + 'x {
        self.opts
            .iter()
            .filter(move |o| names.contains(&o.name.as_ref()))
            .filter_map(|o| o.value.as_ref())
    }

    /// Asked only for help or the version: the program does nothing else.
    pub fn only_help(&self) -> bool {
        self.has(&["help", "version"])
    }
}

/// Reads `words` (the arguments, without the program name) by `grammar`.
pub fn parse<'a, 's>(words: &'a [Word<'s>], grammar: &Grammar) -> Args<'a, 's> {
    let mut out = Args {
        rest: words.len(),
        ..Args::default()
    };
    let mut i = 0;
    while let Some(w) = words.get(i) {
        i += 1;
        let option = w
            .literal()
            .filter(|t| out.after_dashdash.is_none() && t.len() > 1 && t.starts_with('-'));
        let Some(t) = option else {
            if grammar.style == Style::Posix && out.after_dashdash.is_none() {
                out.rest = i - 1;
                out.operands.extend(&words[i - 1..]);
                return out;
            }
            out.operands.push(w);
            continue;
        };
        if t == "--" {
            out.after_dashdash = Some(out.operands.len());
            if grammar.style == Style::Posix {
                out.rest = i;
                out.operands.extend(&words[i..]);
                return out;
            }
            continue;
        }
        if let Some(body) = t.strip_prefix("--") {
            let (given, inline) = match body.split_once('=') {
                Some((g, v)) => (g, Some(v.len())),
                None => (body, None),
            };
            let named = grammar.long_named(given);
            if named.is_empty() {
                // Not an option the grammar knows: a flag, or a flag with an `=value`.
                out.opts.push(Opt {
                    name: Cow::Owned(given.to_owned()),
                    value: inline.map(|n| w.tail(t.len() - n)),
                });
                continue;
            }
            let wants_next =
                inline.is_none() && named.iter().any(|(_, takes)| *takes == Takes::Value);
            let next = if wants_next {
                i += 1;
                words.get(i - 1).cloned()
            } else {
                None
            };
            // `--rawfile NAME FILE` takes the two words after it; `--rawfile=NAME FILE`, one.
            let wants_two = named.iter().any(|(_, takes)| *takes == Takes::Two);
            // A line cut short (`--rawfile NAME` and nothing after): no value, and the one word
            // is read as whatever it is (a `--` ends the options), as if the option were last.
            let second = if wants_two && !wants_next {
                let needed = if inline.is_some() { 1 } else { 2 };
                if i + needed <= words.len() {
                    i += needed;
                    words.get(i - 1).cloned()
                } else {
                    None
                }
            } else {
                None
            };
            for (name, takes) in named {
                let value = match (inline, takes) {
                    (_, Takes::Two) => second.clone(),
                    (Some(n), _) => Some(w.tail(t.len() - n)),
                    (None, Takes::Value) => next.clone(),
                    _ => None,
                };
                out.opts.push(Opt {
                    name: Cow::Borrowed(name),
                    value,
                });
            }
            continue;
        }
        for (at, c) in t.char_indices().skip(1) {
            let after = at + c.len_utf8();
            let name = short_name(c);
            match grammar.short_takes(c) {
                Takes::Nothing => out.opts.push(Opt { name, value: None }),
                Takes::Value | Takes::Two => {
                    let value = if after < t.len() {
                        Some(w.tail(after))
                    } else {
                        i += 1;
                        words.get(i - 1).cloned()
                    };
                    out.opts.push(Opt { name, value });
                    break;
                }
                Takes::Optional => {
                    let value = (after < t.len()).then(|| w.tail(after));
                    out.opts.push(Opt { name, value });
                    break;
                }
            }
        }
    }
    out
}

/// A short option's name as a static string when it is ASCII (nearly always).
fn short_name(c: char) -> Cow<'static, str> {
    const ASCII: &str = "!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";
    match ASCII.find(c) {
        Some(at) if c.is_ascii() => Cow::Borrowed(&ASCII[at..at + 1]),
        _ => Cow::Owned(c.to_string()),
    }
}

#[cfg(test)]
mod props;

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Word<'_>> {
        line.split(' ')
            .filter(|w| !w.is_empty())
            .map(|t| Word::made(t.to_owned(), t, 0..0))
            .collect()
    }

    const RM: Grammar = Grammar {
        short: "",
        long: &[
            "force",
            "interactive=?",
            "one-file-system",
            "no-preserve-root",
            "preserve-root=?",
            "recursive",
            "dir",
            "verbose",
            "help",
            "version",
        ],
        style: Style::Gnu,
    };

    const TAR: Grammar = Grammar {
        short: "f:C:T:X:",
        long: &["file=", "directory=", "to-command=", "extract", "create"],
        style: Style::Gnu,
    };

    fn shown(a: &Args) -> String {
        let mut out: Vec<String> = a
            .opts
            .iter()
            .map(|o| match &o.value {
                Some(v) => format!("{}={}", o.name, v.text),
                None => o.name.to_string(),
            })
            .collect();
        out.extend(a.operands.iter().map(|w| format!("[{}]", w.text)));
        out.join(" ")
    }

    #[test]
    fn options_are_read_as_the_program_reads_them() {
        let cases: &[(&str, &Grammar, &str)] = &[
            ("-rf x", &RM, "r f [x]"),
            ("x -rf", &RM, "r f [x]"),
            ("--recur --forc x", &RM, "recursive force [x]"),
            ("--re x", &RM, "recursive [x]"),
            ("--interactive=never x", &RM, "interactive=never [x]"),
            ("--interactive x", &RM, "interactive [x]"),
            ("-- -rf", &RM, "[-rf]"),
            ("- x", &RM, "[-] [x]"),
            ("--p x", &RM, "preserve-root [x]"),
            ("--no x", &RM, "no-preserve-root [x]"),
            ("-xzf a.tgz", &TAR, "x z f=a.tgz"),
            ("-xzfa.tgz", &TAR, "x z f=a.tgz"),
            ("-C dir -x", &TAR, "C=dir x"),
            ("--file=a.tgz --dir /", &TAR, "file=a.tgz directory=/"),
            ("--to-com=sh", &TAR, "to-command=sh"),
            ("--unknown=1 y", &TAR, "unknown=1 [y]"),
        ];
        for (line, grammar, want) in cases {
            let w = words(line);
            assert_eq!(shown(&parse(&w, grammar)), *want, "{line}");
        }
    }

    #[test]
    fn an_ambiguous_prefix_is_every_option_it_may_mean() {
        const PUSH: Grammar = Grammar {
            short: "",
            long: &[
                "force",
                "force-with-lease=?",
                "force-if-includes",
                "follow-tags",
            ],
            style: Style::Gnu,
        };
        let w = words("--forc origin");
        let a = parse(&w, &PUSH);
        assert!(
            a.has(&["force"]) && a.has(&["force-with-lease"]),
            "{}",
            shown(&a)
        );
        assert!(!a.has(&["follow-tags"]));
    }

    /// `jq --rawfile NAME FILE` with the file left off: no value, and the word after the option
    /// is read as itself (a `--` ends the options; a property test's case).
    #[test]
    fn an_option_of_two_words_cut_short_takes_the_one() {
        const JQ: Grammar = Grammar {
            short: "f:L:",
            long: &["rawfile==", "args"],
            style: Style::Gnu,
        };
        let w = words("--r --");
        let a = parse(&w, &JQ);
        assert_eq!(shown(&a), "rawfile");
        assert_eq!(a.after_dashdash, Some(0));
        let w = words("--rawfile name file x");
        assert_eq!(shown(&parse(&w, &JQ)), "rawfile=file [x]");
    }

    #[test]
    fn posix_programs_stop_at_the_first_operand() {
        const SUDO: Grammar = Grammar {
            short: "u:g:",
            long: &["user="],
            style: Style::Posix,
        };
        let w = words("-u root rm -rf /");
        let a = parse(&w, &SUDO);
        assert_eq!(a.rest, 2);
        assert_eq!(shown(&a), "u=root [rm] [-rf] [/]");
        let w = words("-- rm");
        assert_eq!(parse(&w, &SUDO).rest, 1);
    }
}
