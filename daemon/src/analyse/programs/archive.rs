//! Archives and compressors: `tar` by its mode (create reads trees and writes the archive,
//! extract reads the archive and writes over the directory it extracts into), `zip`, `unzip`,
//! `7z`, and `gzip` and kin, which replace what they compress.

use std::borrow::Cow;

use super::super::act::Site;
use super::super::catalogue;
use super::super::effects::Effect::{Delete, Overwrite, Read, Write};
use super::super::getopt::{self, Grammar, Style};
use super::super::words::Word;
use super::unknown;
use crate::places::Kind;

pub(crate) const TAR: Grammar = Grammar {
    short: "f:C:T:X:b:g:F:H:I:K:L:N:V:",
    long: &[
        "absolute-names",
        "append",
        "auto-compress",
        "catenate",
        "concatenate",
        "compare",
        "create",
        "delete",
        "diff",
        "directory=",
        "exclude=",
        "exclude-from=",
        "extract",
        "get",
        "file=",
        "files-from=",
        "gzip",
        "gunzip",
        "bzip2",
        "xz",
        "zstd",
        "keep-old-files",
        "list",
        "overwrite",
        "remove-files",
        "to-command=",
        "to-stdout",
        "update",
        "use-compress-program=",
        "verbose",
        "checkpoint-action=",
        "info-script=",
        "new-volume-script=",
        "rsh-command=",
        "help",
        "version",
    ],
    style: Style::Gnu,
};

/// Compressors `tar` may be told to run that are just compressors.
const COMPRESSORS: &[&str] = &[
    "gzip", "gunzip", "pigz", "bzip2", "pbzip2", "xz", "pixz", "zstd", "lz4", "lzip", "brotli",
];

/// `tar`'s first word may be its options without a dash (`tar xzf a.tgz`): the letters are
/// options, and those that take a value take the next words in order.
fn old_style<'s>(words: &[Word<'s>]) -> Option<Vec<Word<'s>>> {
    let first = words.first()?.literal()?;
    if first.starts_with('-') || !first.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let modes = ['c', 'x', 't', 'r', 'u', 'A'];
    if !first.chars().any(|c| modes.contains(&c)) {
        return None;
    }
    let mut out = Vec::with_capacity(words.len() + 2);
    let mut rest = words[1..].iter();
    for c in first.chars() {
        let flag = format!("-{c}");
        out.push(Word::made(flag, words[0].raw, words[0].span.clone()));
        if "fCTXbgFHIKLNV".contains(c)
            && let Some(v) = rest.next()
        {
            out.push(v.clone());
        }
    }
    out.extend(rest.cloned());
    Some(out)
}

pub fn tar<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let rewritten = old_style(words);
    let words: Cow<[Word]> = match rewritten {
        Some(w) => Cow::Owned(w),
        None => Cow::Borrowed(words),
    };
    let a = getopt::parse(&words, &TAR);
    if a.only_help() {
        return;
    }
    // `-f -` is the standard output or input, no file.
    let archive: Vec<Word> = a
        .values(&["f", "file"])
        .filter(|w| w.literal() != Some("-"))
        .cloned()
        .collect();
    let dirs: Vec<Word> = a.values(&["C", "directory"]).cloned().collect();
    let lists: Vec<Word> = a
        .values(&["T", "files-from", "X", "exclude-from"])
        .cloned()
        .collect();
    let creates = a.has(&[
        "c",
        "create",
        "r",
        "append",
        "u",
        "update",
        "A",
        "catenate",
        "concatenate",
    ]);
    let extracts = a.has(&["x", "extract", "get"]);
    let deletes = a.has(&["delete"]);
    let runs: Vec<Word> = a
        .values(&[
            "to-command",
            "checkpoint-action",
            "info-script",
            "new-volume-script",
            "rsh-command",
            "F",
        ])
        .cloned()
        .collect();
    let compress: Vec<Word> = a.values(&["I", "use-compress-program"]).cloned().collect();
    let operands: Vec<Word> = a.operands.iter().map(|w| (*w).clone()).collect();
    for l in lists.iter().filter(|l| l.literal() != Some("-")) {
        site.on(Read, l);
    }
    if creates {
        // `-C DIR` makes the members after it relative to DIR; `--remove-files` deletes
        // them once archived.
        let base = dirs.last().and_then(Word::literal).map(str::to_owned);
        let effect = if a.has(&["remove-files"]) {
            Delete
        } else {
            Read
        };
        for w in &operands {
            match (&base, w.literal()) {
                (Some(dir), Some(t)) if !t.starts_with('/') => {
                    let joined = Word::made(format!("{dir}/{t}"), w.raw, w.span.clone());
                    site.tree(Read, &joined);
                    if effect == Delete {
                        site.tree(Delete, &joined);
                    }
                }
                _ => {
                    site.tree(Read, w);
                    if effect == Delete {
                        site.tree(Delete, w);
                    }
                }
            }
        }
        for f in &archive {
            site.on(Overwrite, f);
        }
    } else if extracts {
        for f in &archive {
            site.on(Read, f);
        }
        if a.has(&["absolute-names", "P"]) {
            site.place(
                Overwrite,
                Kind::Root,
                "the paths the archive holds".to_owned(),
            );
        }
        // Extracting creates files in the directory (over those of the same names).
        if !a.has(&["to-stdout", "O"]) && runs.is_empty() {
            if dirs.is_empty() {
                let here = Word::made(".".to_owned(), ".", 0..0);
                site.tree(Write, &here);
            }
            for d in &dirs {
                site.tree(Write, d);
            }
        }
    } else if deletes {
        for f in &archive {
            site.on(Overwrite, f);
        }
    } else {
        for f in &archive {
            site.on(Read, f);
        }
    }
    for r in &runs {
        site.say(
            catalogue::INLINE_PROGRAM,
            &format!("`tar` running {}", r.quoted()),
        );
    }
    for c in &compress {
        if !c.literal().is_some_and(|t| COMPRESSORS.contains(&t)) {
            site.say(
                catalogue::INLINE_PROGRAM,
                &format!("`tar` running {}", c.quoted()),
            );
        }
    }
}

