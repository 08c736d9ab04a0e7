//! The real solver (`morris-solver`, probed through `morris-probe`) agrees
//! with the independent reference solver (`morris_tests::solve_nine_small`)
//! on every position of the sliding sectors 3-3, 3-4 and 4-3 of rule set
//! `nine`: win, loss or draw, and the DTM of every win and loss.
//!
//! Positions are carried from the reference's bit order to the database's
//! by point names. The side to move is White or Black, alternating
//! pseudo-randomly, so both colours are probed.

use std::time::Instant;

use morris_db::{Color, Position, RuleSet, Value};
use morris_probe::Database;
use morris_solver::{solve_sliding, SolveOptions};
use morris_tests::{solve_nine_small, RefValue, REF_POINTS};
use rayon::prelude::*;

fn names(set: u32) -> String {
    (0..24).filter(|&i| set & (1 << i) != 0).map(|i| REF_POINTS[i]).collect::<Vec<_>>().join(",")
}

#[test]
fn real_solver_agrees_with_reference() {
    let rules = RuleSet::preset("nine").expect("preset nine");
    let dir = tempfile::tempdir().expect("temp dir");

    let start = Instant::now();
    #[allow(clippy::needless_update)]
    let options = SolveOptions { max_stones: 7, progress: false, ..Default::default() };
    solve_sliding(&rules, dir.path(), &options).expect("real solver");
    eprintln!("real solver: {:.1} s", start.elapsed().as_secs_f64());

    let start = Instant::now();
    let reference = solve_nine_small();
    eprintln!("reference solver: {:.1} s", start.elapsed().as_secs_f64());

    // Reference bit i is the database point named REF_POINTS[i].
    let to_db: Vec<u32> = REF_POINTS
        .iter()
        .map(|&name| 1u32 << rules.board().point(name).unwrap_or_else(|| panic!("point {name}")))
        .collect();
    let convert = |set: u32| (0..24).filter(|&i| set & (1 << i) != 0).fold(0, |a, i| a | to_db[i]);

    let db = Database::open(dir.path(), rules.clone()).expect("open database");
    let start = Instant::now();
    let mut mismatches: Vec<String> = reference
        .par_iter()
        .filter_map(|(&(us, them), &expected)| {
            let (us_db, them_db) = (convert(us), convert(them));
            let black = ((us as u64) << 32 | them as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 63 == 1;
            let (side, (white, black_set)) =
                if black { (Color::Black, (them_db, us_db)) } else { (Color::White, (us_db, them_db)) };
            let pos = Position { white, black: black_set, side_to_move: side, white_in_hand: 0, black_in_hand: 0 };
            let got = db.value(&pos);
            let agrees = matches!(
                (expected, &got),
                (RefValue::Win(a), Ok(Value::Win(b))) | (RefValue::Loss(a), Ok(Value::Loss(b))) if a == *b
            ) || matches!((expected, &got), (RefValue::Draw, Ok(Value::Draw)));
            (!agrees).then(|| {
                let (w, b) = if black { (them, us) } else { (us, them) };
                let side = if black { 'b' } else { 'w' };
                format!("W:{} B:{} {side}: reference {expected:?}, solver {got:?}", names(w), names(b))
            })
        })
        .collect();
    eprintln!("compared {} positions in {:.1} s", reference.len(), start.elapsed().as_secs_f64());
    mismatches.sort();
    assert!(
        mismatches.is_empty(),
        "{} of {} positions disagree, e.g.:\n{}",
        mismatches.len(),
        reference.len(),
        mismatches[..mismatches.len().min(10)].join("\n")
    );
    assert_eq!(reference.len(), 26_919_200);
}
