//! The vocabulary: which paths are which place. One table, read top to bottom; for a path
//! that names one file the first entry that matches decides, for a glob or a partly unknown
//! path every entry it could match counts (a glob that could match a secret is a secret read).
//!
//! Patterns: `/…` from the root, `~/…` the requester's home, `~*/…` any home (the requester's,
//! `/home/NAME`, `/root`), `**/…` anywhere. Components are bash globs; `**` is any number of
//! components. A pattern ending in `/` is a whole tree: it applies to a command that acts on
//! the directory and everything in it (`rm -r`, `chmod -R`, `~/*`), not to the directory
//! alone. An entry of kind `Ordinary` stops the search and leaves the path to where it is
//! (project, temp, elsewhere): `~/.ssh/id_rsa.pub` is no secret.
//!
//! Where the project is, what temp and build output are, and where a home starts are not
//! patterns: `super` knows them from the request.

use super::Kind;
use super::glob::Glob;
use super::path::{Anchor, Comp, Path};

/// What an entry says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Says {
    Is(Kind),
    /// Two at once: `/etc/shadow` holds secrets and is a system file.
    Both(Kind, Kind),
    /// Not a special place: judged by where it is.
    Ordinary,
}

use Kind::{Device, Gate, Home, Null, Protected, Root, Secret, System};
use Says::{Both, Is, Ordinary};

/// What a person is told the notification server's files are.
const NOTIFIER: &str = "the notification server's configuration (it shows the gate's held requests and turns a click into an answer)";
/// What a person is told a notification server's activation file is.
const ACTIVATES: &str = "the D-Bus activation file that decides which notification server starts";

