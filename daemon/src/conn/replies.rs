//! Replies built from the store's answers: the pending list, cut to fit one packet, and
//! `Done` or the error of a cancel or an answer.

use assent_client::codec;
use assent_client::protocol::{PendingItem, PendingList, Response};

use crate::error::RequestError;

/// Commands in a pending list are shortened to this many bytes.
const PENDING_SUBJECT_MAX: usize = 4096;
/// Items of a held batch in a pending list are shortened to this many bytes each.
const PENDING_BATCH_SUBJECT_MAX: usize = 512;
/// Findings listed per item of a held batch, at most.
const PENDING_BATCH_FINDINGS_MAX: usize = 8;

/// Cut `text` to at most `max` bytes at a character boundary, marking the cut.
fn shorten(text: &mut String, max: usize) {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
}

/// Shorten a held request's long parts so that one item always fits a packet.
pub(super) fn shorten_item(item: &mut PendingItem) {
    shorten(&mut item.subject, PENDING_SUBJECT_MAX);
    shorten(&mut item.signature, PENDING_SUBJECT_MAX);
    for held in &mut item.items {
        shorten(&mut held.subject, PENDING_BATCH_SUBJECT_MAX);
        held.findings.truncate(PENDING_BATCH_FINDINGS_MAX);
    }
}

/// As many held requests as fit in one packet, with long commands shortened, and a count of the
/// rest: a list is never cut silently.
pub(super) fn pending_list(mut items: Vec<PendingItem>) -> PendingList {
    for item in &mut items {
        shorten_item(item);
    }
    let total = items.len();
    let fits = |n: usize| {
        let list = PendingList {
            items: items[..n].to_vec(),
            omitted: u32::try_from(total - n).unwrap_or(u32::MAX),
        };
        codec::encode_response(&Response::Pending(list)).is_ok()
    };
    // The largest prefix that fits: a binary search, since encoding is the cost.
    let (mut lo, mut hi) = (0, total);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    items.truncate(lo);
    PendingList {
        items,
        omitted: u32::try_from(total - lo).unwrap_or(u32::MAX),
    }
}

pub(super) fn done_or_error(result: Result<(), RequestError>) -> Response {
    match result {
        Ok(()) => Response::Done,
        Err(error) => Response::Error(error.to_wire()),
    }
}
