//! HTTP clients asked to delete: `curl -X DELETE`, `--request DELETE`, `wget
//! --method=DELETE`, `gh api -X DELETE`, httpie's `http DELETE url`, and requests whose
//! method writes to an address that names a deletion (`POST …/_delete_by_query`,
//! Jenkins' `…/doDelete`).

use super::super::super::act::Site;
use super::super::super::catalogue;
use super::super::super::getopt::{self, Grammar, Style};
use super::super::super::words::Word;
use super::operands;
use crate::places::Piece;

/// How a client takes the request method: its grammar, read the way it reads its words
/// (`-sXDELETE`, `--req DELETE`, `--method=delete`), the options whose value is the method,
/// and whether the first operand may be the method (httpie's `http DELETE url`).
pub struct Methods {
    pub grammar: Grammar,
    pub options: &'static [&'static str],
    pub first_operand: bool,
}

/// A client no family models (`gh api`, `glab api`, a vendor's CLI): `-X M`, `--request M`,
/// `--method M`, in any spelling getopt_long accepts.
pub const GENERIC: Methods = Methods {
    grammar: Grammar {
        short: "X:",
        long: &["request=", "method="],
        style: Style::Gnu,
    },
    options: &["X", "request", "method"],
    first_operand: false,
};

/// httpie and xh: `[METHOD] URL [ITEM…]`, after options of which these take a value (argparse
/// and clap both take the value as the next word; argparse accepts a unique prefix).
pub const HTTPIE: Methods = Methods {
    grammar: Grammar {
        short: "a:A:o:s:p:P:",
        long: &[
            "auth=",
            "auth-type=",
            "bearer=",
            "session=",
            "session-read-only=",
            "output=",
            "verify=",
            "cert=",
            "cert-key=",
            "cert-key-pass=",
            "ssl=",
            "ciphers=",
            "proxy=",
            "timeout=",
            "max-redirects=",
            "max-headers=",
            "pretty=",
            "style=",
            "print=",
            "history-print=",
            "format-options=",
            "response-charset=",
            "response-mime=",
            "boundary=",
            "raw=",
            "default-scheme=",
            "unix-socket=",
            "resolve=",
            "interface=",
            "method=",
        ],
        style: Style::Gnu,
    },
    options: &["method"],
    first_operand: true,
};

/// Programs whose first operand may be the method (httpie and its kin).
const METHOD_FIRST: &[&str] = &["http", "https", "xh", "xhs"];

/// The methods a word could be, upper-cased: its value, or each value it could have at run
/// time that is known (`m=DELETE; curl -X "$m"`, `echo DELETE | xargs curl -X`).
fn methods_of(w: &Word) -> Vec<String> {
    w.alternatives()
        .iter()
        .filter_map(|alt| {
            let mut text = String::new();
            for piece in alt {
                match piece {
                    Piece::Lit(t) => text.push_str(t),
                    _ => return None,
                }
            }
            let text = text.trim();
            (!text.is_empty()).then(|| text.to_ascii_uppercase())
        })
        .collect()
}

/// The request methods the command line may give, upper-cased.
fn methods(args: &[Word], how: &Methods) -> Vec<String> {
    let a = getopt::parse(args, &how.grammar);
    let mut out: Vec<String> = a.values(how.options).flat_map(methods_of).collect();
    if how.first_operand
        && let Some(first) = a.operands.first().and_then(|w| w.literal())
        // httpie takes the method in capitals; a lower-case word is a host name.
        && first.len() >= 3
        && first.chars().all(|c| c.is_ascii_uppercase())
    {
        out.push(first.to_owned());
    }
    out
}

/// An address whose path names a deletion (`_delete_by_query`, `doDelete`, `delete-batch`).
fn names_deletion(args: &[Word]) -> bool {
    // A query such as `?match[]=up` makes the word a glob, but its path is still plain.
    operands(args).map(|w| w.text.as_str()).any(|t| {
        let path = t.split(['?', '#']).next().unwrap_or(t);
        path.contains('/')
            && path
                .split('/')
                .skip(1)
                .any(|seg| seg.to_ascii_lowercase().contains("delete"))
    })
}

/// How the program named `name` takes its method, when no family models it.
/// Whether the program takes its method first (httpie and its kin).
pub(super) fn method_first(name: &str) -> bool {
    METHOD_FIRST.contains(&name)
}

pub fn for_program(name: &str) -> &'static Methods {
    if METHOD_FIRST.contains(&name) {
        &HTTPIE
    } else {
        &GENERIC
    }
}

/// Reports a deleting request, read by `how`; true if it did.
pub(super) fn delete<'s>(
    args: &[Word<'s>],
    how: &Methods,
    site: &mut Site<'_, 's, '_, '_>,
) -> bool {
    let deleting = |m: &String| {
        m == "DELETE" || (m != "GET" && m != "HEAD" && m != "OPTIONS" && names_deletion(args))
    };
    let Some(m) = methods(args, how).into_iter().find(deleting) else {
        return false;
    };
    let detail = format!("`{} {m} …`", site.name);
    site.say(catalogue::HTTP_DELETE, &detail);
    true
}