/// The table: pattern, what it is, and what a person is told it is.
pub const ENTRIES: &[(&str, Says, &str)] = &[
    // ---- Harmless sinks and the standard streams ----
    ("/dev/null", Is(Null), "the null device"),
    ("/dev/zero", Is(Null), "the zero device"),
    ("/dev/full", Is(Null), "the full device"),
    ("/dev/random", Is(Null), "the random device"),
    ("/dev/urandom", Is(Null), "the random device"),
    ("/dev/stdin", Is(Null), "standard input"),
    ("/dev/stdout", Is(Null), "standard output"),
    ("/dev/stderr", Is(Null), "standard error"),
    ("/dev/tty", Is(Null), "the terminal"),
    ("/dev/fd/*", Is(Null), "an open file descriptor"),
    ("/proc/self/fd/*", Is(Null), "an open file descriptor"),
    (
        "/proc/thread-self/fd/*",
        Is(Null),
        "an open file descriptor",
    ),
    (
        "/proc/self/task/*/fd/*",
        Is(Null),
        "an open file descriptor",
    ),
    // ---- Terminals and input that are not the line's own: where a person answers ----
    // What is written onto another terminal (a fake card over `assent watch`, a `y` typed
    // into a prompt) or injected as input is the gate's place: the approval channel.
    (
        "/dev/pts/*",
        Is(Gate),
        "another terminal, where a person answers the gate",
    ),
    (
        "/dev/tty[0-9]*",
        Is(Gate),
        "a console, where a person answers the gate",
    ),
    (
        "/dev/console",
        Is(Gate),
        "the console, where a person answers the gate",
    ),
    (
        "/dev/vcs*",
        Is(Gate),
        "a console's screen, where a person answers the gate",
    ),
    (
        "/proc/*/fd/*",
        Is(Gate),
        "another process's open file (its terminal, where a person answers the gate)",
    ),
    // A thread's descriptors are its process's: `/proc/PID/task/TID/fd/1` is that terminal too.
    (
        "/proc/*/task/*/fd/*",
        Is(Gate),
        "another process's open file (its terminal, where a person answers the gate)",
    ),
    (
        "/dev/uinput",
        Is(Gate),
        "the input device (typed keys reach any window)",
    ),
    (
        "/dev/input/**",
        Is(Gate),
        "an input device (typed keys reach any window)",
    ),
    // ---- Disks and memory ----
    ("/dev/sd[a-z]*", Is(Device), "a disk or partition"),
    ("/dev/hd[a-z]*", Is(Device), "a disk or partition"),
    ("/dev/vd[a-z]*", Is(Device), "a disk or partition"),
    ("/dev/xvd[a-z]*", Is(Device), "a disk or partition"),
    ("/dev/nvme[0-9]*", Is(Device), "a disk or partition"),
    ("/dev/mmcblk[0-9]*", Is(Device), "a disk or partition"),
    ("/dev/md[0-9]*", Is(Device), "a RAID array"),
    ("/dev/dm-[0-9]*", Is(Device), "a mapped disk"),
    ("/dev/mapper/*", Is(Device), "a mapped disk"),
    ("/dev/loop[0-9]*", Is(Device), "a loop device"),
    ("/dev/nbd[0-9]*", Is(Device), "a network block device"),
    ("/dev/shm/**", Ordinary, "shared memory"),
    ("/dev/disk/**", Is(Device), "a disk or partition"),
    ("/dev/mem", Is(Device), "the machine's memory"),
    ("/dev/kmem", Is(Device), "the kernel's memory"),
    ("/dev/port", Is(Device), "the machine's I/O ports"),
    ("/dev/root", Is(Device), "the root file system's disk"),
    ("/dev/sr[0-9]*", Is(Device), "an optical drive"),
    ("/dev/block/**", Is(Device), "a disk or partition"),
    ("/dev/bcache[0-9]*", Is(Device), "a cached disk"),
    ("/dev/zd[0-9]*", Is(Device), "a ZFS volume"),
    ("/dev/zvol/**", Is(Device), "a ZFS volume"),
    ("/dev/rbd[0-9]*", Is(Device), "a network block device"),
    ("/dev/mtd*", Is(Device), "a flash chip"),
    // `/dev/VG/LV`: a logical volume, in a directory named after its volume group.
    ("/dev/*/*", Is(Device), "a logical volume or another device"),
    // ---- Whole trees ----
    ("/", Is(Root), "the whole file system"),
    ("~/", Is(Home), "your home directory"),
    ("/home/*/", Is(Home), "a home directory"),
    ("/root/", Is(Home), "root's home directory"),
    ("/home/", Is(System), "the directory of every home"),
    ("/bin/", Is(System), "a directory the system needs"),
    ("/boot/", Is(System), "a directory the system needs to boot"),
    ("/dev/", Is(System), "the device directory"),
    ("/etc/", Is(System), "the system's configuration"),
    ("/etc/ssh/", Is(System), "the SSH server's configuration"),
    ("/etc/systemd/", Is(System), "the system's services"),
    ("/lib/", Is(System), "a directory the system needs"),
    ("/lib32/", Is(System), "a directory the system needs"),
    ("/lib64/", Is(System), "a directory the system needs"),
    ("/libx32/", Is(System), "a directory the system needs"),
    ("/media/", Is(System), "where removable disks are mounted"),
    ("/mnt/", Is(System), "where disks are mounted"),
    ("/opt/", Is(System), "installed software"),
    ("/proc/", Is(System), "the kernel's process table"),
    ("/run/", Is(System), "the system's running state"),
    ("/sbin/", Is(System), "a directory the system needs"),
    ("/snap/", Is(System), "installed software"),
    ("/srv/", Is(System), "the data this machine serves"),
    ("/sys/", Is(System), "the kernel's devices"),
    ("/usr/", Is(System), "the system's programs"),
    ("/usr/*/", Is(System), "the system's programs"),
    ("/usr/local/bin/", Is(System), "locally installed programs"),
    ("/usr/local/lib/", Is(System), "locally installed libraries"),
    ("/var/", Is(System), "the system's variable data"),
    ("/var/lib/", Is(System), "the state of installed services"),
    ("/var/log/", Is(System), "the system's logs"),
    (
        "/var/spool/",
        Is(System),
        "the system's queues (mail, cron)",
    ),
    ("/var/mail/", Is(System), "the machine's mail"),
    ("/var/www/", Is(System), "the web server's files"),
    // ---- Secrets, and what near them is not secret ----
    ("~*/.ssh/*.pub", Ordinary, "a public key"),
    (
        "~*/.ssh/known_hosts*",
        Is(Protected),
        "the host keys SSH trusts",
    ),
    (
        "~*/.ssh/config",
        Is(Protected),
        "SSH's client settings (commands it runs on connecting)",
    ),
    (
        "~*/.ssh/config.d/**",
        Is(Protected),
        "SSH's client settings",
    ),
    (
        "~*/.ssh/authorized_keys*",
        Is(Protected),
        "the keys that may log in as you",
    ),
    ("~*/.ssh/rc", Is(Protected), "what SSH runs at each login"),
    (
        "~*/.ssh/environment",
        Is(Protected),
        "what SSH sets at each login",
    ),
    ("~*/.ssh/**", Is(Secret), "SSH private keys"),
    ("~*/.gnupg/**", Is(Secret), "GnuPG keys"),
    ("~*/.aws/**", Is(Secret), "AWS credentials"),
    // The file itself, named as what it is (the rest of `.aws` is "in the directory of").
    ("~*/.aws/credentials", Is(Secret), "AWS credentials"),
    ("~*/.azure/**", Is(Secret), "Azure credentials"),
    (
        "~*/.config/gcloud/**",
        Is(Secret),
        "Google Cloud credentials",
    ),
    ("~*/.oci/**", Is(Secret), "Oracle Cloud credentials"),
    (
        "~*/.config/doctl/**",
        Is(Secret),
        "DigitalOcean credentials",
    ),
    (
        "~*/.config/hcloud/**",
        Is(Secret),
        "Hetzner Cloud credentials",
    ),
    ("~*/.fly/**", Is(Secret), "Fly.io credentials"),
    ("~*/.config/netlify/**", Is(Secret), "Netlify credentials"),
    ("~*/.wrangler/**", Is(Secret), "Cloudflare credentials"),
    (
        "~*/.config/.wrangler/**",
        Is(Secret),
        "Cloudflare credentials",
    ),
    (
        "~*/.terraform.d/credentials.tfrc.json",
        Is(Secret),
        "Terraform Cloud tokens",
    ),
    ("~*/.pulumi/credentials.json", Is(Secret), "Pulumi tokens"),
    ("~*/.vault-token", Is(Secret), "a Vault token"),
    ("~*/.kube/config*", Is(Secret), "Kubernetes credentials"),
    (
        "~*/.docker/config.json",
        Is(Secret),
        "Docker registry credentials",
    ),
    (
        "~*/.npmrc",
        Both(Secret, Protected),
        "npm's settings: registry tokens, and programs npm runs (node-options, script-shell)",
    ),
    ("**/.npmrc", Is(Secret), "npm registry tokens"),
    (
        "~*/.subversion/auth/**",
        Is(Secret),
        "Subversion's saved passwords",
    ),
    (
        "~*/.yarnrc.yml",
        Both(Secret, Protected),
        "Yarn's settings: registry tokens, and the Yarn it runs (yarnPath)",
    ),
    ("~*/.pypirc", Is(Secret), "PyPI tokens"),
    ("~*/.gem/credentials", Is(Secret), "RubyGems tokens"),
    ("~*/.cargo/credentials*", Is(Secret), "crates.io tokens"),
    (
        "~*/.m2/settings*.xml",
        Is(Secret),
        "Maven repository passwords",
    ),
    (
        "~*/.gradle/gradle.properties",
        Is(Secret),
        "Gradle repository passwords",
    ),
    (
        "~*/.nuget/NuGet/NuGet.Config",
        Is(Secret),
        "NuGet feed passwords",
    ),
    ("~*/.composer/auth.json", Is(Secret), "Composer tokens"),
    (
        "~*/.config/composer/auth.json",
        Is(Secret),
        "Composer tokens",
    ),
    ("~*/.git-credentials", Is(Secret), "stored git passwords"),
    (
        "~*/.config/git/credentials",
        Is(Secret),
        "stored git passwords",
    ),
    ("~*/.netrc", Is(Secret), "stored passwords (netrc)"),
    ("~*/_netrc", Is(Secret), "stored passwords (netrc)"),
    ("~*/.config/gh/hosts.yml", Is(Secret), "GitHub CLI tokens"),
    ("~*/.config/glab-cli/**", Is(Secret), "GitLab CLI tokens"),
    ("~*/.config/hub", Is(Secret), "GitHub tokens (hub)"),
    ("~*/.pgpass", Is(Secret), "PostgreSQL passwords"),
    ("~*/.my.cnf", Is(Secret), "MySQL passwords"),
    ("~*/.mylogin.cnf", Is(Secret), "MySQL passwords"),
    ("~*/.password-store/**", Is(Secret), "a password store"),
    (
        "~*/.local/share/keyrings/**",
        Is(Secret),
        "the desktop keyring",
    ),
    ("~*/.config/op/**", Is(Secret), "1Password CLI credentials"),
    (
        "~*/.config/Bitwarden CLI/**",
        Is(Secret),
        "Bitwarden CLI credentials",
    ),
    (
        "~*/.mozilla/firefox/**/logins.json",
        Is(Secret),
        "the browser's saved passwords",
    ),
    (
        "~*/.mozilla/firefox/**/key4.db",
        Is(Secret),
        "the browser's password key",
    ),
    (
        "~*/.mozilla/firefox/**/cookies.sqlite",
        Is(Secret),
        "the browser's cookies",
    ),
    (
        "~*/.config/**/Login Data",
        Is(Secret),
        "the browser's saved passwords",
    ),
    ("~*/.config/**/Cookies", Is(Secret), "the browser's cookies"),
    (
        "~*/.claude/.credentials.json",
        Is(Secret),
        "Claude Code's credentials",
    ),
    (
        "~*/.claude.json",
        Is(Secret),
        "Claude Code's account and MCP settings",
    ),
    ("~*/.codex/auth.json", Is(Secret), "Codex's credentials"),
    (
        "~*/.gemini/oauth_creds.json",
        Is(Secret),
        "Gemini CLI's credentials",
    ),
    (
        "~*/.gemini/google_accounts.json",
        Is(Secret),
        "Gemini CLI's accounts",
    ),
    (
        "~*/.config/github-copilot/**",
        Is(Secret),
        "GitHub Copilot's tokens",
    ),
    (
        "~*/.cache/huggingface/token",
        Is(Secret),
        "Hugging Face's token",
    ),
    ("~*/.huggingface/token", Is(Secret), "Hugging Face's token"),
    (
        "~*/.config/rclone/rclone.conf",
        Is(Secret),
        "rclone's remotes and keys",
    ),
    ("~*/.s3cfg", Is(Secret), "s3cmd's keys"),
    ("~*/.boto", Is(Secret), "boto's keys"),
    ("~*/.databrickscfg", Is(Secret), "Databricks tokens"),
    (
        "~*/.local/share/com.vercel.cli/**",
        Is(Secret),
        "Vercel's token",
    ),
    ("~*/.railway/**", Is(Secret), "Railway's token"),
    ("~*/.supabase/access-token", Is(Secret), "Supabase's token"),
    ("~*/.config/stripe/**", Is(Secret), "Stripe's keys"),
    ("~*/.sentryclirc", Is(Secret), "Sentry's token"),
    (
        "~*/.config/helm/registry/**",
        Is(Secret),
        "Helm registry logins",
    ),
    (
        "~*/.config/helm/repositories.yaml",
        Is(Secret),
        "Helm repository passwords",
    ),
    (
        "~*/.kube/cache/oidc-login/**",
        Is(Secret),
        "Kubernetes login tokens",
    ),
    ("~*/.msmtprc", Is(Secret), "mail passwords"),
    ("~*/.mbsyncrc", Is(Secret), "mail passwords"),
    ("~*/.fetchmailrc", Is(Secret), "mail passwords"),
    (
        "~*/.config/aerc/accounts.conf",
        Is(Secret),
        "mail passwords",
    ),
    ("~*/.purple/accounts.xml", Is(Secret), "chat passwords"),
    (
        "~*/.thunderbird/**/logins.json",
        Is(Secret),
        "saved mail passwords",
    ),
    (
        "~*/.thunderbird/**/key4.db",
        Is(Secret),
        "the mail client's password key",
    ),
    ("~*/.sbt/credentials", Is(Secret), "sbt's credentials"),
    ("~*/.ivy2/.credentials", Is(Secret), "Ivy's credentials"),
    ("~*/.config/jfrog/**", Is(Secret), "JFrog's credentials"),
    ("~*/.android/adbkey", Is(Secret), "the Android debug key"),
    ("~*/.kaggle/kaggle.json", Is(Secret), "Kaggle's key"),
    ("~*/.config/age/**", Is(Secret), "age keys"),
    ("~*/.config/sops/**", Is(Secret), "sops keys"),
    ("~*/.config/discord/**", Is(Secret), "Discord's session"),
    ("~*/.config/Slack/**", Is(Secret), "Slack's session"),
    (
        "~*/.bash_history",
        Is(Secret),
        "shell history (commands typed, passwords among them)",
    ),
    (
        "~*/.zsh_history",
        Is(Secret),
        "shell history (commands typed, passwords among them)",
    ),
    (
        "~*/.zhistory",
        Is(Secret),
        "shell history (commands typed, passwords among them)",
    ),
    (
        "~*/.local/share/fish/fish_history",
        Is(Secret),
        "shell history (commands typed, passwords among them)",
    ),
    (
        "~*/.psql_history",
        Is(Secret),
        "database history (queries, passwords among them)",
    ),
    (
        "~*/.mysql_history",
        Is(Secret),
        "database history (queries, passwords among them)",
    ),
    ("~*/.python_history", Is(Secret), "interpreter history"),
    ("~*/.node_repl_history", Is(Secret), "interpreter history"),
    ("/var/lib/*/.pgpass", Is(Secret), "PostgreSQL passwords"),
    (
        "/etc/krb5.keytab",
        Both(Secret, Protected),
        "the machine's Kerberos keys",
    ),
    (
        "/etc/wireguard/**",
        Both(Secret, Protected),
        "WireGuard's private keys",
    ),
    (
        "/etc/ppp/*-secrets",
        Both(Secret, Protected),
        "dial-up and VPN passwords",
    ),
    (
        "/etc/mysql/debian.cnf",
        Both(Secret, Protected),
        "MySQL's maintenance password",
    ),
    (
        "/var/lib/tailscale/**",
        Both(Secret, Protected),
        "Tailscale's node key",
    ),
    (
        "/run/user/*/containers/auth.json",
        Is(Secret),
        "container registry logins",
    ),
    (
        "/run/secrets/**",
        Is(Secret),
        "a container's mounted secrets",
    ),
    (
        "/var/run/secrets/**",
        Is(Secret),
        "a pod's service account token or mounted secrets",
    ),
    (
        "~*/.config/containers/auth.json",
        Is(Secret),
        "container registry logins",
    ),
    (
        "~*/.config/openstack/clouds.yaml",
        Is(Secret),
        "OpenStack credentials",
    ),
    (
        "~*/.config/openstack/secure.yaml",
        Is(Secret),
        "OpenStack credentials",
    ),
    (
        "~*/.local/share/uv/credentials/**",
        Is(Secret),
        "uv's stored credentials",
    ),
    (
        "~*/.config/pypoetry/auth.toml",
        Is(Secret),
        "Poetry's credentials",
    ),
    (
        "~*/.m2/settings-security.xml",
        Is(Secret),
        "Maven's master password",
    ),
    (
        "~*/.m2/settings.xml",
        Both(Secret, Protected),
        "Maven's settings and passwords",
    ),
    (
        "~*/.config/pip/pip.conf",
        Both(Secret, Protected),
        "pip's settings (its package index)",
    ),
    (
        "~*/.pip/pip.conf",
        Both(Secret, Protected),
        "pip's settings (its package index)",
    ),
    (
        "/etc/shadow*",
        Both(Secret, Protected),
        "the system's password hashes",
    ),
    (
        "/etc/gshadow*",
        Both(Secret, Protected),
        "the system's group passwords",
    ),
    (
        "/etc/ssh/ssh_host_*_key",
        Both(Secret, Protected),
        "the SSH server's private host keys",
    ),
    (
        "/etc/ssl/private/**",
        Both(Secret, Protected),
        "the system's TLS private keys",
    ),
    (
        "/etc/NetworkManager/system-connections/**",
        Both(Secret, Protected),
        "Wi-Fi and VPN passwords",
    ),
    (
        "/proc/*/environ",
        Is(Secret),
        "a process's environment, tokens included",
    ),
    ("/proc/*/mem", Is(Secret), "a process's memory"),
    ("/proc/kcore", Is(Secret), "the kernel's memory"),
    ("**/.env.example", Ordinary, "an example environment file"),
    ("**/.env.sample", Ordinary, "an example environment file"),
    ("**/.env.template", Ordinary, "an example environment file"),
    ("**/.env.default", Ordinary, "an example environment file"),
    ("**/.env.defaults", Ordinary, "an example environment file"),
    ("**/.env.dist", Ordinary, "an example environment file"),
    (
        "**/.env",
        Is(Secret),
        "an environment file (API keys, passwords)",
    ),
    (
        "**/.env.*",
        Is(Secret),
        "an environment file (API keys, passwords)",
    ),
    (
        "**/.envrc",
        Is(Secret),
        "a direnv environment file (API keys, passwords)",
    ),
    (
        "**/*.env",
        Is(Secret),
        "an environment file (API keys, passwords)",
    ),
    (
        "**/secrets.yaml",
        Is(Secret),
        "a file of secrets (by its name)",
    ),
    (
        "**/secrets.yml",
        Is(Secret),
        "a file of secrets (by its name)",
    ),
    (
        "**/secrets.json",
        Is(Secret),
        "a file of secrets (by its name)",
    ),
    (
        "**/secrets.toml",
        Is(Secret),
        "a file of secrets (by its name)",
    ),
    ("**/id_rsa", Is(Secret), "an SSH private key"),
    ("**/id_dsa", Is(Secret), "an SSH private key"),
    ("**/id_ecdsa", Is(Secret), "an SSH private key"),
    ("**/id_ed25519", Is(Secret), "an SSH private key"),
    ("**/id_ecdsa_sk", Is(Secret), "an SSH private key"),
    ("**/id_ed25519_sk", Is(Secret), "an SSH private key"),
    ("**/*.pem", Is(Secret), "a key or certificate file"),
    ("**/*.key", Is(Secret), "a private key file"),
    ("**/*.p12", Is(Secret), "a key store"),
    ("**/*.pfx", Is(Secret), "a key store"),
    ("**/*.jks", Is(Secret), "a Java key store"),
    ("**/*.keystore", Is(Secret), "a key store"),
    ("**/*.ppk", Is(Secret), "a PuTTY private key"),
    ("**/*.kdbx", Is(Secret), "a KeePass database"),
    ("**/credentials.json", Is(Secret), "a credentials file"),
    (
        "**/client_secret*.json",
        Is(Secret),
        "an OAuth client secret",
    ),
    (
        "**/*.tfstate",
        Is(Secret),
        "Terraform state (holds the secrets it manages)",
    ),
    (
        "**/*.tfstate.backup",
        Is(Secret),
        "Terraform state (holds the secrets it manages)",
    ),
    ("**/.htpasswd", Is(Secret), "web server passwords"),
    // ---- The gate itself, and the agents' hook settings ----
    ("/etc/assent/**", Is(Gate), "the gate's policy"),
    ("/var/lib/assent/**", Is(Gate), "the gate's state"),
    ("/run/assent/**", Is(Gate), "the gate's socket"),
    ("/run/user/*/assent/**", Is(Gate), "the gate's socket"),
    ("~*/.config/assent/**", Is(Gate), "the gate's policy"),
    ("~*/.local/state/assent/**", Is(Gate), "the gate's state"),
    // A project's narrowing of its confined runs: an agent that rewrote it would take back
    // the network or the project the person took away.
    (
        "**/.assent",
        Is(Gate),
        "the project's narrowing of confined runs",
    ),
    (
        "**/.assent/**",
        Is(Gate),
        "the project's narrowing of confined runs",
    ),
    (
        "/etc/systemd/system/assent*",
        Is(Gate),
        "the gate's service",
    ),
    (
        "/etc/systemd/system/assent*/**",
        Is(Gate),
        "the gate's service",
    ),
    (
        "~*/.claude/settings.json",
        Is(Gate),
        "Claude Code's settings (its hooks)",
    ),
    (
        "~*/.claude/settings.local.json",
        Is(Gate),
        "Claude Code's settings (its hooks)",
    ),
    (
        "**/.claude/settings.json",
        Is(Gate),
        "Claude Code's project settings (its hooks)",
    ),
    (
        "**/.claude/settings.local.json",
        Is(Gate),
        "Claude Code's project settings (its hooks)",
    ),
    (
        "/etc/claude-code/**",
        Is(Gate),
        "Claude Code's managed settings",
    ),
    // Claude Code sources its snapshot of the user's shell before every call it runs, in the
    // shell the call then runs in: a line in it runs unconfined, and a function or alias named
    // like the gate's builtin there would stand in for it.
    (
        "~*/.claude/shell-snapshots/**",
        Is(Gate),
        "Claude Code's snapshot of your shell, run before each of its calls",
    ),
    (
        "~*/.claude/session-env/**",
        Is(Gate),
        "Claude Code's session environment, run before each of its calls",
    ),
    (
        "~*/.codex/config.toml",
        Is(Gate),
        "Codex's settings (its hooks)",
    ),
    ("~*/.codex/hooks.json", Is(Gate), "Codex's hooks"),
    (
        "**/.codex/config.toml",
        Is(Gate),
        "Codex's project settings",
    ),
    ("**/.codex/hooks.json", Is(Gate), "Codex's project hooks"),
    (
        "~*/.gemini/settings.json",
        Is(Gate),
        "Gemini CLI's settings (its hooks)",
    ),
    (
        "**/.gemini/settings.json",
        Is(Gate),
        "Gemini CLI's project settings (its hooks)",
    ),
    (
        "/etc/gemini-cli/**",
        Is(Gate),
        "Gemini CLI's system settings",
    ),
    (
        "~*/.gemini/trustedFolders.json",
        Is(Gate),
        "Gemini CLI's trusted folders",
    ),
    ("~*/.gemini/policies/**", Is(Gate), "Gemini CLI's policies"),
    ("~*/.codex/rules/**", Is(Gate), "Codex's command rules"),
    ("/etc/codex/**", Is(Gate), "Codex's managed settings"),
    // The notification server that shows held requests and turns a click into an answer:
    // its configuration, and the D-Bus activation files that decide which server starts.
    ("~*/.config/dunst/**", Is(Gate), NOTIFIER),
    ("/etc/xdg/dunst/**", Is(Gate), NOTIFIER),
    ("~*/.config/mako/**", Is(Gate), NOTIFIER),
    ("/etc/xdg/mako/**", Is(Gate), NOTIFIER),
    ("~*/.config/swaync/**", Is(Gate), NOTIFIER),
    ("/etc/xdg/swaync/**", Is(Gate), NOTIFIER),
    ("~*/.config/fnott/**", Is(Gate), NOTIFIER),
    ("/etc/xdg/fnott/**", Is(Gate), NOTIFIER),
    ("~*/.config/deadd/**", Is(Gate), NOTIFIER),
    ("~*/.config/wired/**", Is(Gate), NOTIFIER),
    ("~*/.config/twmn/**", Is(Gate), NOTIFIER),
    ("~*/.config/plasmanotifyrc", Is(Gate), NOTIFIER),
    (
        "~*/.config/xfce4/xfconf/xfce-perchannel-xml/xfce4-notifyd.xml",
        Is(Gate),
        NOTIFIER,
    ),
    (
        "/etc/xdg/xfce4/xfconf/xfce-perchannel-xml/xfce4-notifyd.xml",
        Is(Gate),
        NOTIFIER,
    ),
    (
        "~*/.config/dconf/**",
        Is(Gate),
        "the desktop's settings (the notifications' among them)",
    ),
    (
        "~*/.config/systemd/user/*notif*",
        Is(Gate),
        "the notification server's service",
    ),
    (
        "~*/.config/systemd/user/*notif*/**",
        Is(Gate),
        "the notification server's service",
    ),
    (
        "~*/.config/systemd/user/dunst.service*",
        Is(Gate),
        "the notification server's service",
    ),
    (
        "~*/.config/systemd/user/mako.service*",
        Is(Gate),
        "the notification server's service",
    ),
    (
        "~*/.config/systemd/user/swaync.service*",
        Is(Gate),
        "the notification server's service",
    ),
    (
        "~*/.config/systemd/user/fnott.service*",
        Is(Gate),
        "the notification server's service",
    ),
    (
        "~*/.local/share/dbus-1/services/**",
        Is(Gate),
        "a D-Bus activation file (which program starts for a bus name, the notification server's among them)",
    ),
    ("/usr/share/dbus-1/services/*[Nn]otif*", Is(Gate), ACTIVATES),
    (
        "/usr/local/share/dbus-1/services/*[Nn]otif*",
        Is(Gate),
        ACTIVATES,
    ),
    ("/usr/share/dbus-1/services/*dunst*", Is(Gate), ACTIVATES),
    ("/usr/share/dbus-1/services/*mako*", Is(Gate), ACTIVATES),
    ("/usr/share/dbus-1/services/*swaync*", Is(Gate), ACTIVATES),
    ("/usr/share/dbus-1/services/*fnott*", Is(Gate), ACTIVATES),
    // Its programs, units and autostart entry, wherever they are installed: replacing or
    // removing them switches the gate off.
    ("/usr/bin/assent*", Is(Gate), "the gate's programs"),
    ("/usr/local/bin/assent*", Is(Gate), "the gate's programs"),
    ("/usr/lib/assent/**", Is(Gate), "the gate's shell hook"),
    ("/usr/share/assent/**", Is(Gate), "the gate's shell hook"),
    ("~*/.cargo/bin/assent*", Is(Gate), "the gate's programs"),
    ("~*/.local/bin/assent*", Is(Gate), "the gate's programs"),
    (
        "/lib/systemd/system/assent*",
        Is(Gate),
        "the gate's service",
    ),
    (
        "/usr/lib/systemd/system/assent*",
        Is(Gate),
        "the gate's service",
    ),
    (
        "/usr/lib/systemd/user/assent*",
        Is(Gate),
        "the gate's approval agent",
    ),
    (
        "/etc/systemd/user/assent*",
        Is(Gate),
        "the gate's approval agent",
    ),
    (
        "/etc/systemd/user/assent*/**",
        Is(Gate),
        "the gate's approval agent",
    ),
    (
        "~*/.config/systemd/user/assent*",
        Is(Gate),
        "the gate's user services",
    ),
    (
        "~*/.config/systemd/user/assent*/**",
        Is(Gate),
        "the gate's user services",
    ),
    (
        "~*/.config/autostart/assent*",
        Is(Gate),
        "the gate's approval agent",
    ),
    (
        "/etc/xdg/autostart/assent*",
        Is(Gate),
        "the gate's approval agent",
    ),
    (
        "/usr/share/polkit-1/actions/org.assent.*",
        Is(Gate),
        "the gate's password step",
    ),
    // The shell start-up files that load the interactive hook: editing them switches it off.
    (
        "~*/.bashrc",
        Is(Gate),
        "a shell start-up file (it loads the gate's hook)",
    ),
    (
        "~*/.bash_profile",
        Is(Gate),
        "a login start-up file (it loads the gate's hook)",
    ),
    (
        "~*/.bash_login",
        Is(Gate),
        "a login start-up file (it loads the gate's hook)",
    ),
    (
        "~*/.bash_aliases",
        Is(Gate),
        "a shell start-up file (it loads the gate's hook)",
    ),
    (
        "~*/.bashrc.d/**",
        Is(Gate),
        "a shell start-up file (it loads the gate's hook)",
    ),
    (
        "~*/.profile",
        Is(Gate),
        "a login start-up file (it loads the gate's hook)",
    ),
    (
        "~*/.zshenv",
        Is(Gate),
        "a shell start-up file (it loads the gate's hook)",
    ),
    (
        "~*/.zprofile",
        Is(Gate),
        "a login start-up file (it loads the gate's hook)",
    ),
    (
        "~*/.zshrc",
        Is(Gate),
        "a shell start-up file (it loads the gate's hook)",
    ),
    (
        "~*/.zlogin",
        Is(Gate),
        "a login start-up file (it loads the gate's hook)",
    ),
    (
        "~*/.config/bash/**",
        Is(Gate),
        "a shell start-up file (it loads the gate's hook)",
    ),
    (
        "~*/.config/zsh/**",
        Is(Gate),
        "a shell start-up file (it loads the gate's hook)",
    ),
    (
        "~*/.zsh/**",
        Is(Gate),
        "code zsh loads at start-up (it can unload the gate's hook)",
    ),
    (
        "~*/.oh-my-zsh/**",
        Is(Gate),
        "code zsh loads at start-up (it can unload the gate's hook)",
    ),
    (
        "/etc/bash.bashrc",
        Is(Gate),
        "every shell's start-up file (it loads the gate's hook)",
    ),
    (
        "/etc/profile",
        Is(Gate),
        "every login's start-up file (it loads the gate's hook)",
    ),
    (
        "/etc/profile.d/**",
        Is(Gate),
        "every login's start-up file (it loads the gate's hook)",
    ),
    (
        "/etc/zsh/**",
        Is(Gate),
        "every zsh's start-up file (it loads the gate's hook)",
    ),
    (
        "/etc/zshenv",
        Is(Gate),
        "every zsh's start-up file (it loads the gate's hook)",
    ),
    (
        "/etc/zshrc",
        Is(Gate),
        "every zsh's start-up file (it loads the gate's hook)",
    ),
    // ---- Start-up files: what runs at login, in every shell, or when an editor starts ----
    ("~*/.bash_logout", Is(Protected), "a shell start-up file"),
    ("~*/.zlogout", Is(Protected), "a shell start-up file"),
    ("~*/.kshrc", Is(Protected), "a shell start-up file"),
    ("~*/.mkshrc", Is(Protected), "a shell start-up file"),
    ("~*/.cshrc", Is(Protected), "a shell start-up file"),
    ("~*/.tcshrc", Is(Protected), "a shell start-up file"),
    ("~*/.login", Is(Protected), "a login start-up file"),
    ("~*/.config/fish/**", Is(Protected), "a shell start-up file"),
    (
        "~*/.bash_completion",
        Is(Protected),
        "a shell start-up file",
    ),
    (
        "~*/.bash_completion.d/**",
        Is(Protected),
        "a shell start-up file",
    ),
    ("~*/.inputrc", Is(Protected), "the shell's key bindings"),
    ("~*/.tmux.conf", Is(Protected), "tmux's start-up file"),
    ("~*/.config/tmux/**", Is(Protected), "tmux's start-up file"),
    ("~*/.screenrc", Is(Protected), "screen's start-up file"),
    (
        "~*/.cargo/env",
        Is(Protected),
        "a file shells source at start-up",
    ),
    (
        "~*/.nvm/nvm.sh",
        Is(Protected),
        "a file shells source at start-up",
    ),
    (
        "~*/.sdkman/bin/**",
        Is(Protected),
        "a file shells source at start-up",
    ),
    (
        "~*/.cargo/bin/**",
        Is(Protected),
        "your programs on the command path",
    ),
    (
        "~*/go/bin/**",
        Is(Protected),
        "your programs on the command path",
    ),
    (
        "~*/.npm-global/bin/**",
        Is(Protected),
        "your programs on the command path",
    ),
    (
        "~*/.pyenv/shims/**",
        Is(Protected),
        "your programs on the command path",
    ),
    (
        "**/site-packages/*.pth",
        Is(Protected),
        "a file Python runs at every start",
    ),
    (
        "**/site-packages/sitecustomize.py",
        Is(Protected),
        "a file Python runs at every start",
    ),
    (
        "**/site-packages/usercustomize.py",
        Is(Protected),
        "a file Python runs at every start",
    ),
    ("~*/.xprofile", Is(Protected), "a desktop start-up file"),
    ("~*/.xinitrc", Is(Protected), "a desktop start-up file"),
    ("~*/.xsession", Is(Protected), "a desktop start-up file"),
    ("~*/.xsessionrc", Is(Protected), "a desktop start-up file"),
    (
        "~*/.pam_environment",
        Is(Protected),
        "the environment set at login",
    ),
    (
        "~*/.config/environment.d/**",
        Is(Protected),
        "the environment set at login",
    ),
    (
        "~*/.config/autostart/**",
        Is(Protected),
        "programs started with the desktop",
    ),
    ("~*/.config/systemd/**", Is(Protected), "your services"),
    ("~*/.local/share/systemd/**", Is(Protected), "your services"),
    (
        "~*/.local/bin/**",
        Is(Protected),
        "your programs on the command path",
    ),
    (
        "~*/bin/**",
        Is(Protected),
        "your programs on the command path",
    ),
    ("~*/.vimrc", Is(Protected), "the editor's start-up file"),
    ("~*/.vim/**", Is(Protected), "code the editor loads"),
    ("~*/.config/nvim/**", Is(Protected), "code the editor loads"),
    ("~*/.emacs", Is(Protected), "the editor's start-up file"),
    ("~*/.emacs.d/**", Is(Protected), "code the editor loads"),
    ("~*/.config/direnv/**", Is(Protected), "code direnv runs"),
    (
        "~*/.local/share/direnv/allow/**",
        Is(Protected),
        "the .envrc files direnv runs without asking",
    ),
    // Settings files that name programs a tool then runs, or code it loads, at its every
    // start: written there, a command runs later, unconfined, with the user's rights.
    (
        "~*/.cargo/config*",
        Is(Protected),
        "cargo's settings (the wrappers and runners it starts)",
    ),
    (
        "~*/.yarnrc",
        Is(Protected),
        "Yarn's settings (the programs it runs)",
    ),
    (
        "~*/.gdbinit",
        Is(Protected),
        "commands gdb runs at every start",
    ),
    (
        "~*/.config/gdb/**",
        Is(Protected),
        "commands gdb runs at every start",
    ),
    (
        "~*/.ipython/*/startup/**",
        Is(Protected),
        "code IPython runs at every start",
    ),
    (
        "~*/.psqlrc",
        Is(Protected),
        "commands psql runs at every start",
    ),
    ("~*/.Rprofile", Is(Protected), "code R runs at every start"),
    ("~*/.irbrc", Is(Protected), "code irb runs at every start"),
    ("~*/.pryrc", Is(Protected), "code pry runs at every start"),
    (
        "~*/.gradle/init.d/**",
        Is(Protected),
        "scripts Gradle runs with every build",
    ),
    (
        "~*/.gradle/init.gradle*",
        Is(Protected),
        "scripts Gradle runs with every build",
    ),
    ("~*/.sbt/*/plugins/**", Is(Protected), "plugins sbt loads"),
    (
        "~*/.config/gh/config.yml",
        Is(Protected),
        "the GitHub CLI's settings (its shell aliases, pager and editor)",
    ),
    (
        "~*/.config/i3/**",
        Is(Protected),
        "the window manager's settings (the programs it starts)",
    ),
    (
        "~*/.config/sway/**",
        Is(Protected),
        "the window manager's settings (the programs it starts)",
    ),
    (
        "~*/.config/hypr/**",
        Is(Protected),
        "the window manager's settings (the programs it starts)",
    ),
    (
        "~*/.config/autostart-scripts/**",
        Is(Protected),
        "programs started with the desktop",
    ),
    (
        "~*/.config/plasma-workspace/env/**",
        Is(Protected),
        "scripts run as the desktop starts",
    ),
    (
        "~*/.mozilla/firefox/*/user.js",
        Is(Protected),
        "the browser's settings, applied at every start",
    ),
    (
        "**/.envrc",
        Both(Secret, Protected),
        "code direnv runs on entering the directory",
    ),
    (
        "**/.mcp.json",
        Is(Protected),
        "the MCP servers an agent starts",
    ),
    ("**/.husky/**", Is(Protected), "git hooks (husky)"),
    (
        "**/.pre-commit-config.yaml",
        Is(Protected),
        "what runs at each commit",
    ),
    (
        "**/.vscode/tasks.json",
        Is(Protected),
        "tasks the editor may run on opening the folder",
    ),
    (
        "**/.devcontainer/**",
        Is(Protected),
        "what a dev container runs",
    ),
    // ---- git: its configuration, hooks and history ----
    (
        "~*/.gitconfig",
        Is(Protected),
        "your git configuration (it can name programs git runs)",
    ),
    (
        "~*/.config/git/**",
        Is(Protected),
        "your git configuration (it can name programs git runs)",
    ),
    (
        "**/.git",
        Is(Protected),
        "a repository's history, hooks and configuration",
    ),
    (
        "**/.git/**",
        Is(Protected),
        "a repository's history, hooks and configuration",
    ),
    // ---- The system's own files ----
    ("/etc/**", Is(Protected), "a system configuration file"),
    ("/usr/**", Is(Protected), "a system file"),
    ("/bin/**", Is(Protected), "a system program"),
    ("/sbin/**", Is(Protected), "a system program"),
    ("/lib/**", Is(Protected), "a system library"),
    ("/lib32/**", Is(Protected), "a system library"),
    ("/lib64/**", Is(Protected), "a system library"),
    ("/libx32/**", Is(Protected), "a system library"),
    ("/boot/**", Is(Protected), "a file the system needs to boot"),
    ("/sys/**", Is(Protected), "a kernel setting"),
    ("/proc/**", Is(Protected), "a kernel setting"),
    ("/dev/**", Is(Protected), "a device"),
    (
        "/var/lib/**",
        Is(Protected),
        "the state of an installed service",
    ),
    (
        "/var/spool/**",
        Is(Protected),
        "a system queue (mail, cron jobs)",
    ),
    ("/var/log/**", Is(Protected), "a system log"),
    ("/opt/**", Is(Protected), "installed software"),
    ("/snap/**", Is(Protected), "installed software"),
];

