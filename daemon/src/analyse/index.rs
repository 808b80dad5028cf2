//! The index: every program the gate knows, one entry each, saying how it reads its arguments
//! (its [`Grammar`]) and what they do to which places. Read this file to learn how a program is
//! judged. `command` tries, in this order: a function defined on the line; the entry's role
//! (a wrapper runs the command after its options, a runner runs commands handed to it, a shell
//! or an interpreter runs text as code); then its effects. A program in no entry is judged by
//! the places it is given (`programs::unknown`).
//!
//! Most entries are a [`Spec`]: which operands are paths, the effect on them, which options
//! name a file and what happens to it, which options widen the effect to whole trees or make
//! the command do nothing. The rest name a model in `programs/` (git's subcommands, `tar`'s
//! modes, `curl`'s uploads).

use std::collections::HashMap;
use std::sync::OnceLock;

use super::act::Site;
use super::effects::Effect::{self, Change, Delete, Erase, Overwrite, Read, Write};
use super::getopt::{Grammar, Style};
use super::interp::{self, Lang};
use super::programs;
pub use super::programs::code::Code;
use super::words::Word;

/// A model in `programs/`: judges the words after the program's name.
pub type Model = for<'s> fn(&[Word<'s>], &mut Site<'_, 's, '_, '_>);

/// One program.
pub struct Entry {
    pub names: &'static [&'static str],
    pub grammar: Grammar,
    pub role: Role,
}

/// What the program is.
pub enum Role {
    /// Runs the command that follows its options (and `skip` more words, `timeout 5`), with
    /// its own effects judged by `also`.
    Wrapper(Wrap),
    /// Runs commands handed to it as words or text (`find -exec`, `parallel`, `ssh HOST CMD`);
    /// its own effects judged by `also`.
    Runner(Runner, Option<Judge>),
    /// A shell: `-c STR`, a script file, or what it reads.
    Shell,
    /// An interpreter of another language: `-c`/`-e` programs, heredocs, script files.
    Interpreter(&'static Lang),
    /// A program that acts on places.
    Tool(Judge),
}

/// How a wrapper runs its command.
pub struct Wrap {
    /// Words after the options and before the command (`timeout DURATION`).
    pub skip: usize,
    /// Options after which nothing runs (`command -v`, `sudo -l`).
    pub inert: &'static [&'static str],
    pub kind: WrapKind,
    /// What the wrapper itself does (`strace -o FILE` writes FILE).
    pub also: Option<Judge>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WrapKind {
    Plain,
    /// `env`: `NAME=value` words, `-C DIR`, `-S STR`.
    Env,
    /// `sudo`: `NAME=value` words, `-D DIR`, `-s`/`-i` shells.
    Sudo,
    /// `xargs`: the command gets arguments read from standard input.
    Xargs,
    /// `flock FILE -c STR`.
    Flock,
    /// `busybox APPLET`.
    Busybox,
}

/// Runs what a runner hands on; `true` when nothing else is to be judged.
pub type Runner = programs::runners::Runner;

/// How a tool is judged.
pub enum Judge {
    /// Its operands are not places, and it changes nothing (`echo`, `sleep`, `whoami`).
    Nothing,
    Spec(&'static Spec),
    Model(Model),
}

/// What a tool's arguments do, declaratively.
pub struct Spec {
    /// The first operands are not paths (a pattern, a mode, a script) unless one of
    /// `given_by`'s options supplies them.
    pub skip: usize,
    pub given_by: &'static [&'static str],
    /// The effect on each operand; `None` when operands are not places.
    pub operands: Option<Effect>,
    /// Options that change the effect on the operands (`sed -i`, `tee -a`).
    pub switch: &'static [(&'static str, Effect)],
    /// Options whose value is a path, and the effect on it (`sort -o`, `grep -f`).
    pub values: &'static [(&'static str, Effect)],
    /// Options that make it act on whole trees (`-r`).
    pub tree: &'static [&'static str],
    /// Options after which it does nothing (`-n` dry runs).
    pub inert: &'static [&'static str],
}

/// A spec whose operands get `effect`.
pub const fn each(effect: Effect) -> Spec {
    Spec {
        skip: 0,
        given_by: &[],
        operands: Some(effect),
        switch: &[],
        values: &[],
        tree: &[],
        inert: &[],
    }
}

const READS: Spec = each(Read);

const fn gnu(short: &'static str, long: &'static [&'static str]) -> Grammar {
    Grammar {
        short,
        long,
        style: Style::Gnu,
    }
}

const fn posix(short: &'static str, long: &'static [&'static str]) -> Grammar {
    Grammar {
        short,
        long,
        style: Style::Posix,
    }
}

const fn tool(names: &'static [&'static str], grammar: Grammar, judge: Judge) -> Entry {
    Entry {
        names,
        grammar,
        role: Role::Tool(judge),
    }
}

const fn wrapper(
    names: &'static [&'static str],
    grammar: Grammar,
    skip: usize,
    inert: &'static [&'static str],
    kind: WrapKind,
) -> Entry {
    Entry {
        names,
        grammar,
        role: Role::Wrapper(Wrap {
            skip,
            inert,
            kind,
            also: None,
        }),
    }
}

const NONE: Grammar = Grammar::NONE;

// ---- Grammars of the file utilities (GNU coreutils' own option lists) ----

