//! Text handed to the parser and the way back from its byte offsets to the original input.
//!
//! tree-sitter-bash does not join a backslash-newline inside a word (`r\<newline>m` is `rm` to
//! bash but two words to the grammar), so line continuations are removed before parsing and
//! every span is mapped back through [`SpanMap`]. Inner command strings (`bash -c STR`, `eval`)
//! get a map that chains to their parent's, so their spans land in the original input too.

use std::ops::Range;
use std::rc::Rc;

/// Maps offsets in a parsed text back to the original input.
#[derive(Debug, Default)]
pub struct SpanMap {
    /// Offsets (in the parsed text) where a two-byte backslash-newline was removed.
    removed: Vec<usize>,
    /// Where the parsed text starts in the parent's text.
    base: usize,
    /// The enclosing text's map; `None` for the original input.
    parent: Option<Rc<SpanMap>>,
    /// When the text is not a verbatim slice of its parent (escapes were decoded, words
    /// joined), every offset maps to this whole range instead.
    whole: Option<Range<usize>>,
}

impl SpanMap {
    /// The map for the original input after [`join_continuations`] removed `removed`.
    pub fn root(removed: Vec<usize>) -> SpanMap {
        SpanMap {
            removed,
            ..SpanMap::default()
        }
    }

    /// A map for a text that sits verbatim at `base` in the parent's text.
    pub fn inner(parent: &Rc<SpanMap>, base: usize, removed: Vec<usize>) -> SpanMap {
        SpanMap {
            removed,
            base,
            parent: Some(Rc::clone(parent)),
            whole: None,
        }
    }

    /// A map for a text that has no exact place in the input: everything maps to `whole`
    /// (original-input bytes).
    pub fn whole(whole: Range<usize>) -> SpanMap {
        SpanMap {
            whole: Some(whole),
            ..SpanMap::default()
        }
    }

    /// The original-input offset of the byte at `pos` in this map's text.
    fn offset(&self, pos: usize) -> Result<usize, Range<usize>> {
        // A loop, not recursion: inner texts nest as deep as the depth bound allows.
        let mut map = self;
        let mut pos = pos;
        loop {
            if let Some(whole) = &map.whole {
                return Err(whole.clone());
            }
            let before = map.removed.partition_point(|&r| r <= pos);
            pos = pos.saturating_add(2 * before).saturating_add(map.base);
            match &map.parent {
                Some(parent) => map = parent,
                None => return Ok(pos),
            }
        }
    }

    /// Maps a range of this map's text to the original input.
    pub fn span(&self, range: Range<usize>) -> Range<usize> {
        let start = match self.offset(range.start) {
            Ok(s) => s,
            Err(whole) => return whole,
        };
        // The end is exclusive: map the last byte, so a continuation right after the range
        // is not pulled in.
        let end = if range.end > range.start {
            match self.offset(range.end - 1) {
                Ok(e) => e.saturating_add(1),
                Err(whole) => return whole,
            }
        } else {
            start
        };
        start..end.max(start)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Quote {
    None,
    Single,
    Double,
    AnsiC,
}

/// Removes backslash-newline pairs as bash's reader does (not inside `'…'` or `$'…'`).
/// Returns the text and the offsets (in the returned text) where pairs were removed.
///
/// The quote tracking is lexical and does not follow `$(…)` inside double quotes; a
/// continuation inside single quotes nested that way is joined where bash would keep it,
/// which only ever changes a literal inside a quoted string.
pub fn join_continuations(text: &str) -> (String, Vec<usize>) {
    let bytes = text.as_bytes();
    if !text.contains("\\\n") {
        return (text.to_owned(), Vec::new());
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut removed = Vec::new();
    let mut quote = Quote::None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match (quote, b) {
            (Quote::Single, b'\'') => quote = Quote::None,
            (Quote::Single, _) => {}
            (Quote::AnsiC, b'\\') => {
                out.push(b);
                if let Some(&next) = bytes.get(i + 1) {
                    out.push(next);
                }
                i += 2;
                continue;
            }
            (Quote::AnsiC, b'\'') => quote = Quote::None,
            (Quote::AnsiC, _) => {}
            (_, b'\\') => match bytes.get(i + 1) {
                Some(b'\n') => {
                    removed.push(out.len());
                    i += 2;
                    continue;
                }
                Some(&next) => {
                    out.push(b);
                    out.push(next);
                    i += 2;
                    continue;
                }
                None => {}
            },
            (Quote::None, b'\'') => quote = Quote::Single,
            (Quote::None, b'"') => quote = Quote::Double,
            (Quote::None, b'$') if bytes.get(i + 1) == Some(&b'\'') => {
                out.extend_from_slice(b"$'");
                quote = Quote::AnsiC;
                i += 2;
                continue;
            }
            (Quote::Double, b'"') => quote = Quote::None,
            _ => {}
        }
        out.push(b);
        i += 1;
    }
    // Only whole ASCII pairs were removed and every other byte copied in order, so the
    // result is still UTF-8; fall back to a lossy copy rather than trust that blindly.
    let out = String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    (out, removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuations_are_joined_outside_single_quotes() {
        let cases: &[(&str, &str)] = &[
            ("r\\\nm -rf x", "rm -rf x"),
            ("echo 'a\\\nb'", "echo 'a\\\nb'"),
            ("echo \"a\\\nb\"", "echo \"ab\""),
            ("echo $'a\\\nb'", "echo $'a\\\nb'"),
            ("echo \\\\\nb", "echo \\\\\nb"),
            ("ls", "ls"),
        ];
        for (input, want) in cases {
            assert_eq!(join_continuations(input).0, *want, "input {input:?}");
        }
    }

    #[test]
    fn spans_map_back_over_removed_pairs() {
        let input = "ls && r\\\nm -rf x";
        let (text, removed) = join_continuations(input);
        let map = SpanMap {
            removed,
            ..SpanMap::default()
        };
        let rm = text.find("rm").expect("joined text contains rm");
        let span = map.span(rm..text.len());
        assert_eq!(&input[span], "r\\\nm -rf x");
        assert_eq!(map.span(0..2), 0..2);
    }

    #[test]
    fn inner_maps_chain_to_the_original() {
        let root = Rc::new(SpanMap::default());
        let inner = SpanMap::inner(&root, 9, Vec::new());
        assert_eq!(inner.span(0..2), 9..11);
        let whole = Rc::new(SpanMap::whole(3..8));
        let deeper = SpanMap::inner(&whole, 1, Vec::new());
        assert_eq!(deeper.span(0..2), 3..8);
    }
}
