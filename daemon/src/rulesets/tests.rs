use super::*;
use std::path::Path;

fn me() -> read::As {
    read::As {
        uid: nix::unistd::geteuid().as_raw(),
        gid: nix::unistd::getegid().as_raw(),
        groups: Default::default(),
        named: Vec::new(),
    }
}

fn text(path: &Path) -> String {
    path.to_str().expect("utf-8").to_owned()
}

/// A home with a secret and a project outside it, and a door's key for a line in the project.
struct Machine {
    _dir: tempfile::TempDir,
    home: PathBuf,
    repo: PathBuf,
}

impl Machine {
    fn new() -> Machine {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("real");
        let home = root.join("home");
        let repo = root.join("work/repo");
        for d in [home.join(".ssh"), home.join(".config"), repo.clone()] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        std::fs::write(home.join(".ssh/id_ed25519"), "key").expect("write");
        Machine {
            _dir: dir,
            home,
            repo,
        }
    }

    fn key(&self, hide: &[&str]) -> Key {
        Key {
            uid: me().uid,
            gid: 0,
            groups: Vec::new(),
            confine: Confinement {
                project: Some(text(&self.repo)),
                hide: hide.iter().map(|h| text(&self.home.join(h))).collect(),
                home: Some(text(&self.home)),
                ..Confinement::default()
            },
            approved: false,
        }
    }
}

fn confines() -> bool {
    crate::landlock::confines()
}

/// Plans `key` until it is kept and takes a ruleset: the machine's temporary directory is the
/// project's parent, and other tests make entries there, each dropping the plan (as it must).
fn plan_and_take(kept: &Rulesets, key: &Key) -> Option<OwnedFd> {
    (0..100).find_map(|_| {
        kept.fill(key.clone(), &me());
        kept.take(key)
    })
}

#[test]
fn a_confinement_is_kept_once_planned_and_each_door_gets_a_ruleset_of_its_own() {
    if !confines() {
        return;
    }
    let machine = Machine::new();
    let key = machine.key(&[".ssh", ".config/gh/hosts.yml"]);
    let kept = Rulesets::new(1024);
    assert!(kept.take(&key).is_none(), "nothing is kept before a plan");
    assert!(
        !kept.refill(&key),
        "an unknown confinement is planned, not refilled"
    );
    let first = plan_and_take(&kept, &key).expect("kept after the plan");
    // The spare went with the first door: none is handed out twice, and none is made while
    // a door waits.
    assert!(kept.take(&key).is_none(), "a ruleset is handed out once");
    let second = (0..100)
        .find_map(|_| {
            if !kept.refill(&key) {
                kept.fill(key.clone(), &me());
            }
            kept.take(&key)
        })
        .expect("made ready again");
    assert_ne!(
        std::os::fd::AsRawFd::as_raw_fd(&first),
        std::os::fd::AsRawFd::as_raw_fd(&second)
    );
    assert!(kept.counts().handed >= 2);
    // Another requester, or the same line approved by a person, is another plan.
    let other = Key {
        uid: key.uid + 1,
        ..key.clone()
    };
    assert!(kept.take(&other).is_none());
    let approved = Key {
        approved: true,
        ..key.clone()
    };
    assert!(kept.take(&approved).is_none());
    // The same requester with other groups (a session from before it joined one) may see other
    // files: another plan too.
    let grouped = Key {
        groups: vec![4242],
        ..key.clone()
    };
    assert!(kept.take(&grouped).is_none());
}