const RM: Grammar = gnu(
    "",
    &[
        "force",
        "interactive=?",
        "one-file-system",
        "no-preserve-root",
        "preserve-root=?",
        "recursive",
        "dir",
        "verbose",
        "help",
        "version",
    ],
);
const CP: Grammar = gnu(
    "S:t:",
    &[
        "archive",
        "attributes-only",
        "backup=?",
        "context=?",
        "copy-contents",
        "dereference",
        "force",
        "help",
        "interactive",
        "link",
        "no-clobber",
        "no-dereference",
        "no-preserve=",
        "no-target-directory",
        "one-file-system",
        "parents",
        "preserve=?",
        "recursive",
        "reflink=?",
        "remove-destination",
        "sparse=",
        "strip-trailing-slashes",
        "suffix=",
        "symbolic-link",
        "target-directory=",
        "update=?",
        "verbose",
        "version",
    ],
);
const MV: Grammar = gnu(
    "S:t:",
    &[
        "backup=?",
        "context",
        "force",
        "help",
        "interactive",
        "no-clobber",
        "no-copy",
        "no-target-directory",
        "strip-trailing-slashes",
        "suffix=",
        "target-directory=",
        "update=?",
        "verbose",
        "version",
    ],
);
const LN: Grammar = gnu(
    "S:t:",
    &[
        "backup=?",
        "directory",
        "force",
        "help",
        "interactive",
        "logical",
        "no-dereference",
        "no-target-directory",
        "physical",
        "relative",
        "suffix=",
        "symbolic",
        "target-directory=",
        "verbose",
        "version",
    ],
);
const INSTALL: Grammar = gnu(
    "S:g:m:o:t:",
    &[
        "backup=?",
        "compare",
        "context=?",
        "directory",
        "group=",
        "help",
        "mode=",
        "no-target-directory",
        "owner=",
        "preserve-context",
        "preserve-timestamps",
        "strip",
        "strip-program=",
        "suffix=",
        "target-directory=",
        "verbose",
        "version",
    ],
);
const CHMOD: Grammar = gnu(
    "",
    &[
        "changes",
        "dereference",
        "from=",
        "help",
        "no-dereference",
        "no-preserve-root",
        "preserve-root",
        "quiet",
        "recursive",
        "reference=",
        "silent",
        "verbose",
        "version",
    ],
);
const GREP: Grammar = gnu(
    "A:B:C:D:d:e:f:m:",
    &[
        "after-context=",
        "basic-regexp",
        "before-context=",
        "binary",
        "binary-files=",
        "byte-offset",
        "color=?",
        "colour=?",
        "context=",
        "count",
        "dereference-recursive",
        "devices=",
        "directories=",
        "exclude=",
        "exclude-dir=",
        "exclude-from=",
        "extended-regexp",
        "file=",
        "files-with-matches",
        "files-without-match",
        "fixed-strings",
        "help",
        "ignore-case",
        "include=",
        "invert-match",
        "label=",
        "line-number",
        "line-regexp",
        "max-count=",
        "no-filename",
        "null",
        "only-matching",
        "perl-regexp",
        "quiet",
        "recursive",
        "regexp=",
        "silent",
        "text",
        "version",
        "with-filename",
        "word-regexp",
    ],
);
const SORT: Grammar = gnu(
    "S:T:k:o:t:",
    &[
        "batch-size=",
        "buffer-size=",
        "check=?",
        "compress-program=",
        "debug",
        "dictionary-order",
        "field-separator=",
        "files0-from=",
        "general-numeric-sort",
        "help",
        "human-numeric-sort",
        "ignore-case",
        "ignore-leading-blanks",
        "ignore-nonprinting",
        "key=",
        "merge",
        "month-sort",
        "numeric-sort",
        "output=",
        "parallel=",
        "random-sort",
        "random-source=",
        "reverse",
        "sort=",
        "stable",
        "temporary-directory=",
        "unique",
        "version",
        "version-sort",
        "zero-terminated",
    ],
);

// ---- Specs ----

const GREP_SPEC: Spec = Spec {
    skip: 1,
    given_by: &["e", "f", "regexp", "file"],
    values: &[("f", Read), ("file", Read), ("exclude-from", Read)],
    tree: &["r", "R", "recursive", "dereference-recursive"],
    ..READS
};
const SED_SPEC: Spec = Spec {
    skip: 1,
    given_by: &["e", "f", "expression", "file"],
    switch: &[("i", Overwrite), ("in-place", Overwrite)],
    values: &[("f", Read), ("file", Read)],
    ..READS
};
const SORT_SPEC: Spec = Spec {
    values: &[
        ("o", Overwrite),
        ("output", Overwrite),
        ("files0-from", Read),
        ("random-source", Read),
    ],
    ..READS
};
/// `info --output=FILE` writes the manual there.
const INFO_SPEC: Spec = Spec {
    values: &[
        ("o", Overwrite),
        ("output", Overwrite),
        ("f", Read),
        ("file", Read),
    ],
    operands: None,
    ..READS
};
const TOUCH_SPEC: Spec = Spec {
    values: &[("r", Read), ("reference", Read)],
    ..each(Write)
};
const TRUNCATE_SPEC: Spec = Spec {
    values: &[("r", Read), ("reference", Read)],
    ..each(Erase)
};
const JQ_SPEC: Spec = Spec {
    skip: 1,
    given_by: &["f", "from-file"],
    values: &[
        ("f", Read),
        ("from-file", Read),
        ("rawfile", Read),
        ("slurpfile", Read),
    ],
    ..READS
};
const AWK_SPEC: Spec = Spec {
    skip: 1,
    given_by: &["f", "file"],
    values: &[("f", Read), ("file", Read)],
    // `gawk -i inplace` rewrites the files it reads (any `-i` library is taken for it).
    switch: &[("i", Overwrite), ("include", Overwrite)],
    ..READS
};
const DIFF_SPEC: Spec = Spec {
    values: &[
        ("from-file", Read),
        ("to-file", Read),
        ("exclude-from", Read),
    ],
    tree: &["r", "recursive"],
    ..READS
};
const CONVERT: Spec = Spec {
    values: &[("o", Overwrite), ("output", Overwrite)],
    ..READS
};

/// A pager: reads its files and `-k` key bindings, writes its log (`-o`, `-O`).
const PAGER: Spec = Spec {
    values: &[
        ("k", Read),
        ("lesskey-file", Read),
        ("o", Overwrite),
        ("O", Overwrite),
        ("log-file", Overwrite),
        ("LOG-FILE", Overwrite),
    ],
    ..READS
};

/// `hexdump -f FILE` reads its format from FILE.
const HEXDUMP: Spec = Spec {
    values: &[("f", Read), ("format-file", Read)],
    ..READS
};

/// `look WORD [FILE]`: the word first.
const LOOK: Spec = Spec { skip: 1, ..READS };

/// Numbers on standard input, or as operands: no file.
const NOTHING_GIVEN: Spec = Spec {
    operands: None,
    ..READS
};

