//! Lines of bytes from a stream, each held to a cap: for inputs read a line at a time.
//!
//! `BufRead::read_line` into a `String` fails the whole stream on the first byte that is not
//! UTF-8 and grows without bound on a line with no newline. This reads bytes, keeps at most
//! `cap` of a line, and skips the rest of a longer one up to its newline, so a hostile or broken
//! input costs one line's error, never the batch or unbounded memory. It does no decoding.

use std::io::{self, BufRead};

/// How many bytes of a line that is too long are kept, to show which line it was.
pub const HEAD_KEPT: usize = 256;

/// One line as read, without its newline (a `\r` before it is kept).
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// The whole line.
    Whole(&'a [u8]),
    /// A line longer than the cap: its first bytes, and its length.
    TooLong {
        /// Up to [`HEAD_KEPT`] bytes from its start.
        head: &'a [u8],
        /// Its length in bytes.
        len: u64,
    },
}

/// Reads lines of at most `cap` bytes from `inner`.
#[derive(Debug)]
pub struct CappedLines<R> {
    inner: R,
    cap: usize,
    buf: Vec<u8>,
}

impl<R: BufRead> CappedLines<R> {
    /// Lines from `inner`; longer than `cap` bytes is [`Line::TooLong`].
    pub fn new(inner: R, cap: usize) -> Self {
        CappedLines {
            inner,
            cap,
            buf: Vec::new(),
        }
    }

    /// The next line, or `None` at the end of input. The last line needs no newline.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.buf.clear();
        let mut len: u64 = 0;
        let mut seen_any = false;
        loop {
            let available = match self.inner.fill_buf() {
                Ok(available) => available,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            if available.is_empty() {
                if !seen_any {
                    return Ok(None);
                }
                break;
            }
            seen_any = true;
            let newline = available.iter().position(|&b| b == b'\n');
            let part = &available[..newline.unwrap_or(available.len())];
            // Keep one byte past the cap, so "exactly cap" and "longer" stay apart.
            let room = (self.cap + 1).saturating_sub(self.buf.len());
            self.buf.extend_from_slice(&part[..part.len().min(room)]);
            len += part.len() as u64;
            let used = part.len() + usize::from(newline.is_some());
            self.inner.consume(used);
            if newline.is_some() {
                break;
            }
        }
        if len > self.cap as u64 {
            let head = &self.buf[..self.buf.len().min(HEAD_KEPT)];
            return Ok(Some(Line::TooLong { head, len }));
        }
        Ok(Some(Line::Whole(&self.buf)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line as read: the bytes kept, and the length when it was too long.
    type Read = (Vec<u8>, Option<u64>);

    /// Each line of `input`, and the reader's buffer capacity afterwards.
    fn read_all(input: &[u8], cap: usize, chunk: usize) -> (Vec<Read>, usize) {
        let reader = io::BufReader::with_capacity(chunk, input);
        let mut lines = CappedLines::new(reader, cap);
        let mut out = Vec::new();
        while let Some(line) = lines.next_line().expect("reading a slice cannot fail") {
            out.push(match line {
                Line::Whole(bytes) => (bytes.to_vec(), None),
                Line::TooLong { head, len } => (head.to_vec(), Some(len)),
            });
        }
        (out, lines.buf.capacity())
    }

    fn whole(bytes: &[u8]) -> Read {
        (bytes.to_vec(), None)
    }

    #[test]
    fn lines_are_bytes_split_at_newlines() {
        let (lines, _) = read_all(b"ls\n\n\xff\xfe x\r\nlast", 10, 3);
        assert_eq!(
            lines,
            [
                whole(b"ls"),
                whole(b""),
                whole(b"\xff\xfe x\r"),
                whole(b"last")
            ]
        );
        assert!(read_all(b"", 10, 3).0.is_empty());
        assert_eq!(read_all(b"\n", 10, 3).0, [whole(b"")]);
    }

    #[test]
    fn a_line_over_the_cap_is_skipped_to_its_newline() {
        let mut input = b"12345\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', 100_000));
        input.extend(b"\n123456\nok");
        let (lines, capacity) = read_all(&input, 5, 64);
        assert_eq!(
            lines,
            [
                whole(b"12345"),
                (b"xxxxxx".to_vec(), Some(100_000)),
                (b"123456".to_vec(), Some(6)),
                whole(b"ok"),
            ]
        );
        // Memory follows the cap, not the line.
        assert!(capacity < 1024, "{capacity}");
    }

    #[test]
    fn a_long_line_keeps_a_bounded_head() {
        let input = vec![b'y'; 10_000];
        let (lines, _) = read_all(&input, 1000, 128);
        assert_eq!(lines, [(vec![b'y'; HEAD_KEPT], Some(10_000))]);
    }
}
