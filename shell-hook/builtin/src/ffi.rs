//! The C boundary with bash, and the crate's only `unsafe`.
//!
//! `enable -f libassent_bash.so assent_check` makes bash `dlopen` this library, look up the
//! symbol `assent_check_struct` (a `struct builtin`, `builtins.h`) and from then on call its
//! `function` with the words after the builtin's name (a `WORD_LIST`, `command.h`). The layouts
//! below are bash 5.2's (Debian's `bash-builtins` headers; unchanged since bash 4.0):
//!
//! ```c
//! typedef struct word_desc { char *word; int flags; } WORD_DESC;
//! typedef struct word_list { struct word_list *next; WORD_DESC *word; } WORD_LIST;
//! typedef int sh_builtin_func_t (WORD_LIST *);
//! struct builtin {
//!   char *name; sh_builtin_func_t *function; int flags;
//!   char * const *long_doc; const char *short_doc; char *handle;
//! };
//! ```
//!
//! bash's own functions and variables (`bind_variable`, `interrupt_state`) are looked up with
//! `dlsym` when needed rather than linked, so the library links (and its tests run) without
//! bash, and a bash without them makes the builtin fail safely instead of failing to load.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;

use nix::libc;

use crate::Shell;

/// `WORD_DESC`.
#[repr(C)]
struct WordDesc {
    word: *mut c_char,
    flags: c_int,
}

/// `WORD_LIST`.
#[repr(C)]
struct WordList {
    next: *mut WordList,
    word: *mut WordDesc,
}

/// `sh_builtin_func_t`.
type BuiltinFunc = unsafe extern "C" fn(*mut WordList) -> c_int;

/// `struct builtin`.
#[repr(C)]
struct Builtin {
    name: *const c_char,
    function: Option<BuiltinFunc>,
    flags: c_int,
    long_doc: *const *const c_char,
    short_doc: *const c_char,
    handle: *mut c_char,
}

/// `BUILTIN_ENABLED` (`builtins.h`).
const BUILTIN_ENABLED: c_int = 0x01;

/// What `help assent_check` prints: a NULL-terminated array of lines.
static mut LONG_DOC: [*const c_char; 8] = [
    c"Ask the assent gate whether a typed line may run, without starting a process.".as_ptr(),
    c"".as_ptr(),
    c"Loaded and called by the assent bash hook. Returns 0 if allowed, 1 if denied".as_ptr(),
    c"(the reason is on stderr), 3 if held (the connection is left open in".as_ptr(),
    c"$__assent_fd for `assent __resume`), 64 on a usage error, 126 if the gate".as_ptr(),
    c"is unavailable, 130 if interrupted. With --ping, returns 0 if the daemon".as_ptr(),
    c"answers and prints nothing.".as_ptr(),
    ptr::null(),
];

/// The symbol bash looks up. Mutable because bash writes `flags` and `handle` when it loads it.
#[unsafe(no_mangle)]
#[allow(non_upper_case_globals)]
static mut assent_check_struct: Builtin = Builtin {
    name: c"assent_check".as_ptr(),
    function: Some(assent_check_builtin),
    flags: BUILTIN_ENABLED,
    long_doc: (&raw const LONG_DOC).cast(),
    short_doc: c"assent_check [--socket PATH] [--session LABEL] [--cwd DIR] -- COMMAND".as_ptr(),
    handle: ptr::null_mut(),
};

/// What `help assent_confine` prints.
static mut CONFINE_LONG_DOC: [*const c_char; 7] = [
    c"Confine this shell in place for a line an agent's hook was allowed, and run it.".as_ptr(),
    c"".as_ptr(),
    c"Written into an agent's shell call by the assent hook. Redeems the grant for".as_ptr(),
    c"LINE here, confines this shell and runs LINE as eval would; where this shell".as_ptr(),
    c"cannot be confined in place, the door (--door) runs it. Returns LINE's status,".as_ptr(),
    c"or non-zero with the reason on stderr when LINE did not run.".as_ptr(),
    ptr::null(),
];

