//! Package managers, builders and test runners: they run the project's code (build scripts,
//! tests, install hooks), which is moderate; removing installed software is destructive,
//! since other programs may depend on it; publishing is held like a `git push`. Their other
//! words are judged like an unknown program's operands (`cargo run -- ~/.ssh/id_rsa` hands the
//! project's code a secret), and option values only for the secrets they name.

use super::super::act::Site;
use super::super::catalogue;
use super::super::effects::Effect::{Read, Use};
use super::super::words::Word;
use super::unknown::place_word;

/// Subcommands that remove, per program; two words for nested ones (`uv pip uninstall`).
/// `global` means only with `-g`/`--global`: a project's dependencies come back on install.
struct Removes {
    name: &'static str,
    verbs: &'static [&'static str],
    global: bool,
}

const fn removes(name: &'static str, verbs: &'static [&'static str], global: bool) -> Removes {
    Removes {
        name,
        verbs,
        global,
    }
}

const APT: &[&str] = &["remove", "purge", "autoremove", "autopurge"];
const DNF: &[&str] = &["remove", "erase", "autoremove"];
const PIP: &[&str] = &["uninstall"];
const NPM: &[&str] = &["uninstall", "un", "unlink", "remove", "rm", "r"];
const CONDA: &[&str] = &["remove", "uninstall", "env remove"];

const VERBS: &[Removes] = &[
    removes("apt", APT, false),
    removes("apt-get", APT, false),
    removes("aptitude", APT, false),
    removes("dnf", DNF, false),
    removes("yum", DNF, false),
    removes("microdnf", DNF, false),
    removes("zypper", &["rm", "remove"], false),
    removes("apk", &["del"], false),
    removes("snap", &["remove"], false),
    removes("flatpak", &["uninstall", "remove"], false),
    removes("brew", &["uninstall", "remove", "rm", "autoremove"], false),
    removes("port", &["uninstall"], false),
    removes("pip", PIP, false),
    removes("pip3", PIP, false),
    removes("pipx", &["uninstall", "uninstall-all"], false),
    removes("uv", &["pip uninstall", "tool uninstall"], false),
    removes("npm", NPM, true),
    removes("pnpm", NPM, true),
    removes("bun", NPM, true),
    removes("yarn", &["global remove"], false),
    removes("cargo", &["uninstall"], false),
    removes("gem", &["uninstall"], false),
    removes("conda", CONDA, false),
    removes("mamba", CONDA, false),
    removes("micromamba", CONDA, false),
];

/// Option-style removals: `pacman -R…`, `dpkg -r|-P`, `rpm -e`, `nix-env -e`.
fn removes_by_option(name: &str, args: &[Word]) -> bool {
    args.iter().filter_map(Word::literal).any(|t| match name {
        "pacman" | "yay" | "paru" => {
            t == "--remove" || (t.starts_with("-R") && !t.starts_with("--"))
        }
        "dpkg" => matches!(t, "-r" | "-P" | "--remove" | "--purge"),
        "rpm" => t == "--erase" || (t.starts_with("-e") && !t.starts_with("--")),
        "nix-env" => matches!(t, "-e" | "--uninstall"),
        _ => false,
    })
}

/// Subcommands (first operand) that only read or print.
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
            "root", "prefix", "bin", "config",
        ],
    ),
    // `config` sets a value; the ones that name code to run are read by code.rs.
    (
        "pnpm",
        &[
            "ls", "list", "outdated", "why", "root", "view", "info", "search", "help", "bin",
            "config",
        ],
    ),
    ("yarn", &["list", "info", "why", "outdated", "config"]),
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
    ("go", &["version", "env", "list", "doc", "help", "vet"]),
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
    (
        "dpkg",
        &[
            "-l",
            "-L",
            "-s",
            "--list",
            "--listfiles",
            "--status",
            "-S",
            "--search",
        ],
    ),
    ("rpm", &["-q", "-qa", "-ql", "-qi"]),
];