pub(crate) const ZIP: Grammar = Grammar {
    short: "b:n:t:x:i:P:",
    long: &["unzip-command=", "temp-path=", "password="],
    style: Style::Gnu,
};

/// `zip ARCHIVE FILE…`: reads the files (trees with `-r`), writes the archive; `-TT CMD`
/// runs a command.
pub fn zip<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let a = getopt::parse(words, &ZIP);
    let tree = a.has(&["r", "R", "recurse-paths"]);
    let ops: Vec<Word> = a.operands.iter().map(|w| (*w).clone()).collect();
    if words
        .iter()
        .any(|w| matches!(w.literal(), Some("-TT" | "--unzip-command")))
    {
        site.say(catalogue::INLINE_PROGRAM, "`zip -TT`");
    }
    // `-m`, `--move`: the files are deleted once in the archive.
    let moves = a.has(&["m", "move"])
        || words.iter().any(|w| {
            w.literal()
                .is_some_and(|t| t.starts_with('-') && !t.starts_with("--") && t.contains('m'))
        });
    if let Some((archive, files)) = ops.split_first() {
        site.on(Overwrite, archive);
        for f in files {
            if tree {
                site.tree(Read, f);
            } else {
                site.on(Read, f);
            }
            if moves {
                site.tree(Delete, f);
            }
        }
    }
}

pub(crate) const UNZIP: Grammar = Grammar {
    short: "d:x:P:",
    long: &[],
    style: Style::Gnu,
};

/// `unzip ARCHIVE [-d DIR]`: reads the archive, writes over the directory; listing and
/// testing (`-l`, `-t`, `-v`, `-p` to standard output) write nothing.
pub fn unzip<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let a = getopt::parse(words, &UNZIP);
    let ops: Vec<Word> = a.operands.iter().map(|w| (*w).clone()).collect();
    if let Some(archive) = ops.first() {
        site.on(Read, archive);
    }
    if a.has(&["l", "t", "v", "p", "Z", "z"]) {
        return;
    }
    let dirs: Vec<Word> = a.values(&["d"]).cloned().collect();
    if dirs.is_empty() {
        site.tree(Write, &Word::made(".".to_owned(), ".", 0..0));
    }
    for d in &dirs {
        site.tree(Write, d);
    }
}

