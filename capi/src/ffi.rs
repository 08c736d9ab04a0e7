//! The C functions of `libmorris` (declared in `include/morris.h`): the one
//! module of this crate with unsafe code, which it needs to read C strings
//! and write through the caller's pointers. Each unsafe block says why it
//! is sound; each function catches panics and checks every pointer for
//! NULL first.
#![allow(unsafe_code)]

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::{wdl_dtm, Failure, Handle};

/// What a function of libmorris returns: 0 for success, else why not (the
/// message is then in `morris_last_error()`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MorrisStatus {
    /// Success.
    Ok = 0,
    /// A pointer argument that must not be NULL was NULL.
    NullPointer = 1,
    /// A string argument is not UTF-8, or another argument is out of range.
    InvalidArgument = 2,
    /// The position is malformed, not one of the rule set, or reached by
    /// no game.
    BadPosition = 3,
    /// The directory does not exist, holds no tables, or tables of several
    /// rule sets and none was named.
    NoDatabase = 4,
    /// The table the position needs is not in the directory (the message
    /// names the sector and the file).
    MissingTable = 5,
    /// A table is damaged, of another rule set, or of a format version this
    /// library does not read.
    BadTable = 6,
    /// An unknown rule set, or a query these tables cannot answer (e.g.
    /// distances from WDL files only).
    Unsupported = 7,
    /// The caller's buffer is too small (the message says how large it must
    /// be).
    BufferTooSmall = 8,
    /// A bug in libmorris (a Rust panic, caught at the boundary).
    Panic = 9,
}

/// The value of a position for the side to move, or of a move for the
/// mover.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MorrisValue {
    /// 1 for a win, 0 for a draw, -1 for a loss.
    pub wdl: i32,
    /// Plies to the end of the game under perfect play, signed: positive
    /// for a win, negative for a loss, 0 for a draw (and for a side to move
    /// that has already lost: then `wdl` is -1).
    pub dtm: i32,
}

/// Longest move text written by libmorris, with its terminating NUL
/// (`a1-a4xd7` is 9 bytes).
pub const MORRIS_MOVE_TEXT: usize = 16;

/// A legal move and its value for the mover.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct MorrisMove {
    /// The move as `morris analyze` writes it (`b2`, `a1-a4`, `d2xd7`),
    /// NUL-terminated.
    pub text: [c_char; MORRIS_MOVE_TEXT],
    /// Its value for the mover.
    pub value: MorrisValue,
}

/// An open tablebase (opaque): made by `morris_open`, freed by
/// `morris_close`; may be used from several threads at once.
pub struct MorrisDb {
    handle: Handle,
}

thread_local! {
    /// This thread's last error message.
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Keeps `message` as this thread's last error (a NUL inside is replaced).
fn set_error(message: &str) {
    let c = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// Runs `f` with panics caught: its status, with the message of a failure
/// kept for `morris_last_error`.
fn guard(f: impl FnOnce() -> Result<(), Failure>) -> MorrisStatus {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => {
            set_error("");
            MorrisStatus::Ok
        }
        Ok(Err(failure)) => {
            set_error(&failure.message);
            failure.status
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            set_error(&format!("internal error in libmorris (please report): {what}"));
            MorrisStatus::Panic
        }
    }
}

/// A C string argument as `&str`.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that lives and is not
/// changed while the returned reference is used (the caller's contract
/// for every string argument, stated in morris.h).
unsafe fn text<'a>(p: *const c_char, name: &str) -> Result<&'a str, Failure> {
    if p.is_null() {
        return Err(Failure::new(MorrisStatus::NullPointer, format!("`{name}` is NULL")));
    }
    // SAFETY: non-null, and NUL-terminated and alive by the contract above.
    let c = unsafe { CStr::from_ptr(p) };
    c.to_str().map_err(|_| Failure::new(MorrisStatus::InvalidArgument, format!("`{name}` is not UTF-8")))
}

/// The handle behind `db`.
///
/// # Safety
/// `db` is NULL or a pointer returned by `morris_open` and not yet passed
/// to `morris_close`.
unsafe fn handle<'a>(db: *const MorrisDb) -> Result<&'a Handle, Failure> {
    if db.is_null() {
        return Err(Failure::new(MorrisStatus::NullPointer, "`db` is NULL"));
    }
    // SAFETY: made by `Box::into_raw` in `morris_open` and not freed yet
    // (contract above); only shared references are made from it, and a
    // `MorrisDb` is `Sync`.
    Ok(unsafe { &(*db).handle })
}

/// A NULL-pointer failure for the output argument `name`.
fn null(name: &str) -> Failure {
    Failure::new(MorrisStatus::NullPointer, format!("`{name}` is NULL"))
}

/// Opens the tables in the directory `dir` for the rule set `rules` (a
/// preset name: "three", "six", "nine", ...), or, when `rules` is NULL, for
/// the one rule set whose tables the directory holds. Maps no table yet
/// (each on first use). Returns NULL on failure, with the reason in
/// `morris_last_error()`.
///
/// # Safety
/// `dir` and `rules` are NULL or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn morris_open(dir: *const c_char, rules: *const c_char) -> *mut MorrisDb {
    let mut out = std::ptr::null_mut();
    guard(|| {
        // SAFETY: the caller's contract for string arguments.
        let dir = unsafe { text(dir, "dir") }?;
        // SAFETY: as above.
        let rules = if rules.is_null() { None } else { Some(unsafe { text(rules, "rules") }?) };
        let handle = Handle::open(dir, rules)?;
        out = Box::into_raw(Box::new(MorrisDb { handle }));
        Ok(())
    });
    out
}