#[test]
fn a_change_where_the_plan_looked_drops_it_and_a_change_inside_a_granted_place_does_not() {
    if !confines() {
        return;
    }
    let machine = Machine::new();
    let key = machine.key(&[".ssh", ".config/gh/hosts.yml", ".aws"]);
    let kept = Rulesets::new(1024);
    assert!(plan_and_take(&kept, &key).is_some());
    // Inside the project (granted whole) and inside a directory granted whole: no plan changes.
    std::fs::write(machine.repo.join("cleanup.sh"), "true").expect("write");
    std::fs::create_dir_all(machine.repo.join("target/debug")).expect("mkdir");
    let still = (0..100).any(|_| {
        std::fs::write(machine.repo.join("cleanup.sh"), "true").expect("write");
        std::fs::create_dir_all(machine.repo.join("target/debug")).expect("mkdir");
        (kept.refill(&key) && kept.take(&key).is_some()) || {
            plan_and_take(&kept, &key);
            false
        }
    });
    assert!(still, "a write in the project keeps the plan");

    // Each of these could make a secret readable under the old plan.
    type Change = Box<dyn Fn(&Machine)>;
    let changes: [(&str, Change); 4] = [
        (
            "a secret directory made in the home",
            Box::new(|m| std::fs::create_dir(m.home.join(".aws")).expect("mkdir")),
        ),
        (
            "a directory made on the way to a secret",
            Box::new(|m| std::fs::create_dir(m.home.join(".config/gh")).expect("mkdir")),
        ),
        (
            "a secret renamed away",
            Box::new(|m| {
                std::fs::rename(m.home.join(".ssh"), m.home.join("ssh-old")).expect("rename")
            }),
        ),
        (
            "the project replaced",
            Box::new(|m| {
                std::fs::rename(&m.repo, m.repo.with_extension("old")).expect("rename");
                std::fs::create_dir(&m.repo).expect("mkdir");
            }),
        ),
    ];
    for (what, change) in changes {
        // Kept, with a spare ready, just before the change.
        let ready = (0..100).any(|_| {
            plan_and_take(&kept, &key);
            kept.refill(&key)
        });
        assert!(ready, "{what}: kept before");
        change(&machine);
        assert!(kept.take(&key).is_none(), "{what}: no ruleset after");
        assert!(!kept.refill(&key), "{what}: the plan was dropped");
    }
}

#[test]
fn an_entry_made_beside_a_place_the_plan_walked_through_keeps_it() {
    if !confines() {
        return;
    }
    let machine = Machine::new();
    let key = machine.key(&[".ssh", ".aws"]);
    let kept = Rulesets::new(1024);
    let work = machine.repo.parent().expect("work").to_path_buf();
    // Files come and go beside the project (as in a `/tmp` in use): none of them is a name the
    // plan looked up, so the ruleset made from it is still ready. (The directories on the way
    // to the home are listed, for the secrets in it: a new entry there is granted by a plan
    // made now, so it does drop the plan.)
    let beside = work.join("notes.txt");
    let kept_through = (0..100).any(|_| {
        let ready = plan_and_take(&kept, &key).is_some() && kept.refill(&key);
        std::fs::write(&beside, "x").expect("write");
        std::fs::rename(&beside, work.join("notes.old")).expect("rename");
        std::fs::remove_file(work.join("notes.old")).expect("remove");
        ready && kept.take(&key).is_some()
    });
    assert!(kept_through, "files beside the project dropped the plan");
    // The project's own name, in the same directory, does.
    let ready = (0..100).any(|_| {
        plan_and_take(&kept, &key);
        kept.refill(&key)
    });
    assert!(ready);
    std::fs::rename(&machine.repo, work.join("moved")).expect("rename");
    assert!(
        kept.take(&key).is_none(),
        "the project renamed drops the plan"
    );
}

#[test]
fn a_plan_a_change_dropped_is_made_again_before_its_next_door() {
    if !confines() {
        return;
    }
    let machine = Machine::new();
    let key = machine.key(&[".ssh"]);
    let kept = Rulesets::new(1024);
    assert!(plan_and_take(&kept, &key).is_some(), "used by a door");
    let (instance, _events) = kept.listening().expect("listening once planned");
    // A file made in the home (an editor's, an agent's own): the plan lists the home, so a
    // plan made now would grant the new file; the kept one is dropped...
    let made_again = (0..100).any(|i| {
        let _ = kept.changed(instance);
        kept.refill(&key);
        std::fs::write(machine.home.join(format!(".lesshst{i}")), "x").expect("write");
        let (dropped, current) = kept.changed(instance);
        assert!(current, "the same instance");
        if !dropped.iter().any(|again| again.key == key) {
            return false;
        }
        assert!(kept.take(&key).is_none(), "dropped");
        // ...and made again from what the change handed on, without a door.
        for again in dropped {
            kept.again(again);
        }
        kept.take(&key).is_some()
    });
    assert!(
        made_again,
        "a dropped plan was made again ahead of its door"
    );

    // Made ahead and dropped again before any door took from it: made again at most
    // `MAX_AHEAD` times, then left to the next door.
    let made_ahead = (0..100).find_map(|i| {
        plan_and_take(&kept, &key)?;
        let _ = kept.changed(instance);
        let mut made = 0;
        for round in 0..=MAX_AHEAD {
            let file = machine.home.join(format!(".viminfo{i}-{round}"));
            std::fs::write(file, "x").expect("write");
            let (dropped, _) = kept.changed(instance);
            let Some(again) = dropped.into_iter().find(|again| again.key == key) else {
                return Some(made);
            };
            kept.again(again);
            if !kept.refill(&key) {
                return None; // another change came while it was made: try again
            }
            made += 1;
        }
        Some(made)
    });
    assert_eq!(
        made_ahead,
        Some(MAX_AHEAD),
        "made again ahead with no door between"
    );
}

