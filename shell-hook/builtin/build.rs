//! Linked `-z nodelete`: bash `dlclose`s a loadable when its last builtin is disabled (`enable
//! -d`), and a line that disables `assent_confine` while the builtin runs it would unmap the
//! code it returns into. Kept loaded, the library stays mapped until the shell exits.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
}
