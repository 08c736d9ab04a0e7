//! Library-level queries of `morris_probe::Database` against a real solved
//! database (`nine`, sliding sectors with at most 7 stones: 3-3, 3-4, 4-3).
//!
//! What must hold between a position's value and the values of the positions
//! its moves lead to (DTM in plies, for the side to move):
//! - `Win(n)`: the best move leads to `Loss(n - 1)` for the opponent (for
//!   `n == 1` a capture leaving the opponent 2 stones, probed as `Loss(0)`);
//!   no move leads to a shorter loss for the opponent.
//! - `Loss(n)`, `n > 0`: every move leads to `Win(m)` with `m <= n - 1`, and
//!   at least one to exactly `Win(n - 1)`. `Loss(0)`: no legal move.
//! - `Draw`: some move leads to a draw, none to a loss of the opponent.
//!
//! And the database answers the same from several threads as from one.

use std::path::Path;
use std::sync::{Barrier, OnceLock};

use morris_db::{Color, Position, RuleSet, Sector, Setup, Value};
use morris_probe::{Database, ProbeError, ProbeOptions};
use morris_solver::{solve_sliding, SolveOptions};

/// One solved database shared by every test of this file.
struct Fixture {
    dir: tempfile::TempDir,
    db: Database,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temporary directory");
        let rules = RuleSet::preset("nine").unwrap();
        solve_sliding(&rules, dir.path(), &SolveOptions { max_stones: 7, progress: false })
            .expect("solving nine up to 7 stones");
        let db = Database::open(dir.path(), rules).expect("opening the database");
        Fixture { dir, db }
    })
}

fn rules() -> &'static RuleSet {
    fixture().db.rules()
}

/// The canonical positions of sliding sector `w-b` at every `step`-th slot
/// (padding slots skipped), White to move.
fn positions(w: usize, b: usize, step: u64) -> Vec<Position> {
    let index = rules().indexer().sector(Sector::sliding(w as u8, b as u8));
    (0..index.len())
        .step_by(step as usize)
        .filter_map(|slot| index.position(slot))
        .map(|(us, them)| Position::from_sector(Sector::sliding(w as u8, b as u8), Color::White, us, them))
        .collect()
}

/// Checks one position's value against the values of its successors and
/// against `best_move`; returns a description of the first violation.
fn check_position(db: &Database, pos: &Position) -> Result<(), String> {
    let board = db.rules().board();
    let text = pos.to_text(board);
    let value = db.value(pos).map_err(|e| format!("{text}: probe failed: {e}"))?;
    let moves = pos.legal_moves(db.rules());
    // The value of each successor for the opponent (who moves there).
    let mut children = Vec::with_capacity(moves.len());
    for &mv in &moves {
        let child = pos.play_unchecked(mv);
        let v = db
            .value(&child)
            .map_err(|e| format!("{text}: probing the successor after {} failed: {e}", mv.notation(board)))?;
        children.push((mv, v));
    }
    let describe =
        || children.iter().map(|(m, v)| format!("{} {v:?}", m.notation(board))).collect::<Vec<_>>().join(", ");
    match value {
        Value::Win(n) => {
            // (An odd distance is kept by the type.)
            let n = n.get();
            let (best, best_value) = db
                .best_move(pos)
                .map_err(|e| format!("{text}: best_move failed: {e}"))?
                .ok_or_else(|| format!("{text}: Win({n}) but best_move found no move"))?;
            if best_value != value {
                return Err(format!("{text}: Win({n}) but best_move {} says {best_value:?}", best.notation(board)));
            }
            let after = pos.play_unchecked(best);
            let after_value =
                db.value(&after).map_err(|e| format!("{text}: probing after the best move failed: {e}"))?;
            if Value::loss(n - 1) != Some(after_value) {
                return Err(format!(
                    "{text}: Win({n}), but the best move {} leads to {} valued {after_value:?}, not Loss({})",
                    best.notation(board),
                    after.to_text(board),
                    n - 1
                ));
            }
            if n == 1 {
                let left = after.us().count_ones();
                if best.removal.is_none() || left != 2 {
                    return Err(format!(
                        "{text}: Win(1), but the best move {} does not leave the opponent 2 stones ({left})",
                        best.notation(board)
                    ));
                }
            }
            if let Some((m, v)) = children.iter().find(|(_, v)| matches!(v, Value::Loss(k) if k.get() + 1 < n)) {
                return Err(format!("{text}: Win({n}), but {} leads to {v:?}, a faster win", m.notation(board)));
            }
        }
        Value::LOST => {
            if !moves.is_empty() {
                return Err(format!("{text}: Loss(0) but the side to move has moves: {}", describe()));
            }
        }
        Value::Loss(n) => {
            // (An even distance is kept by the type.)
            let n = n.get();
            if moves.is_empty() {
                return Err(format!("{text}: Loss({n}) but no legal move"));
            }
            let all_wins_in_time = children.iter().all(|(_, v)| matches!(v, Value::Win(m) if m.get() < n));
            let one_exact = children.iter().any(|(_, v)| Value::win(n - 1) == Some(*v));
            if !all_wins_in_time || !one_exact {
                return Err(format!("{text}: Loss({n}), but the moves lead to: {}", describe()));
            }
            let (best, best_value) = db
                .best_move(pos)
                .map_err(|e| format!("{text}: best_move failed: {e}"))?
                .ok_or_else(|| format!("{text}: Loss({n}) but best_move found no move"))?;
            if best_value != value {
                return Err(format!("{text}: Loss({n}) but best_move {} says {best_value:?}", best.notation(board)));
            }
        }
        Value::Draw => {
            let some_draw = children.iter().any(|(_, v)| *v == Value::Draw);
            let no_loss = !children.iter().any(|(_, v)| matches!(v, Value::Loss(_)));
            if !some_draw || !no_loss {
                return Err(format!("{text}: Draw, but the moves lead to: {}", describe()));
            }
            let (_, best_value) = db
                .best_move(pos)
                .map_err(|e| format!("{text}: best_move failed: {e}"))?
                .ok_or_else(|| format!("{text}: Draw but best_move found no move"))?;
            if best_value != Value::Draw {
                return Err(format!("{text}: Draw but best_move says {best_value:?}"));
            }
        }
    }
    Ok(())
}

