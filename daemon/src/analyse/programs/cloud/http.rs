//! HTTP clients asked to delete: `curl -X DELETE`, `--request DELETE`, `wget
//! --method=DELETE`, `gh api -X DELETE`, httpie's `http DELETE url`, and requests whose
//! method writes to an address that names a deletion (`POST …/_delete_by_query`,
//! Jenkins' `…/doDelete`).

use super::super::super::act::Site;
use super::super::super::catalogue;
use super::super::super::words::Word;
use super::operands;

/// Options whose value is the request method.
const METHOD_OPTIONS: &[&str] = &["-X", "--request", "--method", "-m"];

/// Programs whose first operand may be the method (httpie and its kin).
const METHOD_FIRST: &[&str] = &["http", "https", "xh", "xhs"];

/// The request method given on the command line, upper-cased.
fn method(args: &[Word], name: &str) -> Option<String> {
    for (i, w) in args.iter().enumerate() {
        let Some(t) = w.literal() else { continue };
        let value = if let Some((opt, v)) = t.split_once('=') {
            METHOD_OPTIONS.contains(&opt).then_some(v)
        } else if METHOD_OPTIONS.contains(&t) {
            // `-m` is a method only for httpie-like programs; curl's `-m` is a timeout.
            if t == "-m" && !METHOD_FIRST.contains(&name) {
                continue;
            }
            args.get(i + 1).and_then(Word::literal)
        } else {
            t.strip_prefix("-X").filter(|v| !v.is_empty())
        };
        if let Some(v) = value {
            return Some(v.to_ascii_uppercase());
        }
    }
    if METHOD_FIRST.contains(&name) {
        let first = operands(args).next().and_then(Word::literal)?;
        if first.len() >= 3 && first.chars().all(|c| c.is_ascii_alphabetic()) {
            let upper = first.to_ascii_uppercase();
            // httpie takes the method in capitals; a lower-case word is a host name.
            if first == upper {
                return Some(upper);
            }
        }
    }
    None
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

/// Reports a deleting request; true if it did.
pub(super) fn delete<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) -> bool {
    let Some(m) = method(args, site.name) else {
        return false;
    };
    let deletes = m == "DELETE" || (m != "GET" && m != "HEAD" && names_deletion(args));
    if deletes {
        let detail = format!("`{} {m} …`", site.name);
        site.say(catalogue::HTTP_DELETE, &detail);
    }
    deletes
}