/// Frees a tablebase opened by `morris_open` (NULL is ignored). No other
/// thread may be using it.
///
/// # Safety
/// `db` is NULL or a pointer returned by `morris_open`, not closed before.
#[no_mangle]
pub unsafe extern "C" fn morris_close(db: *mut MorrisDb) {
    if db.is_null() {
        return;
    }
    guard(|| {
        // SAFETY: made by `Box::into_raw` in `morris_open`, freed once (the
        // caller's contract).
        drop(unsafe { Box::from_raw(db) });
        Ok(())
    });
}

/// The value of the position `position` (our notation,
/// `W:a4,a1,d3 B:a7,d1,c4 w`, or a Sanmill FEN) for the side to move,
/// written to `*result`.
///
/// # Safety
/// `db` as for `morris_close`; `position` NULL or a NUL-terminated string;
/// `result` NULL or valid for one write of a `MorrisValue`.
#[no_mangle]
pub unsafe extern "C" fn morris_probe(
    db: *const MorrisDb,
    position: *const c_char,
    result: *mut MorrisValue,
) -> MorrisStatus {
    guard(|| {
        // SAFETY: the caller's contract for `db` and `position`.
        let (h, text) = unsafe { (handle(db)?, text(position, "position")?) };
        if result.is_null() {
            return Err(null("result"));
        }
        let (wdl, dtm) = wdl_dtm(h.probe(text)?);
        // SAFETY: non-null and valid for a write (the caller's contract).
        unsafe { result.write(MorrisValue { wdl, dtm }) };
        Ok(())
    })
}

/// Win (1), draw (0) or loss (-1) for the side to move of each of the `n`
/// positions `positions[0..n]` (as `morris_probe` reads them), written to
/// `wdl[0..n]`; from any kind of table (WDL files too). Reads the
/// positions in batches, which overlap the waits for memory of several
/// positions: faster per position than `morris_probe` in a loop. On a
/// failure, returns the status of the first position in the list that
/// fails (`morris_last_error()` says which) and leaves `wdl` unspecified.
///
/// # Safety
/// `db` as for `morris_close`; `positions` NULL or valid for `n` reads of
/// pointers, each NULL or a NUL-terminated string; `wdl` NULL or valid for
/// `n` writes.
#[no_mangle]
pub unsafe extern "C" fn morris_probe_wdl_many(
    db: *const MorrisDb,
    positions: *const *const c_char,
    n: usize,
    wdl: *mut i8,
) -> MorrisStatus {
    guard(|| {
        // SAFETY: the caller's contract for `db`.
        let h = unsafe { handle(db)? };
        if n == 0 {
            return Ok(());
        }
        if positions.is_null() {
            return Err(null("positions"));
        }
        if wdl.is_null() {
            return Err(null("wdl"));
        }
        // SAFETY: non-null and valid for `n` reads (the caller's contract).
        let pointers = unsafe { std::slice::from_raw_parts(positions, n) };
        let mut texts = Vec::with_capacity(n);
        for (i, &p) in pointers.iter().enumerate() {
            // SAFETY: each NULL or NUL-terminated (the caller's contract).
            texts.push(unsafe { text(p, &format!("positions[{i}]"))? });
        }
        let values = h.probe_wdl_many(texts)?;
        // SAFETY: non-null and valid for `n` writes (the caller's
        // contract); `values` holds `n` values, as `texts` did.
        let out = unsafe { std::slice::from_raw_parts_mut(wdl, n) };
        out.copy_from_slice(&values);
        Ok(())
    })
}