/// Where a compiled pattern starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    Root,
    /// The requester's home.
    Home,
    /// Any home.
    AnyHome,
    Anywhere,
}

/// One component of a compiled pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RComp {
    Name(Glob),
    /// `**`.
    AnyDirs,
}

/// A compiled entry.
#[derive(Debug)]
pub struct Rule {
    pub at: At,
    pub comps: Vec<RComp>,
    /// A whole tree (pattern ending in `/`).
    pub tree: bool,
    pub says: Says,
    pub why: &'static str,
    /// The longest literal text in the pattern: a path that does not hold it cannot match
    /// (checked first, for paths that are all literal).
    pub key: String,
}

impl Rule {
    pub fn compile(pattern: &str, says: Says, why: &'static str) -> Rule {
        let tree = pattern.ends_with('/');
        let (at, rest) = if let Some(r) = pattern.strip_prefix("~*/") {
            (At::AnyHome, r)
        } else if let Some(r) = pattern.strip_prefix("~/") {
            (At::Home, r)
        } else if let Some(r) = pattern.strip_prefix("**/") {
            (At::Anywhere, r)
        } else {
            (At::Root, pattern.trim_start_matches('/'))
        };
        let lead = (at == At::Anywhere).then_some(RComp::AnyDirs);
        let comps: Vec<RComp> = lead
            .into_iter()
            .chain(rest.split('/').filter(|c| !c.is_empty()).map(|c| {
                if c == "**" {
                    RComp::AnyDirs
                } else {
                    RComp::Name(Glob::parse(c))
                }
            }))
            .collect();
        let key = literal_runs(rest)
            .into_iter()
            .max_by_key(|s| s.len())
            .unwrap_or_default();
        Rule {
            at,
            comps,
            tree,
            says,
            why,
            key,
        }
    }
}

