//! The sections a man page needs that clap's definition cannot give (EXIT STATUS, ENVIRONMENT,
//! FILES, EXAMPLES, SEE ALSO), in roff, for the three binaries' generated pages: `clap_mangen`
//! renders NAME to the options from the flags, and [`with_sections`] puts these after them, in
//! the order man-pages(7) gives. Plain text in, roff out, so the daemon and `assent-notify` use
//! it without clap in this library.

/// One section: its title and its roff body.
#[derive(Debug, Clone, Copy)]
pub struct Section<'a> {
    /// The title, in capitals (`EXIT STATUS`).
    pub title: &'a str,
    /// The body, roff.
    pub body: &'a str,
}

/// Escape `text` for roff: a backslash and a hyphen that man would otherwise turn into a
/// typographic dash (options and commands are copied from the page), and a leading dot or quote,
/// which would make the line a request.
pub fn escape(text: &str) -> String {
    let mut out = text.replace('\\', "\\e").replace('-', "\\-");
    if out.starts_with('.') || out.starts_with('\'') {
        out.insert_str(0, "\\&");
    }
    out
}

/// An EXIT STATUS body: one tagged paragraph per status, which man fits to any width (a
/// hand-aligned table wraps badly at 80 columns).
pub fn statuses(rows: &[(u8, &str)]) -> String {
    let mut body = String::new();
    for (status, meaning) in rows {
        body.push_str(&format!(".TP\n.B {status}\n{}\n", escape(meaning)));
    }
    body
}

/// Tagged paragraphs `(tag, text)`: a file or a variable in bold, then what it is.
pub fn tagged(rows: &[(&str, &str)]) -> String {
    let mut body = String::new();
    for (tag, text) in rows {
        body.push_str(&format!(".TP\n.B {}\n{}\n", escape(tag), escape(text)));
    }
    body
}

/// EXAMPLES: a comment line, then the command as a literal block.
pub fn examples(rows: &[(&str, &str)]) -> String {
    let mut body = String::new();
    for (what, command) in rows {
        body.push_str(&format!(
            ".PP\n{}\n.PP\n.RS 4\n.EX\n{}\n.EE\n.RE\n",
            escape(what),
            escape(command)
        ));
    }
    body
}

/// SEE ALSO: pages as `name(section)`, comma-separated, names in bold.
pub fn see_also(pages: &[(&str, &str)]) -> String {
    let last = pages.len().saturating_sub(1);
    let mut body = String::new();
    for (i, (name, section)) in pages.iter().enumerate() {
        let comma = if i == last { "" } else { "," };
        body.push_str(&format!(".BR {} ({section}){comma}\n", escape(name)));
    }
    body
}

/// The page clap rendered with `sections` put before its VERSION section (or at its end).
pub fn with_sections(rendered: &str, sections: &[Section<'_>]) -> String {
    let mut extra = String::new();
    for section in sections {
        extra.push_str(&format!(".SH \"{}\"\n{}", section.title, section.body));
        if !section.body.ends_with('\n') {
            extra.push('\n');
        }
    }
    match rendered.find("\n.SH VERSION") {
        Some(at) => format!("{}\n{extra}{}", &rendered[..at], &rendered[at + 1..]),
        None => {
            let sep = if rendered.ends_with('\n') { "" } else { "\n" };
            format!("{rendered}{sep}{extra}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_go_before_the_version() {
        let rendered = ".TH x 1\n.SH NAME\nx\n.SH VERSION\nv1\n";
        let page = with_sections(
            rendered,
            &[Section {
                title: "EXIT STATUS",
                body: &statuses(&[(0, "allowed"), (64, "usage error")]),
            }],
        );
        assert_eq!(
            page,
            ".TH x 1\n.SH NAME\nx\n.SH \"EXIT STATUS\"\n.TP\n.B 0\nallowed\n.TP\n.B 64\nusage error\n.SH VERSION\nv1\n"
        );
        assert!(with_sections(".SH NAME\nx", &[]).ends_with("x\n"));
    }

    #[test]
    fn roff_requests_and_dashes_are_escaped() {
        let cases = [
            ("assent check -- ls", "assent check \\-\\- ls"),
            (".hidden", "\\&.hidden"),
            ("'quoted", "\\&'quoted"),
            ("a\\b", "a\\eb"),
        ];
        for (text, want) in cases {
            assert_eq!(escape(text), want, "{text}");
        }
        assert_eq!(
            see_also(&[("assent", "1"), ("assentd", "8")]),
            ".BR assent (1),\n.BR assentd (8)\n"
        );
    }
}
