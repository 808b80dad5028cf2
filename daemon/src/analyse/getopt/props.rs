//! Properties of [`parse`]: for any words and any grammar, the index's own and random ones,
//! it returns, and every word is read exactly once — as an option, the value of the option
//! before it, the `--` that ends options, or an operand — with the operands in their order,
//! everything after `--` an operand, a POSIX grammar's operands a tail of the words, a long
//! option's prefix read as the options it begins, and a cluster of short options letter by
//! letter.

use std::collections::BTreeSet;
use std::rc::Rc;

use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, TestRunner};

use super::*;
use crate::analyse::index;
use crate::places::Piece;

/// Long option names, some prefixes of others, for the random grammars and the words.
const LONG: &[&str] = &[
    "force",
    "force-with-lease",
    "file",
    "files",
    "f",
    "output",
    "out",
    "directory",
    "recursive",
    "interactive",
    "no-preserve-root",
    "exec",
    "help",
    "é",
    "日本",
    "a=b",
    "",
];

/// Short option letters, including ones no grammar should have.
const SHORT: &[&str] = &[
    "a", "b", "f", "o", "r", "x", "z", "C", "S", "t", "e", "i", "é", "-", "=", ":",
];

/// Values and operands.
const OTHER: &[&str] = &[
    "--", "-", "x", "", "=", "-=", "---", "--=v", "é", "a b", "-é", "--é=日", "/", "~", "-1",
];

/// Words that are never options.
const PLAIN: &[&str] = &["x", "", "/", "~", "é", "-", "a b", "=v"];

/// One word: its text and whether it is only known at run time.
fn word() -> impl Strategy<Value = (String, bool)> {
    let long = (
        select(LONG),
        0usize..20,
        proptest::option::of(select(OTHER)),
    )
        .prop_map(|(name, cut, value)| {
            let cut = name
                .char_indices()
                .map(|(i, _)| i)
                .chain([name.len()])
                .nth(cut)
                .unwrap_or(name.len());
            match value {
                Some(v) => format!("--{}={v}", &name[..cut]),
                None => format!("--{}", &name[..cut]),
            }
        });
    let short = (
        prop::collection::vec(select(SHORT), 1..5),
        proptest::option::of(select(OTHER)),
    )
        .prop_map(|(letters, value)| format!("-{}{}", letters.concat(), value.unwrap_or("")));
    let text = prop_oneof![
        3 => long,
        3 => short,
        2 => select(OTHER).prop_map(str::to_owned),
        1 => "[-=a-zé日:]{0,6}",
    ];
    (text, prop::bool::weighted(0.15))
}

/// A grammar: one of the index's, or a random one (leaked: a grammar's names are `'static`,
/// and a test run makes a few thousand small ones).
fn grammar() -> impl Strategy<Value = Grammar> {
    let real = (0..index::ENTRIES.len()).prop_map(|i| index::ENTRIES[i].grammar);
    let short = prop::collection::vec((select(SHORT), 0usize..3), 0..6).prop_map(|spec| {
        let text: String = spec
            .into_iter()
            .map(|(letter, colons)| format!("{letter}{}", ":".repeat(colons)))
            .collect();
        &*Box::leak(text.into_boxed_str())
    });
    let long = prop::collection::vec((select(LONG), select(&["", "=", "=?"][..])), 0..6).prop_map(
        |names| {
            let names: Vec<&'static str> = names
                .into_iter()
                .map(|(n, suffix)| &*Box::leak(format!("{n}{suffix}").into_boxed_str()))
                .collect();
            &*Box::leak(names.into_boxed_slice())
        },
    );
    let made = (short, long, prop::bool::ANY).prop_map(|(short, long, posix)| Grammar {
        short,
        long,
        style: if posix { Style::Posix } else { Style::Gnu },
    });
    prop_oneof![real, made]
}

/// The words, each spanning `k..k+1` so that a value can be traced to the word it came from.
fn words_of(specs: &[(String, bool)]) -> Vec<Word<'_>> {
    specs
        .iter()
        .enumerate()
        .map(|(k, (text, dynamic))| {
            if *dynamic {
                Word {
                    text: text.clone(),
                    raw: text,
                    dynamic: true,
                    span: k..k + 1,
                    value: Some(Rc::new(vec![vec![Piece::Lit(text.clone()), Piece::Opaque]])),
                }
            } else {
                Word::made(text.clone(), text, k..k + 1)
            }
        })
        .collect()
}

