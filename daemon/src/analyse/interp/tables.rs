//! The per-language tables of `interp`: the calls that run commands, delete or write files.

/// What a call does with its first argument.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Does {
    /// Runs it as a shell line (a list of strings: as words).
    Shell,
    /// Deletes the file it names.
    Delete,
    /// Deletes the tree it names.
    DeleteTree,
    /// Writes files.
    Write,
    /// Opens a file: writes if a mode says so, runs a command with a pipe mode.
    Open,
    /// Runs code or commands that cannot be read here.
    Opaque,
    /// Copies the file named first to the place named second (Perl's `File::Copy::copy`).
    Copy,
    /// Moves the file named first to the place named second (`File::Copy::move`).
    Move,
    /// Runs the file it names as a program of its own language (Perl's `do FILE`).
    RunFile,
    /// Opens the file it names with numeric flags (`sysopen`): writes if they say so.
    SysOpen,
}

/// A call: its last name, the names it may be called on (empty: any), what it does.
pub type Call = (&'static str, &'static [&'static str], Does);

pub struct Lang {
    /// Short options whose value is the program (`-c`, `-e`).
    pub code: &'static str,
    /// Long options whose value is the program.
    pub code_long: &'static [&'static str],
    /// Short options that take a value: the rest of the word or the next word.
    pub valued: &'static str,
    /// Short options whose value, if any, is only the rest of the word, never the next word
    /// (Perl's `-i.bak` and `-0777`: `-pi -e CODE` is `-p -i -e CODE`).
    pub attached: &'static str,
    /// Short options that run a module or file named by their value (`python -m`).
    pub runs_named: &'static str,
    /// Options that print the version or the usage and end the interpreter before it reads a
    /// program from its input (`python3 --version`, `node -v`): given with no program, it
    /// runs nothing.
    pub exits: &'static [&'static str],
    /// `` `cmd` `` runs a shell command.
    pub backticks: bool,
    /// `#` starts a comment (else `//`).
    pub hash_comments: bool,
    pub calls: &'static [Call],
    /// The grammar that reads the language's programs, when there is one: then `calls` is
    /// not used.
    pub reader: Option<Reader>,
}

/// A language read with a real parser.
pub struct Reader {
    pub grammar: Grammar,
    pub tables: &'static Tables,
    pub walk: fn(&mut Eval, tree_sitter::Node),
}

use Does::*;

use super::super::grammar::Grammar;
use super::eval::{Eval, Tables};

const PYTHON_CALLS: &[Call] = &[
    ("system", &["os"], Shell),
    ("popen", &["os"], Shell),
    ("run", &["subprocess"], Shell),
    ("call", &["subprocess"], Shell),
    ("check_call", &["subprocess"], Shell),
    ("check_output", &["subprocess"], Shell),
    ("Popen", &["subprocess"], Shell),
    ("getoutput", &["subprocess", "commands"], Shell),
    ("getstatusoutput", &["subprocess", "commands"], Shell),
    ("remove", &["os"], Delete),
    ("unlink", &["os"], Delete),
    ("rmdir", &["os"], Delete),
    ("rmtree", &["shutil"], DeleteTree),
    ("removedirs", &["os"], DeleteTree),
    ("open", &[], Open),
    ("write_text", &[], Write),
    ("write_bytes", &[], Write),
    ("copyfile", &["shutil"], Write),
    ("copytree", &["shutil"], Write),
    ("move", &["shutil"], Opaque),
    ("rename", &["os"], Opaque),
    ("replace", &["os"], Opaque),
    ("truncate", &["os"], Opaque),
    ("chmod", &["os"], Opaque),
    ("kill", &["os"], Opaque),
    ("spawn", &["pty"], Opaque),
    ("eval", &[], Opaque),
    ("rm", &[], DeleteTree),
    ("exec", &[], Opaque),
    ("__import__", &[], Opaque),
    ("execv", &["os"], Opaque),
    ("execvp", &["os"], Opaque),
    ("execl", &["os"], Opaque),
    ("execlp", &["os"], Opaque),
    ("spawnv", &["os"], Opaque),
    ("spawnl", &["os"], Opaque),
];

const PERL_CALLS: &[Call] = &[
    ("system", &[], Shell),
    ("exec", &[], Shell),
    ("qx", &[], Opaque),
    ("unlink", &[], Delete),
    ("rmdir", &[], Delete),
    ("rmtree", &[], DeleteTree),
    ("remove_tree", &[], DeleteTree),
    ("open", &[], Open),
    ("sysopen", &[], SysOpen),
    ("rename", &[], Move),
    ("eval", &[], Opaque),
    ("rm", &[], DeleteTree),
    // File::Copy.
    ("copy", &[], Copy),
    ("cp", &[], Copy),
    ("syscopy", &[], Copy),
    ("move", &[], Move),
    ("mv", &[], Move),
    ("do", &[], RunFile),
    ("require", &[], RunFile),
    ("truncate", &[], Opaque),
    ("chmod", &[], Opaque),
    ("kill", &[], Opaque),
];

