//! The size of the terminal a line is drawn on: `$COLUMNS` and `$LINES` when set (what a
//! person or a test asks for), else what `stty size` reads from the terminal itself (its
//! TIOCGWINSZ: the client is safe code, and `nix` offers that ioctl only as an unsafe call),
//! else 80 × 24.

use std::os::fd::BorrowedFd;
use std::process::{Command, Stdio};

/// `(columns, rows)` of the terminal `tty`.
pub fn size(tty: BorrowedFd<'_>) -> (usize, usize) {
    let env = |name: &str| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
    };
    let asked = || -> Option<(usize, usize)> {
        let output = Command::new("stty")
            .arg("size")
            .stdin(Stdio::from(tty.try_clone_to_owned().ok()?))
            .stderr(Stdio::null())
            .output()
            .ok()?;
        let text = String::from_utf8(output.stdout).ok()?;
        let mut words = text.split_whitespace().map(|w| w.parse::<usize>().ok());
        let (rows, cols) = (words.next()??, words.next()??);
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
