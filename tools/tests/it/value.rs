//! `morris value`: the start value and the first moves up to symmetry,
//! `--no-solve`, and the consent a long solve needs.
//!
//! Expected values come from outside the solver: the reference solver of
//! complete games in tests/ (`morris_tests::reference_game`: its own board
//! data and move generation, no symmetry, no index, shares no code with
//! the solver) solves Three Men's Morris, with and without diagonals, in
//! the test; the classes of first moves up to symmetry are the hand-known
//! ones of the 3x3 grid (a corner, an edge point, the centre).

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common;
use crate::common::{contains_all, fails, files, ok, s, Runner};
use morris_tests::reference_game::{solve_game, RefGame, RefPos};
use morris_tests::RefValue;

/// The value for the mover of a move that leads to a position of value
/// `child` for the opponent.
fn back(child: RefValue) -> RefValue {
    match child {
        RefValue::Win(n) => RefValue::Loss(n + 1),
        RefValue::Loss(n) => RefValue::Win(n + 1),
        RefValue::Draw => RefValue::Draw,
    }
}

/// `morris value`'s start value and first moves (name, value) as printed.
fn parse_value(out: &str) -> (String, Vec<(String, String)>) {
    let start = out
        .lines()
        .find(|l| l.starts_with("rule set "))
        .and_then(|l| l.rsplit(": ").next())
        .unwrap_or_else(|| panic!("no start value in:\n{out}"))
        .to_string();
    let moves = out
        .lines()
        .filter(|l| l.starts_with("  "))
        .map(|l| {
            let mut w = l.split_whitespace();
            (w.next().unwrap().to_string(), w.next().unwrap().to_string())
        })
        .collect();
    (start, moves)
}

/// Solves `preset` by `morris value` in a fresh directory and compares the
/// start and every first move printed with the reference; returns the
/// printed start value.
fn agrees_with_the_reference(preset: &str, game: RefGame) -> String {
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join(preset);
    let out = ok(&["value", "--rules", preset, "--db", s(&db), "-q"]);
    let (start, moves) = parse_value(&out);
    let reference = solve_game(&game);
    let ref_start = reference.get(game.start()).expect("the start");
    assert_eq!(start, format!("{ref_start:?}"), "{preset}: start value\n{out}");
    // White places on `point`: Black to move, White one stone on the board.
    let after = |point: &str| RefPos { us: 0, them: game.bit(point), us_hand: game.stones, them_hand: game.stones - 1 };
    let value_of = |point: &str| back(reference.get(after(point)).expect("a first move"));
    // One move of each class, every one with the reference's value (which
    // is the same for every move of its class).
    let classes = [
        ["a1", "a3", "c1", "c3"].as_slice(), // corners
        ["a2", "b1", "b3", "c2"].as_slice(), // edge points
        ["b2"].as_slice(),                   // the centre
    ];
    assert_eq!(moves.len(), classes.len(), "{preset}: one first move per class\n{out}");
    for class in classes {
        let values: Vec<RefValue> = class.iter().map(|p| value_of(p)).collect();
        assert!(values.iter().all(|v| *v == values[0]), "{preset}: the reference differs within {class:?}");
        let shown: Vec<&(String, String)> = moves.iter().filter(|(m, _)| class.contains(&m.as_str())).collect();
        assert_eq!(shown.len(), 1, "{preset}: one move of {class:?}\n{out}");
        assert_eq!(shown[0].1, format!("{:?}", values[0]), "{preset}: first move {}\n{out}", shown[0].0);
    }
    // Best first: the first move printed has the start's value.
    assert_eq!(moves[0].1, start, "{preset}\n{out}");
    start
}

#[test]
fn three_start_and_first_moves_agree_with_the_reference() {
    // The published result too: a win for White, only by the centre.
    assert_eq!(agrees_with_the_reference("three", RefGame::three(true)), "Win(9)");
}

#[test]
fn three_without_diagonals_start_and_first_moves_agree_with_the_reference() {
    assert_eq!(agrees_with_the_reference("three-nodiagonal", RefGame::three(false)), "Draw");
}

#[test]
fn no_solve_on_missing_tables_fails_and_writes_nothing() {
    let work = tempfile::tempdir().unwrap();
    // No directory at all.
    let missing = work.path().join("none");
    let err = fails(&["value", "--rules", "three", "--db", s(&missing), "--no-solve"]);
    contains_all(&err, &["missing", "--no-solve"], "value --no-solve, no directory");
    assert!(!missing.exists(), "value --no-solve created {}", missing.display());
    // Only the sliding tables: the placement tables are missing.
    let db = work.path().join("sliding");
    ok(&["solve", "--rules", "three", "--db", s(&db), "-q"]);
    let before = files(&db);
    let err = fails(&["value", "--rules", "three", "--db", s(&db), "--no-solve"]);
    contains_all(&err, &["missing", "--no-solve"], "value --no-solve, sliding tables only");
    assert_eq!(files(&db), before, "value --no-solve changed the directory");
}

#[test]
fn a_long_solve_is_refused_without_a_terminal_and_started_with_yes() {
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("nine");
    // Hours of work, standard input a pipe (not a terminal), no --yes:
    // refused before anything is written (--force only passes the check of
    // memory and disk, which depends on the machine).
    let args = ["value", "--rules", "nine", "--db", s(&db), "-q", "--force"];
    let r = Runner::default().limit(Duration::from_secs(60)).run(&args);
    assert_eq!(r.code, Some(1), "{r:?}");
    contains_all(&r.stderr, &["--yes", "--no-solve", "would take about"], "value nine");
    // The estimate is of a whole game: given in minutes below 90, in hours
    // above, and never near the 3 minutes below which no one is asked
    // (10 minutes or more, whatever host the rates were fitted on).
    let long = r.stderr.contains(" hours ")
        || r.stderr
            .split("about ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse::<f64>().ok())
            .is_some_and(|minutes| minutes >= 10.0);
    assert!(long, "value nine: not estimated at 10 minutes or more:\n{}", r.stderr);
    assert!(!db.exists(), "value created {}", db.display());

    // With --yes the same solve starts: stopped here once its first table
    // (3-3, a second's work) is written.
    let mut child = common::morris()
        .args(args)
        .arg("--yes")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let first = db.join("nine_3_3_0_0.mtb");
    while !first.exists() {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
            panic!("value --yes ended ({status}) before writing a table:\n{err}");
        }
        assert!(started.elapsed() < Duration::from_secs(120), "no table after 2 minutes");
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();

    // A solve of seconds needs no consent.
    let out = ok(&["value", "--rules", "three", "--db", s(&work.path().join("three")), "-q"]);
    assert!(out.contains("Win(9)"), "{out}");
}