/// The second builtin's symbol, `enable -f libassent_bash.so assent_confine`.
#[unsafe(no_mangle)]
#[allow(non_upper_case_globals)]
static mut assent_confine_struct: Builtin = Builtin {
    name: c"assent_confine".as_ptr(),
    function: Some(assent_confine_builtin),
    flags: BUILTIN_ENABLED,
    long_doc: (&raw const CONFINE_LONG_DOC).cast(),
    short_doc: c"assent_confine [--socket PATH] --grant TOKEN [--door ASSENT] -c LINE".as_ptr(),
    handle: ptr::null_mut(),
};

/// The words bash passed a builtin.
///
/// # Safety
///
/// `list` is null or the head of a `WORD_LIST` whose nodes, `WORD_DESC`s and NUL-terminated
/// words stay valid and unchanged while the returned words live, which is what bash passes to a
/// builtin (the words after its name) for the duration of its call.
unsafe fn words<'a>(list: *mut WordList) -> Vec<&'a CStr> {
    let mut words: Vec<&CStr> = Vec::new();
    let mut node = list.cast_const();
    while !node.is_null() {
        // SAFETY: `node` is a non-null node of the list bash passed (see the function's
        // contract), valid for the whole call.
        let node_ref = unsafe { &*node };
        if !node_ref.word.is_null() {
            // SAFETY: a non-null `WORD_DESC` of that list, valid for the call.
            let word = unsafe { &*node_ref.word }.word;
            if !word.is_null() {
                // SAFETY: bash's words are NUL-terminated strings that outlive the call; the
                // caller keeps the `&CStr`s within it.
                words.push(unsafe { CStr::from_ptr(word) });
            }
        }
        node = node_ref.next;
    }
    words
}

/// The `assent_check` builtin's entry point.
///
/// # Safety
///
/// As [`words`]: `list` is what bash passes a builtin.
unsafe extern "C" fn assent_check_builtin(list: *mut WordList) -> c_int {
    let status = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: this function's contract; the words do not outlive the call.
        let words = unsafe { words(list) };
        crate::run(&words, &mut Bash)
    }));
    match status {
        Ok(status) => c_int::from(status),
        Err(_) => {
            // The default panic hook has printed what went wrong; say what it means.
            eprintln!("assent: the assent_check builtin failed; treating the gate as unavailable");
            c_int::from(crate::status::UNAVAILABLE)
        }
    }
}

/// The `assent_confine` builtin's entry point: the grant redeemed and the shell confined
/// (`confine.rs`), then the line run by bash's own `evalstring`, as the `eval` builtin runs its
/// words, then what the kernel refused it said. A panic is a failure: the line does not run.
///
/// # Safety
///
/// As [`words`]: `list` is what bash passes a builtin.
unsafe extern "C" fn assent_confine_builtin(list: *mut WordList) -> c_int {
    let next = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: this function's contract; the words do not outlive the call.
        let words = unsafe { words(list) };
        crate::confine::run(&words)
    }));
    let line = match next {
        Ok(crate::confine::Next::Status(status)) => return c_int::from(status),
        Ok(crate::confine::Next::Run(line)) => line,
        Err(_) => {
            eprintln!("assent: the assent_confine builtin failed; not running the line");
            return c_int::from(crate::status::UNAVAILABLE);
        }
    };
    let found = symbol(c"evalstring");
    if found.is_null() {
        eprintln!("assent: this bash has no evalstring; not running the line");
        return c_int::from(crate::status::UNAVAILABLE);
    }
    // SAFETY: bash exports `int evalstring (char *string, const char *from_file, int flags)`
    // (builtins/evalstring.c, bash 5.1 and later: what the `eval` builtin calls); a function
    // pointer and a data pointer have the same representation here, as for `bind_variable`.
    let evalstring: EvalString = unsafe { std::mem::transmute::<*mut c_void, EvalString>(found) };
    // bash frees the string it runs (flags without SEVAL_NOFREE), with the C library's `free`,
    // which this `malloc` pairs with.
    let bytes = line.as_bytes_with_nul();
    // SAFETY: a fresh allocation of exactly `bytes.len()` bytes, filled before use.
    let copy = unsafe { libc::malloc(bytes.len()) }.cast::<c_char>();
    if copy.is_null() {
        return c_int::from(crate::status::UNAVAILABLE);
    }
    // SAFETY: `copy` holds `bytes.len()` bytes and does not overlap `bytes`.
    unsafe { ptr::copy_nonoverlapping(bytes.as_ptr().cast::<c_char>(), copy, bytes.len()) };
    drop(line);
    // Aliases off for the line, as in the `bash -c` the daemon judged it for: an agent's
    // shell may have them on (Claude Code's snapshot of the user's shell turns them on), and
    // an alias the line defines would then change what its later commands run.
    let aliases = symbol(c"expand_aliases").cast::<c_int>();
    if aliases.is_null() {
        // SAFETY: `copy` came from `malloc` above and nothing else holds it.
        unsafe { libc::free(copy.cast()) };
        eprintln!(
            "assent: this bash does not say whether it expands aliases; not running the line"
        );
        return c_int::from(crate::status::UNAVAILABLE);
    }
    // SAFETY: bash exports `int expand_aliases` (shell.c), read and written on its only thread.
    let expanding = unsafe { ptr::read_volatile(aliases) };
    // SAFETY: as above.
    unsafe { ptr::write_volatile(aliases, 0) };
    // From here until it returns, no value with a destructor is alive in this frame: an `exit`
    // in the line, an error under `set -e` or a signal leaves it by bash's `longjmp`, as it
    // leaves the `eval` builtin.
    // SAFETY: `copy` is a NUL-terminated string from `malloc`, which bash takes and frees;
    // "eval" is the name bash gives the line's errors, as for `eval`.
    let status = unsafe { evalstring(copy, c"eval".as_ptr(), 0) };
    // SAFETY: as above; the shell's own setting back for what its caller runs next.
    unsafe { ptr::write_volatile(aliases, expanding) };
    let status = u8::try_from(status & 0xff).unwrap_or(1);
    match catch_unwind(|| crate::confine::after(status)) {
        Ok(status) => c_int::from(status),
        Err(_) => c_int::from(status),
    }
}

