//! Programs that run another program named on their command line (`sudo`, `env`, `nice`,
//! `timeout 5`, `xargs`, …): the table [`WRAPPERS`] and the option scan that finds where the
//! wrapped command starts. What happens to the wrapped command is `command`'s business.

use super::words::Word;

/// What a wrapper does besides running the rest of its words.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Then {
    /// Runs the rest as a command.
    Run,
    /// `env`: `-C DIR` changes the directory, `-S STR` splits STR into the command.
    Env,
    /// `sudo`: `-D DIR` changes the directory; `-s`/`-i` alone start a shell.
    Sudo,
    /// `xargs`: the command gets arguments read from standard input.
    Xargs,
    /// `flock FILE -c STR`: STR runs through a shell.
    Flock,
    /// `busybox APPLET`: no options; `--list` and the like run nothing.
    Busybox,
}

/// A program that runs another program given on its command line.
pub struct Wrapper {
    pub name: &'static str,
    /// Short options that take a value (`-u NAME` or `-uNAME`).
    pub short_args: &'static str,
    /// Short options whose value can only be attached (`xargs -i{}`), never the next word.
    pub short_optional: &'static str,
    /// Long options that take a value as the next word (`--user NAME`); `--user=NAME` needs
    /// no entry.
    pub long_args: &'static [&'static str],
    /// Short options after which nothing is run (`command -v`, `sudo -l`).
    pub no_command: &'static str,
    /// `NAME=value` words before the command set its environment (`env`, `sudo`).
    pub assignments: bool,
    /// Words after the options and before the command (`timeout DURATION`).
    pub operands: usize,
    pub then: Then,
}

const fn wrapper(
    name: &'static str,
    short_args: &'static str,
    long_args: &'static [&'static str],
) -> Wrapper {
    Wrapper {
        name,
        short_args,
        short_optional: "",
        long_args,
        no_command: "",
        assignments: false,
        operands: 0,
        then: Then::Run,
    }
}

pub const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        no_command: "elvVKh",
        assignments: true,
        then: Then::Sudo,
        ..wrapper(
            "sudo",
            "ugpCDrtUTR",
            &[
                "user",
                "group",
                "prompt",
                "close-from",
                "host",
                "chdir",
                "role",
                "type",
                "other-user",
                "command-timeout",
                "chroot",
            ],
        )
    },
    Wrapper {
        no_command: "CL",
        ..wrapper("doas", "u", &[])
    },
    Wrapper {
        assignments: true,
        then: Then::Env,
        ..wrapper("env", "uCSP", &["unset", "chdir", "split-string"])
    },
    wrapper("nice", "n", &["adjustment"]),
    Wrapper {
        short_optional: "",
        no_command: "pPu",
        ..wrapper("ionice", "cn", &["class", "classdata"])
    },
    wrapper("nohup", "", &[]),
    Wrapper {
        operands: 1,
        ..wrapper("timeout", "sk", &["signal", "kill-after"])
    },
    wrapper("time", "fo", &["format", "output"]),
    Wrapper {
        no_command: "vV",
        ..wrapper("command", "", &[])
    },
    wrapper("builtin", "", &[]),
    wrapper("exec", "a", &[]),
    wrapper("stdbuf", "ioe", &["input", "output", "error"]),
    Wrapper {
        operands: 1,
        then: Then::Flock,
        ..wrapper("flock", "wE", &["timeout", "wait", "conflict-exit-code"])
    },
    Wrapper {
        operands: 1,
        ..wrapper("chroot", "", &["userspec", "groups"])
    },
    wrapper(
        "unshare",
        "RwSG",
        &[
            "root",
            "wd",
            "setuid",
            "setgid",
            "propagation",
            "setgroups",
            "map-user",
            "map-group",
            "map-users",
            "map-groups",
        ],
    ),
    Wrapper {
        short_optional: "rwmuinpUCT",
        ..wrapper("nsenter", "tSG", &["target", "setuid", "setgid"])
    },
    wrapper("setsid", "", &[]),
    wrapper(
        "strace",
        "oepsuEaIOPSXbU",
        &["output", "trace", "signal", "attach", "user", "env"],
    ),
    wrapper("ltrace", "oepsuEaAInS", &["output"]),
    wrapper("pkexec", "", &["user"]),
    wrapper("run0", "u", &["user", "chdir", "setenv"]),
    Wrapper {
        then: Then::Busybox,
        ..wrapper("busybox", "", &[])
    },
    Wrapper {
        short_optional: "eil",
        then: Then::Xargs,
        ..wrapper(
            "xargs",
            "aEdILnPsJRS",
            &[
                "arg-file",
                "delimiter",
                "max-args",
                "max-procs",
                "max-chars",
                "max-lines",
                "process-slot-var",
                "eof",
            ],
        )
    },
];

/// One option a wrapper was given, with its value if it takes one.
#[derive(Debug)]
pub struct Opt<'w, 's> {
    /// `u` for `-u`, `user` for `--user`.
    pub name: &'w str,
    /// The value: the rest of the word (`-uroot`, `--user=root`) or the next word.
    pub value: Option<Value<'w, 's>>,
}