/// Checks every position of `positions`, split over two threads; fails with
/// the first few violations.
fn check_all(positions: &[Position]) {
    let db = &fixture().db;
    let mid = positions.len() / 2;
    let errors: Vec<String> = std::thread::scope(|s| {
        let halves: Vec<_> = [&positions[..mid], &positions[mid..]]
            .into_iter()
            .map(|part| {
                s.spawn(move || part.iter().filter_map(|p| check_position(db, p).err()).take(10).collect::<Vec<_>>())
            })
            .collect();
        halves.into_iter().flat_map(|h| h.join().expect("checking thread panicked")).collect()
    });
    assert!(errors.is_empty(), "{} violations (first ones):\n{}", errors.len(), errors.join("\n"));
}

#[test]
fn every_position_of_3_3_agrees_with_its_moves() {
    let all = positions(3, 3, 1);
    // The oracle's canonical count of 3-3 (docs/testing.md, "The oracle").
    assert_eq!(all.len(), 140_621 + 28_736 + 269);
    check_all(&all);
}

#[test]
fn sample_of_3_4_agrees_with_its_moves() {
    let sample = positions(3, 4, 97);
    assert!(sample.len() > 5_000, "{}", sample.len());
    check_all(&sample);
}

#[test]
fn sample_of_4_3_agrees_with_its_moves() {
    let sample = positions(4, 3, 97);
    assert!(sample.len() > 5_000, "{}", sample.len());
    check_all(&sample);
}

#[test]
fn drawn_positions_of_the_oracle() {
    let db = &fixture().db;
    for text in ["W:a4,a1,d3 B:a7,d1,c4 w", "W:a1,d3,c3 B:d1,c4,e3 w", "W:a4,a1,b2 B:a7,d1,b4 w"] {
        let pos = Position::parse(text, rules()).unwrap();
        assert_eq!(db.value(&pos).unwrap(), Value::Draw, "{text}");
        check_position(db, &pos).unwrap();
    }
}

