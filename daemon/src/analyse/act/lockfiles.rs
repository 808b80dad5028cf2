//! Lockfiles, and the commands that write them again: `rm package-lock.json && npm install`
//! deletes a file the same line regenerates from the manifest, an everyday fix of a broken
//! install. Deleting one that nothing on the line regenerates stays what deleting a project
//! file is.
//!
//! It is `act`'s: which files are build output is a fact of what a deletion costs, the
//! table only; `act` holds back the deletion of a lockfile in the project until
//! the line is read, and `State::finish` asks [`regenerates`] of the commands that ran after it.

use crate::analyse::words::basename;

/// One lockfile: its name, the program that writes it, and the subcommands that do (each the
/// first operands, after the program's options; empty for the program run alone).
struct Lockfile {
    name: &'static str,
    program: &'static str,
    by: &'static [&'static [&'static str]],
}

const NPM: &[&[&str]] = &[
    &["install"],
    &["i"],
    &["add"],
    &["update"],
    &["up"],
    &["upgrade"],
];
const CARGO: &[&[&str]] = &[
    &["build"],
    &["b"],
    &["check"],
    &["c"],
    &["test"],
    &["t"],
    &["run"],
    &["r"],
    &["update"],
    &["generate-lockfile"],
    &["fetch"],
    &["clippy"],
    &["tree"],
    &["metadata"],
];

#[rustfmt::skip]
const LOCKFILES: &[Lockfile] = &[
    Lockfile { name: "package-lock.json", program: "npm", by: NPM },
    Lockfile { name: "npm-shrinkwrap.json", program: "npm", by: NPM },
    Lockfile { name: "yarn.lock", program: "yarn", by: &[&[], &["install"], &["add"], &["up"], &["upgrade"]] },
    Lockfile { name: "pnpm-lock.yaml", program: "pnpm", by: NPM },
    Lockfile { name: "bun.lockb", program: "bun", by: NPM },
    Lockfile { name: "bun.lock", program: "bun", by: NPM },
    Lockfile { name: "Cargo.lock", program: "cargo", by: CARGO },
    Lockfile { name: "poetry.lock", program: "poetry", by: &[&["lock"], &["install"], &["update"], &["add"]] },
    Lockfile { name: "uv.lock", program: "uv", by: &[&["lock"], &["sync"], &["add"]] },
    Lockfile { name: "pdm.lock", program: "pdm", by: &[&["lock"], &["install"], &["update"], &["add"]] },
    Lockfile { name: "Pipfile.lock", program: "pipenv", by: &[&["lock"], &["install"], &["update"]] },
    Lockfile { name: "go.sum", program: "go", by: &[&["mod", "tidy"], &["mod", "download"], &["get"]] },
    Lockfile { name: "Gemfile.lock", program: "bundle", by: &[&[], &["install"], &["lock"], &["update"]] },
    Lockfile { name: "composer.lock", program: "composer", by: &[&["install"], &["update"], &["require"]] },
    Lockfile { name: "flake.lock", program: "nix", by: &[&["flake", "lock"], &["flake", "update"]] },
    Lockfile { name: "Podfile.lock", program: "pod", by: &[&["install"], &["update"]] },
    Lockfile { name: "mix.lock", program: "mix", by: &[&["deps.get"]] },
];

/// Whether `path` names a lockfile some program regenerates.
pub fn is_lockfile(path: &str) -> bool {
    let name = basename(path.trim_end_matches('/'));
    LOCKFILES.iter().any(|l| l.name == name)
}

/// Whether the command `argv` writes the lockfile `path` names again.
pub fn regenerates(path: &str, argv: &[String]) -> bool {
    let name = basename(path.trim_end_matches('/'));
    let Some((program, args)) = argv.split_first() else {
        return false;
    };
    let operands: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    LOCKFILES
        .iter()
        .filter(|l| l.name == name && l.program == basename(program))
        .flat_map(|l| l.by)
        .any(|sub| {
            if sub.is_empty() {
                operands.is_empty()
            } else {
                operands.starts_with(sub)
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lockfile_is_regenerated_by_its_own_program() {
        let argv = |line: &str| -> Vec<String> { line.split(' ').map(str::to_owned).collect() };
        let cases: &[(&str, &str, bool)] = &[
            ("package-lock.json", "npm install", true),
            ("web/package-lock.json", "npm i --no-audit", true),
            ("package-lock.json", "npm ci", false),
            ("package-lock.json", "yarn install", false),
            ("yarn.lock", "yarn", true),
            ("Cargo.lock", "cargo build --release", true),
            ("Cargo.lock", "cargo publish", false),
            ("go.sum", "go mod tidy", true),
            ("go.sum", "go mod why", false),
            ("poetry.lock", "/usr/bin/poetry lock --no-update", true),
            ("notes.txt", "npm install", false),
        ];
        for (file, line, want) in cases {
            assert_eq!(regenerates(file, &argv(line)), *want, "{file} by {line}");
        }
        assert!(is_lockfile("./pnpm-lock.yaml") && !is_lockfile("lock.json"));
    }
}
