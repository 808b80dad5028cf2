//! What a person is told, for the effects programs' models name in their own words: `git push
//! --force` *overwrites* a *remote*, and the sentence says it rewrites published history.
//! Each entry names its cell (effect, place) in `levels.md`, which gives the level and the id;
//! a finding on a path gets its sentence from the effect and the vocabulary instead (`act`).
//! The four kinds of input that cannot be read at all are here too, with their own ids.
//! This module must not decide *when* a sentence applies; that is the programs' models.

use std::ops::Range;

use assent_client::protocol::Level;

use super::Finding;
use super::effects::{self, Effect};
use crate::places::Kind;

/// A sentence for an effect on a place. `template` may hold one `{}`, filled with the words
/// involved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Said {
    pub effect: Effect,
    pub place: Kind,
    pub template: &'static str,
}

impl Said {
    /// A finding of this kind at `span` (original-input bytes), with `detail` in the sentence.
    pub fn at(&self, span: Range<usize>, detail: &str) -> Finding {
        Finding {
            id: effects::cell_id(self.effect, self.place),
            level: effects::level(self.effect, self.place),
            message: fill(self.template, detail),
            span,
            cell: Some((self.effect, self.place)),
        }
    }
}

/// Input that cannot be read: a finding with its own id, always opaque.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unreadable {
    pub id: &'static str,
    pub template: &'static str,
}

impl Unreadable {
    pub fn at(&self, span: Range<usize>, detail: &str) -> Finding {
        Finding {
            id: self.id,
            level: Level::Opaque,
            message: fill(self.template, detail),
            span,
            cell: None,
        }
    }
}

fn fill(template: &str, detail: &str) -> String {
    match template.split_once("{}") {
        Some((before, after)) => {
            let mut m = String::with_capacity(before.len() + detail.len() + after.len());
            m.push_str(before);
            m.push_str(detail);
            m.push_str(after);
            m
        }
        None => template.to_owned(),
    }
}

macro_rules! said {
    ($($name:ident = $effect:ident $place:ident, $template:literal;)*) => {
        $(pub const $name: Said = Said {
            effect: Effect::$effect,
            place: Kind::$place,
            template: $template,
        };)*
        /// Every sentence, for tests and the generated catalogue.
        #[cfg(test)]
        pub const ALL: &[Said] = &[$($name),*];
    };
}

pub const OPAQUE_PARSE_ERROR: Unreadable = Unreadable {
    id: "opaque.parse_error",
    template: "the command line could not be parsed ({}), so it cannot be checked",
};
pub const OPAQUE_TRUNCATED: Unreadable = Unreadable {
    id: "opaque.truncated",
    template: "the command line was too long; only its start was checked",
};
pub const OPAQUE_TOO_DEEP: Unreadable = Unreadable {
    id: "opaque.too_deep",
    template: "the command nests deeper than {} levels; the inner commands were not checked",
};
pub const OPAQUE_TOO_LARGE: Unreadable = Unreadable {
    id: "opaque.too_large",
    template: "the command line expands into more nested text than can be checked ({})",
};

/// The ids of unreadable input, for the policy's check of finding patterns.
pub const UNREADABLE: &[Unreadable] = &[
    OPAQUE_PARSE_ERROR,
    OPAQUE_TRUNCATED,
    OPAQUE_TOO_DEEP,
    OPAQUE_TOO_LARGE,
];

