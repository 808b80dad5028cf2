//! Replies built from the store's answers: a page of a list (held requests, remembered
//! approvals, audit events), cut to fit one packet, and `Done` or the error of a cancel or an
//! answer.

use assent_client::codec;
use assent_client::protocol::{MAX_MESSAGE_LEN, Response};

use crate::error::RequestError;

/// One page of a list: of `items`, those from index `from` on that fit in one packet (at least
/// one, unless none is left), with where the next page starts. `reply` builds the response
/// from a page; a single item too large for a packet is left out of the list, and said so in
/// the log (lists shorten their long fields first, so it does not happen).
pub(super) fn page<T: Clone + serde::Serialize>(
    items: &[T],
    from: u32,
    reply: impl Fn(Vec<T>, Option<u32>) -> Response,
) -> Response {
    let start = usize::try_from(from).unwrap_or(usize::MAX).min(items.len());
    let rest = &items[start..];
    let next_at =
        |n: usize| (start + n < items.len()).then(|| u32::try_from(start + n).unwrap_or(u32::MAX));
    let fits = |n: usize| codec::encode_response(&reply(rest[..n].to_vec(), next_at(n))).is_ok();
    // No more items can fit than those whose own encodings fill a packet; of those, the largest
    // prefix that fits with the rest of the reply: a binary search, since encoding is the cost.
    let mut budget = 0;
    let most = rest
        .iter()
        .take_while(|item| {
            budget += codec::encoded_len(item);
            budget <= MAX_MESSAGE_LEN
        })
        .count();
    let (mut lo, mut hi) = (0, most);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    if lo == 0 && !rest.is_empty() {
        tracing::error!(
            index = start,
            "a list item does not fit in a packet; skipping it"
        );
        return reply(Vec::new(), next_at(1));
    }
    reply(rest[..lo].to_vec(), next_at(lo))
}

pub(super) fn done_or_error(result: Result<(), RequestError>) -> Response {
    match result {
        Ok(()) => Response::Done,
        Err(error) => Response::Error(error.to_wire()),
    }
}
