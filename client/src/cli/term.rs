//! The size of the terminal a line is drawn on: `$COLUMNS` and `$LINES` when set (what a
//! person or a test asks for), else what the terminal itself says (its TIOCGWINSZ, read by
//! `terminal_size` as safe code on the descriptor the client writes to), else 80 × 24.

use std::os::fd::BorrowedFd;

/// `(columns, rows)` of the terminal `tty`.
pub fn size(tty: BorrowedFd<'_>) -> (usize, usize) {
    let env = |name: &str| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
    };
    let asked = || -> Option<(usize, usize)> {
        let (cols, rows) = terminal_size::terminal_size_of(tty)?;
        let (cols, rows) = (usize::from(cols.0), usize::from(rows.0));
        (rows > 0 && cols > 0).then_some((cols, rows))
    };
    match (env("COLUMNS"), env("LINES")) {
        (Some(cols), Some(rows)) => (cols, rows),
        (cols, rows) => {
            let (tty_cols, tty_rows) = asked().unwrap_or((80, 24));
            (cols.unwrap_or(tty_cols), rows.unwrap_or(tty_rows))
        }
    }
}

/// `text` cut to at most `width` characters, marking the cut.
pub fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut out: String = text.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

pub use assent_client::shown::columns;

#[cfg(test)]
mod tests {
    use super::*;

    /// What is not a terminal has no size of its own: the default, unless the environment
    /// names one.
    #[test]
    fn a_descriptor_that_is_no_terminal_gives_the_default() {
        let file = std::fs::File::open("/dev/null").expect("/dev/null opens");
        let fd = std::os::fd::AsFd::as_fd(&file);
        assert_eq!(terminal_size::terminal_size_of(fd), None);
        if std::env::var_os("COLUMNS").is_none() && std::env::var_os("LINES").is_none() {
            assert_eq!(size(fd), (80, 24));
        }
    }
}
