//! What a place is ([`Kind`], the level table's columns) and the places a path could be
//! ([`Placed`]), each with what a person is told it is.

/// What a place is. File places first, then the places that are not files, which programs'
/// models name (`git push` publishes to a `Remote`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// `/`, or everything in it.
    Root,
    /// A home directory as a whole, or everything in it.
    Home,
    /// A directory the system needs, as a whole.
    System,
    /// A disk, a partition, the machine's memory.
    Device,
    /// Keys, tokens, passwords, credential stores.
    Secret,
    /// What runs at login or start-up, git's internals and configuration, the system's files.
    Protected,
    /// The gate itself: its controls (answering, remembering, its socket, its daemon and
    /// approval agent), its policy, state, units and programs, the agents' hook settings, the
    /// shell start-up files that load its hook, and the approval channel (the notification
    /// server's files, other terminals, input devices). An agent that changes any of these
    /// answers or switches off its own gate.
    Gate,
    /// Files outside the project: the owner's elsewhere in the home, another user's, the
    /// machine's data.
    Data,
    /// The working directory's tree.
    Project,
    /// Output a build recreates, in the project.
    Build,
    /// Scratch space.
    Temp,
    /// `/dev/null`, the standard streams: nothing written to them is kept or lost (but the
    /// device itself deleted, moved or made unwritable breaks every program that writes to it).
    Null,
    /// Only known when the command runs.
    Unknown,
    /// A remote repository, host or service.
    Remote,
    /// A database's tables and keys.
    Database,
    /// Containers, images, volumes, clusters' workloads.
    Containers,
    /// This machine's services and processes.
    Services,
    /// This machine: power, firewall, accounts, kernel.
    Machine,
    /// Installed software.
    Packages,
    /// A repository's commits, branches, stashes and reflog.
    History,
    /// Uncommitted changes in a working tree.
    Changes,
}

impl Kind {
    /// Every kind, in the order of the level table's columns.
    pub const ALL: [Kind; 21] = [
        Kind::Root,
        Kind::Home,
        Kind::System,
        Kind::Device,
        Kind::Secret,
        Kind::Protected,
        Kind::Gate,
        Kind::Data,
        Kind::Project,
        Kind::Build,
        Kind::Temp,
        Kind::Null,
        Kind::Unknown,
        Kind::Remote,
        Kind::Database,
        Kind::Containers,
        Kind::Services,
        Kind::Machine,
        Kind::Packages,
        Kind::History,
        Kind::Changes,
    ];

    /// The name in finding ids and in the level table.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Root => "root",
            Kind::Home => "home",
            Kind::System => "system",
            Kind::Device => "device",
            Kind::Secret => "secret",
            Kind::Protected => "protected",
            Kind::Gate => "gate",
            Kind::Data => "data",
            Kind::Project => "project",
            Kind::Build => "build",
            Kind::Temp => "temp",
            Kind::Null => "null",
            Kind::Unknown => "unknown",
            Kind::Remote => "remote",
            Kind::Database => "database",
            Kind::Containers => "containers",
            Kind::Services => "services",
            Kind::Machine => "machine",
            Kind::Packages => "packages",
            Kind::History => "history",
            Kind::Changes => "changes",
        }
    }

    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// What a person is told the place is, when no entry says more.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Root => "the whole file system",
            Kind::Home => "a home directory and everything in it",
            Kind::System => "a directory the system needs",
            Kind::Device => "a disk or the machine's memory",
            Kind::Secret => "a file that holds secrets",
            Kind::Protected => "a protected file",
            Kind::Gate => "the gate itself",
            Kind::Data => "files outside the project",
            Kind::Project => "the project",
            Kind::Build => "build output that the build recreates",
            Kind::Temp => "a temporary directory",
            Kind::Null => "a place that keeps nothing",
            Kind::Unknown => "a place only known when the command runs",
            Kind::Remote => "a remote repository or service",
            Kind::Database => "a database",
            Kind::Containers => "containers, images or volumes",
            Kind::Services => "services and processes",
            Kind::Machine => "the machine itself",
            Kind::Packages => "installed software",
            Kind::History => "the repository's history",
            Kind::Changes => "uncommitted changes",
        }
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// The places a path could be, each with what a person is told it is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Placed {
    bits: u32,
    why: [&'static str; Kind::ALL.len()],
}

impl Placed {
    /// One place.
    pub fn one(kind: Kind, why: &'static str) -> Placed {
        let mut p = Placed::default();
        p.add(kind, why);
        p
    }

    pub fn add(&mut self, kind: Kind, why: &'static str) {
        if !self.has(kind) {
            self.bits |= kind.bit();
            self.why[kind as usize] = why;
        }
    }

    pub fn union(&mut self, other: &Placed) {
        for kind in other.kinds() {
            self.add(kind, other.why(kind));
        }
    }

    pub fn has(&self, kind: Kind) -> bool {
        self.bits & kind.bit() != 0
    }

    /// Takes `kind` out.
    pub fn remove(&mut self, kind: Kind) {
        self.bits &= !kind.bit();
        self.why[kind as usize] = "";
    }

    pub fn is_empty(&self) -> bool {
        self.bits == 0
    }

    pub fn kinds(&self) -> impl Iterator<Item = Kind> + '_ {
        Kind::ALL.into_iter().filter(|k| self.has(*k))
    }

    /// What the place is, in words: the entry that matched, else the kind's own description.
    pub fn why(&self, kind: Kind) -> &'static str {
        match self.why[kind as usize] {
            "" => kind.describe(),
            why => why,
        }
    }
}
