//! `$'…'` strings: bash's backslash escapes, decoded without running anything.

/// Decodes the body of `$'…'` as bash does.
pub fn ansi_c(body: &str) -> String {
    let b = body.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let e = b[i + 1];
        i += 2;
        let simple = match e {
            b'a' => Some(7),
            b'b' => Some(8),
            b'e' | b'E' => Some(27),
            b'f' => Some(12),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(11),
            b'\\' | b'\'' | b'"' | b'?' => Some(e),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        match e {
            b'0'..=b'7' => {
                let (v, n) = digits(&b[i - 1..], 8, 3);
                out.push((v & 0xff) as u8);
                i += n - 1;
            }
            b'x' | b'u' | b'U' => {
                let max = match e {
                    b'x' => 2,
                    b'u' => 4,
                    _ => 8,
                };
                let (v, n) = digits(&b[i..], 16, max);
                if n == 0 {
                    out.extend_from_slice(&[b'\\', e]);
                } else if e == b'x' {
                    out.push((v & 0xff) as u8);
                } else {
                    let c = char::from_u32(v).unwrap_or(char::REPLACEMENT_CHARACTER);
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                }
                i += n;
            }
            b'c' if i < b.len() => {
                out.push(b[i].to_ascii_uppercase() ^ 0x40);
                i += 1;
            }
            _ => out.extend_from_slice(&[b'\\', e]),
        }
    }
    // Bash stops a $'…' string at a NUL byte.
    if let Some(nul) = out.iter().position(|&c| c == 0) {
        out.truncate(nul);
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Reads up to `max` digits in `radix`; returns the value and how many were read.
fn digits(b: &[u8], radix: u32, max: usize) -> (u32, usize) {
    let mut v: u32 = 0;
    let mut n = 0;
    while n < max {
        match b.get(n).and_then(|&c| (c as char).to_digit(radix)) {
            Some(d) => v = v.wrapping_mul(radix).wrapping_add(d),
            None => break,
        }
        n += 1;
    }
    (v, n)
}