#[test]
fn colours_and_symmetries_do_not_change_the_value() {
    // The same stones with Black to move, and every symmetric image, have
    // the same value for the side to move.
    let db = &fixture().db;
    let board = rules().board();
    for pos in positions(4, 3, 1013) {
        let v = db.value(&pos).unwrap();
        let black = Setup::from_relative(pos.us(), pos.them(), Color::Black, 0, 0).validate(rules()).unwrap();
        assert_eq!(db.value(&black).unwrap(), v, "{}", black.to_text(board));
        for sym in board.symmetries() {
            let image = Setup::from_relative(sym.apply(pos.us()), sym.apply(pos.them()), Color::White, 0, 0);
            let image = image.validate(rules()).unwrap();
            assert_eq!(db.value(&image).unwrap(), v, "{}", image.to_text(board));
        }
    }
}

/// 10,000 positions spread evenly over the three sectors.
fn ten_thousand() -> Vec<Position> {
    let all: Vec<Position> = [(3, 3), (3, 4), (4, 3)].into_iter().flat_map(|(w, b)| positions(w, b, 1)).collect();
    let step = all.len() / 10_000;
    let out: Vec<Position> = all.into_iter().step_by(step).take(10_000).collect();
    assert_eq!(out.len(), 10_000);
    out
}

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn two_threads_answer_as_one() {
    assert_send_sync::<Database>();
    let dir: &Path = fixture().dir.path();
    let positions = ten_thousand();
    let single = Database::open(dir, rules().clone()).unwrap();
    let expected: Vec<Value> = positions.iter().map(|p| single.value(p).unwrap()).collect();
    let expected_best: Vec<_> = positions.iter().step_by(50).map(|p| single.best_move(p).unwrap()).collect();

    // A fresh database, so that the two threads also race to map the
    // tables on first use.
    for options in [ProbeOptions::default(), ProbeOptions { verify_checksums: false }] {
        let shared = Database::open_with(dir, rules().clone(), options).unwrap();
        let barrier = Barrier::new(2);
        let results: Vec<(Vec<Value>, Vec<_>)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..2)
                .map(|_| {
                    s.spawn(|| {
                        barrier.wait();
                        let values: Vec<Value> = positions.iter().map(|p| shared.value(p).unwrap()).collect();
                        let best: Vec<_> = positions.iter().step_by(50).map(|p| shared.best_move(p).unwrap()).collect();
                        (values, best)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("probing thread panicked")).collect()
        });
        for (values, best) in results {
            assert!(values == expected, "values differ between threads");
            assert!(best == expected_best, "best moves differ between threads");
        }
    }
}

#[test]
fn sector_of_a_probe_is_the_side_to_move_first() {
    // 3 White stones and 4 Black ones: sector 3-4 with White to move, 4-3
    // with Black to move; both tables are there and give values.
    let db = &fixture().db;
    let w = Position::parse("W:a1,d1,g1 B:a7,d7,g7,b6 w", rules()).unwrap();
    let b = Position::parse("W:a1,d1,g1 B:a7,d7,g7,b6 b", rules()).unwrap();
    assert_eq!(w.sector(), Sector::sliding(3, 4));
    assert_eq!(b.sector(), Sector::sliding(4, 3));
    db.value(&w).unwrap();
    db.value(&b).unwrap();
}

// `value`, `analyze` and `best_move` all refuse a position whose side not
// to move has fewer than 3 stones (`ProbeError::Unreachable`).
#[test]
fn positions_after_the_end_of_the_game_are_refused_by_every_query() {
    let db = &fixture().db;
    let pos = Position::parse("W:a1,a4,d3 B:a7,d1 w", rules()).unwrap();
    assert!(matches!(db.value(&pos), Err(ProbeError::Unreachable { .. })));
    let analyzed = db.analyze(&pos);
    assert!(matches!(analyzed, Err(ProbeError::Unreachable { .. })), "analyze: {analyzed:?}");
    let best = db.best_move(&pos);
    assert!(matches!(best, Err(ProbeError::Unreachable { .. })), "best_move: {best:?}");
}

#[test]
fn a_side_to_move_with_two_stones_has_lost() {
    let db = &fixture().db;
    let pos = Position::parse("W:a1,a4 B:a7,d7,g7 w", rules()).unwrap();
    assert_eq!(db.value(&pos).unwrap(), Value::LOST);
    assert!(db.analyze(&pos).unwrap().is_empty());
    assert_eq!(db.best_move(&pos).unwrap(), None);
}
