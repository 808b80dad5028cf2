//! Text an inline program computes from its own literals, computed here: the string
//! functions and methods that hide a name by spelling it another way (`'hss.'[::-1]`,
//! `chr(46)`, `bytes.fromhex('2e737368').decode()`, `'hss'.split('').reverse().join('')`,
//! `Base64.decode64(…)`). A path made so is the path; a program that computes its names this
//! way gains nothing over writing them. Anything not all known stays unknown, and so does a
//! result longer than [`MAX_TEXT`].

use std::rc::Rc;

use super::eval::Value;

/// The longest text computed here: past it, unknown (`'a'.replace('a', 'aa')` repeated).
const MAX_TEXT: usize = 4096;

/// A module-level function that makes text from text or numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Text {
    /// `reversed(s)`: the characters, last first.
    Reverse,
    /// `chr(46)`, `String.fromCharCode(46, 115)`: the characters with these codes.
    Chr,
    /// `bytes.fromhex('2e73')`: the bytes these hex digits spell.
    FromHex,
    /// `base64.b64decode(s)`, `atob(s)`, `Base64.decode64(s)`.
    Base64,
    /// `codecs.decode(s, 'rot13' | 'hex' | 'base64')`, `Buffer.from(s, 'hex' | 'base64')`:
    /// argument 1 names the encoding; none, or `utf8`, is the text itself.
    Decode,
}

/// The value a string function gives for `args`, or unknown.
pub fn function(text: Text, args: &[Value]) -> Value {
    let arg = |n: usize| args.get(n).and_then(Value::text);
    let out = match text {
        Text::Reverse => match args.first() {
            Some(Value::Str(s)) => {
                return Value::List(s.chars().rev().map(|c| Value::Str(c.into())).collect());
            }
            Some(Value::List(items)) => return Value::List(items.iter().rev().cloned().collect()),
            _ => None,
        },
        Text::Chr => args
            .iter()
            .map(|a| {
                a.text()
                    .and_then(|t| t.trim().parse::<u32>().ok())
                    .and_then(char::from_u32)
            })
            .collect::<Option<String>>(),
        Text::FromHex => arg(0).and_then(hex),
        Text::Base64 => arg(0).and_then(from_base64),
        Text::Decode => arg(0).and_then(|s| decoded(s, arg(1))),
    };
    bounded(out)
}