#[derive(Debug)]
pub enum Value<'w, 's> {
    Attached(&'w str),
    Word(&'w Word<'s>),
}

impl Value<'_, '_> {
    /// The literal text, or `None` if it is only known at run time.
    pub fn literal(&self) -> Option<&str> {
        match self {
            Value::Attached(t) => Some(t),
            Value::Word(w) => w.literal(),
        }
    }
}

/// Where the wrapped command starts, and the options seen on the way.
pub struct Scan<'w, 's> {
    /// Index of the wrapped command's name in the words, or `None` if nothing is run.
    pub start: Option<usize>,
    pub opts: Vec<Opt<'w, 's>>,
}

impl Wrapper {
    /// Scans `words` (whose first word is the wrapper) for the wrapped command.
    pub fn scan<'w, 's>(&self, words: &'w [Word<'s>]) -> Scan<'w, 's> {
        let mut opts = Vec::new();
        let mut i = 1;
        let stop = |opts| Scan { start: None, opts };
        while let Some(w) = words.get(i) {
            // A dynamic word here could be an option or the command: let the caller see it as
            // the command name, which makes it opaque.
            let Some(t) = w.literal() else { break };
            if self.assignments && is_assignment(t) {
                i += 1;
            } else if t == "--" {
                i += 1;
                break;
            } else if let Some(long) = t.strip_prefix("--") {
                i += 1;
                if matches!(long, "help" | "version" | "list") {
                    return stop(opts);
                }
                let value = match long.split_once('=') {
                    Some((name, v)) => {
                        opts.push(Opt {
                            name,
                            value: Some(Value::Attached(v)),
                        });
                        continue;
                    }
                    None if self.long_args.contains(&long) => {
                        i += 1;
                        words.get(i - 1).map(Value::Word)
                    }
                    None => None,
                };
                opts.push(Opt { name: long, value });
            } else if t.len() > 1 && t.starts_with('-') && self.then != Then::Busybox {
                i += 1;
                for (at, c) in t.char_indices().skip(1) {
                    let name = &t[at..at + c.len_utf8()];
                    if self.no_command.contains(c) {
                        return stop(opts);
                    }
                    let rest = &t[at + c.len_utf8()..];
                    if self.short_args.contains(c) {
                        // The value is the rest of this word, or the next word.
                        let value = if rest.is_empty() {
                            i += 1;
                            words.get(i - 1).map(Value::Word)
                        } else {
                            Some(Value::Attached(rest))
                        };
                        opts.push(Opt { name, value });
                        break;
                    }
                    if self.short_optional.contains(c) {
                        let value = (!rest.is_empty()).then_some(Value::Attached(rest));
                        opts.push(Opt { name, value });
                        break;
                    }
                    opts.push(Opt { name, value: None });
                }
            } else if t == "-" && self.assignments {
                i += 1;
            } else {
                break;
            }
        }
        let start = i + self.operands;
        Scan {
            start: (start < words.len()).then_some(start),
            opts,
        }
    }
}

/// `NAME=value` with a valid shell name.
pub fn is_assignment(t: &str) -> bool {
    match t.split_once('=') {
        Some((name, _)) => {
            name.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(t: &str) -> Word<'_> {
        Word {
            text: t.to_owned(),
            raw: t,
            dynamic: false,
            span: 0..0,
        }
    }

    #[test]
    fn wrappers_find_the_wrapped_command() {
        let cases: &[(&str, Option<usize>)] = &[
            ("sudo rm x", Some(1)),
            ("sudo -u root -E rm", Some(4)),
            ("sudo -uroot rm", Some(2)),
            ("sudo --user root rm", Some(3)),
            ("sudo --user=root FOO=1 rm", Some(3)),
            ("sudo -l", None),
            ("sudo -- rm", Some(2)),
            ("doas -u root rm", Some(3)),
            ("env -i FOO=1 -u BAR rm", Some(5)),
            ("env -uBAR --unset=X rm", Some(3)),
            ("env - rm", Some(2)),
            ("env -C /tmp -P /bin rm", Some(5)),
            ("timeout -s KILL 5 rm", Some(4)),
            ("timeout 5", None),
            ("nice -n 10 rm", Some(3)),
            ("nice -10 rm", Some(2)),
            ("ionice -c3 rm", Some(2)),
            ("ionice -p 12", None),
            ("command -v rm", None),
            ("command -- rm", Some(2)),
            ("stdbuf -oL rm", Some(2)),
            ("flock -w 5 /tmp/l rm", Some(4)),
            ("chroot --userspec=a:b /mnt rm", Some(3)),
            ("nsenter -t 1 -m rm", Some(4)),
            ("strace -f -o log rm", Some(4)),
            ("busybox rm", Some(1)),
            ("busybox --list", None),
            ("xargs -0 -n 1 rm -rf", Some(4)),
            ("xargs -I{} rm {}", Some(2)),
            ("xargs -I {} rm {}", Some(3)),
            ("xargs -i rm {}", Some(2)),
            ("xargs -n1 -P4 -r -- rm", Some(5)),
        ];
        for (line, want) in cases {
            let words: Vec<Word> = line.split(' ').map(lit).collect();
            let w = WRAPPERS
                .iter()
                .find(|w| w.name == line.split(' ').next().unwrap_or(""));
            let got = w.and_then(|w| w.scan(&words).start);
            assert_eq!(got, *want, "{line}");
        }
    }
}
