//! An X display of the tests' own (Xvfb) and what is on it: notification servers draw there,
//! and a test reads the screen back as pixels, without a screenshot program.
//!
//! Xvfb is started with `-fbdir`: its framebuffer is then a file in the XWD format
//! (`Xvfb_screen0`), mapped and kept current by the server. [`Xvfb::shot`] reads that file into
//! a [`Shot`], which says where something other than the black root window is drawn
//! ([`Shot::drawn`]) and is saved as a PNG for a person to look at ([`Shot::save_png`]).
//!
//! [`Xvfb`] stops the server when dropped (SIGTERM, so it removes its lock file and socket;
//! SIGKILL after five seconds), also when a test fails.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::{RECV_TIMEOUT, wait_until};

/// The screen every test display has: wide enough for any server's notification.
pub const WIDTH: usize = 1024;
/// Its height.
pub const HEIGHT: usize = 768;

/// A program on `PATH`, or a failed test naming the Debian package to install (`needed_for`
/// says what the test drives, e.g. "the real dunst under Xvfb").
pub fn require(program: &str, package: &str, needed_for: &str) -> PathBuf {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(program))
            .find(|candidate| is_executable(candidate))
    });
    found.unwrap_or_else(|| {
        panic!(
            "{program} is not installed: this test drives {needed_for} \
             ({program} is in the Debian package {package}: apt-get install {package})"
        )
    })
}

/// Whether `path` is an executable file.
pub fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A child that is stopped with SIGTERM when dropped, then SIGKILL if it has not exited
/// within five seconds; always reaped.
pub struct TermOnDrop(pub Child);

impl TermOnDrop {
    /// Whether the child has not exited yet.
    pub fn running(&mut self) -> bool {
        matches!(self.0.try_wait(), Ok(None))
    }
}

