//! The catalogue of findings: every id the analyser can report, its level and the sentence a
//! person reads. Rules refer to entries by constant, so an id cannot be misspelt and a new
//! finding is one line here. This module must not decide *when* a finding applies; that is
//! `rules` and `command`.

use std::ops::Range;

use assent_client::protocol::Level;

use super::Finding;

/// One kind of finding. `template` may hold one `{}`, filled with the words involved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind {
    pub id: &'static str,
    pub level: Level,
    pub template: &'static str,
}

impl Kind {
    /// A finding of this kind at `span` (original-input bytes), with `detail` in the sentence.
    pub fn at(&self, span: Range<usize>, detail: &str) -> Finding {
        Finding {
            id: self.id,
            level: self.level,
            message: self.template.replacen("{}", detail, 1),
            span,
        }
    }
}

macro_rules! catalogue {
    ($($name:ident = $id:literal, $level:ident, $template:literal;)*) => {
        $(pub const $name: Kind = Kind { id: $id, level: Level::$level, template: $template };)*
        /// Every kind, for tests and for `assent explain`-style listings.
        #[allow(dead_code)]
        pub const ALL: &[Kind] = &[$($name),*];
    };
}

// One table, grouped by family. Add entries inside your family's group, never elsewhere.
catalogue! {
    // ---- fs: deleting, moving onto, permissions ----
    FS_RM = "fs.rm", Destructive,
        "`rm` deletes {}; deleted files do not go to a trash and cannot be recovered";
    FS_RM_FORCE = "fs.rm_force", Destructive,
        "`rm -f` deletes {} without asking, write-protected files included";
    FS_RM_RECURSIVE = "fs.rm_recursive", Destructive,
        "`rm -r` deletes {} and everything beneath it";
    FS_RM_ROOT_OR_HOME = "fs.rm_root_or_home", Forbidden,
        "`rm` would delete {}: the whole system or a home directory";
    // ---- fs end ----
    // ---- redirect ----
    REDIRECT_OVERWRITE = "redirect.overwrite", Moderate,
        "the redirection overwrites {}; its previous contents are lost";
    REDIRECT_OVERWRITE_SENSITIVE = "redirect.overwrite_sensitive", Destructive,
        "the redirection overwrites {}, a system or login configuration file";
    REDIRECT_BLOCK_DEVICE = "redirect.block_device", Forbidden,
        "the redirection writes straight onto the disk device {}, destroying its file systems";
    // ---- redirect end ----
    // ---- git ----
    GIT_PUSH = "git.push", Moderate,
        "`git push` publishes commits to a remote repository ({})";
    GIT_PUSH_FORCE = "git.push_force", Destructive,
        "`git push` with {} rewrites or deletes published history that others may have pulled";
    // ---- git end ----
    // ---- disk ----
    DISK_MKFS = "disk.mkfs", Destructive,
        "`{}` creates a new file system, erasing everything the device held";
    DISK_DD_WRITE = "disk.dd_write", Destructive,
        "`dd` writes raw bytes over {}";
    DISK_ROOT_DEVICE = "disk.root_device", Forbidden,
        "writes over the disk device {}: every file system on it is lost";
    // ---- disk end ----
    // ---- system: power, services, processes, users, firewall ----
    SYSTEM_FORK_BOMB = "system.fork_bomb", Forbidden,
        "{} is a fork bomb: it copies itself until the machine stops responding";
    // ---- system end ----
    // ---- data: databases and stores ----
    // ---- data end ----
    // ---- cloud: containers, orchestration, cloud and service CLIs ----
    // ---- cloud end ----
    // ---- packages ----
    // ---- packages end ----
    // ---- sensitive: reading secrets ----
    // ---- sensitive end ----
    // ---- general: what unknown programs are judged by ----
    // ---- general end ----
    // ---- opaque ----
    OPAQUE_PARSE_ERROR = "opaque.parse_error", Opaque,
        "the command line could not be parsed ({}), so it cannot be checked";
    OPAQUE_TRUNCATED = "opaque.truncated", Opaque,
        "the command line was too long; only its start was checked";
    OPAQUE_TOO_DEEP = "opaque.too_deep", Opaque,
        "the command nests deeper than {} levels; the inner commands were not checked";
    OPAQUE_TOO_LARGE = "opaque.too_large", Opaque,
        "the command line expands into more nested text than can be checked ({})";
    OPAQUE_DYNAMIC_COMMAND = "opaque.dynamic_command", Opaque,
        "the command name {} is only known when the line runs";
    OPAQUE_DYNAMIC_SHELL = "opaque.dynamic_shell", Opaque,
        "the shell runs the string {}, which is only known when the line runs";
    OPAQUE_EVAL_DYNAMIC = "opaque.eval_dynamic", Opaque,
        "`eval` runs text that is only known when the line runs ({})";
    OPAQUE_PIPE_TO_SHELL = "opaque.pipe_to_shell", Opaque,
        "data piped into `{}` runs as commands that cannot be checked";
    // ---- opaque end ----
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_namespaced() {
        let mut ids: Vec<&str> = ALL.iter().map(|k| k.id).collect();
        ids.sort_unstable();
        let before = ids.len();
        ids.dedup();
        assert_eq!(before, ids.len(), "duplicate id in the catalogue");
        for k in ALL {
            assert!(k.id.contains('.'), "{} has no namespace", k.id);
            assert!(
                k.template.matches("{}").count() <= 1,
                "{} has two slots",
                k.id
            );
        }
    }
}