/// Every program the gate knows. A name should appear once.
pub const ENTRIES: &[Entry] = &[
    // ---- Wrappers: the command follows their options ----
    Entry {
        names: &["sudo"],
        grammar: posix(
            "u:g:p:C:D:r:t:U:T:R:h::",
            &[
                "user=",
                "group=",
                "prompt=",
                "close-from=",
                "host=",
                "chdir=",
                "role=",
                "type=",
                "other-user=",
                "command-timeout=",
                "chroot=",
                "preserve-env=?",
                "login",
                "shell",
                "list",
                "validate",
                "remove-timestamp",
                "reset-timestamp",
                "edit",
                "help",
                "version",
                "non-interactive",
                "background",
                "stdin",
            ],
        ),
        role: Role::Wrapper(Wrap {
            skip: 0,
            inert: &[
                "l", "list", "v", "validate", "k", "K", "V", "version", "help",
            ],
            kind: WrapKind::Sudo,
            also: None,
        }),
    },
    wrapper(
        &["doas"],
        posix("u:C:", &[]),
        0,
        &["C", "L"],
        WrapKind::Plain,
    ),
    wrapper(
        &["env"],
        posix(
            "u:C:S:P:",
            &[
                "unset=",
                "chdir=",
                "split-string=",
                "ignore-environment",
                "null",
                "debug",
                "block-signal=?",
                "default-signal=?",
                "ignore-signal=?",
                "list-signal-handling",
                "help",
                "version",
            ],
        ),
        0,
        &["help", "version"],
        WrapKind::Env,
    ),
    wrapper(
        &["nice"],
        posix("n:", &["adjustment="]),
        0,
        &[],
        WrapKind::Plain,
    ),
    // bash's `coproc CMD`: the command runs beside the shell.
    wrapper(&["coproc"], posix("", &[]), 0, &[], WrapKind::Plain),
    // `setpriv [--reuid=…] CMD`: the command with other credentials, capabilities or limits.
    wrapper(
        &["setpriv"],
        posix(
            "d",
            &[
                "dump",
                "no-new-privs",
                "inh-caps=",
                "ambient-caps=",
                "bounding-set=",
                "ruid=",
                "euid=",
                "reuid=",
                "rgid=",
                "egid=",
                "regid=",
                "clear-groups",
                "keep-groups",
                "init-groups",
                "groups=",
                "securebits=",
                "pdeathsig=",
                "selinux-label=",
                "apparmor-profile=",
                "landlock-access=",
                "landlock-rule=",
                "seccomp-filter=",
                "reset-env",
                "help",
                "version",
            ],
        ),
        0,
        &["d", "dump", "help", "version"],
        WrapKind::Plain,
    ),
    wrapper(
        &["ionice"],
        posix("c:n:p::P::u::", &["class=", "classdata="]),
        0,
        &["p", "P", "u"],
        WrapKind::Plain,
    ),
    // A private D-Bus session or X display for one command.
    wrapper(
        &["dbus-run-session", "dbus-launch"],
        posix(
            "",
            &[
                "config-file=",
                "dbus-daemon=",
                "exit-with-session",
                "sh-syntax",
                "csh-syntax",
            ],
        ),
        0,
        &[],
        WrapKind::Plain,
    ),
    wrapper(
        &[
            "nohup",
            "setsid",
            "builtin",
            "pkexec",
            "torsocks",
            "proxychains",
            "proxychains4",
            "caffeinate",
            "catchsegv",
            "fakeroot",
            "unbuffer",
            "systemd-inhibit",
            "firejail",
            "bwrap",
        ],
        posix("", &["user="]),
        0,
        &[],
        WrapKind::Plain,
    ),
    wrapper(
        &["timeout"],
        posix(
            "k:s:",
            &[
                "kill-after=",
                "signal=",
                "foreground",
                "preserve-status",
                "verbose",
            ],
        ),
        1,
        &[],
        WrapKind::Plain,
    ),
    Entry {
        names: &["time"],
        grammar: posix(
            "f:o:",
            &[
                "format=",
                "output=",
                "append",
                "portability",
                "verbose",
                "quiet",
            ],
        ),
        role: Role::Wrapper(Wrap {
            skip: 0,
            inert: &[],
            kind: WrapKind::Plain,
            also: Some(Judge::Spec(&Spec {
                values: &[("o", Overwrite), ("output", Overwrite)],
                ..each(Read)
            })),
        }),
    },
    wrapper(
        &["command"],
        posix("", &[]),
        0,
        &["v", "V"],
        WrapKind::Plain,
    ),
    wrapper(&["exec"], posix("a:", &[]), 0, &[], WrapKind::Plain),
    wrapper(
        &["stdbuf"],
        posix("i:o:e:", &["input=", "output=", "error="]),
        0,
        &[],
        WrapKind::Plain,
    ),
    wrapper(
        &["flock"],
        posix(
            "w:E:",
            &[
                "timeout=",
                "wait=",
                "conflict-exit-code=",
                "shared",
                "exclusive",
                "unlock",
                "nonblock",
                "close",
                "no-fork",
            ],
        ),
        1,
        &[],
        WrapKind::Flock,
    ),
    wrapper(
        &["chroot"],
        posix("", &["userspec=", "groups=", "skip-chdir"]),
        1,
        &[],
        WrapKind::Plain,
    ),
    wrapper(
        &["unshare"],
        posix(
            "RwSG",
            &[
                "root=",
                "wd=",
                "setuid=",
                "setgid=",
                "propagation=",
                "setgroups=",
                "map-user=",
                "map-group=",
                "map-users=",
                "map-groups=",
            ],
        ),
        0,
        &[],
        WrapKind::Plain,
    ),
    wrapper(
        &["nsenter"],
        posix(
            "t:S:G:r::w::m::u::i::n::p::U::C::T::",
            &["target=", "setuid=", "setgid="],
        ),
        0,
        &[],
        WrapKind::Plain,
    ),
    Entry {
        names: &["strace", "ltrace"],
        grammar: posix(
            "o:e:p:s:u:E:a:I:O:P:S:X:b:U:A:n:",
            &["output=", "trace=", "signal=", "attach=", "user=", "env="],
        ),
        role: Role::Wrapper(Wrap {
            skip: 0,
            inert: &[],
            kind: WrapKind::Plain,
            also: Some(Judge::Spec(&Spec {
                values: &[("o", Overwrite), ("output", Overwrite)],
                operands: None,
                ..READS
            })),
        }),
    },
    wrapper(
        &["run0"],
        posix("u:", &["user=", "chdir=", "setenv="]),
        0,
        &[],
        WrapKind::Sudo,
    ),
    wrapper(
        &["taskset"],
        posix("", &["all-tasks", "pid", "cpu-list"]),
        1,
        &["p", "pid"],
        WrapKind::Plain,
    ),
    wrapper(&["chrt"], posix("", &[]), 1, &["p", "pid"], WrapKind::Plain),
    wrapper(
        &["numactl"],
        posix("C:N:m:p:i:", &[]),
        0,
        &[],
        WrapKind::Plain,
    ),
    wrapper(
        &["busybox", "toybox"],
        posix("", &[]),
        0,
        &["list", "help"],
        WrapKind::Busybox,
    ),
    Entry {
        names: &["xargs"],
        grammar: posix(
            "E:L:P:a:d:e::i::n:s:I:",
            &[
                "arg-file=",
                "delimiter=",
                "eof=?",
                "exit",
                "interactive",
                "max-args=",
                "max-chars=",
                "max-lines=",
                "max-procs=",
                "no-run-if-empty",
                "null",
                "open-tty",
                "process-slot-var=",
                "replace=?",
                "show-limits",
                "verbose",
                "help",
                "version",
            ],
        ),
        role: Role::Wrapper(Wrap {
            skip: 0,
            inert: &["help", "version", "show-limits"],
            kind: WrapKind::Xargs,
            also: Some(Judge::Spec(&Spec {
                operands: None,
                values: &[("a", Read), ("arg-file", Read)],
                ..READS
            })),
        }),
    },
    // ---- Runners: commands handed to them as words or text ----
    Entry {
        names: &["find"],
        grammar: NONE,
        role: Role::Runner(
            programs::runners::find,
            Some(Judge::Model(programs::files::find)),
        ),
    },
    Entry {
        names: &["parallel", "sem"],
        grammar: NONE,
        role: Role::Runner(programs::runners::parallel, None),
    },
    Entry {
        names: &["watch"],
        grammar: NONE,
        role: Role::Runner(programs::runners::watch, None),
    },
    Entry {
        names: &["su"],
        grammar: NONE,
        role: Role::Runner(programs::runners::su, None),
    },
    Entry {
        names: &["runuser"],
        grammar: NONE,
        role: Role::Runner(programs::runners::runuser, None),
    },
    Entry {
        names: &["ssh"],
        grammar: NONE,
        role: Role::Runner(programs::runners::ssh, None),
    },
    // ---- Shells and interpreters ----
    Entry {
        names: &[
            "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh",
            "tcsh", "rbash",
        ],
        grammar: NONE,
        role: Role::Shell,
    },
    Entry {
        names: &["python", "python2", "python3", "pypy", "pypy3"],
        grammar: NONE,
        role: Role::Interpreter(&interp::PYTHON),
    },
    Entry {
        names: &["perl"],
        grammar: NONE,
        role: Role::Interpreter(&interp::PERL),
    },
    Entry {
        names: &["ruby"],
        grammar: NONE,
        role: Role::Interpreter(&interp::RUBY),
    },
    Entry {
        names: &["node", "nodejs", "bun", "deno"],
        grammar: NONE,
        role: Role::Interpreter(&interp::NODE),
    },
    Entry {
        names: &["php"],
        grammar: NONE,
        role: Role::Interpreter(&interp::PHP),
    },
    // ---- Reading ----
    // Each reader's own options: a flag taken for an option with a value would swallow the
    // file after it (`cat -n ~/.netrc`).
    tool(
        &[
            "cat", "zcat", "bzcat", "xzcat", "zstdcat", "zless", "zmore", "rev", "tsort", "sum",
        ],
        gnu("", &[]),
        Judge::Spec(&READS),
    ),
    tool(&["tac"], gnu("s:", &["separator="]), Judge::Spec(&READS)),
    tool(
        &["nl"],
        gnu(
            "b:d:f:h:i:l:n:s:v:w:",
            &[
                "body-numbering=",
                "section-delimiter=",
                "footer-numbering=",
                "header-numbering=",
                "line-increment=",
                "join-blank-lines=",
                "number-format=",
                "number-separator=",
                "starting-line-number=",
                "number-width=",
            ],
        ),
        Judge::Spec(&READS),
    ),
    tool(
        &["less", "more", "most"],
        gnu(
            "b:h:j:k:n:o:O:p:P:t:T:x:y:z:#:",
            &[
                "buffers=",
                "max-back-scroll=",
                "jump-target=",
                "lesskey-file=",
                "log-file=",
                "LOG-FILE=",
                "pattern=",
                "prompt=",
                "tag=",
                "tag-file=",
                "tabs=",
                "max-forw-scroll=",
                "window=",
                "shift=",
                "lines=",
            ],
        ),
        Judge::Spec(&PAGER),
    ),
    tool(
        &["bat", "batcat"],
        gnu(
            "l:H:r:m:",
            &[
                "language=",
                "highlight-line=",
                "line-range=",
                "map-syntax=",
                "style=",
                "theme=",
                "tabs=",
                "wrap=",
                "terminal-width=",
                "color=",
                "italic-text=",
                "decorations=",
                "paging=",
                "pager=",
                "file-name=",
                "diff-context=",
            ],
        ),
        Judge::Spec(&READS),
    ),
    tool(
        &["strings"],
        gnu(
            "n:t:e:T:",
            &[
                "bytes=",
                "radix=",
                "encoding=",
                "target=",
                "output-separator=",
            ],
        ),
        Judge::Spec(&READS),
    ),
    tool(
        &["hexdump", "hd"],
        gnu("n:s:e:f:", &["length=", "skip=", "format=", "format-file="]),
        Judge::Spec(&HEXDUMP),
    ),
    tool(
        &["od"],
        gnu(
            "A:j:N:S:t:w::",
            &[
                "address-radix=",
                "skip-bytes=",
                "read-bytes=",
                "strings=?",
                "format=",
                "width=?",
                "endian=",
            ],
        ),
        Judge::Spec(&READS),
    ),
    tool(
        &["fold", "fmt"],
        gnu("w:p:g:", &["width=", "prefix=", "goal="]),
        Judge::Spec(&READS),
    ),
    tool(
        &["column"],
        gnu(
            "s:c:o:N:n:l:R:E:H:O:W:d:r:C:",
            &[
                "separator=",
                "output-width=",
                "output-separator=",
                "table-columns=",
                "table-name=",
                "table-columns-limit=",
                "table-right=",
                "table-noextreme=",
                "table-hide=",
                "table-order=",
                "table-wrap=",
                "tree=",
                "tree-id=",
                "tree-parent=",
            ],
        ),
        Judge::Spec(&READS),
    ),
    tool(
        &["expand", "unexpand"],
        gnu("t:", &["tabs="]),
        Judge::Spec(&READS),
    ),
    tool(&["paste"], gnu("d:", &["delimiters="]), Judge::Spec(&READS)),
    tool(
        &["join"],
        gnu(
            "1:2:j:t:e:o:a:v:",
            &["ignore-case", "check-order", "header"],
        ),
        Judge::Spec(&READS),
    ),
    tool(&["look"], gnu("t:", &["terminate="]), Judge::Spec(&LOOK)),
    tool(
        &["pr"],
        gnu(
            "N:w:W:l:h:o:n::e::i::s::S:",
            &[
                "first-line-number=",
                "width=",
                "page-width=",
                "length=",
                "header=",
                "indent=",
                "number-lines=?",
                "expand-tabs=?",
                "output-tabs=?",
                "separator=?",
                "sep-string=?",
                "pages=",
                "columns=",
            ],
        ),
        Judge::Spec(&READS),
    ),
    tool(
        &["iconv"],
        gnu("f:t:o:", &["from-code=", "to-code=", "output="]),
        Judge::Spec(&CONVERT),
    ),
    tool(
        &["base32", "basenc"],
        gnu("w:", &["decode", "ignore-garbage", "wrap="]),
        Judge::Spec(&READS),
    ),
    tool(
        &["cksum"],
        gnu(
            "a:l:",
            &["algorithm=", "length=", "check", "tag", "untagged"],
        ),
        Judge::Spec(&READS),
    ),
    tool(
        &["numfmt"],
        gnu(
            "d:",
            &[
                "delimiter=",
                "field=",
                "format=",
                "from=",
                "from-unit=",
                "padding=",
                "round=",
                "suffix=",
                "to=",
                "to-unit=",
                "header=?",
                "invalid=",
            ],
        ),
        Judge::Spec(&NOTHING_GIVEN),
    ),
    tool(
        &["head", "tail"],
        gnu(
            "c:n:s:f::",
            &[
                "bytes=",
                "lines=",
                "follow=?",
                "max-unchanged-stats=",
                "pid=",
                "sleep-interval=",
                "quiet",
                "silent",
                "verbose",
                "retry",
                "zero-terminated",
            ],
        ),
        Judge::Spec(&READS),
    ),
    tool(
        &["cut"],
        gnu(
            "b:c:d:f:",
            &[
                "bytes=",
                "characters=",
                "delimiter=",
                "fields=",
                "output-delimiter=",
                "complement",
                "only-delimited",
                "zero-terminated",
            ],
        ),
        Judge::Spec(&READS),
    ),
    tool(
        &["base64"],
        gnu("w:", &["decode", "ignore-garbage", "wrap="]),
        Judge::Spec(&READS),
    ),
    tool(
        &["grep", "egrep", "fgrep", "zgrep", "rgrep"],
        GREP,
        Judge::Spec(&GREP_SPEC),
    ),
    tool(
        &["rg", "ag", "ack", "ugrep"],
        gnu(
            "e:f:g:t:T:m:A:B:C:j:M:",
            &[
                "regexp=",
                "file=",
                "glob=",
                "type=",
                "type-not=",
                "max-count=",
                "pre=",
                "pre-glob=",
                "ignore-file=",
            ],
        ),
        Judge::Model(programs::files::ripgrep),
    ),
    Entry {
        names: &["sed", "gsed"],
        grammar: interp::sed::SED,
        role: Role::Runner(programs::runners::sed, Some(Judge::Spec(&SED_SPEC))),
    },
    Entry {
        names: &["awk", "gawk", "mawk", "nawk", "busybox-awk"],
        grammar: interp::sed::AWK,
        role: Role::Runner(programs::runners::awk, Some(Judge::Spec(&AWK_SPEC))),
    },
    tool(
        &["jq", "yq", "gojq", "jaq"],
        gnu(
            "f:L:",
            &[
                "from-file=",
                "rawfile==",
                "slurpfile==",
                "arg==",
                "argjson==",
                "indent=",
                "args",
                "jsonargs",
            ],
        ),
        Judge::Spec(&JQ_SPEC),
    ),
    tool(&["sort"], SORT, Judge::Spec(&SORT_SPEC)),
    tool(
        &["info"],
        gnu("o:f:d:n:", &["output=", "file=", "directory=", "node="]),
        Judge::Spec(&INFO_SPEC),
    ),
    tool(
        &["journalctl"],
        NONE,
        Judge::Model(programs::system::journalctl),
    ),
    tool(
        &["uniq"],
        gnu(
            "f:s:w:",
            &[
                "skip-fields=",
                "skip-chars=",
                "check-chars=",
                "all-repeated=?",
                "group=?",
            ],
        ),
        Judge::Model(programs::files::in_out),
    ),
    tool(
        &["xxd"],
        gnu("c:g:l:o:s:n:", &[]),
        Judge::Model(programs::files::in_out),
    ),
    tool(
        &[
            "diff",
            "diff3",
            "sdiff",
            "cmp",
            "comm",
            "colordiff",
            "delta",
            "difft",
        ],
        gnu(
            "D:F:I:S:W:X:x:i:n:",
            &[
                "from-file=",
                "to-file=",
                "exclude-from=",
                "exclude=",
                "label=",
                "recursive",
                "brief",
            ],
        ),
        Judge::Spec(&DIFF_SPEC),
    ),
    tool(
        &["split", "csplit"],
        gnu(
            "C:a:b:l:n:t:f:",
            &[
                "additional-suffix=",
                "bytes=",
                "line-bytes=",
                "lines=",
                "number=",
                "separator=",
                "suffix-length=",
                "filter=",
                "prefix=",
            ],
        ),
        Judge::Model(programs::files::split),
    ),
    tool(
        &["gpg", "gpg2"],
        gnu(
            "o:u:r:",
            &["output=", "local-user=", "recipient=", "homedir="],
        ),
        Judge::Model(programs::files::gpg),
    ),
    tool(&["openssl"], NONE, Judge::Model(programs::files::openssl)),
    // ---- Looking at names, not contents ----
    tool(
        &[
            "ls",
            "exa",
            "eza",
            "lsd",
            "tree",
            "stat",
            "file",
            "du",
            "df",
            "realpath",
            "readlink",
            "basename",
            "dirname",
            "test",
            "[",
            "[[",
            "wc",
            "md5sum",
            "sha1sum",
            "sha224sum",
            "sha256sum",
            "sha384sum",
            "sha512sum",
            "b2sum",
            "namei",
            "lsattr",
            "getfacl",
            "pathchk",
            "ssh-add",
            "ssh-copy-id",
            "which",
            "whence",
            "where",
            "whereis",
            "type",
            "hash",
            "ldd",
            "nm",
            "objdump",
            "readelf",
            "size",
            "file-rename",
        ],
        NONE,
        Judge::Nothing,
    ),
    tool(
        &[
            "echo",
            "printf",
            "pwd",
            "true",
            "false",
            ":",
            "cd",
            "pushd",
            "popd",
            "dirs",
            "seq",
            "expr",
            "sleep",
            "wait",
            "yes",
            "tput",
            "clear",
            "reset",
            "export",
            "unset",
            "set",
            "alias",
            "unalias",
            "read",
            "readarray",
            "mapfile",
            "local",
            "declare",
            "typeset",
            "readonly",
            "shift",
            "return",
            "exit",
            "break",
            "continue",
            "jobs",
            "fg",
            "bg",
            "disown",
            "trap",
            "shopt",
            "getopts",
            "let",
            "ulimit",
            "umask",
            "history",
            "fc",
            "complete",
            "compgen",
            "bind",
            "times",
            "caller",
            "suspend",
            "enable",
            "logout",
            "man",
            "help",
            "apropos",
            "whatis",
            "tldr",
            "whoami",
            "id",
            "groups",
            "users",
            "who",
            "w",
            "last",
            "lastlog",
            "uptime",
            "uname",
            "arch",
            "nproc",
            "printenv",
            "locale",
            "tty",
            "ps",
            "pgrep",
            "pidof",
            "top",
            "htop",
            "btop",
            "free",
            "vmstat",
            "iostat",
            "mpstat",
            "lsof",
            "lsblk",
            "blkid",
            "findmnt",
            "lscpu",
            "lsusb",
            "lspci",
            "lsmod",
            "ss",
            "netstat",
            "ip",
            "getent",
            "cal",
            "apt-cache",
            "dpkg-query",
            "env-update",
            "fuser",
            "nvidia-smi",
            "sensors",
            "hostnamectl",
            "timedatectl",
            "localectl",
            "dmesg",
            "uuidgen",
            "mktemp",
            "cowsay",
            "figlet",
            "bc",
            "dc",
            "factor",
            "units",
            "sl",
            "tmux",
            "screen",
            "stty",
            "notify-send",
            "xdg-open",
            "open",
            "gio",
            "sync",
        ],
        NONE,
        Judge::Nothing,
    ),
    tool(
        &["date"],
        gnu(
            "d:f:r:s:I::",
            &[
                "date=",
                "file=",
                "reference=",
                "set=",
                "iso-8601=?",
                "rfc-3339=",
                "utc",
                "universal",
            ],
        ),
        Judge::Model(programs::files::date),
    ),
    tool(&["hostname"], NONE, Judge::Model(programs::files::hostname)),
    // ---- Writing, moving, deleting ----
    tool(&["rm"], RM, Judge::Model(programs::files::rm)),
    tool(
        &["rmdir"],
        gnu("", &["ignore-fail-on-non-empty", "parents", "verbose"]),
        Judge::Spec(&each(Change)),
    ),
    tool(&["unlink"], NONE, Judge::Spec(&each(Delete))),
    tool(
        &["shred"],
        gnu(
            "n:s:u::",
            &[
                "force",
                "iterations=",
                "random-source=",
                "remove=?",
                "size=",
                "verbose",
                "exact",
                "zero",
            ],
        ),
        Judge::Model(programs::files::shred),
    ),
    tool(
        &["truncate"],
        gnu("r:s:", &["no-create", "io-blocks", "reference=", "size="]),
        Judge::Spec(&TRUNCATE_SPEC),
    ),
    tool(
        &["touch"],
        gnu(
            "d:r:t:",
            &[
                "date=",
                "reference=",
                "time=",
                "no-create",
                "no-dereference",
            ],
        ),
        Judge::Spec(&TOUCH_SPEC),
    ),
    tool(
        &["mkdir", "mkfifo", "mknod"],
        gnu("m:Z::", &["mode=", "parents", "verbose", "context=?"]),
        Judge::Spec(&each(Write)),
    ),
    tool(
        &["tee"],
        gnu("", &["append", "ignore-interrupts", "output-error=?"]),
        Judge::Model(programs::files::tee),
    ),
    tool(&["cp"], CP, Judge::Model(programs::files::cp)),
    tool(&["mv"], MV, Judge::Model(programs::files::mv)),
    tool(&["ln", "link"], LN, Judge::Model(programs::files::ln)),
    tool(
        &["install"],
        INSTALL,
        Judge::Model(programs::files::install),
    ),
    tool(&["dd"], NONE, Judge::Model(programs::files::dd)),
    tool(&["chmod"], CHMOD, Judge::Model(programs::files::chmod)),
    tool(
        &["chown", "chgrp"],
        CHMOD,
        Judge::Model(programs::files::chown),
    ),
    tool(
        &["chattr", "setfacl", "setfattr"],
        gnu(
            "m:x:M:X:",
            &[
                "modify=",
                "remove=",
                "set=",
                "set-file=",
                "modify-file=",
                "remove-file=",
            ],
        ),
        Judge::Model(programs::files::perms_after_first),
    ),
    tool(
        &[
            "vi", "vim", "nvim", "nano", "emacs", "micro", "ed", "ex", "pico", "joe", "kak", "hx",
            "code", "subl", "gedit", "kate", "view",
        ],
        gnu("c:S:u:i:T:", &["cmd="]),
        Judge::Model(programs::files::edit),
    ),
    // ---- Archives ----
    tool(
        &["tar", "bsdtar", "gtar"],
        NONE,
        Judge::Model(programs::archive::tar),
    ),
    tool(&["zip"], NONE, Judge::Model(programs::archive::zip)),
    tool(&["unzip"], NONE, Judge::Model(programs::archive::unzip)),
    tool(
        &[
            "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "zstd", "unzstd",
            "lz4", "pigz", "brotli",
        ],
        gnu(
            "S:o:",
            &["stdout", "to-stdout", "keep", "force", "suffix=", "output="],
        ),
        Judge::Model(programs::archive::compress),
    ),
    tool(
        &["7z", "7za", "7zr"],
        NONE,
        Judge::Model(programs::archive::seven),
    ),
    tool(
        &["cpio", "ar", "rar", "unrar"],
        NONE,
        Judge::Model(programs::archive::other),
    ),
    // ---- The network ----
    tool(&["curl"], NONE, Judge::Model(programs::net::curl)),
    tool(&["wget", "wget2"], NONE, Judge::Model(programs::net::wget)),
    tool(
        &["http", "https", "xh", "xhs", "httpie"],
        NONE,
        Judge::Model(programs::net::httpie),
    ),
    tool(&["rsync"], NONE, Judge::Model(programs::net::rsync)),
    tool(&["scp", "sftp"], NONE, Judge::Model(programs::net::scp)),
    tool(
        &["nc", "ncat", "netcat", "socat", "telnet"],
        NONE,
        Judge::Model(programs::net::netcat),
    ),
    tool(
        &[
            "ping",
            "ping6",
            "traceroute",
            "tracepath",
            "mtr",
            "dig",
            "nslookup",
            "host",
            "drill",
            "kdig",
            "delv",
            "whois",
        ],
        NONE,
        Judge::Model(programs::net::lookup),
    ),
    tool(
        &[
            "mail",
            "mailx",
            "s-nail",
            "bsd-mailx",
            "mutt",
            "neomutt",
            "sendmail",
            "msmtp",
            "ssmtp",
        ],
        NONE,
        Judge::Model(programs::net::mail),
    ),
    tool(
        &["ssh-keygen"],
        NONE,
        Judge::Model(programs::net::ssh_keygen),
    ),
    // ---- git ----
    tool(&["git"], NONE, Judge::Model(programs::git::git)),
    // ---- Disks ----
    tool(
        &["mkfs", "mke2fs", "mkswap", "mkdosfs", "mkntfs"],
        NONE,
        Judge::Model(programs::disk::mkfs),
    ),
    tool(
        &["wipefs", "blkdiscard", "hdparm", "cryptsetup", "sgdisk"],
        NONE,
        Judge::Model(programs::disk::erase),
    ),
    tool(
        &[
            "fdisk",
            "gdisk",
            "cfdisk",
            "sfdisk",
            "parted",
            "mdadm",
            "pvremove",
            "vgremove",
            "lvremove",
            "lvreduce",
            "vgreduce",
            "btrfs",
            "pvmove",
            "nbd-client",
        ],
        NONE,
        Judge::Model(programs::disk::layout),
    ),
    // ---- The system ----
    tool(
        &["shutdown", "reboot", "halt", "poweroff"],
        NONE,
        Judge::Model(programs::system::power),
    ),
    tool(
        &["init", "telinit"],
        NONE,
        Judge::Model(programs::system::init),
    ),
    tool(
        &["systemctl"],
        NONE,
        Judge::Model(programs::system::systemctl),
    ),
    tool(&["service"], NONE, Judge::Model(programs::system::service)),
    tool(
        &["loginctl"],
        NONE,
        Judge::Model(programs::system::loginctl),
    ),
    tool(&["kill"], NONE, Judge::Model(programs::system::kill)),
    tool(
        &["killall", "pkill"],
        NONE,
        Judge::Model(programs::system::kill_by_name),
    ),
    tool(
        &["killall5"],
        NONE,
        Judge::Model(programs::system::kill_everything),
    ),
    tool(&["crontab"], NONE, Judge::Model(programs::system::crontab)),
    tool(
        &[
            "iptables",
            "ip6tables",
            "iptables-legacy",
            "iptables-nft",
            "ebtables",
            "arptables",
        ],
        NONE,
        Judge::Model(programs::system::iptables),
    ),
    tool(&["nft"], NONE, Judge::Model(programs::system::nft)),
    tool(&["ufw"], NONE, Judge::Model(programs::system::ufw)),
    tool(
        &["userdel", "deluser", "groupdel", "delgroup", "chpasswd"],
        NONE,
        Judge::Model(programs::system::account),
    ),
    tool(&["passwd"], NONE, Judge::Model(programs::system::passwd)),
    tool(&["usermod"], NONE, Judge::Model(programs::system::usermod)),
    tool(&["visudo"], NONE, Judge::Model(programs::system::visudo)),
    tool(
        &["mount", "umount"],
        NONE,
        Judge::Model(programs::system::mount),
    ),
    tool(
        &[
            "swapon",
            "swapoff",
            "sysctl",
            "modprobe",
            "rmmod",
            "insmod",
            "useradd",
            "adduser",
            "groupadd",
            "chsh",
            "chfn",
            "update-alternatives",
            "ldconfig",
            "setcap",
            "systemd-run",
        ],
        NONE,
        Judge::Model(programs::system::change),
    ),
    // ---- Data stores ----
    // Container engines: a command run in a container is judged as a command there.
    Entry {
        names: &[
            "docker",
            "podman",
            "nerdctl",
            "docker-compose",
            "podman-compose",
        ],
        grammar: NONE,
        role: Role::Runner(
            programs::containers::engine,
            Some(Judge::Model(programs::unknown::judge)),
        ),
    },
    Entry {
        names: &["kubectl", "oc"],
        grammar: NONE,
        role: Role::Runner(
            programs::containers::kubectl,
            Some(Judge::Model(programs::unknown::judge)),
        ),
    },
    Entry {
        names: &["lxc", "incus", "machinectl"],
        grammar: NONE,
        role: Role::Runner(
            programs::containers::instance,
            Some(Judge::Model(programs::unknown::judge)),
        ),
    },
    Entry {
        names: &["systemd-nspawn"],
        grammar: NONE,
        role: Role::Runner(programs::containers::nspawn, None),
    },
    // Clients that read SQL, commands or scripts from their words or their input.
    Entry {
        names: &[
            "psql",
            "mysql",
            "mariadb",
            "cqlsh",
            "clickhouse-client",
            "usql",
        ],
        grammar: NONE,
        role: Role::Runner(programs::data::sql_client, None),
    },
    Entry {
        names: &["cockroach"],
        grammar: NONE,
        role: Role::Runner(
            programs::data::sql_client,
            Some(Judge::Model(programs::unknown::judge)),
        ),
    },
    Entry {
        names: &["sqlite3", "sqlite", "duckdb"],
        grammar: NONE,
        role: Role::Runner(programs::data::sqlite, None),
    },
    Entry {
        names: &["redis-cli", "valkey-cli"],
        grammar: NONE,
        role: Role::Runner(programs::data::redis, None),
    },
    Entry {
        names: &["mongo", "mongosh"],
        grammar: NONE,
        role: Role::Runner(programs::data::mongo, None),
    },
    tool(
        &["dropdb", "dropuser", "pg_dropcluster"],
        NONE,
        Judge::Model(programs::data::drops),
    ),
    tool(
        &["mysqladmin"],
        NONE,
        Judge::Model(programs::data::mysqladmin),
    ),
    tool(
        &["DROP", "TRUNCATE", "DELETE", "UPDATE", "ALTER"],
        NONE,
        Judge::Model(programs::data::bare_sql),
    ),
    // ---- Package managers and builders: they run the project's code ----
    tool(
        &[
            "apt",
            "apt-get",
            "aptitude",
            "dnf",
            "yum",
            "microdnf",
            "zypper",
            "apk",
            "snap",
            "flatpak",
            "brew",
            "port",
            "pip",
            "pip3",
            "bun-pm",
            "cargo",
            "gem",
            "pacman",
            "yay",
            "paru",
            "dpkg",
            "rpm",
            "nix-env",
            "deno-task",
            "go",
            "make",
            "gmake",
            "cmake",
            "ninja",
            "meson",
            "gradle",
            "gradlew",
            "mvn",
            "mvnw",
            "sbt",
            "mix",
            "dotnet",
            "swift",
            "zig",
            "composer",
            "tox",
            "nox",
            "pytest",
            "jest",
            "vitest",
            "mocha",
            "rustc",
            "rustup",
            "rustfmt",
            "gofmt",
            "javac",
            "java",
            "gcc",
            "g++",
            "cc",
            "c++",
            "clang",
            "clang++",
            "ld",
            "tsc",
            "eslint",
            "prettier",
            "black",
            "ruff",
            "mypy",
            "pyright",
            "flake8",
            "pylint",
            "isort",
            "clippy-driver",
            "cargo-clippy",
            "bazel",
            "buck2",
            "just",
            "task",
            "turbo",
            "nx",
            "lerna",
            "vite",
            "webpack",
            "esbuild",
            "rollup",
            "parcel",
            "next",
            "nuxt",
            "tsx",
            "ts-node",
            "stack",
            "cabal",
            "ghc",
            "elixir",
            "erl",
            "lua",
            "luajit",
            "R",
            "Rscript",
            "julia",
            "kotlinc",
            "scalac",
            "clj",
            "lein",
            "pre-commit",
            "terraform-docs",
            "hugo",
            "jekyll",
            "mkdocs",
            "sphinx-build",
            "doxygen",
        ],
        NONE,
        Judge::Model(programs::packages::builder),
    ),
    // The gate's own programs: asking is nothing, answering or starting an approver is a
    // change to the gate, and `assent run`/`assent sh` run what they are given.
    Entry {
        names: &["assent", "assent-sh", "assentd", "assent-notify"],
        grammar: NONE,
        role: Role::Runner(programs::gate::assent, None),
    },
    // Package managers that also run a command given after `run` or `exec`: the command is
    // judged, and the manager as a builder.
    Entry {
        names: &[
            "poetry",
            "pipenv",
            "pdm",
            "hatch",
            "uv",
            "conda",
            "mamba",
            "micromamba",
            "rye",
            "bundle",
            "npm",
            "pnpm",
            "yarn",
            "npx",
            "pnpx",
            "bunx",
            "pipx",
        ],
        grammar: NONE,
        role: Role::Runner(
            programs::runners::package_run,
            Some(Judge::Model(programs::packages::builder)),
        ),
    },
];

