//! git's table: command in, level and finding ids out. Also [`check`], the runner every
//! family's table uses.

use assent_client::protocol::Level::{self, Destructive, Moderate, Opaque, Safe};

use crate::analyse::{Surroundings, shell};

/// A project in a home directory, as the peers' cases assume.
const CTX: Surroundings<'static> = Surroundings {
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
pub(crate) const CASES: &[(&str, Level, &[&str])] = &[
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
    ("git add .", Moderate, &["write.history"]),
    ("git commit -m \"rm -rf /\"", Moderate, &["write.history"]),
    ("git pull --rebase", Moderate, &["write.history"]),
    ("git rebase -i HEAD~3", Moderate, &["write.history"]),
    ("git reset", Moderate, &["write.history"]),
    ("git reset --soft HEAD~1", Moderate, &["write.history"]),
    ("git reset --keep HEAD~1", Moderate, &["write.history"]),
    ("git reset HEAD file.txt", Moderate, &["write.history"]),
    ("git clean -d", Moderate, &["write.history"]),
    ("git checkout main", Moderate, &["write.history"]),
    ("git checkout -", Moderate, &["write.history"]),
    ("git checkout -b new-branch", Moderate, &["write.history"]),
    ("git checkout -bfeature", Moderate, &["write.history"]),
    ("git checkout -qbfeature", Moderate, &["write.history"]),
    ("git checkout --orphan gh-pages", Moderate, &["write.history"]),
    ("git checkout -U3 main", Moderate, &["write.history"]),
    ("git checkout --conflict merge main", Moderate, &["write.history"]),
    ("git checkout --track direct main", Moderate, &["write.history"]),
    ("git checkout --recurse-submodules on-demand main", Moderate, &["write.history"]),
    ("git checkout --unknown=value main", Moderate, &["write.history"]),
    ("git checkout -b test git reset git checkout -b t2", Moderate, &["write.history"]),
    ("git switch main", Moderate, &["write.history"]),
    ("git switch -cfeature", Moderate, &["write.history"]),
    ("git switch -- -f", Moderate, &["write.history"]),
    ("git restore --staged file.txt", Moderate, &["write.history"]),
    ("git restore -S .", Moderate, &["write.history"]),
    ("git rm --cached -r build", Moderate, &["write.history"]),
    ("git rm -rf --cached build", Moderate, &["write.history"]),
    ("git rm notes.txt", Moderate, &["write.history"]),
    ("git branch feature", Moderate, &["write.history"]),
    ("git branch -d merged", Moderate, &["write.history"]),
    ("git stash", Moderate, &["write.history"]),
    ("git stash pop", Moderate, &["write.history"]),
    ("git worktree remove /tmp/wt", Moderate, &["write.history"]),
    ("git worktree remove -- -f", Moderate, &["write.history"]),
    ("git gc", Moderate, &["write.history"]),
    ("git gc --prune=2.weeks.ago", Moderate, &["write.history"]),
    ("git tag v1.0.0", Moderate, &["write.history"]),
    ("git config user.name me", Moderate, &["write.history"]),
    ("git remote add origin url", Moderate, &["write.history"]),
    ("git frobnicate", Moderate, &["write.history"]),
    ("git update-ref refs/heads/x HEAD", Moderate, &["write.history"]),
    ("git filter-repo --analyze", Safe, &[]),
    // Publishing.
    ("git push", Moderate, &["publish.remote"]),
    ("git push -u origin feature", Moderate, &["publish.remote"]),
    ("git push --force-if-includes", Moderate, &["publish.remote"]),
    ("git push -f", Destructive, &["overwrite.remote"]),
    ("git push -uf origin x", Destructive, &["overwrite.remote"]),
    ("git push origin main --force", Destructive, &["overwrite.remote"]),
    ("git push --force=true origin main", Destructive, &["overwrite.remote"]),
    ("git push --force-with-lease", Destructive, &["overwrite.remote"]),
    ("git push origin +main", Destructive, &["overwrite.remote"]),
    ("git push origin :old", Destructive, &["delete.remote"]),
    ("git push --delete origin old", Destructive, &["delete.remote"]),
    ("git push --mirror backup", Destructive, &["overwrite.remote"]),
    ("git push --prune origin", Destructive, &["delete.remote"]),
    // Losing work or history.
    ("git reset --hard", Destructive, &["delete.changes"]),
    ("git reset -q --hard HEAD~1", Destructive, &["delete.changes"]),
    ("git reset --merge", Destructive, &["delete.changes"]),
    ("git -C repo reset --hard", Destructive, &["delete.changes"]),
    ("git -Crepo reset --hard", Destructive, &["delete.changes"]),
    ("git --git-dir=repo/.git reset --hard", Destructive, &["delete.changes"]),
    ("git --git-dir repo/.git reset --hard", Destructive, &["delete.changes"]),
    ("git --work-tree=repo reset --hard", Destructive, &["delete.changes"]),
    ("git --no-pager reset --hard", Destructive, &["delete.changes"]),
    ("git -c foo=bar reset --hard", Destructive, &["delete.changes"]),
    ("git -cfoo=bar reset --hard", Destructive, &["delete.changes"]),
    ("git -- reset --hard", Destructive, &["delete.changes"]),
    ("GIT_DIR=x git reset --hard", Destructive, &["delete.changes"]),
    ("git clean -f", Destructive, &["delete.changes"]),
    ("git clean --force", Destructive, &["delete.changes"]),
    ("git clean -fdx", Destructive, &["delete.changes"]),
    ("git clean -xdf", Destructive, &["delete.changes"]),
    ("git clean -nf", Destructive, &["delete.changes"]),
    ("git clean -e keep -f", Destructive, &["delete.changes"]),
    ("git clean -ef", Moderate, &["write.history"]),
    ("git checkout -- file.txt", Destructive, &["delete.changes"]),
    ("git checkout -- .", Destructive, &["delete.changes"]),
    ("git checkout -- -f", Destructive, &["delete.changes"]),
    ("git checkout .", Destructive, &["delete.changes"]),
    ("git checkout ./src", Destructive, &["delete.changes"]),
    ("git checkout HEAD -- file.txt", Destructive, &["delete.changes"]),
    ("git checkout HEAD file.txt", Destructive, &["delete.changes"]),
    ("git checkout main a.txt b.txt", Destructive, &["delete.changes"]),
    ("git checkout HEAD --pathspec-from-file=paths.txt", Destructive, &["delete.changes"]),
    ("git checkout HEAD --pathspec-from-file paths.txt", Destructive, &["delete.changes"]),
    ("git checkout --track main file.txt", Destructive, &["delete.changes"]),
    ("git checkout --recurse-submodules main file.txt", Destructive, &["delete.changes"]),
    ("git checkout --unknown main file.txt", Destructive, &["delete.changes"]),
    ("git checkout --force main", Destructive, &["delete.changes"]),
    ("git checkout -qf main", Destructive, &["delete.changes"]),
    ("git checkout -tf main", Destructive, &["delete.changes"]),
    ("git checkout -f -b new-branch", Destructive, &["delete.changes"]),
    ("git checkout '*.rs'", Moderate, &["write.history"]),
    ("git checkout *.rs", Destructive, &["delete.changes"]),
    ("git switch --discard-changes main", Destructive, &["delete.changes"]),
    ("git switch -qf main", Destructive, &["delete.changes"]),
    ("git -C repo switch -f main", Destructive, &["delete.changes"]),
    ("git restore file.txt", Destructive, &["delete.changes"]),
    ("git restore .", Destructive, &["delete.changes"]),
    ("git restore -W file.txt", Destructive, &["delete.changes"]),
    ("git restore --staged --worktree file.txt", Destructive, &["delete.changes"]),
    ("git restore --source=HEAD~2 file.txt", Destructive, &["delete.changes"]),
    ("git rm -f notes.txt", Destructive, &["delete.changes"]),
    ("git branch -D feature", Destructive, &["delete.history"]),
    ("git branch -Dv feature", Destructive, &["delete.history"]),
    ("git branch --delete --force feature", Destructive, &["delete.history"]),
    ("git branch -f feature", Destructive, &["delete.history"]),
    ("git branch -M main", Destructive, &["delete.history"]),
    ("git stash drop", Destructive, &["delete.history"]),
    ("git stash drop stash@{0}", Destructive, &["delete.history"]),
    ("git stash clear", Destructive, &["delete.history"]),
    ("git worktree remove --force /tmp/wt", Destructive, &["delete.changes"]),
    ("git worktree remove -f /tmp/wt", Destructive, &["delete.changes"]),
    // The filter is shell text run in each commit's tree: it is analysed too.
    ("git filter-branch --tree-filter 'rm x' HEAD", Destructive, &["overwrite.history", "delete.project"]),
    ("git filter-repo --path secrets --invert-paths", Destructive, &["overwrite.history"]),
    ("git reflog expire --expire=now --all", Destructive, &["delete.history"]),
    ("git reflog delete HEAD@{1}", Destructive, &["delete.history"]),
    ("git gc --prune=now", Destructive, &["delete.history"]),
    ("git prune", Destructive, &["delete.history"]),
    ("git prune -n", Safe, &[]),
    ("git update-ref -d refs/heads/x", Destructive, &["delete.history"]),
    ("git $sub", Opaque, &["run.unknown"]),
];

#[test]
fn git_table() {
    check(CASES);
}
