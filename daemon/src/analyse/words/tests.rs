//! Words as bash makes them: one table of literal values, one of what a word could be.

use super::*;

const HOME: &str = "/home/u";

fn parse_fields(line: &str, vars: &Vars) -> Vec<(String, bool, Option<Alts>)> {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .expect("the bundled grammar matches the tree-sitter version");
    let src = format!("echo {line}");
    let tree = parser.parse(&src, None).expect("no timeout is set");
    let cmd = tree.root_node().named_child(0).expect("one command");
    let env = Env {
        vars,
        home: Some(HOME),
        cwd: Some("/home/u/proj"),
        oldpwd: Some("/srv"),
        tmpdir_named: false,
        depth: 0,
        globs: Default::default(),
        sourced: false,
        printed: crate::analyse::flow::substitution,
    };
    let mut out = Vec::new();
    let mut cursor = cmd.walk();
    let args: Vec<Node> = cmd
        .children_by_field_name("argument", &mut cursor)
        .collect();
    // Arguments that touch are one word, as `walk` reads them.
    fields_of(&args, &src, &env, &mut out);
    out.into_iter()
        .map(|w| {
            (
                w.text.clone(),
                w.dynamic,
                w.value.map(|v| v.as_ref().clone()),
            )
        })
        .collect()
}

#[test]
fn words_resolve_like_bash() {
    let cases: &[(&str, &str, bool)] = &[
        ("r''m", "rm", false),
        ("\"r\"m", "rm", false),
        ("\\rm", "rm", false),
        ("'a b'\"c\\\"d\"", "a bc\"d", false),
        ("$'a\\tb\\x41\\101\\u00e9'", "a\tbAAé", false),
        ("\"a\\$b\\e\"", "a$b\\e", false),
        ("foo\\ bar", "foo bar", false),
        ("$x", "$x", true),
        ("\"$x\"", "\"$x\"", true),
        ("*.c", "*.c", true),
        ("a[1]", "a[1]", true),
        ("\\*", "*", false),
        ("[", "[", false),
        ("~", "/home/u", false),
        ("~/x", "/home/u/x", false),
        ("\"~\"/x", "~/x", false),
        ("$HOME/.ssh", "/home/u/.ssh", false),
        ("\"$HOME/.ssh\"", "/home/u/.ssh", false),
        ("\"${HOME}\"/.ssh", "/home/u/.ssh", false),
        ("~root/x", "/root/x", false),
        ("~bob", "/home/bob", false),
        ("~+/x", "/home/u/proj/x", false),
        ("~-", "/srv", false),
        ("K=~/a", "K=/home/u/a", false),
        ("--k=~/a", "--k=~/a", false),
        ("${TMPDIR:-/tmp}/x", "${TMPDIR:-/tmp}/x", true),
        ("$PWD/x", "/home/u/proj/x", false),
    ];
    let vars = Vars::new();
    for (input, text, dynamic) in cases {
        let words = parse_fields(input, &vars);
        assert_eq!(words.len(), 1, "{input} is one word: {words:?}");
        assert_eq!(
            (words[0].0.as_str(), words[0].1),
            (*text, *dynamic),
            "word {input}"
        );
    }
}

#[test]
fn brace_expansion_and_ifs_make_several_words() {
    let vars = Vars::new();
    let texts = |line: &str| -> Vec<String> {
        parse_fields(line, &vars)
            .into_iter()
            .map(|(t, _, _)| t)
            .collect()
    };
    assert_eq!(texts("a{b,c}d"), ["abd", "acd"]);
    assert_eq!(
        texts("~/.ssh/{id_rsa,config}"),
        ["/home/u/.ssh/id_rsa", "/home/u/.ssh/config"]
    );
    assert_eq!(texts("x{1..3}"), ["x1", "x2", "x3"]);
    assert_eq!(texts("'{a,b}'"), ["{a,b}"]);
    assert_eq!(texts("cat${IFS}$HOME/x"), ["cat", "/home/u/x"]);
    let mut split = Vars::new();
    split.insert("o".into(), Var::Lit("-rf /".into()));
    assert_eq!(
        parse_fields("$o", &split)
            .into_iter()
            .map(|(t, _, _)| t)
            .collect::<Vec<_>>(),
        ["-rf", "/"]
    );
}

#[test]
fn what_a_partly_known_word_could_be() {
    let mut vars = Vars::new();
    vars.insert("d".into(), Var::Lit("/tmp/x".into()));
    vars.insert(
        "p".into(),
        Var::Pattern(Rc::new(vec![
            vec![Piece::Lit("/a".into())],
            vec![Piece::Lit("/b".into())],
        ])),
    );
    let lit = |t: &str| Piece::Lit(t.to_owned());
    let cases: Vec<(&str, Alts)> = vec![
        ("$unknown/x", vec![vec![Piece::Opaque, lit("/x")]]),
        (
            "/home/$USER/.ssh",
            vec![vec![lit("/home/"), Piece::Name, lit("/.ssh")]],
        ),
        ("$p/k", vec![vec![lit("/a/k")], vec![lit("/b/k")]]),
        (
            "~/.ss?/id_*",
            vec![vec![
                lit("/home/u/.ss"),
                Piece::Glob("?".into()),
                lit("/id_"),
                Piece::Glob("*".into()),
            ]],
        ),
        (
            "$(echo ~/.aws/credentials)",
            vec![vec![lit("/home/u/.aws/credentials")]],
        ),
        (
            "\"$(printf '%s/.%s' ~ netrc)\"",
            vec![vec![lit("/home/u/.netrc")]],
        ),
        (
            "$(echo L2V0Yy9zaGFkb3c= | base64 -d)",
            vec![vec![lit("/etc/shadow")]],
        ),
        (
            "${XDG_CONFIG_HOME:-$HOME/.config}/gh",
            vec![
                vec![lit("/home/u/.config/gh")],
                vec![lit("/home/u/.config/gh")],
            ],
        ),
        ("${d%/x}/y", vec![vec![lit("/tmp/y")]]),
        ("$(mktemp -d)", vec![vec![lit("/tmp/"), Piece::Name]]),
    ];
    for (input, want) in cases {
        let words = parse_fields(input, &vars);
        assert_eq!(words.len(), 1, "{input}");
        assert_eq!(words[0].2.as_ref(), Some(&want), "word {input}");
    }
}

#[test]
fn case_folded_globs() {
    assert_eq!(super::fold_glob(".NETR[C]"), ".[Nn][Ee][Tt][Rr][Cc]");
    assert_eq!(super::fold_glob("a\\*b"), "[aA]\\*[bB]");
    assert_eq!(super::fold_glob("[!x-z]9"), "[!x-zX-Z]9");
    assert_eq!(super::glob_escape("a*[b]"), "a\\*\\[b\\]");
}
