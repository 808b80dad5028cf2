//! What the built-in book's format refuses, and where it says the fault is: a bad entry must
//! fail the build with file:line:column, never be read as something else.

use super::generate::generate;

fn run(text: &str) -> Result<String, String> {
    generate(&[("book.toml".to_owned(), text.to_owned())])
}

#[test]
fn refusals_name_the_place_and_the_reason() {
    // (entry, where, a piece of the reason)
    let cases: &[(&str, &str, &str)] = &[
        (
            "[[program]]\nnames = [\"x\"]\noperands = \"shred\"\n",
            "book.toml:3:12",
            "unknown effect \"shred\"",
        ),
        (
            "[[program]]\nnames = [\"x\"]\noperand = \"read\"\n",
            "line 3",
            "unknown field `operand`",
        ),
        (
            "[[program]]\nnames = [\"x\"]\nmodel = \"files::rm\"\noperands = \"read\"\n",
            "book.toml:3:9",
            "a model judges the whole command",
        ),
        (
            "[[program]]\nnames = [\"x\"]\nmodel = \"std::process\"\n",
            "book.toml:3:9",
            "a function of programs/",
        ),
        (
            "[[program]]\nnames = [\"x\"]\n",
            "book.toml:2:9",
            "says nothing of what it does",
        ),
        (
            "[[program]]\nnames = [\"x\"]\noperands = \"read\"\noptions = { \"output\" = \"write\" }\n",
            "book.toml:4:24",
            "written as a command gives it",
        ),
        (
            "[[program]]\nnames = [\"x\"]\nwrapper = \"plain\"\noperands = \"read\"\n",
            "book.toml:4:12",
            "said in `also`",
        ),
        (
            "[[program]]\nnames = [\"x\"]\nwrapper = \"plain\"\nshell = true\n",
            "book.toml:4:9",
            "one of a wrapper, a runner",
        ),
        (
            "[[program]]\nnames = [\"x\"]\ninterpreter = \"cobol\"\n",
            "book.toml:3:15",
            "unknown interpreter",
        ),
        (
            "[[program]]\nnames = [\"x\"]\nstyle = \"bsd\"\neffect = \"none\"\n",
            "book.toml:3:9",
            "unknown style",
        ),
        (
            "[[program]]\nnames = [\"x\"]\nlong = [\"--out=\"]\neffect = \"none\"\n",
            "book.toml:3:9",
            "long option \"--out=\"",
        ),
        (
            "[[program]]\nnames = [\"x\"]\neffect = \"delete\"\n",
            "book.toml:3:10",
            "\"none\" alone",
        ),
        (
            "[[program]]\nnames = [\"x\"]\neffect = \"none\"\n\n[[program]]\nnames = [\"y\", \"x\"]\neffect = \"none\"\n",
            "book.toml:6:15",
            "named already at book.toml:1",
        ),
        (
            "[[program]]\nnames = [\"x\"]\nshell = true\nalso = { effect = \"none\" }\n",
            "book.toml:4:8",
            "`also` is for a wrapper's or a runner's",
        ),
    ];
    for (text, at, why) in cases {
        let got = run(text).expect_err(text);
        assert!(got.contains(at), "{text}\nwanted at {at}, got: {got}");
        assert!(got.contains(why), "{text}\nwanted {why:?}, got: {got}");
    }
}

