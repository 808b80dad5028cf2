//! Redirections: what `>` and friends overwrite.

use std::ops::Range;

use super::super::catalogue;
use super::super::words::{Place, Word, place};
use super::super::{Context, State};
use super::disk::{block_device, harmless};

/// A redirection `op` onto `dest`; `span` is the redirection's, in the original input.
pub fn redirect(op: &str, dest: &Word, span: Range<usize>, st: &mut State) {
    let overwrites = match op {
        ">" | ">|" | "&>" | "<>" => true,
        // `>&2` duplicates a descriptor; `>& file` is `&> file`.
        ">&" => !(dest.text == "-" || dest.text.bytes().all(|b| b.is_ascii_digit())),
        _ => false,
    };
    if !overwrites {
        return;
    }
    let ctx = st.ctx;
    let where_to = place(dest, ctx);
    let path = where_to.as_path();
    if path.is_some_and(harmless) {
        return;
    }
    let shown = format!("`{}`", dest.raw);
    let kind = if path.and_then(block_device).is_some() {
        catalogue::REDIRECT_BLOCK_DEVICE
    } else if sensitive(&where_to, ctx) {
        catalogue::REDIRECT_OVERWRITE_SENSITIVE
    } else {
        catalogue::REDIRECT_OVERWRITE
    };
    st.add(kind.at(span, &shown));
}

/// System configuration, or a dotfile or dot-directory in home (`~/.bashrc`, `~/.ssh/…`).
fn sensitive(where_to: &Place, ctx: &Context) -> bool {
    if let Some(p) = where_to.as_path()
        && (p == "/etc" || p.starts_with("/etc/"))
    {
        return true;
    }
    where_to
        .in_home(ctx)
        .is_some_and(|rest| rest.starts_with("/."))
}
