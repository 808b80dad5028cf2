//! Redirections: what `>` and friends write, and what `<` reads.
//!
//! Overwriting (`>`, `>|`, `&>`, `<>`) and appending (`>>`, `&>>`) are both writes, so both
//! are moderate: DESIGN keeps "safe" for reading only. Onto a protected file (system files,
//! home dotfiles, `.git/`, `.env`, keys) either is destructive: appending a line to
//! `~/.bashrc` or `~/.ssh/authorized_keys` is how a foothold is planted. `/dev/null` and the
//! standard streams are harmless; a disk device is forbidden. Reading a secret with `<` is
//! reported like any other read of it.

use std::ops::Range;

use super::super::State;
use super::super::catalogue;
use super::super::words::Word;
use super::disk::{block_device, harmless};
use super::fs::protected_place;
use super::sensitive::redirect_source;

/// A redirection `op` onto `dest`; `span` is the redirection's, in the original input.
pub fn redirect(op: &str, dest: &Word, span: Range<usize>, st: &mut State) {
    let append = match op {
        ">" | ">|" | "&>" | "<>" => false,
        ">>" | "&>>" => true,
        // `>&2` duplicates a descriptor; `>& file` is `&> file`.
        ">&" | "<&" => {
            if dest.text == "-" || dest.text.bytes().all(|b| b.is_ascii_digit()) {
                return;
            }
            op == "<&"
        }
        _ => true,
    };
    if op.starts_with('<') {
        redirect_source(dest, span.clone(), st);
        if op != "<>" {
            return;
        }
    }
    let ctx = st.ctx;
    let (where_to, sensitive) = protected_place(dest, ctx, st.tmpdir_named);
    let path = where_to.as_path();
    if path.is_some_and(harmless) {
        return;
    }
    let shown = format!("`{}`", dest.raw);
    let kind = if path.and_then(block_device).is_some() {
        catalogue::REDIRECT_BLOCK_DEVICE
    } else if sensitive && append {
        catalogue::REDIRECT_APPEND_SENSITIVE
    } else if sensitive {
        catalogue::REDIRECT_OVERWRITE_SENSITIVE
    } else if append {
        catalogue::REDIRECT_APPEND
    } else {
        catalogue::REDIRECT_OVERWRITE
    };
    st.add(kind.at(span, &shown));
}
