//! Text from a request made fit to show a person: every character that could forge a line,
//! redraw a terminal or reorder what is read is replaced by a visible escape.
//!
//! A requester writes the command, its working directory, the session label, the agent's name
//! and tool arguments; an approver shows them. Shown raw, a newline forges a line of the card
//! ("Allow once is safe"), an escape sequence repaints `assent watch` or `assent pending`, a
//! right-to-left override makes `rm -rf ~` read as something else, a zero-width character hides
//! a word, U+2028 or U+0085 breaks a line where a terminal or a notification server does. Every
//! place that shows a subject's field (notifications, `assent watch`, the terminal prompt,
//! `pending`, replies to `approve`/`deny`, `log`, polkit's message) goes through here, so they
//! cannot disagree on what is hidden.
//!
//! Pure: no I/O, and linear in the text's length.

/// Whether `c` would not show as itself: control characters (C0, DEL and C1, U+0085 among
/// them), line and paragraph separators, bidirectional controls, and the other invisible
/// format characters (zero-width spaces and joiners, the byte-order mark, soft hyphens,
/// invisible operators, interlinear annotations, tag characters), plus the variation selectors
/// that change how the character before them is drawn.
pub fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00ad}'
                | '\u{034f}'
                | '\u{061c}'
                | '\u{115f}'
                | '\u{1160}'
                | '\u{17b4}'
                | '\u{17b5}'
                | '\u{180b}'..='\u{180f}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{3164}'
                | '\u{fe00}'..='\u{fe0f}'
                | '\u{feff}'
                | '\u{ffa0}'
                | '\u{fff9}'..='\u{fffb}'
                | '\u{1bca0}'..='\u{1bca3}'
                | '\u{1d173}'..='\u{1d17a}'
                | '\u{e0000}'..='\u{e0fff}'
        )
}

/// The escape that shows a hidden character: `\n`, `\t`, `\r`, `\e` for the common controls,
/// `\xHH` for other C0, DEL and C1 controls, `<U+HHHH>` for the rest.
fn escape(c: char, out: &mut String) {
    match c {
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        '\u{1b}' => out.push_str("\\e"),
        c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
        c => out.push_str(&format!("<U+{:04X}>", c as u32)),
    }
}

/// `text` on one line: every hidden character, newlines and tabs included, as its escape.
/// For a field shown where a line is a unit: a list entry, a card's line, a reply, a log line.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_hidden(c) {
            escape(c, &mut out);
        } else {
            out.push(c);
        }
    }
    out
}

/// `text` keeping its newlines (a multi-line command shown as the lines it is) and each tab
/// as a space; every other hidden character, `\r` and U+2028 included, as its escape. For a
/// command shown in a body of its own, where a line of it can never be taken for the card's.
pub fn lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push('\n'),
            '\t' => out.push(' '),
            c if is_hidden(c) => escape(c, &mut out),
            c => out.push(c),
        }
    }
    out
}

/// The columns a terminal gives `c`: two for the wide characters of East Asian scripts and
/// emoji, one for the rest (cleaned text holds no control characters). Counting a narrow
/// character as wide only wraps early; the reverse would break the card, so ranges err wide.
pub fn columns(c: char) -> usize {
    match c {
        '\u{1100}'..='\u{115f}'
        | '\u{2e80}'..='\u{a4cf}'
        | '\u{ac00}'..='\u{d7a3}'
        | '\u{f900}'..='\u{faff}'
        | '\u{fe30}'..='\u{fe4f}'
        | '\u{ff00}'..='\u{ff60}'
        | '\u{ffe0}'..='\u{ffe6}'
        | '\u{1f300}'..='\u{1faff}'
        | '\u{20000}'..='\u{3fffd}' => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_could_forge_or_hide_is_escaped() {
        let cases = [
            ("rm -rf src", "rm -rf src"),
            ("ls\nAllowed by policy", "ls\\nAllowed by policy"),
            ("ls\u{1b}[2J\u{1b}[H", "ls\\e[2J\\e[H"),
            ("a\u{85}b", "a\\x85b"),
            ("a\u{2028}b\u{2029}c", "a<U+2028>b<U+2029>c"),
            ("rm -rf \u{202e}~\u{202c}", "rm -rf <U+202E>~<U+202C>"),
            ("r\u{200b}m", "r<U+200B>m"),
            ("\u{feff}ls", "<U+FEFF>ls"),
            ("x\u{7f}\u{9b}", "x\\x7f\\x9b"),
            ("tag\u{e0041}", "tag<U+E0041>"),
            ("naïve café ~/Données", "naïve café ~/Données"),
            ("日本語 ✓ → …", "日本語 ✓ → …"),
        ];
        for (input, shown) in cases {
            assert_eq!(one_line(input), shown, "{input:?}");
        }
    }

    #[test]
    fn lines_keeps_newlines_only() {
        assert_eq!(lines("a\nb\tc\r\nd"), "a\nb c\\r\nd");
        assert_eq!(lines("a\u{2028}b\u{85}c"), "a<U+2028>b\\x85c");
    }

    #[test]
    fn nothing_hidden_is_left() {
        for code in 0..0x11_0000u32 {
            let Some(c) = char::from_u32(code) else {
                continue;
            };
            let text = format!("a{c}b");
            assert!(
                !one_line(&text).chars().any(is_hidden),
                "U+{code:04X} survives"
            );
        }
    }
}
