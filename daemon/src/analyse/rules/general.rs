//! What a program in no family is judged by: known readers are safe, anything else is taken to
//! change files (moderate). Never above moderate: an unknown name is not evidence of harm,
//! and DESIGN keeps opaque for what cannot be read at all.

use super::super::catalogue;
use super::super::words::Word;
use super::Site;

/// Well-known builders, package managers and runners: they write (build output, installed
/// packages, caches), which is moderate and undoable.
const WRITERS: &[&str] = &[
    "cargo", "rustc", "rustup", "rustfmt", "npm", "npx", "pnpm", "yarn", "bun", "deno", "node",
    "python", "python3", "pip", "pip3", "pipx", "uv", "poetry", "pytest", "tox", "nox", "go",
    "gofmt", "make", "cmake", "ninja", "meson", "gradle", "mvn", "javac", "java", "gcc", "g++",
    "cc", "c++", "clang", "clang++", "ld", "tsc", "eslint", "prettier", "black", "ruff", "jest",
    "vitest", "mkdir", "touch", "patch", "tar", "zip", "unzip", "gzip", "gunzip", "wget", "apt",
    "apt-get", "dnf", "yum", "brew", "gem", "bundle", "composer", "dotnet", "swift", "zig",
];

/// Build tools and project package managers: their subcommands act on the project in the
/// working directory (`poetry remove requests` drops a dependency from `pyproject.toml`), so the
/// service-CLI verb rule, made for `aws … delete-bucket`, does not apply to them.
const PROJECT_TOOLS: &[&str] = &[
    "cargo", "npm", "npx", "pnpm", "yarn", "bun", "deno", "uv", "poetry", "pipenv", "pdm", "hatch",
    "rye", "go", "make", "cmake", "ninja", "meson", "gradle", "mvn", "sbt", "mix", "dotnet",
    "swift", "zig", "bundle", "composer", "tox", "nox", "pytest",
];

/// Whether `name` is a build tool or project package manager (see [`PROJECT_TOOLS`]).
pub fn project_tool(name: &str) -> bool {
    PROJECT_TOOLS.contains(&name)
}

/// Subcommands (first operand) of writers that only read or print.
const READ_ONLY_SUBCOMMANDS: &[(&str, &[&str])] = &[
    (
        "cargo",
        &[
            "metadata",
            "tree",
            "search",
            "version",
            "help",
            "locate-project",
            "pkgid",
            "verify-project",
            "read-manifest",
        ],
    ),
    (
        "npm",
        &[
            "ls", "list", "view", "info", "show", "outdated", "search", "help", "explain", "why",
            "root", "prefix", "bin",
        ],
    ),
    ("pnpm", &["ls", "list", "outdated", "why", "root"]),
    ("yarn", &["list", "info", "why", "outdated"]),
    (
        "pip",
        &[
            "list", "show", "freeze", "search", "check", "help", "index", "inspect", "debug",
            "hash",
        ],
    ),
    (
        "pip3",
        &[
            "list", "show", "freeze", "search", "check", "help", "index", "inspect", "debug",
            "hash",
        ],
    ),
    ("go", &["version", "env", "list", "doc", "help"]),
    (
        "apt",
        &[
            "list", "show", "search", "policy", "depends", "rdepends", "showsrc",
        ],
    ),
    ("dnf", &["list", "info", "search", "repolist", "provides"]),
    ("yum", &["list", "info", "search", "repolist", "provides"]),
    (
        "brew",
        &[
            "list", "ls", "info", "search", "deps", "uses", "outdated", "config", "doctor",
            "--prefix",
        ],
    ),
    (
        "gem",
        &["list", "search", "info", "contents", "env", "specification"],
    ),
    ("rustup", &["show", "which"]),
];

/// Options that, given alone, ask any program only to describe itself.
const SELF_DESCRIBING: &[&str] = &["--version", "-V", "--help", "-h", "version", "help"];

/// Options of otherwise read-only programs that make them write a file.
const WRITING_OPTIONS: &[(&str, &[&str])] =
    &[("sort", &["-o", "--output"]), ("date", &["-s", "--set"])];

/// curl options (and their prefixes: `-ofile`, `--data-binary`) that write or send.
const CURL_WRITES: &[&str] = &[
    "-o",
    "-O",
    "-T",
    "-d",
    "-F",
    "-X",
    "--output",
    "--remote-name",
    "--upload-file",
    "--data",
    "--form",
    "--request",
    "--json",
];

/// Judges a program that no family knows, or a family's program beyond what the family checks.
pub fn unknown(args: &[Word], site: &mut Site) {
    if reads_only(site.name, args) {
        return;
    }
    let name = site.name.to_owned();
    if WRITERS.contains(&site.name) {
        site.report(catalogue::GENERAL_WRITES, &name);
    } else {
        site.report(catalogue::GENERAL_UNKNOWN, &name);
    }
}

/// First operand: the first literal word not starting with `-`.
fn subcommand<'a>(args: &'a [Word]) -> Option<&'a str> {
    args.iter()
        .filter_map(Word::literal)
        .find(|t| !t.starts_with('-'))
}

fn reads_only(name: &str, args: &[Word]) -> bool {
    if let [only] = args
        && only.literal().is_some_and(|t| SELF_DESCRIBING.contains(&t))
    {
        return true;
    }
    READ_ONLY_SUBCOMMANDS
        .iter()
        .find(|(n, _)| *n == name)
        .zip(subcommand(args))
        .is_some_and(|((_, subs), sub)| subs.contains(&sub))
}

/// A reader that has an option to write (`sort -o`, `sed -i`): moderate with it, safe without.
pub fn reader(args: &[Word], site: &mut Site) {
    // `curl -X DELETE` is judged by the cloud family.
    if site.name == "curl" && super::cloud::http_delete(args, site) {
        return;
    }
    let writes = match site.name {
        // `-i`, `-i.bak`, `-ni`, `--in-place`; a value like `-e` never holds an `i` flag
        // after its letter in practice, so any short cluster with `i` counts.
        "sed" => args.iter().filter_map(Word::literal).any(|t| {
            t.starts_with("--in-place")
                || (t.starts_with('-') && !t.starts_with("--") && t.contains('i'))
        }),
        // gawk's in-place extension, and print redirections inside the program.
        "awk" | "gawk" => args.iter().any(|w| {
            w.literal() == Some("inplace") || (w.text.contains("print") && w.text.contains('>'))
        }),
        // curl only prints unless it saves, uploads or sends data or a method.
        "curl" => args
            .iter()
            .filter_map(Word::literal)
            .any(|t| CURL_WRITES.iter().any(|o| t.starts_with(o))),
        // `hostname NAME` renames the machine.
        "hostname" => args.iter().any(|w| !w.text.starts_with('-')),
        // `xxd IN OUT` and `xxd -r IN OUT` write OUT.
        "xxd" => args.iter().filter(|w| !w.text.starts_with('-')).count() > 1,
        name => WRITING_OPTIONS
            .iter()
            .find(|(n, _)| *n == name)
            .is_some_and(|(_, opts)| {
                args.iter().filter_map(Word::literal).any(|t| {
                    opts.iter()
                        .any(|o| t == *o || t.starts_with(&format!("{o}=")))
                })
            }),
    };
    if writes {
        let name = site.name.to_owned();
        site.report(catalogue::GENERAL_WRITES, &name);
    }
}