#[test]
fn entries_become_rust() {
    // Options in the order written (here, also the sorted order: the tests' `toml` has no
    // `preserve_order`, build.rs's has).
    let cases: &[(&str, &str)] = &[
        (
            "[[program]]\nnames = [\"tool\"]\nshort = \"o:\"\noperands = \"read\"\noptions = { \"--output\" = \"overwrite\", \"-o\" = \"overwrite\" }\ntree = [\"-r\"]\n",
            "Entry { names: &[\"tool\", ], grammar: Grammar { short: \"o:\", long: &[], style: Style::Gnu }, role: Role::Tool(Judge::Spec(&Spec { skip: 0, given_by: &[], operands: Some(Effect::Read), switch: &[], values: &[(\"output\", Effect::Overwrite), (\"o\", Effect::Overwrite), ], tree: &[\"r\", ], inert: &[] })) }",
        ),
        (
            "[[program]]\nnames = [\"say\"]\nstyle = \"posix\"\neffect = \"none\"\n",
            "Entry { names: &[\"say\", ], grammar: Grammar { short: \"\", long: &[], style: Style::Posix }, role: Role::Tool(Judge::Nothing) }",
        ),
        (
            "[[program]]\nnames = [\"find\"]\nrunner = \"runners::find\"\nalso = { model = \"files::find\" }\n",
            "role: Role::Runner(programs::runners::find, Some(Judge::Model(programs::files::find)))",
        ),
        (
            "[[program]]\nnames = [\"timeout\"]\nwrapper = \"plain\"\nskip = 1\ninert = [\"--help\"]\n",
            "role: Role::Wrapper(Wrap { skip: 1, inert: &[\"help\", ], kind: WrapKind::Plain, also: None })",
        ),
        (
            "[[program]]\nnames = [\"sed\"]\ngrammar = \"sed\"\nshell = true\n",
            "grammar: interp::sed::SED, role: Role::Shell",
        ),
    ];
    for (text, rust) in cases {
        let got = run(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(got.contains(rust), "{text}\nwanted {rust}\ngot {got}");
    }
}

#[test]
fn code_rows_refuse_with_the_place_and_the_reason() {
    // (rows, where, a piece of the reason)
    let cases: &[(&str, &str, &str)] = &[
        (
            "[[code]]\nnames = [\"x\"]\ntakes = [{ shell = [\"e\"], unread = [\"c\"] }]\n",
            "book.toml:3:10",
            "each item of `takes` is one of",
        ),
        (
            "[[code]]\nnames = [\"x\"]\ntakes = [{ eval = [\"e\"] }]\n",
            "line 3",
            "unknown field `eval`",
        ),
        (
            "[[code]]\nnames = [\"x\"]\ntakes = [{ shell = [\"--rsh\"] }]\n",
            "book.toml:3:21",
            "named without dashes",
        ),
        (
            "[[code]]\nnames = [\"x\"]\ntakes = [{ with = \"files::rm\" }]\n",
            "book.toml:3:19",
            "a function of programs/code.rs",
        ),
        (
            "[[code]]\nnames = [\"x\"]\ntakes = []\n",
            "book.toml:3:9",
            "`takes` says nothing",
        ),
        (
            "[[code]]\nnames = [\"x\"]\ntakes = [{ shell = [] }]\n",
            "book.toml:3:10",
            "an empty list of options",
        ),
        (
            "[[code]]\nnames = []\ntakes = [{ shell = [\"e\"] }]\n",
            "book.toml:2:9",
            "at least one name",
        ),
        (
            "[[code]]\nnames = [\"x\"]\ntakes = [{ shell = [\"e\"] }]\n\n[[code]]\nnames = [\"y\", \"x\"]\ntakes = [{ unread = [\"e\"] }]\n",
            "book.toml:6:15",
            "has a [[code]] row already at book.toml:1",
        ),
    ];
    for (text, at, why) in cases {
        let got = run(text).expect_err(text);
        assert!(got.contains(at), "{text}\nwanted at {at}, got: {got}");
        assert!(got.contains(why), "{text}\nwanted {why:?}, got: {got}");
    }
}

#[test]
fn code_rows_become_rust_in_order() {
    let text = "[[code]]\nnames = [\"make\", \"gmake\"]\ntakes = [{ with = \"make\" }, { unread = [\"eval\"] }]\n\n\
                [[code]]\nnames = [\"scp\"]\ntakes = [{ ssh_option = [\"o\"] }, { shell = [\"S\"] }, { escape = [\"+\", \"-ex\"] }]\n";
    let got = run(text).unwrap_or_else(|e| panic!("{e}"));
    for rust in [
        "(&[\"make\", \"gmake\", ], &[Code::With(programs::code::make), Code::Unread(&[\"eval\", ]), ])",
        "(&[\"scp\", ], &[Code::SshOption(&[\"o\", ]), Code::Shell(&[\"S\", ]), Code::Escape(&[\"+\", \"-ex\", ]), ])",
        "pub const CODE: &[(&[&str], &[Code])] = &[",
    ] {
        assert!(got.contains(rust), "wanted {rust}\ngot {got}");
    }
}
