//! getopt-style reading of a file utility's arguments: flags, option values, operands.
//! GNU utilities take options after operands too (`rm x -rf`), until `--`.

use crate::analyse::rules::long_is;
use crate::analyse::words::Word;

/// What a program accepts.
pub struct Spec {
    /// Short options that take a value (`t` for `-t DIR` and `-tDIR`).
    pub short_values: &'static str,
    /// Every long option, for abbreviations (`--rec` is `--recursive`).
    pub long: &'static [&'static str],
    /// Long options that take a value (`--target-directory DIR`).
    pub long_values: &'static [&'static str],
}

/// The arguments, sorted.
pub struct Args<'a, 's> {
    /// Every short flag letter given.
    pub short: String,
    /// Long options given, as full names where the abbreviation is unambiguous.
    pub long: Vec<String>,
    /// Option values by option (`t`, `target-directory`).
    pub values: Vec<(String, Word<'s>)>,
    pub operands: Vec<&'a Word<'s>>,
}

impl Args<'_, '_> {
    pub fn has(&self, short: char, long: &str) -> bool {
        self.short.contains(short) || self.long.iter().any(|l| l == long)
    }

    pub fn value(&self, short: &str, long: &str) -> Option<&Word<'_>> {
        self.values
            .iter()
            .find(|(o, _)| o == short || o == long)
            .map(|(_, w)| w)
    }
}

/// `w` from byte `at` of its text on, as a word of its own (`-tDIR` → `DIR`).
fn tail<'s>(w: &Word<'s>, at: usize) -> Word<'s> {
    let text = w.text.get(at..).unwrap_or("").to_owned();
    let raw = w
        .raw
        .get(w.raw.len().saturating_sub(text.len())..)
        .unwrap_or(w.raw);
    Word {
        text,
        raw,
        dynamic: w.dynamic,
        span: w.span.clone(),
    }
}

/// Reads `args` by `spec`. A dynamic word is an operand: it could be anything.
pub fn parse<'a, 's>(args: &'a [Word<'s>], spec: &Spec) -> Args<'a, 's> {
    let mut out = Args {
        short: String::new(),
        long: Vec::new(),
        values: Vec::new(),
        operands: Vec::new(),
    };
    let mut done = false;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        let t = match w.literal() {
            Some(t) if !done && t.len() > 1 && t.starts_with('-') => t,
            _ => {
                out.operands.push(w);
                continue;
            }
        };
        if t == "--" {
            done = true;
        } else if let Some(body) = t.strip_prefix("--") {
            let (given, inline) = match body.split_once('=') {
                Some((g, v)) => (g, Some(v)),
                None => (body, None),
            };
            let name = spec
                .long
                .iter()
                .find(|l| long_is(given, l, spec.long))
                .map_or(given, |l| *l)
                .to_owned();
            if spec.long_values.contains(&name.as_str()) {
                let value = match inline {
                    Some(_) => Some(tail(w, t.len() - inline.map_or(0, str::len))),
                    None => args.get(i).inspect(|_| i += 1).cloned(),
                };
                if let Some(v) = value {
                    out.values.push((name.clone(), v));
                }
            }
            out.long.push(name);
        } else {
            for (at, c) in t.char_indices().skip(1) {
                out.short.push(c);
                if spec.short_values.contains(c) {
                    let value = if at + 1 < t.len() {
                        Some(tail(w, at + 1))
                    } else {
                        args.get(i).inspect(|_| i += 1).cloned()
                    };
                    if let Some(v) = value {
                        out.values.push((c.to_string(), v));
                    }
                    break;
                }
            }
        }
    }
    out
}