/// What each word was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Read {
    Option,
    Value,
    DashDash,
    Operand,
}

fn is_option_shaped(w: &Word) -> bool {
    w.literal()
        .is_some_and(|t| t.len() > 1 && t.starts_with('-'))
}

/// Every word's reading, from what `parse` returned; fails when a word is read twice or a
/// reading does not fit the word.
fn readings(words: &[Word], args: &Args, grammar: &Grammar) -> Result<Vec<Read>, TestCaseError> {
    let two: Vec<&str> = long_names(grammar)
        .into_iter()
        .filter(|(_, t)| *t == Takes::Two)
        .map(|(n, _)| n)
        .collect();
    let mut read: Vec<Option<Read>> = vec![None; words.len()];
    let mut last = None;
    for op in &args.operands {
        let k = words
            .iter()
            .position(|w| std::ptr::eq(w, *op))
            .ok_or_else(|| TestCaseError::fail("an operand is one of the words"))?;
        prop_assert!(read[k].is_none(), "word {k} is an operand twice");
        prop_assert!(
            last < Some(k),
            "operands keep their order: {k} after {last:?}"
        );
        last = Some(k);
        read[k] = Some(Read::Operand);
    }
    // A value taken from the next word is that whole word; one written in the option's own
    // word (`-ofile`, `--out=file`) is a strict tail of it.
    let mut values = BTreeSet::new();
    for opt in &args.opts {
        let Some(v) = &opt.value else { continue };
        let k = v.span.start;
        prop_assert!(k < words.len(), "a value comes from a word");
        if v.text == words[k].text && v.dynamic == words[k].dynamic {
            values.insert(k);
            // `--rawfile NAME FILE`: the word before the value is the option's first.
            if two.contains(&opt.name.as_ref())
                && k > 0
                && !words[k - 1].literal().is_some_and(|t| t.starts_with("--"))
            {
                values.insert(k - 1);
            }
        } else {
            prop_assert!(
                words[k].text.ends_with(&v.text) && v.text.len() < words[k].text.len(),
                "an attached value is the end of its word: {:?} in {:?}",
                v.text,
                words[k].text
            );
        }
    }
    for k in values {
        prop_assert!(read[k].is_none(), "word {k} is an operand and a value");
        read[k] = Some(Read::Value);
    }
    let mut out = Vec::with_capacity(words.len());
    let mut dashdash = None;
    for (k, r) in read.into_iter().enumerate() {
        let r = match r {
            Some(r) => r,
            None if dashdash.is_none() && words[k].literal() == Some("--") => {
                dashdash = Some(k);
                Read::DashDash
            }
            None => {
                prop_assert!(
                    is_option_shaped(&words[k]),
                    "word {k} {:?} is read as an option",
                    words[k].text
                );
                Read::Option
            }
        };
        out.push(r);
    }
    Ok(out)
}

