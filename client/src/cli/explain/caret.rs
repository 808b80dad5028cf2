//! The line under a finding in `assent explain`: the input line that holds its span, and a line
//! of carets under the span, counted in terminal columns. A character that would not show as
//! itself (a tab, an escape, a bidi control) is shown as its visible escape, as everywhere a
//! requester's words are shown, and counts as wide as that escape; a wide character (CJK, most
//! emoji) counts two columns, as `assent watch` counts them (`term::columns`). A line wider than the room is shown as a window around the span,
//! cut with `…`, so the terminal never wraps it and the carets stay under what they mark.

use assent_client::protocol::Span;
use assent_client::shown::{is_hidden, one_line};

use super::super::term::columns;

/// The narrowest window a line is cut to.
const MIN_ROOM: usize = 20;
/// How many columns of the line before a span a cut window keeps.
const CONTEXT: usize = 10;

/// One character as shown: its text, its columns, and the byte it starts at in the input.
struct Cell {
    text: String,
    width: usize,
    at: usize,
}

/// The line holding `span` and its carets, at most `room` columns wide (no limit: `None`).
pub(super) fn caret(input: &str, span: Span, room: Option<usize>) -> Vec<String> {
    let (start, end) = (span.start as usize, span.end as usize);
    if start >= end || end > input.len() || !input.is_char_boundary(start) {
        return Vec::new();
    }
    let line_start = input[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = input[start..].find('\n').map_or(input.len(), |i| start + i);
    let cells: Vec<Cell> = input[line_start..line_end]
        .char_indices()
        .map(|(i, c)| {
            let text = if is_hidden(c) {
                one_line(c.encode_utf8(&mut [0; 4]))
            } else {
                c.to_string()
            };
            let width = if is_hidden(c) {
                text.chars().count()
            } else {
                columns(c)
            };
            Cell {
                text,
                width,
                at: line_start + i,
            }
        })
        .collect();
    let stop = end.min(line_end);
    // Columns before the span, and of the span (at least one caret).
    let pad: usize = cells.iter().filter(|c| c.at < start).map(|c| c.width).sum();
    let marked: usize = cells
        .iter()
        .filter(|c| c.at >= start && c.at < stop)
        .map(|c| c.width)
        .sum::<usize>()
        .max(1);
    let total: usize = cells.iter().map(|c| c.width).sum();
    let room = room.unwrap_or(usize::MAX).max(MIN_ROOM);
    if total <= room {
        let text: String = cells.iter().map(|c| c.text.as_str()).collect();
        return vec![text, format!("{}{}", " ".repeat(pad), "^".repeat(marked))];
    }
    // Room for the text between the two marks; a little context before the span.
    let keep = room - 2;
    let from = pad.saturating_sub(CONTEXT).min(total.saturating_sub(keep));
    let mut shown = String::new();
    let mut column = 0;
    let mut first = None;
    let mut last = 0;
    for cell in &cells {
        let (left, right) = (column, column + cell.width);
        column = right;
        if left < from {
            continue;
        }
        if right > from + keep {
            break;
        }
        first.get_or_insert(left);
        last = right;
        shown.push_str(&cell.text);
    }
    let first = first.unwrap_or(from);
    let lead = usize::from(first > 0);
    let mut text = String::new();
    if lead == 1 {
        text.push('…');
    }
    text.push_str(&shown);
    if last < total {
        text.push('…');
    }
    let under = marked.min(last.saturating_sub(pad)).max(1);
    vec![
        text,
        format!(
            "{}{}",
            " ".repeat(pad.saturating_sub(first) + lead),
            "^".repeat(under)
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(input: &str, what: &str) -> Span {
        let start = input.find(what).expect("the span's text is in the line");
        Span {
            start: start as u32,
            end: (start + what.len()) as u32,
        }
    }

    /// What the carets stand under: the characters of the shown line in their columns.
    fn under(shown: &[String]) -> String {
        let carets = &shown[1];
        let at = carets.find('^').expect("carets");
        let (from, to) = (at, carets.len());
        let mut column = 0;
        let mut out = String::new();
        for c in shown[0].chars() {
            if column >= from && column < to {
                out.push(c);
            }
            column += columns(c);
        }
        out
    }

    #[test]
    fn carets_sit_under_the_span() {
        let span6 = Span { start: 6, end: 14 };
        assert_eq!(
            caret("ls && rm -rf x", span6, None),
            ["ls && rm -rf x", "      ^^^^^^^^"]
        );
        let second_line = Span { start: 3, end: 5 };
        assert_eq!(caret("ls\nrm x", second_line, Some(74)), ["rm x", "^^"]);
        assert!(caret("ls", Span { start: 5, end: 9 }, None).is_empty());
    }

    /// A tab or an escape before the span is shown as its escape, and the carets count it so;
    /// a wide character counts two columns.
    #[test]
    fn carets_count_columns_as_shown() {
        let line = "echo\tx\u{1b}[2J && rm -rf ~";
        let shown = caret(line, span(line, "rm -rf ~"), None);
        assert_eq!(shown[0], "echo\\tx\\e[2J && rm -rf ~");
        assert_eq!(under(&shown), "rm -rf ~");
        let wide = "echo 日本語 && rm -rf ~";
        let shown = caret(wide, span(wide, "rm -rf ~"), None);
        assert_eq!(under(&shown), "rm -rf ~", "{shown:?}");
    }

    /// A line wider than the terminal is shown as a window around the span, so the terminal
    /// does not wrap it and the carets stay under what they mark.
    #[test]
    fn a_long_line_is_cut_around_the_span() {
        let line = format!("{} && rm -rf target/{}", "x".repeat(100), "y".repeat(100));
        let shown = caret(&line, span(&line, "rm -rf target"), Some(40));
        assert_eq!(shown.len(), 2);
        for text in &shown {
            assert!(text.chars().count() <= 40, "{text:?}");
        }
        assert_eq!(under(&shown), "rm -rf target", "{shown:?}");
        assert!(
            shown[0].starts_with('…') && shown[0].ends_with('…'),
            "{shown:?}"
        );
        // With wide characters and a tab before it, in 74 columns.
        let line = format!(
            "{}\t{} && rm -rf ~ {}",
            "語".repeat(40),
            "x".repeat(30),
            "y".repeat(60)
        );
        let shown = caret(&line, span(&line, "rm -rf ~"), Some(74));
        for text in &shown {
            assert!(text.chars().map(columns).sum::<usize>() <= 74, "{shown:?}");
        }
        assert_eq!(under(&shown), "rm -rf ~", "{shown:?}");
        // A line that fits is shown whole.
        assert_eq!(
            caret("rm -rf x", Span { start: 0, end: 2 }, Some(40))[0],
            "rm -rf x"
        );
    }
}