impl Drop for TermOnDrop {
    fn drop(&mut self) {
        if let Ok(pid) = i32::try_from(self.0.id()) {
            let pid = nix::unistd::Pid::from_raw(pid);
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
            if wait_until(Duration::from_secs(5), || !self.running()) {
                return;
            }
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Xvfb on a free display, its framebuffer in a file.
pub struct Xvfb {
    child: TermOnDrop,
    // Xvfb writes its display number here once; kept open so it never sees a closed pipe.
    _stdout: ChildStdout,
    display: String,
    framebuffer: PathBuf,
    log: PathBuf,
}

impl Xvfb {
    /// Start Xvfb with `-displayfd 1` (it picks a free display, takes its lock, and prints
    /// the number when it accepts connections) and `-fbdir dir`.
    pub fn start(dir: &Path) -> Xvfb {
        let program = require("Xvfb", "xvfb", "a notification server under Xvfb");
        let log = dir.join("xvfb.log");
        let log_file = std::fs::File::create(&log).expect("the Xvfb log is created");
        let screen = format!("{WIDTH}x{HEIGHT}x24");
        let child = Command::new(program)
            .args(["-displayfd", "1", "-screen", "0", &screen])
            .arg("-fbdir")
            .arg(dir)
            .args(["-nolisten", "tcp"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log_file)
            .spawn()
            .expect("Xvfb starts");
        let mut child = TermOnDrop(child);
        let stdout = child.0.stdout.take().expect("stdout is piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let read = reader.read_line(&mut line);
            let _ = tx.send((read.map(|_| line), reader.into_inner()));
        });
        let (line, stdout) = rx
            .recv_timeout(RECV_TIMEOUT)
            .unwrap_or_else(|_| panic!("Xvfb printed no display number within {RECV_TIMEOUT:?}"));
        let number: u32 = match line {
            Ok(line) => line.trim().parse().unwrap_or_else(|_| {
                panic!(
                    "Xvfb printed {line:?}, not a display number; its log:\n{}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                )
            }),
            Err(error) => panic!("could not read Xvfb's display number: {error}"),
        };
        assert!(child.running(), "Xvfb exited");
        Xvfb {
            child,
            _stdout: stdout,
            display: format!(":{number}"),
            framebuffer: dir.join("Xvfb_screen0"),
            log,
        }
    }

    /// The display, `:N`.
    pub fn display(&self) -> &str {
        &self.display
    }

    /// Whether Xvfb still runs.
    pub fn running(&mut self) -> bool {
        self.child.running()
    }

    /// Xvfb's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// What is on the screen now.
    pub fn shot(&self) -> Shot {
        let bytes = std::fs::read(&self.framebuffer).unwrap_or_else(|error| {
            panic!(
                "Xvfb's framebuffer {} cannot be read: {error}",
                self.framebuffer.display()
            )
        });
        Shot::from_xwd(&bytes).unwrap_or_else(|why| {
            panic!(
                "Xvfb's framebuffer {} is not an XWD image this reads: {why}",
                self.framebuffer.display()
            )
        })
    }

    /// Wait (at most [`RECV_TIMEOUT`]) until something is drawn on the screen that `before`
    /// did not show, and a moment more for the drawing to finish; that shot.
    pub fn wait_drawn(&self, before: &Shot) -> Shot {
        let mut shot = self.shot();
        let changed = wait_until(RECV_TIMEOUT, || {
            shot = self.shot();
            shot.rgb != before.rgb
        });
        assert!(changed, "nothing new was drawn within {RECV_TIMEOUT:?}");
        // A server draws a window in several steps (frame, text, buttons): wait until two
        // shots a little apart agree.
        let mut last = shot;
        for _ in 0..20 {
            std::thread::sleep(Duration::from_millis(150));
            let now = self.shot();
            if now.rgb == last.rgb {
                return now;
            }
            last = now;
        }
        last
    }
}

/// A screen's pixels, 8-bit RGB, row by row.
#[derive(Clone)]
pub struct Shot {
    /// Pixels across.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// `width * height * 3` bytes.
    pub rgb: Vec<u8>,
}

/// Where something is drawn: the smallest rectangle holding every pixel that is not black.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Drawn {
    /// Left edge.
    pub x: usize,
    /// Top edge.
    pub y: usize,
    /// Width.
    pub width: usize,
    /// Height.
    pub height: usize,
    /// How many pixels in it are not black.
    pub pixels: usize,
}

impl Shot {
    /// Read an XWD image as Xvfb writes its framebuffer: a ZPixmap of depth 24 with 32 bits a
    /// pixel, least significant byte first, true colour. Anything else is refused.
    pub fn from_xwd(bytes: &[u8]) -> Result<Shot, String> {
        let field = |index: usize| -> Result<usize, String> {
            let at = index * 4;
            let word = bytes
                .get(at..at + 4)
                .ok_or_else(|| format!("{} bytes is shorter than the header", bytes.len()))?;
            let value = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
            usize::try_from(value).map_err(|_| format!("header field {index} is too large"))
        };
        let header_size = field(0)?;
        let (version, format, depth) = (field(1)?, field(2)?, field(3)?);
        let (width, height, byte_order) = (field(4)?, field(5)?, field(7)?);
        let (bits_per_pixel, bytes_per_line) = (field(11)?, field(12)?);
        let colours = field(19)?;
        if version != 7 || format != 2 || depth != 24 || bits_per_pixel != 32 || byte_order != 0 {
            return Err(format!(
                "version {version}, format {format}, depth {depth}, {bits_per_pixel} bits a \
                 pixel, byte order {byte_order}"
            ));
        }
        if width == 0 || height == 0 || width > 16_384 || height > 16_384 {
            return Err(format!("a {width}x{height} screen"));
        }
        if bytes_per_line < width * 4 {
            return Err(format!("{bytes_per_line} bytes a line for {width} pixels"));
        }
        let start = colours
            .checked_mul(12)
            .and_then(|c| c.checked_add(header_size))
            .ok_or("the colour map is too large")?;
        let end = bytes_per_line
            .checked_mul(height)
            .and_then(|n| n.checked_add(start))
            .ok_or("the image is too large")?;
        let pixels = bytes
            .get(start..end)
            .ok_or_else(|| format!("{} bytes, {end} expected", bytes.len()))?;
        let mut rgb = Vec::with_capacity(width * height * 3);
        for row in pixels.chunks_exact(bytes_per_line) {
            for pixel in row[..width * 4].chunks_exact(4) {
                // Least significant first: blue, green, red, unused.
                rgb.extend_from_slice(&[pixel[2], pixel[1], pixel[0]]);
            }
        }
        Ok(Shot { width, height, rgb })
    }

    /// The pixel at (x, y).
    pub fn pixel(&self, x: usize, y: usize) -> [u8; 3] {
        let at = (y * self.width + x) * 3;
        [self.rgb[at], self.rgb[at + 1], self.rgb[at + 2]]
    }

    /// Where anything but the black root window is drawn; `None` on an empty screen.
    pub fn drawn(&self) -> Option<Drawn> {
        let mut found: Option<(usize, usize, usize, usize)> = None;
        let mut pixels = 0;
        for y in 0..self.height {
            for x in 0..self.width {
                if self.pixel(x, y) == [0, 0, 0] {
                    continue;
                }
                pixels += 1;
                found = Some(match found {
                    None => (x, y, x, y),
                    Some((x0, y0, x1, y1)) => (x0.min(x), y0.min(y), x1.max(x), y1.max(y)),
                });
            }
        }
        found.map(|(x0, y0, x1, y1)| Drawn {
            x: x0,
            y: y0,
            width: x1 - x0 + 1,
            height: y1 - y0 + 1,
            pixels,
        })
    }

    /// How many distinct colours the rectangle holds: a box of one flat colour has one, text
    /// drawn on it (anti-aliased) many.
    pub fn colours(&self, area: Drawn) -> usize {
        let mut seen = std::collections::HashSet::new();
        for y in area.y..area.y + area.height {
            for x in area.x..area.x + area.width {
                seen.insert(self.pixel(x, y));
            }
        }
        seen.len()
    }

    /// Save as a PNG (making the directory), for a person to look at.
    pub fn save_png(&self, path: &Path) {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("the screenshot directory can be made");
        }
        let file = std::fs::File::create(path)
            .unwrap_or_else(|error| panic!("{} cannot be created: {error}", path.display()));
        let width = u32::try_from(self.width).expect("a screen's width fits in 32 bits");
        let height = u32::try_from(self.height).expect("a screen's height fits in 32 bits");
        let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().expect("the PNG header is written");
        writer
            .write_image_data(&self.rgb)
            .expect("the PNG image is written");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An XWD file as Xvfb writes one, `width`x`height`, every pixel `bgrx`.
    fn xwd(width: u32, height: u32, bgrx: [u8; 4]) -> Vec<u8> {
        let mut header = [0u32; 25];
        header[0] = 100 + 4; // the header and a window name of four bytes
        header[1] = 7;
        header[2] = 2;
        header[3] = 24;
        header[4] = width;
        header[5] = height;
        header[11] = 32;
        header[12] = width * 4;
        header[19] = 2; // two colour map entries
        let mut bytes: Vec<u8> = header.iter().flat_map(|w| w.to_be_bytes()).collect();
        bytes.extend_from_slice(b"scr\0");
        bytes.extend_from_slice(&[0; 24]);
        for _ in 0..width * height {
            bytes.extend_from_slice(&bgrx);
        }
        bytes
    }

    #[test]
    fn an_xvfb_framebuffer_reads_as_rgb() {
        let shot = Shot::from_xwd(&xwd(3, 2, [1, 2, 3, 0])).expect("a valid image");
        assert_eq!((shot.width, shot.height), (3, 2));
        assert_eq!(shot.pixel(2, 1), [3, 2, 1]);
        let drawn = shot.drawn().expect("nothing is black");
        assert_eq!((drawn.x, drawn.y, drawn.width, drawn.height), (0, 0, 3, 2));
        assert_eq!(drawn.pixels, 6);
        assert!(
            Shot::from_xwd(&xwd(3, 2, [0, 0, 0, 0]))
                .expect("a valid image")
                .drawn()
                .is_none()
        );
    }

    #[test]
    fn short_or_other_images_are_refused() {
        let whole = xwd(3, 2, [1, 2, 3, 0]);
        assert!(Shot::from_xwd(&whole[..whole.len() - 1]).is_err());
        assert!(Shot::from_xwd(&whole[..50]).is_err());
        let mut other = whole.clone();
        other[47] = 24; // 24 bits a pixel
        assert!(Shot::from_xwd(&other).is_err());
        let mut huge = whole;
        huge[16..20].copy_from_slice(&u32::MAX.to_be_bytes()); // the width
        assert!(Shot::from_xwd(&huge).is_err());
    }
}
