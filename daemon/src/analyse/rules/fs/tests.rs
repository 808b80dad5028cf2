//! Table tests for the file rules: command in, level and finding ids out.

use assent_client::protocol::Level::{self, Destructive, Forbidden, Moderate, Safe};

use super::paths::names_tmpdir;
use super::perms::world_writable;
use crate::analyse::{Context, shell};

const CTX: Context<'static> = Context {
    cwd: "/home/u/repo",
    home: Some("/home/u"),
    truncated: false,
};

#[rustfmt::skip]
const CASES: &[(&str, Level, &[&str])] = &[
    // rm: by what is named.
    ("rm notes.txt", Destructive, &["fs.rm"]),
    ("rm -f a.o", Destructive, &["fs.rm_force"]),
    ("rm -rf src", Destructive, &["fs.rm_recursive"]),
    ("rm -rf ./*", Destructive, &["fs.rm_recursive"]),
    ("rm -rf *", Destructive, &["fs.rm_recursive"]),
    ("rm -rf /some/path", Destructive, &["fs.rm_recursive"]),
    ("rm -rf \"$x\"", Destructive, &["fs.rm_recursive"]),
    ("rm -rf", Destructive, &["fs.rm_recursive"]),
    ("rm -rf /tmp/../etc/x", Destructive, &["fs.rm_recursive"]),
    ("rm -rf /tmp/a /etc/passwd", Destructive, &["fs.rm_recursive"]),
    ("rm --help", Safe, &[]),
    // Scratch space and build output.
    ("rm -rf /tmp/x", Moderate, &["fs.delete_temp"]),
    ("rm -rf /tmp/*", Moderate, &["fs.delete_temp"]),
    ("rm -rf /tmp", Moderate, &["fs.delete_temp"]),
    ("rm -f /var/tmp/a /dev/shm/b", Moderate, &["fs.delete_temp"]),
    ("rm -rf $TMPDIR/x", Moderate, &["fs.delete_temp"]),
    ("rm -rf \"${TMPDIR}/x\"", Moderate, &["fs.delete_temp"]),
    ("rm -rf ${TMPDIR:-/tmp}/build", Moderate, &["fs.delete_temp"]),
    ("rm -rf $TMPDIR/../etc", Forbidden, &["fs.rm_system"]),
    ("rm -rf $TMPDIR/$x", Destructive, &["fs.rm_recursive"]),
    ("TMPDIR=/home/u rm -rf $TMPDIR/x", Destructive, &["fs.rm_recursive"]),
    ("export TMPDIR=/x; rm -rf \"$TMPDIR\"", Destructive, &["fs.rm_recursive"]),
    ("rm -rf target", Moderate, &["fs.delete_build"]),
    ("rm -rf ./node_modules dist/", Moderate, &["fs.delete_build"]),
    ("rm -rf target/debug/*", Moderate, &["fs.delete_build"]),
    ("rm -rf src/__pycache__ .pytest_cache", Moderate, &["fs.delete_build"]),
    ("rm -rf /tmp/x build", Moderate, &["fs.delete_temp", "fs.delete_build"]),
    ("rm -rf ../other/target", Destructive, &["fs.rm_recursive"]),
    ("rm -rf build src", Destructive, &["fs.rm_recursive"]),
    // Forbidden.
    ("rm -rf /", Forbidden, &["fs.rm_root_or_home"]),
    ("rm -rf ~", Forbidden, &["fs.rm_root_or_home"]),
    ("rm ~/*", Forbidden, &["fs.rm_root_or_home"]),
    ("rm -rf ..", Forbidden, &["fs.rm_root_or_home"]),
    ("rm -rf /home/other", Forbidden, &["fs.rm_root_or_home"]),
    ("rm -rf /etc", Forbidden, &["fs.rm_system"]),
    ("rm -rf /usr/*", Forbidden, &["fs.rm_system"]),
    ("rm -r /var/log", Forbidden, &["fs.rm_system"]),
    ("rm /etc", Destructive, &["fs.rm"]),
    ("rm --no-preserve-root -rf /x", Forbidden, &["fs.rm_root_or_home"]),
    // Other deletes.
    ("rmdir empty", Moderate, &["fs.rmdir"]),
    ("unlink a.txt", Destructive, &["fs.unlink"]),
    ("unlink /tmp/sock", Moderate, &["fs.delete_temp"]),
    ("shred -u secret.txt", Destructive, &["fs.shred"]),
    ("shred /dev/sda", Forbidden, &["disk.root_device"]),
    ("truncate -s 0 app.log", Destructive, &["fs.truncate"]),
    ("truncate -s0 /tmp/x.log", Moderate, &["fs.delete_temp"]),
    ("find . -name '*.pyc' -delete", Destructive, &["fs.find_delete"]),
    ("find -delete", Destructive, &["fs.find_delete"]),
    ("find /tmp/x -mtime +3 -delete", Moderate, &["fs.delete_temp"]),
    ("find target -name '*.d' -delete", Moderate, &["fs.delete_build"]),
    ("find . -name '*.rs'", Safe, &[]),
    ("find . -name -delete -print", Safe, &[]),
    ("find -L . -type f", Safe, &[]),
    // Writing onto files.
    ("cp a b", Moderate, &["fs.write"]),
    ("cp x ~/.bashrc", Destructive, &["fs.write_protected"]),
    ("cp .bashrc ~", Destructive, &["fs.write_protected"]),
    ("cp -t /etc x.conf", Destructive, &["fs.write_protected"]),
    ("cp --target-directory=/etc x", Destructive, &["fs.write_protected"]),
    ("mv a /etc/passwd", Destructive, &["fs.write_protected"]),
    ("mv ~/.ssh/id_rsa /tmp/k", Destructive, &["fs.write_protected"]),
    ("mv dir ../elsewhere", Moderate, &["fs.write"]),
    ("mv old.txt new.txt", Moderate, &["fs.write"]),
    ("ln -sf /tmp/evil ~/.profile", Destructive, &["fs.write_protected"]),
    ("ln -s ../lib lib", Moderate, &["fs.write"]),
    ("install -m 755 tool /usr/local/bin/", Destructive, &["fs.write_protected"]),
    ("install -d build/out", Moderate, &["fs.write"]),
    ("cp x .git/hooks/pre-commit", Destructive, &["fs.write_protected"]),
    ("tee ~/.ssh/authorized_keys", Destructive, &["fs.write_protected"]),
    ("tee -a log.txt", Moderate, &["fs.write"]),
    ("tee /dev/null", Safe, &[]),
    ("rsync -a src/ dest/", Moderate, &["fs.write"]),
    ("rsync -a --delete src/ dest/", Destructive, &["fs.rsync_delete"]),
    ("rsync --del src/ dest/", Destructive, &["fs.rsync_delete"]),
    ("rsync -an --delete src/ dest/", Safe, &[]),
    ("rsync --delete --dry-run src/ dest/", Safe, &[]),
    ("scp file.txt host:/tmp/", Moderate, &["fs.write"]),
    ("scp host:key ~/.ssh/authorized_keys", Destructive, &["fs.write_protected"]),
    ("scp config.conf user@host:/etc/", Destructive, &["fs.write_protected"]),
    ("scp -r ./data user@host:/", Destructive, &["fs.write_protected"]),
    ("scp key.pub host:.ssh/authorized_keys", Destructive, &["fs.write_protected"]),
    ("scp a.txt host:docs/", Moderate, &["fs.write"]),
    ("ssh-keygen -f ~/.ssh/known_hosts -R 10.0.0.1", Destructive, &["fs.write_protected"]),
    ("ssh-keygen -lf ~/.ssh/id_rsa.pub", Safe, &[]),
    ("ssh-keygen -t ed25519 -f /tmp/k", Moderate, &["fs.write"]),
    // Owners and permissions.
    ("chmod +x run.sh", Moderate, &["fs.perms"]),
    ("chmod -R 755 /home/u/repo", Moderate, &["fs.perms"]),
    ("chmod 600 ~/.ssh/id_rsa", Moderate, &["fs.perms"]),
    ("chmod -w notes.txt", Moderate, &["fs.perms"]),
    ("chmod 777 x", Destructive, &["fs.perms", "fs.world_writable"]),
    ("chmod -R o+w src", Destructive, &["fs.perms", "fs.world_writable"]),
    ("chmod 0777 /etc", Destructive, &["fs.perms_system", "fs.world_writable"]),
    ("chmod --recursive 755 /etc", Forbidden, &["fs.perms_wide"]),
    ("chmod -R 700 ~", Forbidden, &["fs.perms_wide"]),
    ("chown -R u:u /", Forbidden, &["fs.perms_wide"]),
    ("chown root /etc/shadow", Destructive, &["fs.perms_system"]),
    ("chown -R u:u build", Moderate, &["fs.perms"]),
    ("chgrp staff notes.txt", Moderate, &["fs.perms"]),
];