/// Where programs take code to run (option values, subcommands, addresses), by program:
/// read by `programs::code` beside the program's own entry, for programs known or not.
pub const CODE: &[(&[&str], &[Code])] = &[
    (&["rsync"], &[Code::Shell(&["e", "rsh"])]),
    (
        &["tar", "bsdtar", "gtar"],
        &[
            Code::Shell(&[
                "to-command",
                "use-compress-program",
                "I",
                "rsh-command",
                "info-script",
                "new-volume-script",
                "F",
            ]),
            Code::With(programs::code::tar_checkpoint),
        ],
    ),
    (
        &["ssh"],
        &[
            Code::SshOption(&["o"]),
            Code::With(programs::code::ssh_config),
        ],
    ),
    (
        &["scp", "sftp"],
        &[
            Code::SshOption(&["o"]),
            Code::Shell(&["S"]),
            Code::With(programs::code::ssh_config),
        ],
    ),
    (
        &["vi", "vim", "nvim", "ex", "view", "vimdiff", "rvim", "gvim"],
        &[
            Code::Escape(&["c", "cmd", "+"]),
            Code::Unread(&["S"]),
            Code::With(programs::code::vim_files),
        ],
    ),
    (
        &["less", "more"],
        &[Code::With(programs::code::less_commands)],
    ),
    (&["tcpdump"], &[Code::Unread(&["z"])]),
    (&["dpkg"], &[Code::Shell(&["pre-invoke", "post-invoke"])]),
    (
        &["rpm", "rpmbuild", "rpmspec"],
        &[Code::With(programs::code::rpm_macros)],
    ),
    (&["npm", "pnpm"], &[Code::With(programs::code::npm)]),
    (&["npx"], &[Code::Shell(&["c", "call"])]),
    (&["cargo"], &[Code::With(programs::code::cargo_config)]),
    (&["run-parts"], &[Code::With(programs::code::run_parts)]),
    (&["Rscript"], &[Code::Unread(&["e", "expr"])]),
    (
        &["R"],
        &[
            Code::Unread(&["e", "expr"]),
            Code::With(programs::code::stdin_program),
        ],
    ),
    (
        &["julia"],
        &[
            Code::Unread(&["e", "eval", "E", "print"]),
            Code::With(programs::code::stdin_program),
        ],
    ),
    (&["groovy"], &[Code::Unread(&["e"])]),
    (&["erl"], &[Code::Unread(&["-eval", "eval", "-s", "-run"])]),
    (&["elixir", "iex"], &[Code::Unread(&["e", "eval"])]),
    (
        &["pwsh", "powershell"],
        &[Code::Unread(&[
            "c",
            "command",
            "Command",
            "-Command",
            "-c",
            "ec",
            "-EncodedCommand",
            "EncodedCommand",
            "e",
        ])],
    ),
    (&["osascript"], &[Code::Unread(&["e"])]),
    (&["zx"], &[Code::Unread(&["e", "eval"])]),
    (
        &[
            "tclsh", "wish", "guile", "racket", "sbcl", "ocaml", "ghci", "irb", "gdl", "octave",
        ],
        &[
            Code::Unread(&["c", "e", "eval", "x", "expression"]),
            Code::With(programs::code::stdin_program),
        ],
    ),
    // Shells of other languages: their `-c` text is code the gate does not read.
    (
        &["nu", "xonsh", "elvish", "ion", "murex", "ysh", "osh", "oil"],
        &[
            Code::Unread(&["c", "commands"]),
            Code::With(programs::code::stdin_program),
        ],
    ),
    (
        &["gnuplot", "m4"],
        &[
            Code::Unread(&["e"]),
            Code::With(programs::code::stdin_program),
        ],
    ),
    (&["deno", "bun"], &[Code::With(programs::code::js_runtime)]),
    (
        &["emacs", "emacsclient"],
        &[Code::Unread(&[
            "eval", "l", "load", "funcall", "f", "script", "x", "e",
        ])],
    ),
    (
        &["gdb", "gdb-multiarch", "cgdb"],
        &[
            Code::Escape(&["-ex", "eval-command", "-iex", "init-eval-command"]),
            Code::Unread(&["-x", "command", "-ix", "init-command"]),
        ],
    ),
    (
        &["lldb"],
        &[Code::Unread(&["o", "one-line", "s", "source", "O"])],
    ),
    (&["dc"], &[Code::Escape(&["e", "expression"])]),
    (&["man"], &[Code::Shell(&["P", "pager", "H", "html"])]),
    (&["script"], &[Code::Shell(&["c", "command"])]),
    (&["nix-shell"], &[Code::Shell(&["run", "command"])]),
    (
        &["nc", "ncat", "netcat"],
        &[
            Code::Shell(&["c", "e", "exec", "sh-exec"]),
            Code::Unread(&["lua-exec"]),
        ],
    ),
    (&["socat"], &[Code::With(programs::code::socat)]),
    (&["wget", "wget2"], &[Code::Shell(&["use-askpass"])]),
    (&["git"], &[Code::With(programs::code::git)]),
    (&["tmux"], &[Code::With(programs::code::tmux)]),
    (&["screen"], &[Code::With(programs::code::screen)]),
    (&["systemd-run"], &[Code::With(programs::code::systemd_run)]),
    (&["ip"], &[Code::With(programs::code::ip)]),
    (&["sg"], &[Code::With(programs::code::sg)]),
    (&["hyperfine"], &[Code::With(programs::code::hyperfine)]),
    (&["entr"], &[Code::With(programs::code::entr)]),
    (&["at", "batch"], &[Code::With(programs::code::at_queue)]),
    (
        &["make", "gmake"],
        &[Code::With(programs::code::make), Code::Unread(&["eval"])],
    ),
    (&["expect"], &[Code::Unread(&["c"])]),
    (
        &["lua", "luajit"],
        &[
            Code::Unread(&["e"]),
            Code::With(programs::code::stdin_program),
        ],
    ),
];

