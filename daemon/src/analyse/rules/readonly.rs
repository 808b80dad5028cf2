//! Programs known to only read, and readers with an option to write (`sed -i`, `sort -o`),
//! which `general::reader` judges. Everything else unknown is judged by `general`.

use super::Class;
use super::general::reader;

const READS: Class = Class::ReadOnly;
const READS_UNLESS: Class = Class::Rule(reader);

pub const COMMANDS: &[(&str, Class)] = &[
    // Files and text.
    ("ls", READS), ("exa", READS), ("eza", READS), ("lsd", READS), ("tree", READS),
    ("cat", READS), ("tac", READS), ("nl", READS), ("less", READS), ("more", READS),
    ("most", READS), ("bat", READS), ("batcat", READS), ("head", READS), ("tail", READS),
    ("wc", READS), ("grep", READS), ("egrep", READS), ("fgrep", READS), ("zgrep", READS),
    ("rg", READS), ("ag", READS), ("ack", READS), ("stat", READS), ("file", READS),
    ("du", READS), ("df", READS), ("diff", READS), ("cmp", READS), ("comm", READS),
    ("cut", READS), ("tr", READS), ("paste", READS), ("join", READS), ("fold", READS),
    ("fmt", READS), ("column", READS), ("expand", READS), ("unexpand", READS), ("rev", READS),
    ("uniq", READS), ("strings", READS), ("od", READS), ("hexdump", READS), ("base64", READS),
    ("base32", READS), ("zcat", READS), ("bzcat", READS), ("xzcat", READS), ("zless", READS),
    ("md5sum", READS), ("sha1sum", READS), ("sha224sum", READS), ("sha256sum", READS),
    ("sha384sum", READS), ("sha512sum", READS), ("b2sum", READS), ("cksum", READS),
    ("sum", READS), ("realpath", READS), ("readlink", READS), ("basename", READS),
    ("dirname", READS), ("jq", READS), ("look", READS), ("locate", READS),
    // Output and shell state.
    ("echo", READS), ("printf", READS), ("pwd", READS), ("true", READS), ("false", READS),
    (":", READS), ("cd", READS), ("pushd", READS), ("popd", READS), ("dirs", READS),
    ("test", READS), ("[", READS), ("[[", READS), ("seq", READS), ("expr", READS),
    ("sleep", READS), ("wait", READS), ("yes", READS), ("tput", READS), ("clear", READS),
    ("export", READS), ("unset", READS), ("set", READS), ("alias", READS), ("read", READS),
    ("local", READS), ("declare", READS), ("typeset", READS), ("shift", READS),
    ("return", READS), ("exit", READS), ("break", READS), ("continue", READS), ("jobs", READS),
    // Looking things up.
    ("which", READS), ("whereis", READS), ("type", READS), ("hash", READS), ("man", READS),
    ("info", READS), ("help", READS), ("apropos", READS), ("whatis", READS), ("tldr", READS),
    ("whoami", READS), ("id", READS), ("groups", READS), ("users", READS), ("who", READS),
    ("w", READS), ("uptime", READS), ("uname", READS), ("arch", READS), ("nproc", READS),
    ("printenv", READS), ("locale", READS), ("tty", READS), ("ps", READS), ("pgrep", READS),
    ("free", READS), ("vmstat", READS), ("lsof", READS), ("lsblk", READS), ("blkid", READS),
    ("findmnt", READS), ("lscpu", READS), ("lsusb", READS), ("lspci", READS), ("ss", READS),
    ("netstat", READS), ("ping", READS), ("dig", READS), ("nslookup", READS), ("host", READS),
    ("getent", READS), ("cal", READS), ("apt-cache", READS),
    // Readers with a writing option.
    ("sed", READS_UNLESS), ("awk", READS_UNLESS), ("gawk", READS_UNLESS),
    ("sort", READS_UNLESS), ("date", READS_UNLESS), ("xxd", READS_UNLESS),
    ("hostname", READS_UNLESS), ("curl", READS_UNLESS),
];
