//! Toolchain and version managers (`rustup`, `nvm`, `pyenv`, `asdf`, `mise`, `sdk`, …): their
//! verbs that uninstall a compiler or a runtime, remove a plugin with every version it
//! installed, or remove the manager itself (`rustup self uninstall`, `mise implode`, `ghcup
//! nuke`). What they remove is software the project and other programs run with, so it is a
//! removal of packages whatever the manager is called. Package managers proper are in
//! `packages`.

use super::super::words::Word;

/// Each manager and its removal verbs: one word, or two for nested ones (`toolchain
/// uninstall`).
const MANAGERS: &[(&[&str], &[&str])] = &[
    (
        &["rustup"],
        &[
            "uninstall",
            "self uninstall",
            "toolchain uninstall",
            "toolchain remove",
            "component remove",
            "target remove",
        ],
    ),
    (&["elan"], &["self uninstall", "toolchain uninstall"]),
    (&["juliaup"], &["remove", "rm", "self uninstall"]),
    (&["nvm", "fnm", "volta", "nodenv"], &["uninstall"]),
    (&["n"], &["rm", "uninstall", "prune"]),
    (
        &[
            "pyenv", "rbenv", "goenv", "jenv", "plenv", "phpenv", "luaenv", "tfenv", "scalaenv",
            "swiftenv", "nodenv", "exenv",
        ],
        &[
            "uninstall",
            "remove",
            "virtualenv-delete",
            "virtualenv-uninstall",
        ],
    ),
    (
        &["asdf"],
        &[
            "uninstall",
            "plugin remove",
            "plugin-remove",
            "plugin uninstall",
        ],
    ),
    (
        &["mise", "rtx"],
        &[
            "uninstall",
            "rm",
            "remove",
            "implode",
            "prune",
            "plugins uninstall",
            "plugins remove",
            "plugins rm",
            "plugin uninstall",
            "plugin remove",
            "plugin rm",
        ],
    ),
    (&["rvm"], &["implode", "uninstall", "remove"]),
    (&["sdk"], &["uninstall", "rm"]),
    (&["ghcup"], &["rm", "nuke"]),
    (&["opam"], &["switch remove", "remove", "uninstall"]),
    (&["proto", "vfox"], &["uninstall", "remove"]),
    (&["uv"], &["python uninstall", "self uninstall"]),
    (&["deno"], &["uninstall"]),
    (&["nix"], &["profile remove"]),
    (
        &["dotnet"],
        &["tool uninstall", "workload uninstall", "sdk uninstall"],
    ),
    (&["gcloud"], &["components remove"]),
];

/// The removal a toolchain manager's words ask for, shown as `manager verb`. A toolchain
/// named for the run (`rustup +stable …`) is no verb.
pub fn removal(name: &str, words: &[Word]) -> Option<String> {
    let (_, verbs) = MANAGERS.iter().find(|(names, _)| names.contains(&name))?;
    let ops: Vec<&str> = words
        .iter()
        .filter_map(Word::literal)
        .filter(|t| !t.starts_with(['-', '+']) && !t.contains('='))
        .take(2)
        .collect();
    let one = ops.first().copied()?;
    let two = ops.join(" ");
    verbs
        .iter()
        .find(|v| **v == one || **v == two)
        .map(|v| format!("`{name} {v}`"))
}

#[cfg(test)]
mod tests {
    use assent_client::protocol::Level::{Destructive, Moderate, Safe};

    use super::super::git::tests::check;

    #[test]
    fn removals_and_the_rest() {
        check(&[
            (
                "rustup self uninstall -y",
                Destructive,
                &["delete.packages", "run.project"],
            ),
            (
                "rustup toolchain remove nightly",
                Destructive,
                &["delete.packages", "run.project"],
            ),
            (
                "rustup component remove rust-src",
                Destructive,
                &["delete.packages", "run.project"],
            ),
            ("mise implode --yes", Destructive, &["delete.packages"]),
            ("mise plugins rm node", Destructive, &["delete.packages"]),
            (
                "pyenv uninstall -f 3.12.1",
                Destructive,
                &["delete.packages"],
            ),
            (
                "asdf plugin remove python",
                Destructive,
                &["delete.packages"],
            ),
            (
                "uv python uninstall 3.12",
                Destructive,
                &["delete.packages", "run.project"],
            ),
            ("ghcup nuke", Destructive, &["delete.packages"]),
            (
                "nix profile remove hello",
                Destructive,
                &["delete.packages"],
            ),
            (
                "gcloud components remove kubectl",
                Destructive,
                &["delete.packages"],
            ),
            ("rustup toolchain list", Moderate, &["run.project"]),
            (
                "rustup target add wasm32-unknown-unknown",
                Moderate,
                &["run.project"],
            ),
            ("nvm ls", Moderate, &["use.project"]),
            ("mise use node@20", Moderate, &["use.project"]),
            ("sdk list java", Moderate, &["use.project"]),
            ("rustup show", Safe, &[]),
        ]);
    }
}