/// What the method `name` of a string or list gives, for `args`; unknown when it is not one
/// of these or something in it is not known.
pub fn method(name: &str, this: &Value, args: &[Value]) -> Value {
    let arg = |n: usize| args.get(n).and_then(Value::text);
    match (name, this) {
        ("reverse" | "reversed", Value::Str(s)) => bounded(Some(s.chars().rev().collect())),
        ("reverse" | "reversed", Value::List(items)) => {
            Value::List(items.iter().rev().cloned().collect())
        }
        // `'a/b'.split('/')`; an empty separator (JavaScript, Ruby): the characters.
        ("split", Value::Str(s)) => match arg(0) {
            Some("") => Value::List(s.chars().map(|c| Value::Str(c.into())).collect()),
            Some(sep) => Value::List(s.split(sep).map(|p| Value::Str(p.to_owned())).collect()),
            None if args.is_empty() => Value::List(
                s.split_whitespace()
                    .map(|p| Value::Str(p.to_owned()))
                    .collect(),
            ),
            None => Value::Unknown,
        },
        ("chars", Value::Str(s)) => Value::List(s.chars().map(|c| Value::Str(c.into())).collect()),
        // Python's `sep.join(items)`; JavaScript's and Ruby's `items.join(sep)`.
        ("join", Value::Str(sep)) => match args.first() {
            Some(items) => joined(items, sep),
            None => Value::Unknown,
        },
        ("join", items @ Value::List(_)) => match args.first() {
            None => joined(items, if args.is_empty() { "" } else { "," }),
            Some(Value::Str(sep)) => joined(items, sep),
            Some(_) => Value::Unknown,
        },
        (
            "lower" | "downcase" | "toLowerCase" | "casefold" | "toLocaleLowerCase",
            Value::Str(s),
        ) => Value::Str(s.to_lowercase()),
        ("upper" | "upcase" | "toUpperCase" | "toLocaleUpperCase", Value::Str(s)) => {
            Value::Str(s.to_uppercase())
        }
        ("strip" | "trim" | "chomp", Value::Str(s)) if args.is_empty() => {
            Value::Str(s.trim().to_owned())
        }
        ("replace" | "replaceAll" | "gsub" | "sub", Value::Str(s)) => match (arg(0), arg(1)) {
            (Some(from), Some(to)) if !from.is_empty() => {
                // What it would grow to, before it is made.
                let grows = s.matches(from).count().saturating_mul(to.len());
                if s.len().saturating_add(grows) > MAX_TEXT.saturating_mul(4) {
                    return Value::Unknown;
                }
                let out = if name == "sub" {
                    s.replacen(from, to, 1)
                } else {
                    s.replace(from, to)
                };
                bounded(Some(out))
            }
            _ => Value::Unknown,
        },
        // Text to bytes and back, and Ruby's `46.chr`.
        ("decode" | "encode" | "toString" | "to_s" | "to_str" | "b", Value::Str(s)) => {
            match arg(0) {
                None | Some("utf-8" | "utf8" | "UTF-8" | "ascii" | "latin-1" | "binary") => {
                    Value::Str(s.clone())
                }
                Some(other) => bounded(decoded(s, Some(other))),
            }
        }
        ("chr", Value::Str(s)) if args.is_empty() => function(Text::Chr, &[Value::Str(s.clone())]),
        // JavaScript's `'s'.repeat(2)`.
        ("repeat", Value::Str(_)) => operator("*", this, args.first().unwrap_or(&Value::Unknown)),
        _ => Value::Unknown,
    }
}

/// Python's `text * n` (repeated) and `format % args` with `%s`, `%c`, `%d` and `%%`, when all is
/// known; else unknown.
pub fn operator(op: &str, left: &Value, right: &Value) -> Value {
    let Value::Str(text) = left else {
        return Value::Unknown;
    };
    match op {
        "*" => match right.text().and_then(|n| n.trim().parse::<usize>().ok()) {
            Some(n) if text.len().saturating_mul(n) <= MAX_TEXT => Value::Str(text.repeat(n)),
            _ => Value::Unknown,
        },
        "%" => {
            let args: Vec<&Value> = match right {
                Value::List(items) => items.iter().collect(),
                one => vec![one],
            };
            let mut args = args.into_iter();
            let mut out = String::new();
            let mut chars = text.chars();
            while let Some(c) = chars.next() {
                if c != '%' {
                    out.push(c);
                    continue;
                }
                let piece = match chars.next() {
                    Some('%') => Some("%".to_owned()),
                    Some('s' | 'd' | 'i') => args.next().and_then(Value::text).map(str::to_owned),
                    Some('c') => args
                        .next()
                        .and_then(Value::text)
                        .and_then(|t| t.trim().parse::<u32>().ok())
                        .and_then(char::from_u32)
                        .map(String::from),
                    _ => None,
                };
                match piece {
                    Some(p) => out.push_str(&p),
                    None => return Value::Unknown,
                }
            }
            bounded(Some(out))
        }
        _ => Value::Unknown,
    }
}