const RUBY_CALLS: &[Call] = &[
    ("system", &[], Shell),
    ("exec", &[], Shell),
    ("spawn", &[], Shell),
    ("popen", &["IO"], Shell),
    ("capture2", &["Open3"], Shell),
    ("capture2e", &["Open3"], Shell),
    ("capture3", &["Open3"], Shell),
    ("delete", &["File"], Delete),
    ("unlink", &["File"], Delete),
    ("rm", &["FileUtils"], Delete),
    ("rm_f", &["FileUtils"], Delete),
    ("rm_r", &["FileUtils"], DeleteTree),
    ("rm_rf", &["FileUtils"], DeleteTree),
    ("remove_dir", &["FileUtils"], DeleteTree),
    ("remove_entry", &["FileUtils"], DeleteTree),
    ("rmtree", &["FileUtils"], DeleteTree),
    ("rmdir", &["Dir", "FileUtils"], Delete),
    ("write", &["File", "IO"], Write),
    ("open", &["File"], Open),
    ("mv", &["FileUtils"], Opaque),
    ("rename", &["File"], Opaque),
    ("eval", &[], Opaque),
    ("instance_eval", &[], Opaque),
    ("send", &[], Opaque),
];

const NODE_CALLS: &[Call] = &[
    ("execSync", &[], Shell),
    ("exec", &[], Shell),
    ("spawnSync", &[], Opaque),
    ("spawn", &[], Opaque),
    ("execFileSync", &[], Opaque),
    ("execFile", &[], Opaque),
    ("unlinkSync", &[], Delete),
    ("unlink", &[], Delete),
    ("rmSync", &[], DeleteTree),
    ("rm", &[], DeleteTree),
    ("rmdirSync", &[], DeleteTree),
    ("rmdir", &[], DeleteTree),
    ("writeFileSync", &[], Write),
    ("writeFile", &[], Write),
    ("appendFileSync", &[], Write),
    ("createWriteStream", &[], Write),
    ("renameSync", &[], Opaque),
    ("eval", &[], Opaque),
    ("Function", &[], Opaque),
];

const PHP_CALLS: &[Call] = &[
    ("system", &[], Shell),
    ("exec", &[], Shell),
    ("shell_exec", &[], Shell),
    ("passthru", &[], Shell),
    ("popen", &[], Shell),
    ("proc_open", &[], Opaque),
    ("unlink", &[], Delete),
    ("rmdir", &[], Delete),
    ("file_put_contents", &[], Write),
    ("fopen", &[], Open),
    ("rename", &[], Move),
    ("eval", &[], Opaque),
    ("rm", &[], DeleteTree),
];

pub const PYTHON: Lang = Lang {
    code: "c",
    code_long: &[],
    valued: "WXQ",
    attached: "",
    runs_named: "m",
    exits: &["-V", "-VV", "--version", "-h", "--help", "-?"],
    backticks: false,
    hash_comments: true,
    calls: PYTHON_CALLS,
    reader: Some(Reader {
        grammar: Grammar::Python,
        tables: &super::python::TABLES,
        walk: super::python::walk,
    }),
};

pub const PERL: Lang = Lang {
    code: "eE",
    code_long: &[],
    valued: "IMm",
    attached: "ixC0l",
    runs_named: "",
    exits: &["-v", "-V", "-h", "--version", "--help"],
    backticks: true,
    hash_comments: true,
    calls: PERL_CALLS,
    reader: None,
};

pub const RUBY: Lang = Lang {
    code: "e",
    code_long: &[],
    valued: "IrCEF",
    attached: "xi0l",
    runs_named: "",
    exits: &["-v", "--version", "-h", "--help"],
    backticks: true,
    hash_comments: true,
    calls: RUBY_CALLS,
    reader: Some(Reader {
        grammar: Grammar::Ruby,
        tables: &super::ruby::TABLES,
        walk: super::ruby::walk,
    }),
};

pub const NODE: Lang = Lang {
    code: "ep",
    code_long: &["eval", "print"],
    valued: "r",
    attached: "",
    runs_named: "",
    exits: &["-v", "-V", "--version", "-h", "--help"],
    backticks: false,
    hash_comments: false,
    calls: NODE_CALLS,
    reader: Some(Reader {
        grammar: Grammar::JavaScript,
        tables: &super::node::TABLES,
        walk: super::node::walk,
    }),
};

pub const PHP: Lang = Lang {
    code: "r",
    code_long: &[],
    valued: "cdfz",
    attached: "",
    runs_named: "",
    exits: &[
        "-v",
        "--version",
        "-h",
        "--help",
        "-i",
        "--info",
        "-m",
        "--modules",
    ],
    backticks: true,
    hash_comments: true,
    calls: PHP_CALLS,
    reader: Some(Reader {
        grammar: Grammar::Php,
        tables: &super::php::TABLES,
        walk: super::php::walk,
    }),
};

/// Call names that read like deleting or wiping something; in a program with no table entry
/// for them they are opaque (`client.deleteIndex('prod')`).
pub const DESTRUCTIVE_VERBS: &[&str] = &[
    "delete", "destroy", "drop", "purge", "truncate", "wipe", "clear", "flush", "remove",
];