/// Writes a best move of the position `position` (as `morris bestmove`
/// writes it, e.g. `b2`) into `buf`, NUL-terminated, at most `len` bytes
/// with the NUL, and its value for the mover to `*value` when `value` is
/// not NULL. When the game is over, writes the empty string (and a value
/// of 0, 0). `MORRIS_STATUS_BUFFER_TOO_SMALL` when the move does not fit
/// (16 bytes always do).
///
/// # Safety
/// `db` as for `morris_close`; `position` NULL or a NUL-terminated string;
/// `buf` NULL or valid for `len` bytes of writes; `value` NULL or valid for
/// one write.
#[no_mangle]
pub unsafe extern "C" fn morris_best_move(
    db: *const MorrisDb,
    position: *const c_char,
    buf: *mut c_char,
    len: usize,
    value: *mut MorrisValue,
) -> MorrisStatus {
    guard(|| {
        // SAFETY: the caller's contract for `db` and `position`.
        let (h, text) = unsafe { (handle(db)?, text(position, "position")?) };
        if buf.is_null() {
            return Err(null("buf"));
        }
        let (mv, v) = match h.best_move(text)? {
            Some((mv, v)) => (mv, wdl_dtm(v)),
            None => (String::new(), (0, 0)),
        };
        if mv.len() + 1 > len {
            return Err(Failure::new(
                MorrisStatus::BufferTooSmall,
                format!("the move `{mv}` needs {} bytes, the buffer has {len}", mv.len() + 1),
            ));
        }
        // SAFETY: `buf` is valid for `len` bytes (the caller's contract)
        // and `mv.len() + 1 <= len`; the source is a distinct Rust string.
        unsafe {
            std::ptr::copy_nonoverlapping(mv.as_ptr().cast::<c_char>(), buf, mv.len());
            buf.add(mv.len()).write(0);
        }
        if !value.is_null() {
            // SAFETY: non-null and valid for a write (the caller's contract).
            unsafe { value.write(MorrisValue { wdl: v.0, dtm: v.1 }) };
        }
        Ok(())
    })
}

/// Every legal move of the position `position` with its value for the
/// mover, best first (as `morris analyze` lists them): writes the first
/// `capacity` of them to `moves[0..capacity]` and their number to
/// `*count`. `MORRIS_STATUS_BUFFER_TOO_SMALL` when there are more than
/// `capacity` (then `*count` says how many; call again with room for
/// them). A position with the game over has none. No position of the
/// supported rule sets has more than 24 * 23 moves.
///
/// # Safety
/// `db` as for `morris_close`; `position` NULL or a NUL-terminated string;
/// `moves` NULL (only with `capacity` 0) or valid for `capacity` writes;
/// `count` NULL or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn morris_moves(
    db: *const MorrisDb,
    position: *const c_char,
    moves: *mut MorrisMove,
    capacity: usize,
    count: *mut usize,
) -> MorrisStatus {
    guard(|| {
        // SAFETY: the caller's contract for `db` and `position`.
        let (h, text) = unsafe { (handle(db)?, text(position, "position")?) };
        if count.is_null() {
            return Err(null("count"));
        }
        if moves.is_null() && capacity > 0 {
            return Err(null("moves"));
        }
        let all = h.moves(text)?;
        // SAFETY: non-null and valid for a write (the caller's contract).
        unsafe { count.write(all.len()) };
        for (i, (mv, v)) in all.iter().take(capacity).enumerate() {
            let mut out = MorrisMove { text: [0; MORRIS_MOVE_TEXT], value: MorrisValue::default() };
            for (slot, &byte) in out.text.iter_mut().zip(mv.as_bytes().iter().take(MORRIS_MOVE_TEXT - 1)) {
                *slot = byte as c_char;
            }
            let (wdl, dtm) = wdl_dtm(*v);
            out.value = MorrisValue { wdl, dtm };
            // SAFETY: `i < capacity` and `moves` is valid for `capacity`
            // writes (the caller's contract).
            unsafe { moves.add(i).write(out) };
        }
        if all.len() > capacity {
            return Err(Failure::new(
                MorrisStatus::BufferTooSmall,
                format!("{} moves, room for {capacity}", all.len()),
            ));
        }
        Ok(())
    })
}

/// The message of the last failure of a libmorris call on this thread
/// (the empty string after a success). The pointer stays valid until the
/// next libmorris call on this thread; copy it to keep it.
#[no_mangle]
pub extern "C" fn morris_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}