/// `gzip FILE…` and kin replace each file by its (de)compressed form; with `-c` they only
/// read.
pub fn compress<'s>(_: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if site.args.only_help() || site.args.has(&["l", "list", "t", "test"]) {
        return;
    }
    let to_stdout = site.args.has(&["c", "stdout", "to-stdout"]);
    let tree = site.args.has(&["r", "recursive"]);
    let ops: Vec<Word> = site.args.operands.iter().map(|w| (*w).clone()).collect();
    let outputs: Vec<Word> = site.args.values(&["o", "output"]).cloned().collect();
    for w in ops.iter().filter(|w| w.literal() != Some("-")) {
        let effect = if to_stdout { Read } else { Overwrite };
        if tree {
            site.tree(effect, w);
        } else {
            site.on(effect, w);
        }
        if !to_stdout {
            site.on(Read, w);
        }
    }
    for o in &outputs {
        site.on(Overwrite, o);
    }
}

/// `7z a ARCHIVE FILE…`, `7z x ARCHIVE -oDIR`.
pub fn seven<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let ops: Vec<&Word> = words
        .iter()
        .filter(|w| !w.literal().is_some_and(|t| t.starts_with('-')))
        .collect();
    let out_dir = words.iter().find_map(|w| {
        w.literal()
            .and_then(|t| t.strip_prefix("-o"))
            .map(|_| w.tail(2))
    });
    let Some((command, rest)) = ops.split_first() else {
        return;
    };
    // `-sdel`: the files are deleted once in the archive.
    let moves = words.iter().any(|w| w.literal() == Some("-sdel"));
    match command.literal() {
        Some("a" | "u" | "d" | "rn") => {
            if let Some((archive, files)) = rest.split_first() {
                site.on(Overwrite, archive);
                for f in files {
                    site.tree(Read, f);
                    if moves {
                        site.tree(Delete, f);
                    }
                }
            }
        }
        Some("x" | "e") => {
            if let Some(archive) = rest.first() {
                site.on(Read, archive);
            }
            match &out_dir {
                Some(d) => site.tree(Write, d),
                None => site.tree(Write, &Word::made(".".to_owned(), ".", 0..0)),
            }
        }
        _ => {
            if let Some(archive) = rest.first() {
                site.on(Read, archive);
            }
        }
    }
}

pub(crate) const CPIO: Grammar = Grammar {
    short: "H:O:I:F:E:M:R:C:D:",
    long: &[
        "format=",
        "file=",
        "pattern-file=",
        "message=",
        "owner=",
        "io-size=",
        "directory=",
        "rsh-command=",
    ],
    style: Style::Gnu,
};

/// `cpio -o` archives the files it is given (on its input: as an operand here, see
/// `command.rs`) to its output or `-O`/`-F FILE`; `-p DIR` copies them below DIR; `-i`
/// extracts an archive below the working directory (or `-D DIR`).
fn cpio<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let a = getopt::parse(words, &CPIO);
    if a.only_help() {
        return;
    }
    let ops: Vec<Word> = a.operands.iter().map(|w| (*w).clone()).collect();
    let archive_out = a.value(&["O", "F", "file"]).cloned();
    if a.has(&["o", "create"]) {
        for w in &ops {
            site.on(Read, w);
        }
        if let Some(out) = archive_out {
            site.on(Overwrite, &out);
        }
    } else if a.has(&["p", "pass-through"]) {
        // The directory is the line's operand; the files (from the input) come after it.
        if let Some((dir, files)) = ops.split_first() {
            for w in files {
                site.on(Read, w);
            }
            site.tree(Write, dir);
        }
    } else if a.has(&["i", "extract"]) {
        if let Some(archive) = a.value(&["I", "F", "file"]) {
            site.on(Read, archive);
        }
        // `-t`: only lists what it holds.
        if a.has(&["t", "list"]) {
            return;
        }
        let dir = a
            .value(&["D", "directory"])
            .cloned()
            .unwrap_or_else(|| Word::made(".".to_owned(), ".", 0..0));
        site.tree(Write, &dir);
        // GNU cpio keeps an archive's absolute names and `..` unless told not to: what it
        // holds may land anywhere.
        if !a.has(&["no-absolute-filenames"]) {
            let anywhere = Word::runtime(&dir, "the names the archive holds", None);
            site.on(Write, &anywhere);
        }
    } else {
        unknown::given(words, site, Write);
    }
}

/// `cpio` (above); `ar`, `rar`: judged by what they are given, like a program the gate does
/// not model; `rar -df`, `rar m` delete what they archive.
pub fn other<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if site.name == "cpio" {
        cpio(words, site);
        return;
    }
    let moves = site.name == "rar"
        && words
            .iter()
            .any(|w| matches!(w.literal(), Some("-df" | "m" | "mf")));
    if moves {
        unknown::given(words, site, Delete);
    } else {
        unknown::given(words, site, Write);
    }
}