fn check(specs: &[(String, bool)], grammar: &Grammar) -> Result<(), TestCaseError> {
    let words = words_of(specs);
    let args = parse(&words, grammar);
    let read = readings(&words, &args, grammar)?;
    let option_words = read.iter().filter(|r| **r == Read::Option).count();
    prop_assert!(
        args.opts.len() >= option_words,
        "each option word gives an option"
    );
    for (k, r) in read.iter().enumerate() {
        if *r == Read::Value {
            // A value follows its option word, or (an option taking two) the first value.
            prop_assert!(
                k > 0 && matches!(read[k - 1], Read::Option | Read::Value),
                "value {k} follows an option word: {read:?}"
            );
        }
    }
    let dashdash = read.iter().position(|r| *r == Read::DashDash);
    prop_assert_eq!(args.after_dashdash.is_some(), dashdash.is_some());
    if let Some(d) = dashdash {
        prop_assert!(
            read[d + 1..].iter().all(|r| *r == Read::Operand),
            "everything after `--` is an operand: {read:?}"
        );
        let before = read[..d].iter().filter(|r| **r == Read::Operand).count();
        prop_assert_eq!(args.after_dashdash, Some(before));
    }
    match grammar.style {
        Style::Gnu => prop_assert_eq!(args.rest, words.len()),
        Style::Posix => {
            prop_assert!(args.rest <= words.len());
            prop_assert!(
                read[args.rest..].iter().all(|r| *r == Read::Operand)
                    && read[..args.rest].iter().all(|r| *r != Read::Operand),
                "a POSIX grammar's operands are the words from `rest` on: {} in {read:?}",
                args.rest
            );
        }
    }
    Ok(())
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

#[test]
fn every_word_is_read_once() {
    let strategy = (prop::collection::vec(word(), 0..10), grammar());
    runner(3000)
        .run(&strategy, |(specs, grammar)| check(&specs, &grammar))
        .expect("every word is an option, a value, `--` or an operand, once");
}

/// Every long option of a grammar and what it takes, as its doc comment spells them.
fn long_names(grammar: &Grammar) -> Vec<(&'static str, Takes)> {
    grammar
        .long
        .iter()
        .map(|l| {
            if let Some(n) = l.strip_suffix("==") {
                (n, Takes::Two)
            } else if let Some(n) = l.strip_suffix("=?") {
                (n, Takes::Optional)
            } else if let Some(n) = l.strip_suffix('=') {
                (n, Takes::Value)
            } else {
                (*l, Takes::Nothing)
            }
        })
        .collect()
}

/// `--PREFIX` means the option of that name if there is one, else every option it begins;
/// `--PREFIX=v` gives each of them `v`, and `--PREFIX v` gives `v` to those that need a value.
#[test]
fn a_prefix_is_the_options_it_begins() {
    let strategy = (grammar(), 0usize..16, 0usize..24, select(PLAIN));
    runner(2000)
        .run(&strategy, |(grammar, pick, cut, value)| {
            let all = long_names(&grammar);
            let Some(&(name, _)) = all.get(pick % all.len().max(1)) else {
                return Ok(());
            };
            let cut = name
                .char_indices()
                .map(|(i, _)| i)
                .chain([name.len()])
                .nth(cut)
                .unwrap_or(name.len());
            let given = &name[..cut];
            // `--` alone ends options, and a name holding `=` cannot be given before one.
            prop_assume!(!given.is_empty() && !given.contains('='));
            let mut want: Vec<(&str, Takes)> = all
                .iter()
                .copied()
                .filter(|(n, _)| *n == given)
                .take(1)
                .collect();
            if want.is_empty() {
                want = all
                    .iter()
                    .copied()
                    .filter(|(n, _)| n.starts_with(given))
                    .collect();
            }
            let next = value.to_owned();
            for inline in [false, true] {
                let specs = if inline {
                    vec![(format!("--{given}={value}"), false)]
                } else {
                    vec![(format!("--{given}"), false), (next.clone(), false)]
                };
                let words = words_of(&specs);
                let args = parse(&words, &grammar);
                let names: Vec<&str> = args.opts.iter().map(|o| o.name.as_ref()).collect();
                let want_names: Vec<&str> = want.iter().map(|(n, _)| *n).collect();
                prop_assert_eq!(&names, &want_names, "{:?} by {:?}", specs, grammar.long);
                for (opt, (_, takes)) in args.opts.iter().zip(&want) {
                    let got = opt.value.as_ref().map(|v| v.text.as_str());
                    let expected = match (inline, takes) {
                        // Two words are wanted, and there is none (inline) or one after it.
                        (_, Takes::Two) => None,
                        (true, _) => Some(value),
                        (false, Takes::Value) => Some(next.as_str()),
                        (false, _) => None,
                    };
                    prop_assert_eq!(got, expected, "{:?} by {:?}", specs, grammar.long);
                }
            }
            Ok(())
        })
        .expect("a long option's prefix is read as the options it begins");
}

/// A cluster `-abc…` is read letter by letter up to the first letter that takes a value,
/// which gets the rest of the word, or the next word when it needs one and the word ends.
#[test]
fn a_cluster_is_read_letter_by_letter() {
    let strategy = (
        grammar(),
        prop::collection::vec(select(SHORT), 1..6),
        select(PLAIN),
    );
    runner(2000)
        .run(&strategy, |(grammar, letters, next)| {
            let cluster = format!("-{}", letters.concat());
            prop_assume!(!cluster.starts_with("--"));
            let specs = vec![(cluster.clone(), false), (next.to_owned(), false)];
            let words = words_of(&specs);
            let args = parse(&words, &grammar);
            let mut want: Vec<(String, Option<&str>)> = Vec::new();
            let mut operands = vec![next];
            for (at, c) in cluster.char_indices().skip(1) {
                let rest = &cluster[at + c.len_utf8()..];
                let value = match grammar.short_takes(c) {
                    Takes::Nothing => {
                        want.push((c.to_string(), None));
                        continue;
                    }
                    Takes::Optional => Some(rest).filter(|r| !r.is_empty()),
                    Takes::Value | Takes::Two if rest.is_empty() => {
                        operands.clear();
                        Some(next)
                    }
                    Takes::Value | Takes::Two => Some(rest),
                };
                want.push((c.to_string(), value));
                break;
            }
            let got: Vec<(String, Option<&str>)> = args
                .opts
                .iter()
                .map(|o| {
                    (
                        o.name.to_string(),
                        o.value.as_ref().map(|v| v.text.as_str()),
                    )
                })
                .collect();
            prop_assert_eq!(got, want, "{:?} by {:?}", specs, grammar.short);
            let got: Vec<&str> = args.operands.iter().map(|w| w.text.as_str()).collect();
            prop_assert_eq!(got, operands, "{:?} by {:?}", specs, grammar.short);
            Ok(())
        })
        .expect("a cluster of short options is read letter by letter");
}

/// Every grammar the gate reads a program by: the index's and those the models declare.
fn every_grammar() -> Vec<(String, Grammar)> {
    let mut out: Vec<(String, Grammar)> = index::ENTRIES
        .iter()
        .map(|e| {
            (
                e.names.first().copied().unwrap_or("?").to_owned(),
                e.grammar,
            )
        })
        .collect();
    out.extend(
        crate::analyse::programs::GRAMMARS
            .iter()
            .map(|(name, g)| ((*name).to_owned(), **g)),
    );
    out
}

/// A word for `grammar`, made of its own options: a long option whole or cut to a prefix,
/// with an `=value` or not; a cluster of its short letters, with a value attached or not; a
/// value or an operand; `--`.
fn word_for(grammar: &Grammar) -> BoxedStrategy<String> {
    let longs: Vec<&'static str> = long_names(grammar).into_iter().map(|(n, _)| n).collect();
    let shorts: Vec<char> = grammar.short.chars().filter(|c| *c != ':').collect();
    let plain = select(&["x", "/", "-", "~", "v", "-v", "--", "a=b"][..]).prop_map(str::to_owned);
    let mut options = vec![plain.boxed()];
    if !longs.is_empty() {
        let long = (
            select(longs),
            1usize..30,
            proptest::option::of(select(PLAIN)),
        )
            .prop_map(|(name, cut, value)| {
                let cut = name
                    .char_indices()
                    .map(|(i, _)| i)
                    .chain([name.len()])
                    .nth(cut)
                    .unwrap_or(name.len())
                    .max(name.chars().next().map_or(0, char::len_utf8));
                match value {
                    Some(v) => format!("--{}={v}", &name[..cut]),
                    None => format!("--{}", &name[..cut]),
                }
            });
        options.push(long.boxed());
    }
    if !shorts.is_empty() {
        let short = (
            prop::collection::vec(select(shorts), 1..4),
            proptest::option::of(select(&["v", "1", "/x"][..])),
        )
            .prop_map(|(letters, value)| {
                let letters: String = letters.into_iter().collect();
                format!("-{letters}{}", value.unwrap_or(""))
            });
        options.push(short.boxed());
    }
    proptest::strategy::Union::new(options).boxed()
}

/// Options with their values, and operands, as text.
type Reading = (Vec<(String, Option<String>)>, Vec<String>);

/// What getopt_long(3) makes of `words` under `grammar` (`+` in front of the short options
/// for a POSIX grammar: options end at the first operand), written from its manual, apart
/// from `parse`: the options with their values, and the operands. `None` where getopt_long
/// reports an error or the grammar goes beyond it (an unknown or ambiguous option, a value
/// missing or given to an option that takes none, an option that takes two words).
fn getopt_long(words: &[String], grammar: &Grammar) -> Option<Reading> {
    let longs = long_names(grammar);
    let mut opts = Vec::new();
    let mut operands = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        i += 1;
        if w == "--" {
            operands.extend(words[i..].iter().cloned());
            break;
        }
        if w.len() < 2 || !w.starts_with('-') {
            if grammar.style == Style::Posix {
                operands.extend(words[i - 1..].iter().cloned());
                break;
            }
            operands.push(w.clone());
            continue;
        }
        if let Some(body) = w.strip_prefix("--") {
            let (given, inline) = match body.split_once('=') {
                Some((g, v)) => (g, Some(v.to_owned())),
                None => (body, None),
            };
            let exact: Vec<_> = longs.iter().filter(|(n, _)| *n == given).collect();
            let found = if exact.is_empty() {
                longs.iter().filter(|(n, _)| n.starts_with(given)).collect()
            } else {
                exact
            };
            let [(name, takes)] = found.as_slice() else {
                return None;
            };
            let value = match (takes, inline) {
                (Takes::Nothing, Some(_)) | (Takes::Two, _) => return None,
                (Takes::Nothing, None) | (Takes::Optional, None) => None,
                (_, Some(v)) => Some(v),
                (Takes::Value, None) => {
                    i += 1;
                    Some(words.get(i - 1)?.clone())
                }
            };
            opts.push(((*name).to_owned(), value));
            continue;
        }
        let letters: Vec<(usize, char)> = w.char_indices().skip(1).collect();
        for (at, c) in letters {
            if !grammar.short.contains(c) || c == ':' {
                return None;
            }
            let rest = &w[at + c.len_utf8()..];
            match grammar.short_takes(c) {
                Takes::Nothing => opts.push((c.to_string(), None)),
                Takes::Optional => {
                    opts.push((
                        c.to_string(),
                        Some(rest.to_owned()).filter(|r| !r.is_empty()),
                    ));
                    break;
                }
                Takes::Value | Takes::Two if rest.is_empty() => {
                    i += 1;
                    opts.push((c.to_string(), Some(words.get(i - 1)?.clone())));
                    break;
                }
                Takes::Value | Takes::Two => {
                    opts.push((c.to_string(), Some(rest.to_owned())));
                    break;
                }
            }
        }
    }
    Some((opts, operands))
}