/// The runs of literal text in a pattern, between `/`, wildcards and bracket expressions.
fn literal_runs(pattern: &str) -> Vec<String> {
    let mut runs = vec![String::new()];
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '/' | '*' | '?' => runs.push(String::new()),
            '[' => {
                for c in chars.by_ref() {
                    if c == ']' {
                        break;
                    }
                }
                runs.push(String::new());
            }
            c => runs.last_mut().expect("never empty").push(c),
        }
    }
    runs
}

/// A cleared table of `len` flags: on the stack when small, else on the heap.
fn scratch<'a>(small: &'a mut [bool; 512], large: &'a mut Vec<bool>, len: usize) -> &'a mut [bool] {
    if len <= small.len() {
        &mut small[..len]
    } else {
        large.resize(len, false);
        large
    }
}

/// Could some one path match both?
pub fn meets(path: &[Comp], rule: &[RComp]) -> bool {
    meets_as(path, rule, false)
}

/// [`meets`] for a rule that names files wherever they are (`**/*.pem`): the word's last
/// component must spell out part of the name ([`Glob::names`]), or `cat *` would read every
/// key a directory might hold.
pub fn names(path: &[Comp], rule: &[RComp]) -> bool {
    meets_as(path, rule, true)
}

fn meets_as(path: &[Comp], rule: &[RComp], pin_last: bool) -> bool {
    let (n, m) = (path.len(), rule.len());
    let mut small = [false; 512];
    let mut large = Vec::new();
    let seen = scratch(&mut small, &mut large, (n + 1) * (m + 1));
    let mut stack = vec![(0usize, 0usize)];
    while let Some((i, j)) = stack.pop() {
        let at = i * (m + 1) + j;
        if seen[at] {
            continue;
        }
        seen[at] = true;
        if i == n && j == m {
            return true;
        }
        if rule.get(j) == Some(&RComp::AnyDirs) {
            stack.push((i, j + 1));
            if i < n {
                stack.push((i + 1, j));
            }
        }
        match path.get(i) {
            Some(Comp::Opaque | Comp::Below | Comp::Found) => {
                stack.push((i + 1, j));
                // Unknown text may be any name a wildcard stands for, never a literal one
                // (`$d/credentials` is not taken for `~/.aws/credentials`).
                if let Some(RComp::Name(g)) = rule.get(j)
                    && g.is_wildcard_only()
                {
                    stack.push((i, j + 1));
                }
            }
            Some(Comp::Beneath) => {
                stack.push((i + 1, j));
                if j < m {
                    stack.push((i, j + 1));
                }
            }
            Some(Comp::Name(p)) => {
                if let Some(RComp::Name(r)) = rule.get(j) {
                    let last = pin_last && j + 1 == m;
                    if if last { p.names(r) } else { p.meets(r) } {
                        stack.push((i + 1, j + 1));
                    }
                }
            }
            None => {}
        }
    }
    false
}