/// Subcommands that publish to a registry.
const PUBLISHES: &[(&str, &[&str])] = &[
    ("cargo", &["publish", "yank", "owner"]),
    (
        "npm",
        &["publish", "unpublish", "deprecate", "dist-tag", "owner"],
    ),
    ("pnpm", &["publish"]),
    ("yarn", &["publish", "npm publish"]),
    ("bun-pm", &["publish"]),
    ("gem", &["push", "yank", "owner"]),
    ("poetry", &["publish"]),
    ("uv", &["publish"]),
    ("pdm", &["publish"]),
    ("hatch", &["publish"]),
    ("rye", &["publish"]),
    ("dotnet", &["nuget push", "nuget delete"]),
    ("mvn", &["deploy"]),
    ("gradle", &["publish"]),
    ("go", &["publish"]),
    ("composer", &["publish"]),
    ("mix", &["hex.publish"]),
    ("swift", &["package-registry publish"]),
    ("helm", &["push"]),
    ("pulumi", &["package publish"]),
    ("lerna", &["publish"]),
    ("changeset", &["publish"]),
    ("nx", &["release"]),
];

/// Build tools and project package managers: their subcommands act on the project in the
/// working directory (`poetry remove requests` drops a dependency from `pyproject.toml`), so
/// the service verbs (`aws … delete-bucket`) do not apply to them.
const PROJECT_TOOLS: &[&str] = &[
    "cargo",
    "npm",
    "npx",
    "pnpm",
    "yarn",
    "bun-pm",
    "deno",
    "uv",
    "poetry",
    "pipenv",
    "pdm",
    "hatch",
    "rye",
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
    "bundle",
    "composer",
    "tox",
    "nox",
    "pytest",
    "pip",
    "pip3",
    "pipx",
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
    "gem",
    "conda",
    "mamba",
    "micromamba",
    "pacman",
    "yay",
    "paru",
    "dpkg",
    "rpm",
    "nix-env",
    "rustup",
    "just",
    "task",
    "turbo",
    "nx",
    "lerna",
    "bazel",
];

/// Subcommands that install or update software.
const INSTALLS: &[&str] = &[
    "install",
    "add",
    "i",
    "update",
    "upgrade",
    "sync",
    "dist-upgrade",
    "full-upgrade",
    "reinstall",
    "ci",
];

/// Options that, given alone, ask any program only to describe itself.
const SELF_DESCRIBING: &[&str] = &["--version", "-V", "--help", "-h", "version", "help"];

/// Where a package manager would fetch code from besides its registry: a URL, a VCS
/// address, another index or registry (`pip install git+https://…`, `--index-url`, `npm i
/// https://…/x.tgz`, `cargo install --git`, `npm config set registry …`). Code from there
/// runs as it installs, and the gate cannot read it. (Go modules always name their host and
/// come through Go's proxy, as packages come through a registry.)
fn foreign_source<'a>(name: &str, args: &'a [Word]) -> Option<&'a str> {
    const SOURCE_OPTIONS: &[&str] = &[
        "--index-url",
        "-i",
        "--extra-index-url",
        "--find-links",
        "--registry",
        "--git",
        "--from",
        "--index",
        "--default-index",
    ];
    const MANAGERS: &[&str] = &[
        "pip", "pip3", "uv", "uvx", "pipx", "poetry", "pdm", "npm", "pnpm", "yarn", "npx", "pnpx",
        "bunx", "bun", "cargo", "go", "gem", "composer",
    ];
    if !MANAGERS.contains(&name) {
        return None;
    }
    let texts: Vec<&str> = args.iter().filter_map(Word::literal).collect();
    let remote = |t: &str| {
        let t = t.trim_start_matches("git+");
        t.starts_with("http://")
            || t.starts_with("https://")
            || t.starts_with("git://")
            || t.starts_with("ssh://")
            || t.starts_with("git@")
    };
    for (i, t) in texts.iter().enumerate() {
        if let Some((option, value)) = t.split_once('=')
            && SOURCE_OPTIONS.contains(&option)
            && remote(value)
        {
            return Some(value);
        }
        if SOURCE_OPTIONS.contains(t)
            && let Some(value) = texts.get(i + 1)
            && (remote(value) || *t == "--git")
        {
            return Some(value);
        }
        // A package named by an address, or `config set registry|index-url ADDRESS`.
        if remote(t) && !t.contains("registry.npmjs.org") && !t.contains("pypi.org") {
            return Some(t);
        }
    }
    None
}