#[test]
fn table() {
    let mut failed = Vec::new();
    for (line, level, ids) in CASES {
        let a = shell(line, &CTX);
        let got: Vec<&str> = a.findings.iter().map(|f| f.id).collect();
        if (a.level, got.as_slice()) != (*level, *ids) {
            failed.push(format!(
                "{line:?}: got {:?} {got:?}, want {level:?} {ids:?}",
                a.level
            ));
        }
    }
    assert!(
        failed.is_empty(),
        "{} cases failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

#[test]
fn world_writable_modes() {
    let cases: &[(&str, bool)] = &[
        ("777", true),
        ("0666", true),
        ("1777", true),
        ("755", false),
        ("0644", false),
        ("o+w", true),
        ("a=rwx", true),
        ("go+rw", true),
        ("u+w,o-w", false),
        ("+w", false),
        ("a-w", false),
    ];
    for (mode, want) in cases {
        assert_eq!(world_writable(mode), *want, "{mode}");
    }
}

#[test]
fn tmpdir_naming() {
    assert!(!names_tmpdir("rm -rf $TMPDIR/x ${TMPDIR}/y"));
    assert!(names_tmpdir("TMPDIR=/x rm -rf $TMPDIR/y"));
    assert!(names_tmpdir("read TMPDIR; rm -rf $TMPDIR"));
}
