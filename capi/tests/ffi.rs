//! The C functions called from Rust as C would call them: values of three's
//! start (Win(9), best move b2), every move, and every kind of bad input
//! (NULL pointers, a bad position, a missing directory, a missing table, a
//! table of another rule set, a small buffer), from many threads at once;
//! many positions in one call as one each.
#![allow(unsafe_code)]

use std::ffi::{c_char, CStr, CString};
use std::sync::OnceLock;

use morris::ffi::*;

/// A directory with three's tables, every phase, solved once.
fn three() -> &'static str {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        morris_solver::solve_all(&morris_db::RuleSet::preset("three").unwrap(), dir.path(), false).unwrap();
        dir
    })
    .path()
    .to_str()
    .unwrap()
}

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn last_error() -> String {
    // SAFETY: morris_last_error returns a NUL-terminated string valid until
    // the next call on this thread.
    unsafe { CStr::from_ptr(morris_last_error()) }.to_string_lossy().into_owned()
}

const START: &str = "W: B: w 3 3";

#[test]
fn start_of_three_is_won_in_nine_by_b2() {
    let dir = c(three());
    // SAFETY: valid strings; the handle is closed once at the end.
    unsafe {
        let db = morris_open(dir.as_ptr(), std::ptr::null());
        assert!(!db.is_null(), "{}", last_error());
        let mut v = MorrisValue::default();
        assert_eq!(morris_probe(db, c(START).as_ptr(), &mut v), MorrisStatus::Ok, "{}", last_error());
        assert_eq!(v, MorrisValue { wdl: 1, dtm: 9 });
        let mut buf = [0 as c_char; 16];
        let mut bv = MorrisValue::default();
        assert_eq!(morris_best_move(db, c(START).as_ptr(), buf.as_mut_ptr(), buf.len(), &mut bv), MorrisStatus::Ok);
        assert_eq!(CStr::from_ptr(buf.as_ptr()).to_str().unwrap(), "b2");
        assert_eq!(bv, MorrisValue { wdl: 1, dtm: 9 });
        // Too small a buffer: an error, nothing written past it.
        let mut small = [7 as c_char; 2];
        assert_eq!(
            morris_best_move(db, c(START).as_ptr(), small.as_mut_ptr(), 2, std::ptr::null_mut()),
            MorrisStatus::BufferTooSmall
        );
        assert_eq!(small, [7, 7]);
        assert!(last_error().contains("needs 3 bytes"), "{}", last_error());
        // Every move, best first; asking with no room says how many.
        let mut count = 0usize;
        assert_eq!(
            morris_moves(db, c(START).as_ptr(), std::ptr::null_mut(), 0, &mut count),
            MorrisStatus::BufferTooSmall
        );
        assert_eq!(count, 9);
        let mut moves = vec![MorrisMove { text: [0; 16], value: MorrisValue::default() }; count];
        assert_eq!(morris_moves(db, c(START).as_ptr(), moves.as_mut_ptr(), moves.len(), &mut count), MorrisStatus::Ok);
        assert_eq!(CStr::from_ptr(moves[0].text.as_ptr()).to_str().unwrap(), "b2");
        assert_eq!(moves[0].value, MorrisValue { wdl: 1, dtm: 9 });
        morris_close(db);
    }
}

#[test]
fn bad_input_is_an_error_code_and_a_message() {
    let dir = c(three());
    // SAFETY: valid strings or NULL, as each case says; closed once.
    unsafe {
        assert!(morris_open(std::ptr::null(), std::ptr::null()).is_null());
        assert!(last_error().contains("`dir` is NULL"), "{}", last_error());
        assert!(morris_open(c("/no/such/dir").as_ptr(), std::ptr::null()).is_null());
        assert!(last_error().contains("does not exist"), "{}", last_error());
        assert!(morris_open(dir.as_ptr(), c("no-such-rules").as_ptr()).is_null());
        assert!(last_error().contains("no-such-rules"), "{}", last_error());

        let db = morris_open(dir.as_ptr(), c("three").as_ptr());
        assert!(!db.is_null());
        let mut v = MorrisValue::default();
        assert_eq!(morris_probe(std::ptr::null(), c(START).as_ptr(), &mut v), MorrisStatus::NullPointer);
        assert_eq!(morris_probe(db, std::ptr::null(), &mut v), MorrisStatus::NullPointer);
        assert_eq!(morris_probe(db, c(START).as_ptr(), std::ptr::null_mut()), MorrisStatus::NullPointer);
        assert!(last_error().contains("result"), "{}", last_error());
        assert_eq!(morris_probe(db, c("W:a1,zz B: w").as_ptr(), &mut v), MorrisStatus::BadPosition);
        assert!(last_error().contains("zz"), "{}", last_error());
        let bytes = [0xffu8 as c_char, 0];
        assert_eq!(morris_probe(db, bytes.as_ptr(), &mut v), MorrisStatus::InvalidArgument);
        let mut count = 0usize;
        assert_eq!(morris_moves(db, c(START).as_ptr(), std::ptr::null_mut(), 3, &mut count), MorrisStatus::NullPointer);
        assert_eq!(
            morris_best_move(db, c(START).as_ptr(), std::ptr::null_mut(), 3, std::ptr::null_mut()),
            MorrisStatus::NullPointer
        );
        morris_close(db);
        morris_close(std::ptr::null_mut());

        // A table of another rule set: `three-nodiagonal` asked of three's.
        let other = morris_open(dir.as_ptr(), c("three-nodiagonal").as_ptr());
        assert!(!other.is_null(), "{}", last_error());
        assert_eq!(morris_probe(other, c(START).as_ptr(), &mut v), MorrisStatus::MissingTable);
        assert!(last_error().contains("three"), "{}", last_error());
        morris_close(other);
    }
}

