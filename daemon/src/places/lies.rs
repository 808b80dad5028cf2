//! Where a path lies when the vocabulary has no entry for it, or only an ordinary one: temp,
//! build output, the project, a home, elsewhere.

use super::compiled::compiled;
use super::vocabulary::{RComp, meets, within};
use super::{Anchor, Comp, Glob, Kind, Path, Placed, Where};

/// Directories that builds, package managers and test runners recreate from the sources.
/// `bin/`, `vendor/` and `.cache/` are left out: hand-made files live there too often. `out/`
/// is the output directory of too many builds (Next.js, TypeScript, Gradle's IDEs, Meson,
/// Android) to hold a coding agent's `rm -rf out` for a person.
pub(super) const BUILD_DIRS: &[&str] = &[
    "target",
    "out",
    "node_modules",
    "build",
    "dist",
    "_build",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
    ".venv",
    ".next",
    ".nuxt",
    ".svelte-kit",
    ".turbo",
    ".parcel-cache",
    ".gradle",
    "coverage",
    "htmlcov",
    ".eggs",
    ".angular",
    ".docusaurus",
    "zig-cache",
    ".zig-cache",
    "dist-newstyle",
    ".stack-work",
    ".nyc_output",
    ".terraform",
    ".cache-loader",
    ".vite",
];

/// Scratch directories.
pub(super) const TEMP_DIRS: &[&str] = &["/tmp", "/var/tmp", "/dev/shm"];

/// Temp, build output, the project, the home, elsewhere: where a path lies.
pub(super) fn structural(path: &Path, w: &Where, placed: &mut Placed) {
    match path.anchor {
        Anchor::Unknown => {
            placed.add(Kind::Unknown, "");
            return;
        }
        Anchor::Home => {
            placed.add(Kind::Data, "your files outside the project");
            return;
        }
        Anchor::Root => {}
    }
    let v = compiled();
    let comps = path.comps.as_slice();
    // Unknown text may hold `..` and lead anywhere (`/tmp/$x`); what a listing finds below a
    // directory (`Below`) stays there.
    if comps.contains(&Comp::Opaque) {
        placed.add(Kind::Unknown, "");
    }
    let under = |dir: &[Comp], add_any: bool| -> (bool, bool) {
        let mut rule: Vec<RComp> = dir.iter().map(as_rcomp).collect();
        if add_any {
            rule.push(RComp::AnyDirs);
        }
        (meets(comps, &rule), within(comps, &rule))
    };
    for temp in &v.temp {
        if meets(comps, temp) {
            placed.add(Kind::Temp, "");
            if within(comps, temp) {
                return;
            }
        }
    }
    if let Some(project) = &w.project {
        let (may, all) = under(project, true);
        if may {
            if let Some(build) = build_output(comps, project, &v.build) {
                placed.add(Kind::Build, "");
                if build {
                    return;
                }
            }
            placed.add(Kind::Project, "");
            if all {
                return;
            }
        }
    }
    if let Some(home) = &w.home {
        let (may, all) = under(home, true);
        if may {
            placed.add(Kind::Data, "your files outside the project");
            if all {
                return;
            }
        }
    }
    placed.add(Kind::Data, "files outside the project");
}

/// Files a compiler or linker makes beside its sources, which a build makes again: objects,
/// static archives and shared objects (`*.o`, `*.a`, `*.so`), bytecode (`*.pyc`, `*.class`),
/// coverage notes.
const BUILD_FILES: &[&str] = &[
    ".o", ".obj", ".lo", ".a", ".la", ".so", ".pyc", ".pyo", ".class", ".gcno", ".gcda",
];

/// Build directories an IDE names by a prefix and the configuration (`cmake-build-debug`).
const BUILD_DIR_PREFIXES: &[&str] = &["cmake-build-"];

/// Whether a path below `project` is at or under a build directory, or is a file a compiler
/// made: `Some(true)` certainly, `Some(false)` possibly (a glob).
fn build_output(comps: &[Comp], project: &[Comp], build: &[Glob]) -> Option<bool> {
    let below = comps.get(project.len()..)?;
    // `main.o`, `*.pyc`: every name the last component can be ends in a compiler's suffix.
    if let Some(Comp::Name(last)) = below.last()
        && BUILD_FILES
            .iter()
            .any(|suffix| last.text().ends_with(suffix))
    {
        return Some(true);
    }
    let mut maybe = false;
    for c in below {
        match c {
            Comp::Name(g) => {
                if let Some(name) = g.as_literal() {
                    if build.iter().any(|b| b.matches(&name))
                        || name.ends_with(".egg-info")
                        || BUILD_DIR_PREFIXES.iter().any(|p| name.starts_with(p))
                    {
                        return Some(true);
                    }
                } else if g.text().ends_with(".egg-info") {
                    // `*.egg-info`: every name it matches is one.
                    return Some(true);
                } else if build.iter().any(|b| g.meets(b)) {
                    maybe = true;
                }
            }
            Comp::Opaque | Comp::Beneath | Comp::Below | Comp::Found => {}
        }
    }
    maybe.then_some(false)
}

fn as_rcomp(c: &Comp) -> RComp {
    match c {
        Comp::Name(g) => RComp::Name(g.clone()),
        Comp::Opaque | Comp::Beneath | Comp::Below | Comp::Found => RComp::AnyDirs,
    }
}