/// Whether a package operand names the gate's own package: `assent`, with a version, an
/// architecture or as a package file.
fn gate_package(operand: &str) -> bool {
    if operand.starts_with('-') {
        return false;
    }
    let base = operand.rsplit('/').next().unwrap_or(operand);
    let name = base.split(['=', '_', ':', '@']).next().unwrap_or(base);
    matches!(name, "assent" | "assent-notify" | "assent-bash")
}

/// Judges a package manager, builder or test runner.
pub fn builder<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if let [only] = args
        && only.literal().is_some_and(|t| SELF_DESCRIBING.contains(&t))
    {
        return;
    }
    let name = site.name;
    // `mix ecto.reset`: a builder's task that empties the database.
    if let Some(shown) = super::data::schema_reset(name, args) {
        site.say(super::super::catalogue::DATA_RESET, &shown);
        return;
    }
    if let Some(shown) = super::data::app_console(name, args) {
        site.say(super::super::catalogue::CODE_UNREAD, &shown);
        return;
    }
    if let Some(source) = foreign_source(name, args) {
        let shown = format!("`{name}` installing or running code from `{source}`");
        site.say(super::super::catalogue::CODE_UNREAD, &shown);
    }
    // The first two operands; option values with `=` (`-o Foo=bar`) are not subcommands.
    let ops: Vec<&str> = args
        .iter()
        .filter_map(Word::literal)
        .filter(|t| !t.starts_with('-') && !t.contains('='))
        .take(2)
        .collect();
    let one = ops.first().copied().unwrap_or("");
    let two = ops.join(" ");
    // The gate's own package, by name, version or file (`assent=0.0.1`, `assent_0.1_amd64.deb`).
    if let Some(package) = args
        .iter()
        .filter_map(Word::literal)
        .find(|t| gate_package(t))
    {
        site.say(catalogue::GATE_PACKAGE, &format!("{name} {one} {package}"));
    }
    let first_word = args.first().and_then(Word::literal).unwrap_or("");
    let global = args
        .iter()
        .filter_map(Word::literal)
        .any(|t| matches!(t, "-g" | "--global" | "--location=global"));
    let by_verb = VERBS.iter().any(|r| {
        r.name == name
            && (r.verbs.contains(&one) || r.verbs.contains(&two.as_str()))
            && (global || !r.global)
    });
    if by_verb || removes_by_option(name, args) {
        let detail = if by_verb {
            format!("`{name} {one}`")
        } else {
            format!("`{name}`")
        };
        site.say(catalogue::PACKAGES_REMOVE, &detail);
        return;
    }
    // Service CLIs run through a runtime (`java -jar jenkins-cli.jar delete-job x`): their
    // verbs say what they delete. A build tool's subcommands act on the project.
    if !PROJECT_TOOLS.contains(&name) && super::cloud::service(args, site) {
        return;
    }
    let reads = READ_ONLY_SUBCOMMANDS
        .iter()
        .find(|(n, _)| *n == name)
        .is_some_and(|(_, subs)| subs.contains(&one) || subs.contains(&first_word));
    if reads {
        return;
    }
    // `npx PKG ARGS` runs a package the gate does not know: its arguments are judged as an
    // unknown program's.
    let runs_package = matches!(name, "npx" | "pnpx" | "bunx")
        || matches!(
            (name, one),
            ("yarn" | "pnpm" | "bun-pm", "dlx") | ("pipx", "run") | ("uv", "run")
        )
        || (name == "uv" && two == "tool run");
    if runs_package {
        site.say(catalogue::BUILDS, name);
        super::unknown::given(args, site, Use);
        return;
    }
    let publishes = PUBLISHES
        .iter()
        .find(|(n, _)| *n == name)
        .is_some_and(|(_, subs)| subs.contains(&one) || subs.contains(&two.as_str()));
    if publishes {
        site.say(catalogue::PUBLISH, &format!("{name} {one}"));
    } else if INSTALLS.contains(&one) && name != "make" && name != "go" {
        site.say(catalogue::PACKAGES_INSTALL, &format!("{name} {one}"));
    } else {
        site.say(catalogue::BUILDS, name);
    }
    // What it is handed: operands as places its code may use, option values for the secrets
    // they name.
    for w in args {
        let option = w.literal().is_some_and(|t| t.starts_with('-'));
        if let Some(place) = place_word(w) {
            site.quiet(if option { Read } else { Use }, &place);
        }
    }
}