#[test]
fn a_missing_table_names_sector_and_file() {
    let copy = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(three()).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().into_string().unwrap();
        if !name.starts_with("three_3_3_0_0.") {
            std::fs::copy(e.path(), copy.path().join(&name)).unwrap();
        }
    }
    let dir = c(copy.path().to_str().unwrap());
    // SAFETY: valid strings; closed once.
    unsafe {
        let db = morris_open(dir.as_ptr(), std::ptr::null());
        assert!(!db.is_null(), "{}", last_error());
        let mut v = MorrisValue::default();
        assert_eq!(morris_probe(db, c("W:a1,c1,b3 B:a2,c2,a3 w").as_ptr(), &mut v), MorrisStatus::MissingTable);
        let e = last_error();
        assert!(e.contains("3-3") && e.contains("three_3_3_0_0.mtb"), "{e}");
        // In a list too, named with its place.
        let list = [c(START), c("W:a1,c1,b3 B:a2,c2,a3 w")];
        let pointers = [list[0].as_ptr(), list[1].as_ptr()];
        let mut wdl = [0i8; 2];
        assert_eq!(morris_probe_wdl_many(db, pointers.as_ptr(), 2, wdl.as_mut_ptr()), MorrisStatus::MissingTable);
        let e = last_error();
        assert!(e.contains("position 1 of the list") && e.contains("three_3_3_0_0.mtb"), "{e}");
        morris_close(db);
    }
}

/// `morris_probe_wdl_many` over every canonical position of three's 3-3
/// (both colours to move) and the start: each as `morris_probe` answers
/// it; the first bad position of a list named by its place.
#[test]
fn many_positions_in_one_call_answer_as_single_probes() {
    let rules = morris_db::RuleSet::preset("three").unwrap();
    let sector = morris_db::Sector::sliding(3, 3);
    let index = rules.indexer().sector(sector);
    let mut texts: Vec<CString> = vec![c(START)];
    for slot in 0..index.len() {
        let Some((us, them)) = index.position(slot) else { continue };
        for color in [morris_db::Color::White, morris_db::Color::Black] {
            let pos = morris_db::Position::from_sector(sector, color, us, them);
            texts.push(c(&pos.to_text(rules.board())));
        }
    }
    let dir = c(three());
    // SAFETY: valid strings and buffers of the lengths given; closed once.
    unsafe {
        let db = morris_open(dir.as_ptr(), std::ptr::null());
        assert!(!db.is_null(), "{}", last_error());
        // The positions `morris_probe` answers (those with a line, or reached
        // by no game, it refuses), with its answers.
        let (mut pointers, mut want) = (Vec::new(), Vec::new());
        for t in &texts {
            let mut v = MorrisValue::default();
            if morris_probe(db, t.as_ptr(), &mut v) == MorrisStatus::Ok {
                pointers.push(t.as_ptr());
                want.push(v.wdl as i8);
            }
        }
        let mut wdl = vec![7i8; pointers.len()];
        assert_eq!(
            morris_probe_wdl_many(db, pointers.as_ptr(), pointers.len(), wdl.as_mut_ptr()),
            MorrisStatus::Ok,
            "{}",
            last_error()
        );
        assert!(wdl == want, "the values in one call differ from single probes'");
        let kinds = [-1, 0, 1].map(|k| want.iter().filter(|&&w| w == k).count());
        assert!(kinds.iter().all(|&k| k > 10), "losses, draws, wins: {kinds:?}");
        // Nothing to do: no pointer is read.
        assert_eq!(morris_probe_wdl_many(db, std::ptr::null(), 0, std::ptr::null_mut()), MorrisStatus::Ok);
        assert_eq!(morris_probe_wdl_many(db, std::ptr::null(), 2, wdl.as_mut_ptr()), MorrisStatus::NullPointer);
        assert_eq!(morris_probe_wdl_many(db, pointers.as_ptr(), 2, std::ptr::null_mut()), MorrisStatus::NullPointer);
        // A bad position third in the list.
        let bad = c("W:a1,zz B: w");
        let list = [pointers[0], pointers[1], bad.as_ptr(), pointers[2]];
        assert_eq!(morris_probe_wdl_many(db, list.as_ptr(), 4, wdl.as_mut_ptr()), MorrisStatus::BadPosition);
        assert!(last_error().contains("position 2 of the list"), "{}", last_error());
        let list = [pointers[0], std::ptr::null()];
        assert_eq!(morris_probe_wdl_many(db, list.as_ptr(), 2, wdl.as_mut_ptr()), MorrisStatus::NullPointer);
        morris_close(db);
    }
}

#[test]
fn many_threads_share_one_handle() {
    let dir = c(three());
    // SAFETY: the handle is used by the threads below only, and closed after
    // they are joined.
    let db = unsafe { morris_open(dir.as_ptr(), std::ptr::null()) } as usize;
    assert_ne!(db, 0);
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(move || {
                let pos = c(START);
                for _ in 0..200 {
                    let mut v = MorrisValue::default();
                    // SAFETY: a live handle and valid strings.
                    let status = unsafe { morris_probe(db as *const MorrisDb, pos.as_ptr(), &mut v) };
                    assert_eq!((status, v), (MorrisStatus::Ok, MorrisValue { wdl: 1, dtm: 9 }));
                }
            });
        }
    });
    // SAFETY: opened above, every thread done.
    unsafe { morris_close(db as *mut MorrisDb) };
}