/// `v[start:stop:step]`, as Python slices a string or a list; unknown unless every bound
/// given is a known integer.
pub fn slice(v: &Value, bounds: [Option<&Value>; 3]) -> Value {
    let mut n = [None; 3];
    for (i, b) in bounds.iter().enumerate() {
        if let Some(b) = b {
            match b.text().and_then(|t| t.trim().parse::<i64>().ok()) {
                Some(x) => n[i] = Some(x),
                None => return Value::Unknown,
            }
        }
    }
    let step = n[2].unwrap_or(1);
    if step == 0 {
        return Value::Unknown;
    }
    let pick = |len: usize| -> Vec<usize> {
        let len = len as i64;
        let at = |x: i64| if x < 0 { x + len } else { x };
        let mut out = Vec::new();
        if step > 0 {
            let start = n[0].map_or(0, at).clamp(0, len);
            let stop = n[1].map_or(len, at).clamp(0, len);
            let mut i = start;
            while i < stop {
                out.push(i as usize);
                match i.checked_add(step) {
                    Some(next) => i = next,
                    None => break,
                }
            }
        } else {
            let start = n[0].map_or(len - 1, at).clamp(-1, len - 1);
            let stop = n[1].map_or(-1, at).clamp(-1, len - 1);
            let mut i = start;
            while i > stop {
                out.push(i as usize);
                match i.checked_add(step) {
                    Some(next) => i = next,
                    None => break,
                }
            }
        }
        out
    };
    match v {
        Value::Str(s) => {
            let chars: Vec<char> = s.chars().collect();
            Value::Str(pick(chars.len()).into_iter().map(|i| chars[i]).collect())
        }
        Value::List(items) => Value::List(
            pick(items.len())
                .into_iter()
                .map(|i| items[i].clone())
                .collect(),
        ),
        _ => Value::Unknown,
    }
}

fn joined(items: &Value, sep: &str) -> Value {
    let Value::List(items) = items else {
        return Value::Unknown;
    };
    let parts: Option<Vec<&str>> = items.iter().map(Value::text).collect();
    let parts = parts.filter(|p| {
        let total = p.iter().map(|t| t.len()).sum::<usize>();
        total.saturating_add(p.len().saturating_mul(sep.len())) <= MAX_TEXT
    });
    bounded(parts.map(|p| p.join(sep)))
}

fn bounded(text: Option<String>) -> Value {
    match text {
        Some(t) if t.len() <= MAX_TEXT => Value::Str(t),
        _ => Value::Unknown,
    }
}

fn hex(s: &str) -> Option<String> {
    let digits: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    let bytes = digits
        .chunks(2)
        .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    String::from_utf8(bytes).ok()
}

fn from_base64(s: &str) -> Option<String> {
    String::from_utf8(base64(s)?).ok()
}

