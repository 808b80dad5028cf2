//! Places a toolchain prints where it keeps itself: `python3 -m site --user-site`, `npm root
//! -g`, `go env GOPATH`, `rustc --print sysroot`, `brew --prefix`, `git rev-parse --git-dir`.
//! A substitution of one (`rm -rf "$(npm root -g)"`, `cp x "$(git rev-parse --git-dir)/hooks/"`)
//! names that place, in each of the spots the tool is usually installed to; `places` then
//! says what the place is (site-packages, global modules, a hook, the home).
//!
//! A query this table does not know prints something only known at run time, which is never
//! a safe place to write or delete.

use super::pattern_pieces;
use crate::analyse::words::{Alts, Env, Word};
use crate::places::Piece;

/// One query: the programs that answer it, the words that ask it (all present, in any order),
/// and where the answer usually lies: `~/…` in the home, `./…` in the current directory,
/// `/…` absolute; `*` for a part that varies (a version).
struct Query {
    programs: &'static [&'static str],
    asks: &'static [&'static str],
    prints: &'static [&'static str],
}

const PYTHON: &[&str] = &["python", "python3", "python2", "pypy3"];
const NODE_GLOBAL: &[&str] = &[
    "/usr/lib/node_modules",
    "/usr/local/lib/node_modules",
    "~/.npm-global/lib/node_modules",
    "~/.nvm/versions/node/*/lib/node_modules",
];
const NODE_PREFIX: &[&str] = &[
    "/usr",
    "/usr/local",
    "~/.npm-global",
    "~/.nvm/versions/node/*",
];
const BREW: &[&str] = &["/home/linuxbrew/.linuxbrew", "/opt/homebrew", "/usr/local"];

#[rustfmt::skip]
const QUERIES: &[Query] = &[
    Query { programs: PYTHON, asks: &["-m", "site", "--user-site"], prints: &["~/.local/lib/python3*/site-packages"] },
    Query { programs: PYTHON, asks: &["-m", "site", "--user-base"], prints: &["~/.local"] },
    Query { programs: &["npm"], asks: &["root", "-g"], prints: NODE_GLOBAL },
    Query { programs: &["npm"], asks: &["root", "--global"], prints: NODE_GLOBAL },
    Query { programs: &["npm"], asks: &["root"], prints: &["./node_modules"] },
    Query { programs: &["npm"], asks: &["prefix", "-g"], prints: NODE_PREFIX },
    Query { programs: &["npm"], asks: &["config", "get", "prefix"], prints: NODE_PREFIX },
    Query { programs: &["pnpm"], asks: &["root", "-g"], prints: &["~/.local/share/pnpm/global/*/node_modules"] },
    Query { programs: &["yarn"], asks: &["global", "dir"], prints: &["~/.config/yarn/global"] },
    Query { programs: &["go"], asks: &["env", "GOPATH"], prints: &["~/go"] },
    Query { programs: &["go"], asks: &["env", "GOBIN"], prints: &["~/go/bin"] },
    Query { programs: &["go"], asks: &["env", "GOMODCACHE"], prints: &["~/go/pkg/mod"] },
    Query { programs: &["go"], asks: &["env", "GOROOT"], prints: &["/usr/local/go", "/usr/lib/go", "~/sdk/go*"] },
    Query { programs: &["rustc"], asks: &["--print", "sysroot"], prints: &["~/.rustup/toolchains/*", "/usr"] },
    Query { programs: &["rustup"], asks: &["show", "home"], prints: &["~/.rustup"] },
    Query { programs: &["brew"], asks: &["--prefix"], prints: BREW },
    Query { programs: &["brew"], asks: &["--cellar"], prints: &["/home/linuxbrew/.linuxbrew/Cellar", "/opt/homebrew/Cellar", "/usr/local/Cellar"] },
    Query { programs: &["brew"], asks: &["--repository"], prints: BREW },
    Query { programs: &["pyenv"], asks: &["root"], prints: &["~/.pyenv"] },
    Query { programs: &["rbenv"], asks: &["root"], prints: &["~/.rbenv"] },
    Query { programs: &["gem"], asks: &["env", "gemdir"], prints: &["~/.gem/ruby/*", "/var/lib/gems/*", "/usr/lib/ruby/gems/*"] },
    Query { programs: &["gem"], asks: &["env", "home"], prints: &["~/.gem/ruby/*", "/var/lib/gems/*", "/usr/lib/ruby/gems/*"] },
    Query { programs: &["pip", "pip3"], asks: &["cache", "dir"], prints: &["~/.cache/pip"] },
    Query { programs: &["git"], asks: &["rev-parse", "--git-dir"], prints: &["./.git"] },
    Query { programs: &["git"], asks: &["rev-parse", "--absolute-git-dir"], prints: &["./.git"] },
    Query { programs: &["git"], asks: &["rev-parse", "--git-common-dir"], prints: &["./.git"] },
    Query { programs: &["git"], asks: &["rev-parse", "--show-toplevel"], prints: &["."] },
];

/// The programs whose queries this knows, for `flow` to look into their substitutions.
pub(super) const PROGRAMS: &[&str] = &[
    "npm", "pnpm", "yarn", "go", "rustc", "rustup", "brew", "pyenv", "rbenv", "gem", "pip", "pip3",
];

/// Where the query `name args…` prints the place is, when it is one this knows.
pub(super) fn output(name: &str, args: &[Word], env: &Env) -> Option<Alts> {
    let given: Vec<&str> = args.iter().filter_map(Word::literal).collect();
    // `git rev-parse --git-path hooks`: the path inside the repository's directory.
    if name == "git"
        && given.first() == Some(&"rev-parse")
        && let Some(at) = given.iter().position(|w| *w == "--git-path")
    {
        let inside = given.get(at + 1)?;
        return Some(vec![place(&format!("./.git/{inside}"), env)?]);
    }
    let query = QUERIES
        .iter()
        .find(|q| q.programs.contains(&name) && q.asks.iter().all(|a| given.contains(a)))?;
    let alts: Alts = query.prints.iter().filter_map(|p| place(p, env)).collect();
    (!alts.is_empty()).then_some(alts)
}

/// One place of the table as pieces, from the home or the current directory it is under.
fn place(template: &str, env: &Env) -> Option<Vec<Piece>> {
    let mut out = Vec::new();
    let rest = if let Some(rest) = template.strip_prefix('~') {
        match env.home {
            Some(home) => out.push(Piece::Lit(home.to_owned())),
            None => out.push(Piece::Home),
        }
        rest
    } else if let Some(rest) = template.strip_prefix('.') {
        out.push(Piece::Lit(env.cwd?.to_owned()));
        rest
    } else {
        template
    };
    out.extend(pattern_pieces(rest));
    Some(out)
}