/// Where `name` takes code, if anywhere.
pub fn code_of(name: &str) -> &'static [Code] {
    static BY_NAME: OnceLock<HashMap<&'static str, &'static [Code]>> = OnceLock::new();
    let by_name = BY_NAME.get_or_init(|| {
        CODE.iter()
            .flat_map(|(names, code)| names.iter().map(move |n| (*n, *code)))
            .collect()
    });
    by_name.get(name).copied().unwrap_or(&[])
}

/// The name of the program a versioned or suffixed name is a build of, when the gate knows it
/// only by the family's name: `php8.2` is `php`, `lua5.4` is `lua`, `python3.12` is `python3`,
/// `node-20` is `node`, `mkfs.ext4` is `mkfs`. A name the gate knows as it is stays itself.
pub fn family(name: &str) -> &str {
    if lookup(name).is_some() || !code_of(name).is_empty() {
        return name;
    }
    let known = |n: &str| lookup_exact(n).is_some() || !code_of(n).is_empty();
    // Cut a version off the end: after `-` or `.` then digits, or trailing digits.
    let mut candidates = Vec::with_capacity(4);
    if let Some((head, _)) = name.split_once('.') {
        candidates.push(head);
    }
    if let Some(at) = name.find('-') {
        let (head, tail) = name.split_at(at);
        if tail[1..].starts_with(|c: char| c.is_ascii_digit()) {
            candidates.push(head);
        }
    }
    let base = candidates.first().copied().unwrap_or(name);
    let trimmed = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-');
    if trimmed != base {
        candidates.push(trimmed);
    }
    candidates
        .into_iter()
        .find(|c| !c.is_empty() && known(c))
        .unwrap_or(name)
}

fn lookup_exact(name: &str) -> Option<&'static Entry> {
    index().get(name).copied()
}

fn index() -> &'static HashMap<&'static str, &'static Entry> {
    static INDEX: OnceLock<HashMap<&'static str, &'static Entry>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index = HashMap::new();
        for entry in ENTRIES {
            for n in entry.names {
                index.entry(*n).or_insert(entry);
            }
        }
        index
    })
}

/// The entry for a program, by its name; `mkfs.ext4` is `mkfs`, `python3.12` is `python3`.
pub fn lookup(name: &str) -> Option<&'static Entry> {
    let index = index();
    if let Some(e) = index.get(name) {
        return Some(e);
    }
    let family = name
        .split_once('.')
        .map(|(head, _)| head)
        .filter(|head| !head.is_empty())?;
    index.get(family).copied()
}

#[cfg(test)]
mod code_table_tests {
    /// One entry per program: a name in two entries would lose one of them in the lookup.
    #[test]
    fn each_program_has_one_code_entry() {
        let mut seen = std::collections::HashSet::new();
        for (names, _) in super::CODE {
            for n in *names {
                assert!(seen.insert(*n), "{n} is in two entries of CODE");
            }
        }
    }
}
