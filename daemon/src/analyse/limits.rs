//! The bounds of one analysis as a whole: how deep texts nest, how many findings are kept,
//! how long the parser may work, how many bytes of inner command strings are read, how many
//! sources a path is followed through. The driver and the state keep to them; a model's own
//! bounds (a loop's runs, a program's nodes) live beside it.

use std::time::Duration;

/// How deep subshells, substitutions, compound commands and inner shells may nest before the
/// rest is reported as opaque instead of walked.
pub const MAX_DEPTH: u32 = 256;

/// Findings kept per analysis; a reply must fit in one message, and past this many a person
/// learns nothing more. The most severe are kept.
pub(super) const MAX_FINDINGS: usize = 64;

/// How long the parser may work on one line in all (its pieces and inner command strings
/// included): 2 ms, and 0.75 µs a byte more. Ordinary lines take a fraction of this (a dense
/// 10 KiB line under 2 ms of 9.5, 8,000 pipeline stages about 9 ms of 14); some malformed
/// ones would take seconds. Past it the line is unreadable: opaque, never safe. Freeing what
/// a cancelled parse built takes about a third as long again, so a 16 KiB line the parser
/// gives up on is answered within 20 ms.
pub(super) fn parse_time(len: usize) -> Duration {
    let per_byte = u64::try_from(len).unwrap_or(u64::MAX);
    let time =
        Duration::from_millis(2).saturating_add(Duration::from_nanos(per_byte.saturating_mul(750)));
    // A debug build compiles the parser without optimisation: several times slower.
    if cfg!(debug_assertions) {
        time.saturating_mul(8)
    } else {
        time
    }
}

/// Sources followed, at most, when placing a path that moves and copies on the line may have
/// filled.
pub(super) const MAX_SOURCES: usize = 64;

/// Bytes of inner command strings (`bash -c`, `eval`) parsed per analysis, beyond the input:
/// `eval eval eval …` would otherwise reparse the line once per word.
pub(super) const INNER_BUDGET: usize = 64 * 1024;
