//! Where the daemon's socket is. Every binary finds it the same way:
//! `--socket PATH`, else `$ASSENT_SOCKET`, else the system socket if it exists, else the user
//! socket under `$XDG_RUNTIME_DIR`. And the working directory a shell command is sent with.

use std::path::{Path, PathBuf};

use crate::error::Error;

/// The system daemon's socket.
pub const SYSTEM_SOCKET: &str = "/run/assent/socket";

/// The environment variable that names a socket.
pub const SOCKET_ENV: &str = "ASSENT_SOCKET";

/// The user daemon's socket: `$XDG_RUNTIME_DIR/assent/socket`.
pub fn user_socket() -> Result<PathBuf, Error> {
    match std::env::var_os("XDG_RUNTIME_DIR") {
        Some(dir) if !dir.is_empty() => Ok(Path::new(&dir).join("assent").join("socket")),
        _ => Err(Error::NoSocket(
            "XDG_RUNTIME_DIR is not set; pass --socket PATH or set ASSENT_SOCKET".into(),
        )),
    }
}

/// Resolve the socket a client should connect to.
pub fn resolve_socket(flag: Option<&Path>) -> Result<PathBuf, Error> {
    if let Some(path) = flag {
        return Ok(path.to_path_buf());
    }
    if let Some(path) = std::env::var_os(SOCKET_ENV).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    let system = Path::new(SYSTEM_SOCKET);
    if system.exists() {
        return Ok(system.to_path_buf());
    }
    user_socket()
}

/// The socket an agent's door (a hook, `assent sh`, `assent run`) connects to: `flag` (the
/// hook's own settings, which the gate keeps agents from editing), else the system socket
/// whenever it exists, whatever `ASSENT_SOCKET` says (an agent can start itself, or a shell,
/// with any environment), else as [`resolve_socket`].
pub fn resolve_door_socket(flag: Option<&Path>) -> Result<PathBuf, Error> {
    let system = Path::new(SYSTEM_SOCKET);
    if flag.is_none() && system.exists() {
        return Ok(system.to_path_buf());
    }
    resolve_socket(flag)
}

/// The working directory to send with a shell command: `flag` (`--cwd`) made absolute, else
/// the current directory. The error is a sentence for the person.
pub fn working_dir(flag: Option<&Path>) -> Result<String, String> {
    let dir = match (flag, std::env::current_dir()) {
        (Some(dir), _) if dir.is_absolute() => dir.to_path_buf(),
        (Some(dir), Ok(current)) => current.join(dir),
        (None, Ok(current)) => current,
        (_, Err(error)) => {
            return Err(format!(
                "could not determine the working directory ({error}); pass --cwd DIR"
            ));
        }
    };
    dir.into_os_string()
        .into_string()
        .map_err(|_| "the working directory is not valid UTF-8; pass --cwd DIR".to_string())
}
