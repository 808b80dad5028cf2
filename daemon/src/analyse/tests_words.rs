//! What a finding's words read like to a person: one level of quoting (the finding's
//! backticks), a word with quotes shown as the shell passes it, an attached option value cut
//! where its value starts. Table: line in, a sentence some finding must hold and one none may.

use super::{Surroundings, shell};

const CTX: Surroundings<'static> = Surroundings {
    cwd: "/home/u/repo",
    home: Some("/home/u"),
    project: Some("/home/u/repo"),
    truncated: false,
};

#[test]
fn findings_quote_a_word_once() {
    // (line, some finding says, no finding says)
    let table: &[(&str, &str, &str)] = &[
        ("rm -rf '/home/u'", "deletes `/home/u`", "`'/home/u'`"),
        ("rm -rf \"$tmp\"", "deletes `$tmp`", "`\"$tmp\"`"),
        ("echo hi > 'out.txt'", "overwrites `out.txt`", "`'out.txt'`"),
        ("cat .e''nv", "reads `.env`", "`.e''nv`"),
        ("cat ~/.ssh/id_rsa", "reads `~/.ssh/id_rsa`", "/home/u/.ssh"),
        (
            "chmod 644 '/home/u/.ssh/id_rsa'",
            "mode or ACL of `/home/u/.ssh/id_rsa`",
            "`'/home",
        ),
        // An option with its value attached: the value, not the end of the written word.
        ("tar xf a.tar -C\"$HOME\"", "to `/home/u`", "`HOME\"`"),
        (
            "sort -o\"$HOME/.bashrc\" x",
            "`/home/u/.bashrc`",
            "`HOME/.bashrc\"`",
        ),
        (
            "tar -xf a.tar --to-command='rm -rf ~/Documents'",
            "running `rm -rf ~/Documents`",
            "`m -rf",
        ),
        (
            "vim -c 'call system(\"rm -rf ~/Documents\")' -c q",
            "`call system(\"rm -rf ~/Documents\")` is code",
            "`'call",
        ),
        (
            "eval \"$(printf 'r%s -rf %s' m ~/Documents)\"",
            "`$(printf 'r%s -rf %s' m ~/Documents)`",
            "`\"$(printf",
        ),
    ];
    for &(line, says, never) in table {
        let analysis = shell(line, &CTX);
        let messages: Vec<&str> = analysis
            .findings
            .iter()
            .map(|f| f.message.as_str())
            .collect();
        assert!(
            messages.iter().any(|m| m.contains(says)),
            "{line}: no finding says {says:?}: {messages:#?}"
        );
        assert!(
            messages.iter().all(|m| !m.contains(never)),
            "{line}: a finding says {never:?}: {messages:#?}"
        );
    }
}