unsafe extern "C" {
    /// `dlsym(3)`; with a null handle (glibc's `RTLD_DEFAULT`) it searches the global scope,
    /// where bash's exported symbols are.
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}

/// `int evalstring (char *, const char *, int)` (`builtins/common.h`).
type EvalString = unsafe extern "C" fn(*mut c_char, *const c_char, c_int) -> c_int;

/// `SHELL_VAR *bind_variable (const char *, char *, int)` (`variables.h`).
type BindVariable = unsafe extern "C" fn(*const c_char, *mut c_char, c_int) -> *mut c_void;

/// Look a symbol up in the global scope; null if it is not there.
fn symbol(name: &CStr) -> *mut c_void {
    // SAFETY: dlsym only reads the NUL-terminated name; a null handle is RTLD_DEFAULT on glibc.
    unsafe { dlsym(ptr::null_mut(), name.as_ptr()) }
}

/// The bash the library is loaded in.
struct Bash;

impl Shell for Bash {
    fn set_var(&mut self, name: &CStr, value: &CStr) -> bool {
        let found = symbol(c"bind_variable");
        if found.is_null() {
            return false;
        }
        // SAFETY: the symbol `bind_variable` exported by bash has the type `BindVariable` (bash
        // 4.0 to 5.2, `variables.h`); a function pointer and a data pointer have the same size
        // and representation on the platforms bash's loadables support.
        let bind: BindVariable = unsafe { std::mem::transmute::<*mut c_void, BindVariable>(found) };
        // SAFETY: both strings are NUL-terminated and live for the call; bash copies the value
        // (`savestring`) and does not write through it for a variable without an assignment
        // function, which ours are not. The builtin runs on bash's only thread, as bash's own
        // builtins do when they set variables. A null result means bash refused (read-only).
        let var = unsafe { bind(name.as_ptr(), value.as_ptr().cast_mut(), 0) };
        !var.is_null()
    }

    fn interrupted(&self) -> bool {
        [c"interrupt_state", c"terminating_signal"]
            .into_iter()
            .any(|name| {
                let found = symbol(name).cast::<c_int>();
                // SAFETY: bash exports both as `volatile sig_atomic_t` (`quit.h`), an int,
                // written by its signal handlers: a volatile read of an aligned int is what
                // bash's own QUIT macro does.
                !found.is_null() && unsafe { ptr::read_volatile(found) } != 0
            })
    }
}