/// For every grammar the gate reads a program by, a command line getopt_long accepts is read
/// as getopt_long reads it: the same options, in order, with the same values, and the same
/// operands. (Where getopt_long refuses the line, `parse` still reads it, as the other
/// properties say: an unknown option as a flag, an ambiguous prefix as every option.)
#[test]
fn every_grammar_reads_as_getopt_long() {
    let accepted = std::cell::Cell::new(0usize);
    let all = every_grammar();
    for (name, grammar) in &all {
        let strategy = prop::collection::vec(word_for(grammar), 0..6);
        runner(64)
            .run(&strategy, |texts| {
                let Some((want_opts, want_operands)) = getopt_long(&texts, grammar) else {
                    return Ok(());
                };
                accepted.set(accepted.get() + 1);
                let specs: Vec<(String, bool)> = texts.iter().map(|t| (t.clone(), false)).collect();
                let words = words_of(&specs);
                let args = parse(&words, grammar);
                let got_opts: Vec<(String, Option<String>)> = args
                    .opts
                    .iter()
                    .map(|o| (o.name.to_string(), o.value.as_ref().map(|v| v.text.clone())))
                    .collect();
                let got_operands: Vec<String> =
                    args.operands.iter().map(|w| w.text.clone()).collect();
                prop_assert_eq!(got_opts, want_opts, "{} {:?}", name, texts);
                prop_assert_eq!(got_operands, want_operands, "{} {:?}", name, texts);
                Ok(())
            })
            .unwrap_or_else(|e| panic!("`{name}` is read as getopt_long reads it: {e}"));
    }
    // Most lines made of a grammar's own options are ones getopt_long accepts: the property
    // is not vacuous.
    assert!(
        accepted.get() > all.len() * 64 / 4,
        "{} of {} lines accepted",
        accepted.get(),
        all.len() * 64
    );
}
