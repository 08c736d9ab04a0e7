//! End-to-end tests of the workspace, and a deliberately simple reference
//! solver (module `reference`) that the real solver is checked against, and
//! one for complete games of small rule sets (module `reference_game`);
//! damaged table files for the no-panic property tests (module `damage`);
//! where the tests that read Malom's files find them ([`malom_dir`]).

pub mod damage;
pub mod reference;
pub mod reference_game;

pub use reference::{ref_children, ref_children_in, solve_nine_small, solve_small, Game, RefValue, REF_POINTS};

/// Fails when `mismatches` (one line each) is not empty, showing the
/// first `show` in order; `compared` says how many of what were compared
/// (`26919200 positions`, `1000 probes of nine`).
pub fn assert_no_mismatches(mut mismatches: Vec<String>, compared: &str, show: usize) {
    mismatches.sort();
    assert!(
        mismatches.is_empty(),
        "{} of {compared} disagree, e.g.:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(show)].join("\n")
    );
}

/// The directory of Malom's files, from `MORRIS_MALOM_DIR` (a relative
/// path is taken from the workspace root). Panics, failing the test, when
/// the variable is unset or the directory lacks `std.secval`: the tests
/// that read Malom's files are `#[ignore]`d and run only when asked for
/// (`--ignored`, as `.ci/run` does), and then they must check.
pub fn malom_dir() -> std::path::PathBuf {
    let var = std::env::var_os("MORRIS_MALOM_DIR")
        .expect("MORRIS_MALOM_DIR is not set: point it at the directory of Malom's files (../shared/oracle/malom)");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(var);
    assert!(dir.join("std.secval").is_file(), "MORRIS_MALOM_DIR: no std.secval in {}", dir.display());
    dir
}