// One table, grouped by family. Add entries inside your family's group, never elsewhere.
said! {
    // ---- text that runs as code and cannot be read ----
    DYNAMIC_COMMAND = Run Unknown,
        "the command name {} is only known when the line runs";
    DYNAMIC_SHELL = Run Unknown,
        "the shell runs the string {}, which is only known when the line runs";
    EVAL_DYNAMIC = Run Unknown,
        "`eval` runs text that is only known when the line runs ({})";
    PIPE_TO_SHELL = Run Unknown,
        "data piped into `{}` runs as commands that cannot be checked";
    SHELL_READS = Run Unknown,
        "{} runs commands from a file or stream whose text cannot be checked here";
    STDIN_COMMANDS = Run Unknown,
        "`{}` runs commands read from its input, which cannot be checked";
    INLINE_PROGRAM = Run Unknown,
        "the inline program {} runs commands or changes files in ways that cannot be checked";
    INLINE_WRITES = Write Unknown,
        "the inline program {} writes files";
    CODE_UNREAD = Run Unknown,
        "{} is code the program runs, in a language or place the gate does not read";
    TYPED_ELSEWHERE = Run Unknown,
        "{} types text or commands into another terminal or program, where they run unchecked";
    UNCHECKED_AGENT = Run Unknown,
        "{} starts another agent with its own permission checks off, or its settings read from elsewhere: what it does is checked only if its hooks send it to the gate";
    // ---- git ----
    GIT_PUSH = Publish Remote,
        "`git push` publishes commits to a remote repository ({})";
    GIT_PUSH_FORCE = Overwrite Remote,
        "`git push` with {} rewrites published history that others may have pulled";
    GIT_PUSH_DELETE = Delete Remote,
        "`git push` with {} deletes branches or tags of the remote repository";
    GIT_CHANGE = Write History,
        "`git {}` changes the repository, the index or the working tree; git can undo it";
    GIT_DISCARD = Delete Changes,
        "`git {}` throws away uncommitted changes in the working tree; they cannot be restored";
    GIT_CLEAN = Delete Changes,
        "`git clean {}` deletes untracked files, which git never saved and cannot restore";
    GIT_BRANCH_FORCE = Delete History,
        "`git branch {}` deletes or moves a branch even if its commits are merged nowhere";
    GIT_STASH_DROP = Delete History,
        "`git stash {}` deletes stashed changes";
    GIT_REWRITE = Overwrite History,
        "`git {}` rewrites the history of every branch it is given; the old commits are left behind";
    GIT_PRUNE = Delete History,
        "`git {}` deletes unreachable commits or reflog entries, the last way back to lost work";
    GIT_REF_DELETE = Delete History,
        "`git {}` deletes refs without the checks `git branch -d` makes";
    GIT_WORKTREE_FORCE = Delete Changes,
        "`git worktree remove {}` deletes a worktree together with its uncommitted changes";
    GIT_CONFIG = Write Protected,
        "`git config {}` changes git's configuration, which can name programs git runs";
    // ---- files moved where deleting is routine ----
    MOVE_TO_TEMP = Delete Data,
        "`{}` moves your files into temp, where anything deletes them without a question: half of a deletion the next line can finish unasked";
    // ---- disks ----
    DISK_LAYOUT = Erase Unknown,
        "`{}` changes partitions, RAID arrays or volumes; what they held may be lost";
    // ---- listeners and tunnels ----
    LISTEN_SERVES = Send Secret,
        "{} serves files to the network: whoever connects reads what lies there, secrets among them";
    LISTEN_SHELL = Expose Machine,
        "{} runs a program for whoever connects over the network, who can then do anything this user can";
    LISTEN_TUNNEL = Expose Machine,
        "{} opens a tunnel: hosts elsewhere reach this machine or its network through it";
    LISTEN_PUSH = Expose History,
        "`{}` takes pushes from anyone who connects, who can then rewrite the repositories' history";
    // ---- modes and ACLs ----
    MODE_READABLE = Expose Secret,
        "the new mode or ACL of `{}` lets other users read it: a secret, or a home and the secrets in it";
    MODE_SETID = Expose Protected,
        "the new mode of `{}` sets its setuid or setgid bit: whoever runs it runs it as its owner, and a copy of a shell or an interpreter then runs anything so";
    // ---- the system: power, services, processes, users, firewall ----
    FORK_BOMB = Stop Root,
        "{} is a fork bomb: it copies itself until the machine stops responding";
    PROCESS_FLOOD = Stop Machine,
        "{} starts processes without end or bound, until the machine runs out of processes or memory and stops responding";
    FILE_FLOOD = Stop Machine,
        "{} creates files without end or by the ten thousand, until the disk or its inodes are full and programs that write fail";
    SYSTEM_CHANGE = Change Services,
        "`{}` changes services, processes or settings of the system; it can be undone";
    SYSTEM_POWER = Stop Machine,
        "`{}` shuts down or restarts the machine: every program stops and unsaved work is lost";
    SERVICE_STOP = Stop Services,
        "`{}` stops or disables a service and interrupts what it serves";
    KILL_BY_NAME = Stop Services,
        "`{}` kills every process whose name matches, unrelated ones included";
    KILL_ALL = Stop Root,
        "`{}` kills every process it is allowed to, the session running it included";
    CRONTAB_REMOVE = Delete Protected,
        "`{}` deletes the whole crontab without keeping a copy";
    CRONTAB_WRITE = Write Protected,
        "`{}` replaces the crontab: what it installs runs on a schedule";
    FIREWALL = Delete Machine,
        "`{}` removes firewall rules or turns the firewall off, which can cut off or expose the machine";
    USER = Delete Machine,
        "`{}` deletes or locks a user account, or removes or replaces passwords";
    SUDOERS = Overwrite Protected,
        "`{}` edits who may run commands as root";
    // ---- the gate itself: an agent may not answer or switch off its own gate ----
    GATE_ANSWER = Change Gate,
        "`{}` answers the gate's held requests, or lists or forgets what it remembers: an agent may not answer its own gate";
    GATE_APPROVER = Change Gate,
        "`{}` starts a daemon or an approval agent for the gate: an agent may not answer its own gate";
    GATE_STOP = Stop Gate,
        "`{}` stops, kills or masks the gate's daemon, its approval agent or the notification server that shows its held requests: an agent may not switch off its own gate";
    GATE_PACKAGE = Change Gate,
        "`{}` installs, replaces or removes the gate's own package: an agent may not switch off its own gate";
    GATE_CHANGE = Change Gate,
        "`{}` restarts or reconfigures the gate's daemon, its approval agent or the notification server that shows its held requests: an agent may not switch off its own gate";
    // ---- the approval channel: where a person is shown a held request and answers it ----
    CHANNEL_SERVER = Change Gate,
        "`{}` starts a notification server, which decides what a held request shows and what a click answers: an agent may not answer its own gate";
    CHANNEL_DRIVE = Change Gate,
        "`{}` drives or reconfigures the notification server (invokes, closes, pauses or hides notifications, a held request's among them): an agent may not answer its own gate";
    CHANNEL_REPLACE = Change Gate,
        "`{}` replaces or closes a notification already shown, which may be a held request's, or forges a click on one: an agent may not answer its own gate";
    CHANNEL_TERMINAL = Write Gate,
        "`{}` writes onto other people's terminals, where held requests are answered: an agent may not answer its own gate";
    CHANNEL_TYPED = Change Gate,
        "`{}` types keys or text into another pane, window or terminal, where held requests are answered: an agent may not answer its own gate";
    // ---- data: databases and stores ----
    DATA_DROP = Delete Database,
        "{} deletes a whole database, table, schema or key space with its data";
    DATA_DELETE_ALL = Delete Database,
        "{} has no WHERE clause: it deletes every row of the table";
    DATA_UPDATE_ALL = Overwrite Database,
        "{} has no WHERE clause: it overwrites every row of the table";
    DATA_WRITE = Write Database,
        "{} changes data in a database";
    DATA_REPLACE = Overwrite Database,
        "{} replaces what the database holds with other contents";
    DATA_STOP = Stop Database,
        "{} stops or crashes the database server; every client loses it";
    DATA_SERVER_FILES = Write Protected,
        "{} makes the server write its files where it is told, which can plant keys or start-up files";
    DATA_RESET = Delete Database,
        "`{}` drops or empties the database, or rolls its schema back to nothing";
    // ---- containers, orchestration, cloud and service CLIs ----
    CLOUD_DELETE = Delete Remote,
        "`{}` deletes or destroys what a service holds; a service rarely keeps a copy";
    HTTP_DELETE = Delete Remote,
        "{} asks a server to delete the resource at that address";
    SYNC_DELETE = Delete Remote,
        "`{}` deletes whatever the destination holds that the source does not";
    APPLY_UNREVIEWED = Overwrite Remote,
        "`{}` applies infrastructure changes, deletions included, without a reviewed plan";
    CLOUD_OVERWRITE = Overwrite Remote,
        "`{}` replaces a stored secret or record; what it held may be lost";
    CLOUD_DISABLE = Delete Remote,
        "`{}` disables a secrets engine or an auth method, and with it what it held";
    CONTAINER_HOST = Use Root,
        "`{}` gives the container the host itself (privileges, the host's namespaces, the engine's socket): what runs in it can change the machine outside the container";
    CONTAINER_REMOVE = Delete Containers,
        "`{}` removes containers, images, volumes or networks; data kept in them is lost";
    CLOUD_STOP = Stop Containers,
        "`{}` stops running containers or workloads and interrupts what they serve";
    REMOTE_CHANGE = Change Remote,
        "`{}` changes what a remote service does for everyone (it can be undone, but it is published)";
    PUBLISH = Publish Remote,
        "`{}` publishes to a registry or service, where others can fetch it";
    // ---- packages ----
    PACKAGES_REMOVE = Delete Packages,
        "{} removes installed software that other programs may depend on";
    PACKAGES_INSTALL = Write Packages,
        "`{}` installs or updates software";
    // ---- programs the gate knows as builders and runners ----
    BUILDS = Run Project,
        "`{}` builds or runs the project's code";
    // ---- secrets: data that leaves the machine ----
    SECRET_SENT = Send Secret,
        "{}: what leaves the machine cannot be called back";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_have_at_most_one_slot() {
        for s in ALL {
            assert!(s.template.matches("{}").count() <= 1, "{}", s.template);
        }
        for u in UNREADABLE {
            assert!(u.id.starts_with("opaque."), "{}", u.id);
        }
    }
}