/// Does every path the word's pattern names match the rule? Conservative: `false` when not
/// sure, and always for paths with unknown parts.
pub fn within(path: &[Comp], rule: &[RComp]) -> bool {
    let (n, m) = (path.len(), rule.len());
    let mut small = [false; 512];
    let mut large = Vec::new();
    let seen = scratch(&mut small, &mut large, (n + 1) * (m + 1));
    let mut stack = vec![(0usize, 0usize)];
    while let Some((i, j)) = stack.pop() {
        let at = i * (m + 1) + j;
        if seen[at] {
            continue;
        }
        seen[at] = true;
        if i == n && j == m {
            return true;
        }
        match (path.get(i), rule.get(j)) {
            (_, Some(RComp::AnyDirs)) => {
                stack.push((i, j + 1));
                if i < n {
                    stack.push((i + 1, j));
                }
            }
            (Some(Comp::Name(p)), Some(RComp::Name(r))) if p.within(r) => {
                stack.push((i + 1, j + 1));
            }
            _ => {}
        }
    }
    false
}

/// The components of `path` a rule starting `at` sees, each way the path may be read: a
/// path in the requester's home is also seen from the home, one in another home from that
/// home, one with an unknown prefix from wherever the prefix might end.
pub fn views<'p>(
    path: &'p Path,
    at: At,
    home: Option<&[Comp]>,
    out: &mut Vec<std::borrow::Cow<'p, [Comp]>>,
) {
    use std::borrow::Cow;
    out.clear();
    let comps = path.comps.as_slice();
    match (path.anchor, at) {
        (Anchor::Root, At::Root | At::Anywhere) => out.push(Cow::Borrowed(comps)),
        (Anchor::Root, At::Home | At::AnyHome) => {
            if let Some(rest) = home.and_then(|h| strip(comps, h)) {
                out.push(Cow::Borrowed(rest));
            }
            if at == At::AnyHome {
                let named = |c: Option<&Comp>, name: &str| matches!(c, Some(Comp::Name(g)) if g.meets(&Glob::literal(name)));
                if named(comps.first(), "home") && comps.len() >= 2 {
                    // `/home/$u/…`: the unknown part may be the name and more.
                    let skip = if comps[1] == Comp::Opaque { 1 } else { 2 };
                    out.push(Cow::Borrowed(&comps[skip..]));
                }
                if named(comps.first(), "root") {
                    out.push(Cow::Borrowed(&comps[1..]));
                }
                if comps.first() == Some(&Comp::Opaque) {
                    out.push(Cow::Borrowed(comps));
                }
            }
        }
        (Anchor::Home, At::Home | At::AnyHome | At::Anywhere) => out.push(Cow::Borrowed(comps)),
        (Anchor::Home, At::Root) => {}
        // The unknown prefix may end anywhere: at the root, in a home, in the project.
        (Anchor::Unknown, _) => {
            let mut all = Vec::with_capacity(comps.len() + 1);
            all.push(Comp::Opaque);
            all.extend(comps.iter().cloned());
            out.push(Cow::Owned(all));
        }
    }
}

/// `comps` without the leading `prefix`, when it starts with it literally.
fn strip<'c>(comps: &'c [Comp], prefix: &[Comp]) -> Option<&'c [Comp]> {
    if comps.len() < prefix.len() {
        return None;
    }
    let (head, rest) = comps.split_at(prefix.len());
    (head == prefix).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_compiles_to_something() {
        for (pattern, _, why) in ENTRIES {
            let rule = Rule::compile(pattern, Ordinary, why);
            assert!(
                rule.tree || !rule.comps.is_empty() || *pattern == "/",
                "{pattern}"
            );
            assert!(!why.is_empty(), "{pattern} says what it is");
        }
    }
}
