//! Programs known to only read (issue 3 judges every other unknown program by what it is).

use super::Class;

pub const COMMANDS: &[(&str, Class)] = &[
    ("ls", Class::ReadOnly),
    ("cat", Class::ReadOnly),
    ("echo", Class::ReadOnly),
    ("printf", Class::ReadOnly),
    ("pwd", Class::ReadOnly),
    ("true", Class::ReadOnly),
    ("false", Class::ReadOnly),
    (":", Class::ReadOnly),
    ("cd", Class::ReadOnly),
    ("head", Class::ReadOnly),
    ("tail", Class::ReadOnly),
    ("wc", Class::ReadOnly),
    ("grep", Class::ReadOnly),
    ("stat", Class::ReadOnly),
    ("file", Class::ReadOnly),
    ("which", Class::ReadOnly),
    ("whoami", Class::ReadOnly),
    ("id", Class::ReadOnly),
    ("date", Class::ReadOnly),
    ("uname", Class::ReadOnly),
    ("test", Class::ReadOnly),
    ("[", Class::ReadOnly),
];
