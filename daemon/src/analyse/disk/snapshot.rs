//! What the analyser and the daemon exchange about the disk: what an analysis would like
//! read ([`Want`]) and the snapshot read for it ([`Disk`]). The state carries both through
//! the walk; reading them into findings is `disk`'s.

use std::collections::HashMap;
use std::sync::Arc;

/// Something the analyser would like read: a file's text, where a path leads once its
/// symbolic links are followed, or whether anything is there at all (a link too, followed or
/// not). Paths are absolute.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Want {
    File(String),
    Link(String),
    Exists(String),
}

/// What reading one file gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Got {
    /// A regular file's text.
    Text(Arc<str>),
    /// A regular file that is not text (a compiled program).
    Binary,
    /// Nothing at that path.
    Missing,
    /// Not read, and why: too large, not a regular file, not readable by the requester, over
    /// the budget of the request, the disk too slow.
    Unread(String),
}

/// The files and links read for one request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Disk {
    pub files: HashMap<String, Got>,
    /// Paths resolved through their symbolic links: where each leads when that is elsewhere,
    /// `None` when nowhere else (or it could not be resolved).
    pub links: HashMap<String, Option<String>>,
    /// Paths looked up: whether anything was there (`true` when it could not be told).
    pub exists: HashMap<String, bool>,
    /// The last round: nothing more will be read.
    pub complete: bool,
}
