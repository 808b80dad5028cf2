//! Replies built from the store's answers: the pending list, cut to fit one packet, and
//! `Done` or the error of a cancel or an answer.

use assent_client::codec;
use assent_client::protocol::{PendingItem, PendingList, Response};

use crate::error::RequestError;

/// As many held requests as fit in one packet, with long commands shortened, and a count of the
/// rest: a list is never cut silently.
pub(super) fn pending_list(mut items: Vec<PendingItem>) -> PendingList {
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
