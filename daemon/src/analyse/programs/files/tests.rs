//! Table tests for the file rules: command in, level and finding ids out.

use assent_client::protocol::Level::{self, Destructive, Forbidden, Moderate, Safe};

use super::modes::{Grant, acl_grant, mode_grant};
use crate::analyse::{Surroundings, shell};

const CTX: Surroundings<'static> = Surroundings {
    cwd: "/home/u/repo",
    home: Some("/home/u"),
    project: Some("/home/u/repo"),
    truncated: false,
};

#[rustfmt::skip]
pub(crate) const CASES: &[(&str, Level, &[&str])] = &[
    // rm: by what is named.
    ("rm notes.txt", Destructive, &["delete.project"]),
    ("rm -f a.o", Moderate, &["delete.build"]),
    ("rm -rf src", Destructive, &["delete.project"]),
    ("rm -rf ./*", Destructive, &["delete.project"]),
    ("rm -rf *", Destructive, &["delete.project"]),
    ("rm -rf /some/path", Destructive, &["delete.data"]),
    ("rm -rf \"$x\"", Destructive, &["delete.unknown"]),
    ("rm -rf", Destructive, &["delete.unknown"]),
    ("rm -rf /tmp/../etc/x", Destructive, &["delete.protected"]),
    ("rm -rf /tmp/a /etc/passwd", Destructive, &["delete.temp", "delete.protected"]),
    ("rm --help", Safe, &[]),
    // Scratch space and build output.
    ("rm -rf /tmp/x", Moderate, &["delete.temp"]),
    ("rm -rf /tmp/*", Moderate, &["delete.temp"]),
    ("rm -rf /tmp", Moderate, &["delete.temp"]),
    ("rm -f /var/tmp/a /dev/shm/b", Moderate, &["delete.temp"]),
    ("rm -rf $TMPDIR/x", Moderate, &["delete.temp"]),
    ("rm -rf \"${TMPDIR}/x\"", Moderate, &["delete.temp"]),
    ("rm -rf ${TMPDIR:-/tmp}/build", Moderate, &["delete.temp"]),
    ("rm -rf $TMPDIR/../etc", Forbidden, &["delete.system"]),
    ("rm -rf $TMPDIR/$x", Destructive, &["delete.unknown"]),
    ("TMPDIR=/home/u rm -rf $TMPDIR/x", Destructive, &["delete.unknown"]),
    ("export TMPDIR=/x; rm -rf \"$TMPDIR\"", Destructive, &["delete.data"]),
    ("rm -rf target", Moderate, &["delete.build"]),
    ("rm -rf ./node_modules dist/", Moderate, &["delete.build"]),
    ("rm -rf target/debug/*", Moderate, &["delete.build"]),
    ("rm -rf src/__pycache__ .pytest_cache", Moderate, &["delete.build"]),
    ("rm -rf /tmp/x build", Moderate, &["delete.temp", "delete.build"]),
    ("rm -rf ../other/target", Destructive, &["delete.data"]),
    ("rm -rf build src", Destructive, &["delete.build", "delete.project"]),
    // Forbidden.
    ("rm -rf /", Forbidden, &["delete.root"]),
    ("rm -rf ~", Forbidden, &["delete.home"]),
    ("rm ~/*", Forbidden, &["delete.home"]),
    ("rm -rf ..", Forbidden, &["delete.home"]),
    ("rm -rf /home/other", Forbidden, &["delete.home"]),
    ("rm -rf /etc", Forbidden, &["delete.system"]),
    ("rm -rf /usr/*", Forbidden, &["delete.system"]),
    ("rm -r /var/log", Forbidden, &["delete.system"]),
    ("rm /etc", Destructive, &["delete.protected"]),
    ("rm --no-preserve-root -rf /x", Forbidden, &["delete.root", "delete.data"]),
    // Other deletes.
    ("rmdir empty", Moderate, &["change.project"]),
    ("unlink a.txt", Destructive, &["delete.project"]),
    ("unlink /tmp/sock", Moderate, &["delete.temp"]),
    ("shred -u secret.txt", Destructive, &["delete.project"]),
    ("shred /dev/sda", Forbidden, &["erase.device"]),
    ("truncate -s 0 app.log", Destructive, &["erase.project"]),
    ("truncate -s0 /tmp/x.log", Moderate, &["erase.temp"]),
    ("find . -name '*.pyc' -delete", Moderate, &["delete.build"]),
    ("find -delete", Destructive, &["delete.project"]),
    ("find /tmp/x -mtime +3 -delete", Moderate, &["delete.temp"]),
    ("find target -name '*.d' -delete", Moderate, &["delete.build"]),
    ("find . -name '*.rs'", Safe, &[]),
    ("find . -name -delete -print", Safe, &[]),
    ("find -L . -type f", Safe, &[]),
    // Writing onto files.
    ("cp a b", Moderate, &["overwrite.project", "write.project"]),
    ("cp x ~/.bashrc", Forbidden, &["overwrite.gate", "write.data"]),
    ("cp .bashrc ~", Forbidden, &["overwrite.data", "write.gate"]),
    ("cp -t /etc x.conf", Destructive, &["write.protected"]),
    ("cp --target-directory=/etc x", Destructive, &["write.protected"]),
    ("mv a /etc/passwd", Destructive, &["move.project", "overwrite.protected", "write.protected"]),
    ("mv ~/.ssh/id_rsa /tmp/k", Destructive, &["move.secret", "overwrite.temp", "write.secret"]),
    ("mv dir ../elsewhere", Destructive, &["move.project", "overwrite.data", "write.data"]),
    ("mv old.txt new.txt", Moderate, &["move.project", "overwrite.project", "write.project"]),
    ("ln -sf /tmp/evil ~/.profile", Forbidden, &["overwrite.gate", "write.data"]),
    ("ln -s ../lib lib", Moderate, &["overwrite.project", "write.project"]),
    ("install -m 755 tool /usr/local/bin/", Destructive, &["write.protected"]),
    ("install -d build/out", Moderate, &["write.build"]),
    ("cp x .git/hooks/pre-commit", Destructive, &["overwrite.protected", "write.protected"]),
    ("tee ~/.ssh/authorized_keys", Destructive, &["overwrite.protected"]),
    ("tee -a log.txt", Moderate, &["write.project"]),
    ("tee /dev/null", Safe, &[]),
    ("rsync -a src/ dest/", Moderate, &["write.project"]),
    ("rsync -a --delete src/ dest/", Destructive, &["write.project", "delete.project"]),
    ("rsync --del src/ dest/", Destructive, &["write.project", "delete.project"]),
    ("rsync -an --delete src/ dest/", Safe, &[]),
    ("rsync --delete --dry-run src/ dest/", Safe, &[]),
    ("scp file.txt host:/tmp/", Moderate, &["write.temp", "send.remote"]),
    ("scp host:key ~/.ssh/authorized_keys", Destructive, &["overwrite.secret", "overwrite.protected"]),
    ("scp config.conf user@host:/etc/", Destructive, &["write.protected", "send.remote"]),
    ("scp -r ./data user@host:/", Destructive, &["write.root", "write.protected", "send.remote"]),
    ("scp key.pub host:.ssh/authorized_keys", Destructive, &["overwrite.protected", "send.remote"]),
    ("scp a.txt host:docs/", Moderate, &["write.data", "send.remote"]),
    ("ssh-keygen -f ~/.ssh/known_hosts -R 10.0.0.1", Destructive, &["overwrite.protected"]),
    ("ssh-keygen -lf ~/.ssh/id_rsa.pub", Safe, &[]),
    ("ssh-keygen -t ed25519 -f /tmp/k", Moderate, &["overwrite.temp"]),
    // Owners and permissions.
    ("chmod +x run.sh", Moderate, &["perms.project"]),
    ("chmod -R 755 /home/u/repo", Moderate, &["perms.project"]),
    ("chmod 600 ~/.ssh/id_rsa", Moderate, &["perms.secret"]),
    ("chmod -w notes.txt", Moderate, &["perms.project"]),
    ("chmod 777 x", Destructive, &["expose.project"]),
    ("chmod -R o+w src", Destructive, &["expose.project"]),
    ("chmod 0777 /etc", Destructive, &["expose.protected"]),
    ("chmod --recursive 755 /etc", Forbidden, &["expose.secret", "perms.system"]),
    // Read for others on a secret or a home, and setuid or setgid bits, expose.
    ("chmod 644 ~/.ssh/id_ed25519", Destructive, &["expose.secret", "perms.secret"]),
    ("chmod o+r ~/.aws/credentials", Destructive, &["expose.secret", "perms.secret"]),
    ("chmod g+r .env", Destructive, &["expose.secret", "perms.secret"]),
    ("chmod 755 /home/u", Destructive, &["expose.secret", "perms.data"]),
    ("chmod u+s /tmp/x", Destructive, &["expose.protected", "perms.temp"]),
    ("chmod 4755 bin/tool", Destructive, &["expose.protected", "perms.project"]),
    ("install -m 4755 /bin/sh /tmp/s", Destructive, &["expose.protected", "overwrite.temp", "write.temp"]),
    ("setfacl -m o::r ~/.ssh/id_rsa", Destructive, &["expose.secret", "perms.secret"]),
    ("setfacl -R -m u:nobody:rx ~", Forbidden, &["expose.secret", "perms.home"]),
    ("setfacl --set=u::rw,o::rw notes.txt", Destructive, &["expose.project"]),
    // The same modes on the project, and modes that take away, are permission changes.
    ("chmod 644 README.md", Moderate, &["perms.project"]),
    ("chmod -R 755 dist", Moderate, &["perms.build"]),
    ("chmod go-rwx ~/.gnupg", Moderate, &["perms.secret"]),
    ("setfacl -m u:www-data:rx public", Moderate, &["perms.project"]),
    ("chattr +i ~/.ssh/id_rsa", Moderate, &["perms.secret"]),
    ("chmod -R 700 ~", Forbidden, &["perms.home"]),
    ("chown -R u:u /", Forbidden, &["perms.root"]),
    ("chown root /etc/shadow", Destructive, &["perms.protected"]),
    ("chown -R u:u build", Moderate, &["perms.build"]),
    ("chgrp staff notes.txt", Moderate, &["perms.project"]),
    // Line state: what moves, copies and links on the line put where.
    ("mv ~/.ssh /tmp/k && rm -rf /tmp/k", Destructive, &["move.secret", "move.protected", "overwrite.temp", "write.temp", "delete.secret", "delete.protected"]),
    ("cp -r ~/.ssh /tmp/k && rm -rf /tmp/k", Destructive, &["read.secret", "overwrite.temp", "write.temp", "delete.temp"]),
    ("cp ~/.aws/credentials /tmp/c; cat /tmp/c", Destructive, &["read.secret", "overwrite.temp", "write.temp", "read.secret"]),
    ("ln -s ~ /tmp/l; rm -rf /tmp/l/..", Forbidden, &["overwrite.temp", "write.temp", "delete.system"]),
    ("ln -s /etc x; cat x/../etc/shadow", Destructive, &["overwrite.project", "write.project", "read.secret"]),
    ("mkdir -p /tmp/a; rm -rf /tmp/a/..", Moderate, &["write.temp", "delete.temp"]),
    ("cp -al ~/proj /tmp/p; rm -rf /tmp/p", Destructive, &["overwrite.temp", "write.temp", "delete.data"]),
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

/// Modes: (everyone writes, group or others read, setuid or setgid).
#[test]
fn what_modes_grant() {
    let cases: &[(&str, (bool, bool, bool))] = &[
        ("777", (true, true, false)),
        ("0666", (true, true, false)),
        ("1777", (true, true, false)),
        ("755", (false, true, false)),
        ("0644", (false, true, false)),
        ("640", (false, true, false)),
        ("600", (false, false, false)),
        ("0700", (false, false, false)),
        ("4755", (false, true, true)),
        ("2700", (false, false, true)),
        ("4", (false, true, false)),
        ("o+w", (true, false, false)),
        ("a=rwx", (true, true, false)),
        ("go+rw", (true, true, false)),
        ("u+w,o-w", (false, false, false)),
        ("+w", (false, false, false)),
        ("a-w", (false, false, false)),
        ("o+r", (false, true, false)),
        ("g+rw,o+r", (false, true, false)),
        ("go-rwx", (false, false, false)),
        ("+r", (false, true, false)),
        ("u+r", (false, false, false)),
        ("u+s", (false, false, true)),
        ("+s", (false, false, true)),
        ("o+s", (false, false, false)),
        ("u-s", (false, false, false)),
        ("u=rwx,go=rx", (false, true, false)),
        ("go-w+r", (false, true, false)),
        ("+x", (false, false, false)),
    ];
    for (mode, (w, r, s)) in cases {
        let want = Grant {
            others_write: *w,
            others_read: *r,
            setid: *s,
        };
        assert_eq!(mode_grant(mode), want, "{mode}");
    }
}

/// ACL entries: (everyone writes, someone but the owner gets access).
#[test]
fn what_acls_grant() {
    let cases: &[(&str, (bool, bool))] = &[
        ("o::r", (false, true)),
        ("other:rw", (true, true)),
        ("o::---", (false, false)),
        ("u:nobody:rwx", (false, true)),
        ("g:users:r", (false, true)),
        ("u::rwx", (false, false)),
        ("user::rw", (false, false)),
        ("m::rwx", (false, false)),
        ("d:o:r", (false, true)),
        ("u::rw,o::r", (false, true)),
        ("u:www-data:---", (false, false)),
    ];
    for (acl, (w, r)) in cases {
        let got = acl_grant(acl);
        assert_eq!((got.others_write, got.others_read), (*w, *r), "{acl}");
    }
}
