//! What the table-file test files (`integrity`, `verify`, `wdl`) share: the
//! solved database they copy from, copying it, and the driver of the
//! damaged-file property tests (the damage itself is
//! [`morris_tests::damage`]).
//!
//! Not every test module uses all of these, hence the `dead_code`
//! allowance.
#![allow(dead_code)]

use std::cell::Cell;
use std::fs;
use std::path::Path;
use std::sync::OnceLock;

use morris_db::storage::header::{Header, OwnFields, HEADER_SIZE};
use morris_db::{Color, Position, RuleSet, Sector, SectorIndex};
use morris_solver::{solve_sliding, SolveOptions};
use morris_tests::damage::{damage, runner, Damage};

/// The standard game.
///
/// One rule set shared by every test: its clones share the indexer, so the
/// orbit tables are built once per test binary, not once per call.
pub fn nine() -> RuleSet {
    static NINE: OnceLock<RuleSet> = OnceLock::new();
    NINE.get_or_init(|| RuleSet::preset("nine").unwrap()).clone()
}

/// The slots of sliding sector `w`-`b` of `nine`.
pub fn slots(w: u8, b: u8) -> u64 {
    nine().indexer().sector(Sector::sliding(w, b)).len()
}

/// `preset` solved up to `max_stones` stones into a fresh directory.
pub fn solve(preset: &str, max_stones: u32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    let rules = RuleSet::preset(preset).unwrap();
    solve_sliding(&rules, dir.path(), &SolveOptions { max_stones, progress: false })
        .unwrap_or_else(|e| panic!("solving {preset} up to {max_stones} stones: {e}"));
    dir
}

/// The solved database the tests copy from: `nine`, sliding sectors with
/// at most 7 stones (3-3, 3-4, 4-3), made once per test file.
pub fn solved() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| solve("nine", 7)).path()
}

/// A fresh directory holding copies of every file of `dir`.
pub fn copy_of(dir: &Path) -> tempfile::TempDir {
    let copy = tempfile::tempdir().expect("temporary directory");
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(&path, copy.path().join(path.file_name().unwrap())).unwrap();
    }
    copy
}

/// A fresh directory holding copies of every table of [`solved`].
pub fn copy_of_db() -> tempfile::TempDir {
    copy_of(solved())
}

/// `file` (a valid file of the format `F`: a DTM table, a WDL file)
/// damaged by `d`, its payload checksum recomputed through `Header<F>`
/// when `d` asks for it.
pub fn damaged<F: OwnFields>(d: &Damage, file: &[u8]) -> Vec<u8> {
    d.apply(file, HEADER_SIZE, |header, sum| match Header::<F>::decode(header, Path::new("damaged")) {
        Ok(mut h) => {
            h.payload_checksum = sum;
            header.copy_from_slice(&h.encode());
            true
        }
        Err(_) => false,
    })
}

/// Runs 128 cases of [`damage`] of the files named `what`: `case` damages
/// a file, reads it and probes it, and says whether it opened and how many
/// checked probes it answered. Most damaged files must still open, and
/// probes through them must answer (the damage reaches past the first
/// checks); a panic fails the test.
pub fn run_damage_cases(what: &str, case: impl Fn(&Damage) -> (bool, u32)) {
    let (cases, opened, answered) = (Cell::new(0u32), Cell::new(0u32), Cell::new(0u32));
    runner(128)
        .run(&damage(), |d| {
            cases.set(cases.get() + 1);
            let (open, answers) = case(&d);
            opened.set(opened.get() + u32::from(open));
            answered.set(answered.get() + answers);
            Ok(())
        })
        .unwrap();
    let (cases, opened, answered) = (cases.get(), opened.get(), answered.get());
    eprintln!("{cases} {what}: {opened} opened, {answered} checked probes answered");
    assert!(opened >= cases / 4 && answered >= cases, "{opened} of {cases} opened, {answered} answers");
}

/// Probes the positions at `slots` of sector `index` (White to move, no
/// stones in hand) through `ask`, which is told whether to analyse too
/// (for the first three) and says whether it answered. The number of
/// answers.
pub fn probe_slots(index: &SectorIndex, slots: &[u64], mut ask: impl FnMut(&Position, bool) -> bool) -> u32 {
    let mut answered = 0;
    for (k, &slot) in slots.iter().enumerate() {
        let Some((us, them)) = index.position(slot) else { continue };
        // A slot of a sliding sector's own index: a trusted position.
        let sector = Sector::sliding(index.w() as u8, index.b() as u8);
        let pos = Position::from_sector(sector, Color::White, us, them);
        answered += u32::from(ask(&pos, k < 3));
    }
    answered
}

/// Whether `got`, a value our tables give, is `expected`, the reference
/// solver's: the same outcome and, for a win or a loss, the same distance
/// in plies.
pub fn agrees<E>(expected: morris_tests::reference::RefValue, got: &Result<morris_db::Value, E>) -> bool {
    use morris_db::Value;
    use morris_tests::reference::RefValue;
    match (expected, got) {
        (RefValue::Win(a), Ok(Value::Win(b))) => a == b.get(),
        (RefValue::Loss(a), Ok(Value::Loss(b))) => a == b.get(),
        (RefValue::Draw, Ok(Value::Draw)) => true,
        _ => false,
    }
}