/// Standard base64, padding optional.
pub fn base64(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let digits = text
        .bytes()
        .filter(|c| *c != b'=' && !c.is_ascii_whitespace())
        .count();
    // One digit over a whole group is no byte: not base64.
    if digits % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for &c in text.as_bytes() {
        if c == b'=' || c.is_ascii_whitespace() {
            continue;
        }
        acc = (acc << 6) | value(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

fn rot13(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            'a'..='z' => (((c as u8 - b'a') + 13) % 26 + b'a') as char,
            'A'..='Z' => (((c as u8 - b'A') + 13) % 26 + b'A') as char,
            c => c,
        })
        .collect()
}

/// `s` decoded from the encoding named (`rot13`, `hex`, `base64`); none: `s` itself.
fn decoded(s: &str, encoding: Option<&str>) -> Option<String> {
    match encoding.map(|e| e.to_ascii_lowercase().replace(['-', '_'], "")) {
        None => Some(s.to_owned()),
        Some(e) => match e.as_str() {
            "utf8" | "ascii" | "latin1" | "binary" => Some(s.to_owned()),
            "rot13" => Some(rot13(s)),
            "hex" => hex(s),
            "base64" | "base64url" => from_base64(s),
            _ => None,
        },
    }
}

/// The name a string's or list's method has when it is read from its value: `Bound` with
/// this prefix, the value as `this`.
pub const METHOD: &str = "<text>.";

/// `obj.name` where `obj` is text or a list: the method, bound to it.
pub fn bound(obj: &Value, name: &str) -> Value {
    Value::Bound(Rc::from(format!("{METHOD}{name}")), Rc::new(obj.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> Value {
        Value::Str(t.to_owned())
    }

    #[test]
    fn base64_decodes() {
        assert_eq!(
            base64("L2V0Yy9zaGFkb3c=").as_deref(),
            Some(&b"/etc/shadow"[..])
        );
        assert_eq!(base64("aGk").as_deref(), Some(&b"hi"[..]));
        assert_eq!(base64("a!b"), None);
        assert_eq!(base64("x"), None);
    }

    #[test]
    fn spelled_otherwise_is_spelled() {
        assert_eq!(slice(&s("hss."), [None, None, Some(&s("-1"))]), s(".ssh"));
        assert_eq!(
            slice(&s("abcdef"), [Some(&s("1")), Some(&s("-1")), None]),
            s("bcde")
        );
        assert_eq!(slice(&s("abcdef"), [None, None, Some(&s("2"))]), s("ace"));
        assert_eq!(function(Text::Chr, &[s("46")]), s("."));
        assert_eq!(function(Text::FromHex, &[s("2e737368")]), s(".ssh"));
        assert_eq!(function(Text::Base64, &[s("LnNzaA==")]), s(".ssh"));
        assert_eq!(function(Text::Decode, &[s("ffu"), s("rot13")]), s("ssh"));
        let chars = method("split", &s("hss"), &[s("")]);
        let back = method("reverse", &chars, &[]);
        assert_eq!(method("join", &back, &[s("")]), s("ssh"));
        assert_eq!(
            method("join", &s(""), &[function(Text::Reverse, &[s("hss.")])]),
            s(".ssh")
        );
        assert_eq!(method("chr", &s("46"), &[]), s("."));
        assert_eq!(
            method("replace", &s("~/.sXh"), &[s("X"), s("s")]),
            s("~/.ssh")
        );
    }

    #[test]
    fn repetition_and_formatting_of_literals() {
        assert_eq!(operator("*", &s("s"), &s("2")), s("ss"));
        assert_eq!(operator("%", &s("%c"), &s("46")), s("."));
        let both = Value::List(vec![s("a"), s("3")]);
        assert_eq!(operator("%", &s("%s has %d%%"), &both), s("a has 3%"));
        assert_eq!(operator("%", &s("%s %s"), &s("a")), Value::Unknown);
        assert_eq!(
            operator("*", &s("ab"), &s(&MAX_TEXT.to_string())),
            Value::Unknown
        );
        assert_eq!(method("repeat", &s("s"), &[s("2")]), s("ss"));
    }

    #[test]
    fn what_is_not_known_or_too_long_stays_unknown() {
        assert_eq!(
            slice(&s("abc"), [None, None, Some(&Value::Unknown)]),
            Value::Unknown
        );
        assert_eq!(
            slice(&s("abc"), [None, None, Some(&s("0"))]),
            Value::Unknown
        );
        let (min, max) = (i64::MIN.to_string(), i64::MAX.to_string());
        assert_eq!(slice(&s("abc"), [None, None, Some(&s(&min))]), s("c"));
        assert_eq!(slice(&s("abc"), [None, None, Some(&s(&max))]), s("a"));
        let all = slice(&s("abc"), [Some(&s(&min)), Some(&s(&max)), None]);
        assert_eq!(all, s("abc"));
        assert_eq!(
            method("join", &Value::List(vec![s("a"), Value::Unknown]), &[s("")]),
            Value::Unknown
        );
        assert_eq!(function(Text::Chr, &[s("x")]), Value::Unknown);
        let long = "a".repeat(MAX_TEXT);
        assert_eq!(
            method("replace", &s(&long), &[s("a"), s("aa")]),
            Value::Unknown
        );
        assert_eq!(method("frobnicate", &s("x"), &[]), Value::Unknown);
    }
}