#[test]
fn plans_made_again_ahead_are_few_a_second() {
    let machine = Machine::new();
    let again = |n: usize| -> Vec<Again> {
        (0..n)
            .map(|i| Again {
                key: machine.key(&[".ssh", &format!(".x{i}")]),
                who: me(),
                used: std::time::Instant::now(),
                ahead: 0,
            })
            .collect()
    };
    let mut ahead = Ahead::default();
    assert_eq!(ahead.admit(again(3)).len(), 3);
    assert_eq!(
        ahead.admit(again(AGAIN_PER_SECOND as usize)).len(),
        AGAIN_PER_SECOND as usize - 3
    );
    assert!(ahead.admit(again(1)).is_empty(), "none more this second");
}

#[test]
fn a_link_along_a_secrets_path_pointed_elsewhere_drops_the_plan() {
    if !confines() {
        return;
    }
    let machine = Machine::new();
    let cfg = machine.home.join(".config");
    for store in ["store-work", "store-personal"] {
        std::fs::create_dir_all(machine.home.join(store)).expect("mkdir");
    }
    std::fs::write(machine.home.join("store-work/hosts.yml"), "t").expect("write");
    // `~/.config/gh` -> `~/.config/current` -> `~/store-work`: the secret's path names `gh`
    // only, and the link in the middle lies beside it.
    std::os::unix::fs::symlink(cfg.join("current"), cfg.join("gh")).expect("ln");
    std::os::unix::fs::symlink(machine.home.join("store-work"), cfg.join("current")).expect("ln");
    let key = machine.key(&[".ssh", ".config/gh/hosts.yml"]);
    let kept = Rulesets::new(1024);
    let ready = (0..100).any(|_| {
        plan_and_take(&kept, &key);
        kept.refill(&key)
    });
    assert!(ready);
    // Pointed at the other store (a new link renamed over the old), where a plan made now
    // would hide `hosts.yml`.
    std::os::unix::fs::symlink(machine.home.join("store-personal"), cfg.join("current.new"))
        .expect("ln");
    std::fs::rename(cfg.join("current.new"), cfg.join("current")).expect("rename");
    assert!(
        kept.take(&key).is_none(),
        "the link pointed elsewhere kept the plan"
    );
}

#[test]
fn kept_plans_stay_within_their_descriptors_dropping_the_least_recently_used() {
    if !confines() {
        return;
    }
    let machine = Machine::new();
    let a = machine.key(&[".ssh"]);
    let b = machine.key(&[".ssh", ".config/x"]);
    // A budget too small for any plan keeps nothing.
    let none = Rulesets::new(3);
    none.fill(a.clone(), &me());
    assert!(none.take(&a).is_none());
    // Room for one plan: the second drops the first.
    let probe = Rulesets::new(1024);
    assert!(plan_and_take(&probe, &a).is_some());
    let one = probe
        .inner
        .lock()
        .expect("lock")
        .entries
        .get(&a)
        .map(|e| e.plan.fds())
        .expect("kept");
    let kept = Rulesets::new(one + one / 2);
    assert!(plan_and_take(&kept, &a).is_some());
    assert!(plan_and_take(&kept, &b).is_some());
    assert!(kept.take(&a).is_none(), "the older plan made room");
}

#[test]
fn a_plan_is_kept_only_with_the_home_the_daemon_knows() {
    if !confines() {
        return;
    }
    let machine = Machine::new();
    let mut key = machine.key(&[".ssh"]);
    key.confine.home = None;
    let kept = Rulesets::new(1024);
    kept.fill(key.clone(), &me());
    assert!(kept.take(&key).is_none());
}
