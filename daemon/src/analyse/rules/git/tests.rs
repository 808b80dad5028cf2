//! git's table: command in, level and finding ids out. Also [`check`], the runner every
//! family's table uses.

use assent_client::protocol::Level::{self, Destructive, Moderate, Opaque, Safe};

use crate::analyse::{Context, shell};

/// A project in a home directory, as the peers' cases assume.
const CTX: Context<'static> = Context {
    cwd: "/home/u/project",
    home: Some("/home/u"),
    truncated: false,
};

/// Runs every case and fails with the whole list of mismatches.
pub(in super::super) fn check(cases: &[(&str, Level, &[&str])]) {
    let mut wrong = Vec::new();
    for (line, level, want) in cases {
        let a = shell(line, &CTX);
        let ids: Vec<&str> = a.findings.iter().map(|f| f.id).collect();
        if a.level != *level || ids != *want {
            wrong.push(format!(
                "{line:?}: {:?} {ids:?}, want {level:?} {want:?}",
                a.level
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[rustfmt::skip]
const CASES: &[(&str, Level, &[&str])] = &[
    // Reading.
    ("git", Safe, &[]),
    ("git --version", Safe, &[]),
    ("git status", Safe, &[]),
    ("git -C repo status", Safe, &[]),
    ("git -Crepo status", Safe, &[]),
    ("git log --oneline -10", Safe, &[]),
    ("git diff HEAD~1", Safe, &[]),
    ("git branch", Safe, &[]),
    ("git branch -a", Safe, &[]),
    ("git branch -v", Safe, &[]),
    ("git stash list", Safe, &[]),
    ("git tag", Safe, &[]),
    ("git remote -v", Safe, &[]),
    ("git config user.name", Safe, &[]),
    ("git config --get user.name", Safe, &[]),
    ("git worktree list", Safe, &[]),
    ("git reflog", Safe, &[]),
    ("git clean -n", Safe, &[]),
    ("git clean --dry-run -d", Safe, &[]),
    ("git restore --help", Safe, &[]),
    ("git reset -h", Safe, &[]),
    ("git help reset", Safe, &[]),
    ("git -- --help", Safe, &[]),
    // Changes git can undo.
    ("git add .", Moderate, &["git.change"]),
    ("git commit -m \"rm -rf /\"", Moderate, &["git.change"]),
    ("git pull --rebase", Moderate, &["git.change"]),
    ("git rebase -i HEAD~3", Moderate, &["git.change"]),
    ("git reset", Moderate, &["git.change"]),
    ("git reset --soft HEAD~1", Moderate, &["git.change"]),
    ("git reset --keep HEAD~1", Moderate, &["git.change"]),
    ("git reset HEAD file.txt", Moderate, &["git.change"]),
    ("git clean -d", Moderate, &["git.change"]),
    ("git checkout main", Moderate, &["git.change"]),
    ("git checkout -", Moderate, &["git.change"]),
    ("git checkout -b new-branch", Moderate, &["git.change"]),
    ("git checkout -bfeature", Moderate, &["git.change"]),
    ("git checkout -qbfeature", Moderate, &["git.change"]),
    ("git checkout --orphan gh-pages", Moderate, &["git.change"]),
    ("git checkout -U3 main", Moderate, &["git.change"]),
    ("git checkout --conflict merge main", Moderate, &["git.change"]),
    ("git checkout --track direct main", Moderate, &["git.change"]),
    ("git checkout --recurse-submodules on-demand main", Moderate, &["git.change"]),
    ("git checkout --unknown=value main", Moderate, &["git.change"]),
    ("git checkout -b test git reset git checkout -b t2", Moderate, &["git.change"]),
    ("git switch main", Moderate, &["git.change"]),
    ("git switch -cfeature", Moderate, &["git.change"]),
    ("git switch -- -f", Moderate, &["git.change"]),
    ("git restore --staged file.txt", Moderate, &["git.change"]),
    ("git restore -S .", Moderate, &["git.change"]),
    ("git rm --cached -r build", Moderate, &["git.change"]),
    ("git rm -rf --cached build", Moderate, &["git.change"]),
    ("git rm notes.txt", Moderate, &["git.change"]),
    ("git branch feature", Moderate, &["git.change"]),
    ("git branch -d merged", Moderate, &["git.change"]),
    ("git stash", Moderate, &["git.change"]),
    ("git stash pop", Moderate, &["git.change"]),
    ("git worktree remove /tmp/wt", Moderate, &["git.change"]),
    ("git worktree remove -- -f", Moderate, &["git.change"]),
    ("git gc", Moderate, &["git.change"]),
    ("git gc --prune=2.weeks.ago", Moderate, &["git.change"]),
    ("git tag v1.0.0", Moderate, &["git.change"]),
    ("git config user.name me", Moderate, &["git.change"]),
    ("git remote add origin url", Moderate, &["git.change"]),
    ("git frobnicate", Moderate, &["git.change"]),
    ("git update-ref refs/heads/x HEAD", Moderate, &["git.change"]),
    ("git filter-repo --analyze", Safe, &[]),
    // Publishing.
    ("git push", Moderate, &["git.push"]),
    ("git push -u origin feature", Moderate, &["git.push"]),
    ("git push --force-if-includes", Moderate, &["git.push"]),
    ("git push -f", Destructive, &["git.push_force"]),
    ("git push -uf origin x", Destructive, &["git.push_force"]),
    ("git push origin main --force", Destructive, &["git.push_force"]),
    ("git push --force=true origin main", Destructive, &["git.push_force"]),
    ("git push --force-with-lease", Destructive, &["git.push_force"]),
    ("git push origin +main", Destructive, &["git.push_force"]),
    ("git push origin :old", Destructive, &["git.push_force"]),
    ("git push --delete origin old", Destructive, &["git.push_force"]),
    ("git push --mirror backup", Destructive, &["git.push_force"]),
    ("git push --prune origin", Destructive, &["git.push_force"]),
    // Losing work or history.
    ("git reset --hard", Destructive, &["git.reset_hard"]),
    ("git reset -q --hard HEAD~1", Destructive, &["git.reset_hard"]),
    ("git reset --merge", Destructive, &["git.reset_hard"]),
    ("git -C repo reset --hard", Destructive, &["git.reset_hard"]),
    ("git -Crepo reset --hard", Destructive, &["git.reset_hard"]),
    ("git --git-dir=repo/.git reset --hard", Destructive, &["git.reset_hard"]),
    ("git --git-dir repo/.git reset --hard", Destructive, &["git.reset_hard"]),
    ("git --work-tree=repo reset --hard", Destructive, &["git.reset_hard"]),
    ("git --no-pager reset --hard", Destructive, &["git.reset_hard"]),
    ("git -c foo=bar reset --hard", Destructive, &["git.reset_hard"]),
    ("git -cfoo=bar reset --hard", Destructive, &["git.reset_hard"]),
    ("git -- reset --hard", Destructive, &["git.reset_hard"]),
    ("GIT_DIR=x git reset --hard", Destructive, &["git.reset_hard"]),
    ("git clean -f", Destructive, &["git.clean"]),
    ("git clean --force", Destructive, &["git.clean"]),
    ("git clean -fdx", Destructive, &["git.clean"]),
    ("git clean -xdf", Destructive, &["git.clean"]),
    ("git clean -nf", Destructive, &["git.clean"]),
    ("git clean -e keep -f", Destructive, &["git.clean"]),
    ("git clean -ef", Moderate, &["git.change"]),
    ("git checkout -- file.txt", Destructive, &["git.discard"]),
    ("git checkout -- .", Destructive, &["git.discard"]),
    ("git checkout -- -f", Destructive, &["git.discard"]),
    ("git checkout .", Destructive, &["git.discard"]),
    ("git checkout ./src", Destructive, &["git.discard"]),
    ("git checkout HEAD -- file.txt", Destructive, &["git.discard"]),
    ("git checkout HEAD file.txt", Destructive, &["git.discard"]),
    ("git checkout main a.txt b.txt", Destructive, &["git.discard"]),
    ("git checkout HEAD --pathspec-from-file=paths.txt", Destructive, &["git.discard"]),
    ("git checkout HEAD --pathspec-from-file paths.txt", Destructive, &["git.discard"]),
    ("git checkout --track main file.txt", Destructive, &["git.discard"]),
    ("git checkout --recurse-submodules main file.txt", Destructive, &["git.discard"]),
    ("git checkout --unknown main file.txt", Destructive, &["git.discard"]),
    ("git checkout --force main", Destructive, &["git.discard"]),
    ("git checkout -qf main", Destructive, &["git.discard"]),
    ("git checkout -tf main", Destructive, &["git.discard"]),
    ("git checkout -f -b new-branch", Destructive, &["git.discard"]),
    ("git checkout '*.rs'", Moderate, &["git.change"]),
    ("git checkout *.rs", Destructive, &["git.discard"]),
    ("git switch --discard-changes main", Destructive, &["git.discard"]),
    ("git switch -qf main", Destructive, &["git.discard"]),
    ("git -C repo switch -f main", Destructive, &["git.discard"]),
    ("git restore file.txt", Destructive, &["git.discard"]),
    ("git restore .", Destructive, &["git.discard"]),
    ("git restore -W file.txt", Destructive, &["git.discard"]),
    ("git restore --staged --worktree file.txt", Destructive, &["git.discard"]),
    ("git restore --source=HEAD~2 file.txt", Destructive, &["git.discard"]),
    ("git rm -f notes.txt", Destructive, &["git.discard"]),
    ("git branch -D feature", Destructive, &["git.branch_force"]),
    ("git branch -Dv feature", Destructive, &["git.branch_force"]),
    ("git branch --delete --force feature", Destructive, &["git.branch_force"]),
    ("git branch -f feature", Destructive, &["git.branch_force"]),
    ("git branch -M main", Destructive, &["git.branch_force"]),
    ("git stash drop", Destructive, &["git.stash_drop"]),
    ("git stash drop stash@{0}", Destructive, &["git.stash_drop"]),
    ("git stash clear", Destructive, &["git.stash_drop"]),
    ("git worktree remove --force /tmp/wt", Destructive, &["git.worktree_force"]),
    ("git worktree remove -f /tmp/wt", Destructive, &["git.worktree_force"]),
    ("git filter-branch --tree-filter 'rm x' HEAD", Destructive, &["git.rewrite"]),
    ("git filter-repo --path secrets --invert-paths", Destructive, &["git.rewrite"]),
    ("git reflog expire --expire=now --all", Destructive, &["git.prune"]),
    ("git reflog delete HEAD@{1}", Destructive, &["git.prune"]),
    ("git gc --prune=now", Destructive, &["git.prune"]),
    ("git prune", Destructive, &["git.prune"]),
    ("git prune -n", Safe, &[]),
    ("git update-ref -d refs/heads/x", Destructive, &["git.ref_delete"]),
    ("git $sub", Opaque, &["opaque.dynamic_command"]),
];

#[test]
fn git_table() {
    check(CASES);
}
