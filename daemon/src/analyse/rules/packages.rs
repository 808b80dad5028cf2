//! Package managers removing packages: destructive, since other programs (or the system) may
//! depend on what goes. Installing and everything else a package manager does is judged by
//! `general` (moderate, or safe for listing subcommands).

use super::super::catalogue;
use super::super::words::Word;
use super::general;
use super::{Class, Site};

const RULE: Class = Class::Rule(packages);

pub const COMMANDS: &[(&str, Class)] = &[
    ("apt", RULE),
    ("apt-get", RULE),
    ("aptitude", RULE),
    ("dnf", RULE),
    ("yum", RULE),
    ("microdnf", RULE),
    ("zypper", RULE),
    ("apk", RULE),
    ("snap", RULE),
    ("flatpak", RULE),
    ("brew", RULE),
    ("port", RULE),
    ("pip", RULE),
    ("pip3", RULE),
    ("pipx", RULE),
    ("uv", RULE),
    ("npm", RULE),
    ("pnpm", RULE),
    ("bun", RULE),
    ("yarn", RULE),
    ("cargo", RULE),
    ("gem", RULE),
    ("conda", RULE),
    ("mamba", RULE),
    ("micromamba", RULE),
    ("pacman", RULE),
    ("yay", RULE),
    ("paru", RULE),
    ("dpkg", RULE),
    ("rpm", RULE),
    ("nix-env", RULE),
];

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

fn packages(args: &[Word], site: &mut Site) {
    // The first two operands; option values with `=` (`-o Foo=bar`) are not subcommands.
    let ops: Vec<&str> = args
        .iter()
        .filter_map(Word::literal)
        .filter(|t| !t.starts_with('-') && !t.contains('='))
        .take(2)
        .collect();
    let one = ops.first().copied().unwrap_or("");
    let two = ops.join(" ");
    let global = args
        .iter()
        .filter_map(Word::literal)
        .any(|t| matches!(t, "-g" | "--global" | "--location=global"));
    let by_verb = VERBS.iter().any(|r| {
        r.name == site.name
            && (r.verbs.contains(&one) || r.verbs.contains(&two.as_str()))
            && (global || !r.global)
    });
    if by_verb || removes_by_option(site.name, args) {
        let detail = format!("`{} {}`", site.name, if by_verb { one } else { "" });
        site.report(
            catalogue::PACKAGES_REMOVE,
            detail.replace(" `", "`").as_str(),
        );
    } else {
        general::unknown(args, site);
    }
}
