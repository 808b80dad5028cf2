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
            message: match self.template.split_once("{}") {
                Some((before, after)) => {
                    let mut m = String::with_capacity(before.len() + detail.len() + after.len());
                    m.push_str(before);
                    m.push_str(detail);
                    m.push_str(after);
                    m
                }
                None => self.template.to_owned(),
            },
            span,
        }
    }
}

macro_rules! catalogue {
    ($($name:ident = $id:literal, $level:ident, $template:literal;)*) => {
        $(pub const $name: Kind = Kind { id: $id, level: Level::$level, template: $template };)*
        /// Every kind: the policy checks finding patterns against it.
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
        "the command would delete {}: the whole system or a home directory";
    FS_RM_SYSTEM = "fs.rm_system", Forbidden,
        "the command would delete {}, a directory the system needs to boot or run";
    FS_DELETE_TEMP = "fs.delete_temp", Moderate,
        "deletes {} in a temporary directory, which holds scratch files";
    FS_DELETE_BUILD = "fs.delete_build", Moderate,
        "deletes {}: build output or caches that the build recreates";
    FS_RMDIR = "fs.rmdir", Moderate,
        "`rmdir` removes {} only if empty, so no data is lost";
    FS_UNLINK = "fs.unlink", Destructive,
        "`unlink` deletes {}; deleted files cannot be recovered";
    FS_SHRED = "fs.shred", Destructive,
        "`shred` overwrites {} so that not even recovery tools can get the data back";
    FS_TRUNCATE = "fs.truncate", Destructive,
        "`truncate` resizes {}; whatever is cut off is lost";
    FS_FIND_DELETE = "fs.find_delete", Destructive,
        "`find -delete` deletes every match under {}";
    FS_WRITE = "fs.write", Moderate,
        "`{}` creates or replaces files; a replaced file is lost unless it is tracked";
    FS_WRITE_PROTECTED = "fs.write_protected", Destructive,
        "replaces or moves {}, a system, login, secret or repository file";
    FS_RSYNC_DELETE = "fs.rsync_delete", Destructive,
        "`rsync {}` deletes files in the destination that the source does not have";
    FS_PERMS = "fs.perms", Moderate,
        "`{}` changes owners or permissions of files";
    FS_PERMS_SYSTEM = "fs.perms_system", Destructive,
        "changes owners or permissions of {}, system files that logins and services rely on";
    FS_PERMS_WIDE = "fs.perms_wide", Forbidden,
        "changes owners or permissions of everything under {}: the system or a home directory";
    FS_WORLD_WRITABLE = "fs.world_writable", Destructive,
        "`chmod {}` lets every user and program on the machine change the files";
    // ---- fs end ----
    // ---- redirect ----
    REDIRECT_OVERWRITE = "redirect.overwrite", Moderate,
        "the redirection overwrites {}; its previous contents are lost";
    REDIRECT_OVERWRITE_SENSITIVE = "redirect.overwrite_sensitive", Destructive,
        "the redirection overwrites {}, a system, login, secret or repository file";
    REDIRECT_APPEND = "redirect.append", Moderate,
        "the redirection appends to {}; what it held is kept";
    REDIRECT_APPEND_SENSITIVE = "redirect.append_sensitive", Destructive,
        "the redirection appends to {}, a system, login or repository file: what is added there runs or takes effect later";
    REDIRECT_READ_SECRET = "redirect.read_secret", Destructive,
        "the redirection reads {}, which holds secrets; a secret once read cannot be unread";
    REDIRECT_BLOCK_DEVICE = "redirect.block_device", Forbidden,
        "the redirection writes straight onto the disk device {}, destroying its file systems";
    // ---- redirect end ----
    // ---- git ----
    GIT_PUSH = "git.push", Moderate,
        "`git push` publishes commits to a remote repository ({})";
    GIT_PUSH_FORCE = "git.push_force", Destructive,
        "`git push` with {} rewrites or deletes published history that others may have pulled";
    GIT_CHANGE = "git.change", Moderate,
        "`git {}` changes the repository, the index or the working tree; git can undo it";
    GIT_RESET_HARD = "git.reset_hard", Destructive,
        "`git reset {}` throws away uncommitted changes in the working tree and the index";
    GIT_CLEAN = "git.clean", Destructive,
        "`git clean {}` deletes untracked files, which git never saved and cannot restore";
    GIT_DISCARD = "git.discard", Destructive,
        "`git {}` overwrites uncommitted changes in the working tree; they cannot be restored";
    GIT_BRANCH_FORCE = "git.branch_force", Destructive,
        "`git branch {}` deletes or moves a branch even if its commits are merged nowhere";
    GIT_STASH_DROP = "git.stash_drop", Destructive,
        "`git stash {}` deletes stashed changes";
    GIT_REWRITE = "git.rewrite", Destructive,
        "`git {}` rewrites the history of every branch it is given; the old commits are left behind";
    GIT_PRUNE = "git.prune", Destructive,
        "`git {}` deletes unreachable commits or reflog entries, the last way back to lost work";
    GIT_REF_DELETE = "git.ref_delete", Destructive,
        "`git update-ref -d` deletes the ref {} without the checks `git branch -d` makes";
    GIT_WORKTREE_FORCE = "git.worktree_force", Destructive,
        "`git worktree remove {}` deletes a worktree together with its uncommitted changes";
    // ---- git end ----
    // ---- disk ----
    DISK_MKFS = "disk.mkfs", Destructive,
        "`{}` creates a new file system, erasing everything the device held";
    DISK_DD_WRITE = "disk.dd_write", Destructive,
        "`dd` writes raw bytes over {}";
    DISK_ROOT_DEVICE = "disk.root_device", Forbidden,
        "writes over the disk device {}: every file system on it is lost";
    DISK_ERASE = "disk.erase", Destructive,
        "`{}` erases the signatures, keys or data of the device or file it is given";
    DISK_LAYOUT = "disk.layout", Destructive,
        "`{}` changes partitions, RAID arrays or volumes; what they held may be lost";
    // ---- disk end ----
    // ---- system: power, services, processes, users, firewall ----
    SYSTEM_FORK_BOMB = "system.fork_bomb", Forbidden,
        "{} is a fork bomb: it copies itself until the machine stops responding";
    SYSTEM_CHANGE = "system.change", Moderate,
        "`{}` changes services, processes or settings of the system; it can be undone";
    SYSTEM_POWER = "system.power", Destructive,
        "`{}` shuts down or restarts the machine: every program stops and unsaved work is lost";
    SYSTEM_SERVICE_STOP = "system.service_stop", Destructive,
        "`{}` stops or disables a service and interrupts what it serves";
    SYSTEM_KILL_BY_NAME = "system.kill_by_name", Destructive,
        "`{}` kills every process whose name matches, unrelated ones included";
    SYSTEM_KILL_ALL = "system.kill_all", Forbidden,
        "`{}` kills every process it is allowed to, the session running it included";
    SYSTEM_CRONTAB_REMOVE = "system.crontab_remove", Destructive,
        "`{}` deletes the whole crontab without keeping a copy";
    SYSTEM_FIREWALL = "system.firewall", Destructive,
        "`{}` removes firewall rules or turns the firewall off, which can cut off or expose the machine";
    SYSTEM_USER = "system.user", Destructive,
        "`{}` deletes or locks a user account, or removes or replaces passwords";
    SYSTEM_SUDOERS = "system.sudoers", Destructive,
        "`{}` edits who may run commands as root";
    // ---- system end ----
    // ---- data: databases and stores ----
    DATA_DROP = "data.drop", Destructive,
        "{} deletes a whole database, table, schema or key space with its data";
    DATA_DELETE_ALL = "data.delete_all", Destructive,
        "{} has no WHERE clause: it deletes or overwrites every row of the table";
    DATA_WRITE = "data.write", Moderate,
        "{} changes data in a database";
    // ---- data end ----
    // ---- cloud: containers, orchestration, cloud and service CLIs ----
    CLOUD_DELETE = "cloud.delete", Destructive,
        "`{}` deletes or destroys what a service holds; a service rarely keeps a copy";
    CLOUD_HTTP_DELETE = "cloud.http_delete", Destructive,
        "{} asks a server to delete the resource at that address";
    CLOUD_SYNC_DELETE = "cloud.sync_delete", Destructive,
        "`{}` deletes whatever the destination holds that the source does not";
    CLOUD_APPLY_UNREVIEWED = "cloud.apply_unreviewed", Destructive,
        "`{}` applies infrastructure changes, deletions included, without a reviewed plan";
    CLOUD_OVERWRITE = "cloud.overwrite", Destructive,
        "`{}` replaces a stored secret or record; what it held may be lost";
    CLOUD_DISABLE = "cloud.disable", Destructive,
        "`{}` disables a secrets engine or an auth method, and with it what it held";
    CLOUD_CONTAINER_REMOVE = "cloud.container_remove", Destructive,
        "`{}` removes containers, images, volumes or networks; data kept in them is lost";
    CLOUD_STOP = "cloud.stop", Destructive,
        "`{}` stops running containers or workloads and interrupts what they serve";
    CLOUD_REMOTE_CHANGE = "cloud.remote_change", Moderate,
        "`{}` changes what a remote service does for everyone (it can be undone, but it is published)";
    // ---- cloud end ----
    // ---- packages ----
    PACKAGES_REMOVE = "packages.remove", Destructive,
        "{} removes installed software that other programs may depend on";
    // ---- packages end ----
    // ---- sensitive: reading secrets ----
    SENSITIVE_READ = "sensitive.read", Destructive,
        "reads {}, which holds secrets (keys, tokens or passwords); a secret once read cannot be unread";
    // ---- sensitive end ----
    // ---- general: what unknown programs are judged by ----
    GENERAL_WRITES = "general.writes", Moderate,
        "`{}` builds, installs or changes files; such changes can be undone";
    GENERAL_UNKNOWN = "general.unknown_program", Moderate,
        "`{}` is not a program the gate knows, so it is judged as one that changes files";
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
    OPAQUE_SHELL_READS = "opaque.shell_reads", Opaque,
        "{} runs commands from a file or stream whose text cannot be checked here";
    OPAQUE_STDIN_COMMANDS = "opaque.stdin_commands", Opaque,
        "`{}` runs commands read from its input, which cannot be checked";
    OPAQUE_INLINE_PROGRAM = "opaque.inline_program", Opaque,
        "the inline program {} runs commands or changes files in ways that cannot be checked";
    OPAQUE_INLINE_WRITES = "opaque.inline_writes", Moderate,
        "the inline program {} writes files";
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
