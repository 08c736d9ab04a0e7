//! Malom's database files (the directory named by `MORRIS_MALOM_DIR`; in
//! CI `../shared/oracle/malom/`, beside the repository) read through
//! `morris_probe::malom`, and our tables checked against them.
//!
//! What must hold:
//! - every file there opens (header, size, overflow table, `.secval`), and
//!   its layout is ours: a slot holds a value exactly when it is a canonical
//!   position of our index, and every symmetry pointer, followed with
//!   Malom's symmetry numbering, lands on the value slot of the same
//!   position (this is what tests the mapping from Malom's symmetry numbers
//!   to point permutations);
//! - the counts and longest distances of docs/malom.md and the oracle README;
//! - our sliding sectors 3-3, 3-4 and 4-3 of `nine` agree with Malom's on
//!   every canonical position, value and DTM;
//! - probing the same positions (and their symmetric images, which go
//!   through Malom's pointers) gives the same value, the same value for
//!   every move, and the same best-move set for wins and losses;
//! - placement sectors are read right: the empty board is a draw in the
//!   standard game and in Lasker and a win for White in Morabaraba, and
//!   every placement position whose successors' files are there has the
//!   value its moves give it under our move generation;
//! - a missing or damaged file gives the typed errors of our own tables.
//!
//! The files are not part of the repository, so every test here is
//! `#[ignore]`d: a plain `cargo test` lists them as ignored. `.ci/run` sets
//! `MORRIS_MALOM_DIR` and runs them with `--ignored`; run by hand:
//! `MORRIS_MALOM_DIR=../shared/oracle/malom cargo test -p morris-tests --test malom -- --ignored`.
//! With the variable unset or pointing elsewhere, a test run that way fails.

use std::collections::{BTreeSet, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use morris_db::{Color, Position, RuleSet, Sector, TableError, Value};
use morris_probe::malom::{compare_sector, MalomDatabase, MalomEntry, MalomGame, MalomValue};
use morris_probe::{Database, ProbeError};
use morris_solver::{solve_sliding, SolveOptions};
use rayon::prelude::*;

/// The directory of Malom's files (`MORRIS_MALOM_DIR`).
fn oracle() -> PathBuf {
    morris_tests::malom_dir()
}

/// Malom's database of a game in the oracle directory.
fn malom(dir: &Path, game: MalomGame) -> MalomDatabase {
    MalomDatabase::open(dir, RuleSet::preset(game.preset()).unwrap()).expect("opening Malom's files")
}

/// Our `nine` tables of the sliding sectors with at most 7 stones (3-3,
/// 3-4, 4-3), solved once per test process.
fn ours() -> &'static Database {
    static DB: OnceLock<(tempfile::TempDir, Database)> = OnceLock::new();
    &DB.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temporary directory");
        let rules = RuleSet::preset("nine").unwrap();
        solve_sliding(&rules, dir.path(), &SolveOptions { max_stones: 7, progress: false }).expect("solving nine");
        let db = Database::open(dir.path(), rules).expect("opening our tables");
        (dir, db)
    })
    .1
}

const SLIDING: [Sector; 3] = [Sector::sliding(3, 3), Sector::sliding(3, 4), Sector::sliding(4, 3)];

#[test]
#[ignore = "needs Malom's files: set MORRIS_MALOM_DIR"]
fn every_file_opens_and_every_pointer_lands_on_the_value_of_its_position() {
    let dir = oracle();
    let mut files = 0;
    for game in MalomGame::ALL {
        let db = malom(&dir, game);
        let index_of = |s: Sector| db.rules().indexer().sector(s);
        for sector in db.sectors_present() {
            files += 1;
            let file = db.sector(sector).unwrap_or_else(|e| panic!("{}: {e}", game.file_name(sector)));
            assert_eq!(file.field1_bits(), if game == MalomGame::Standard { 12 } else { 14 });
            assert!(file.overflow().is_empty(), "{}: overflow table not empty", game.file_name(sector));
            let index = index_of(sector);
            let problems: Vec<String> = (0..file.slots())
                .into_par_iter()
                .filter_map(|slot| {
                    let entry = file.entry(slot).unwrap();
                    let ours_canonical = index.position(slot).is_some();
                    if entry.is_pointer() == ours_canonical {
                        return Some(format!("slot {slot}: {entry:?}, canonical in ours: {ours_canonical}"));
                    }
                    let (us, them) = file.position_at(slot).unwrap();
                    let (target, target_entry) = match file.resolve(slot) {
                        Ok(t) => t,
                        Err(e) => return Some(format!("slot {slot}: {e}")),
                    };
                    if target != index.index(us, them) || target_entry.is_pointer() {
                        return Some(format!(
                            "slot {slot} ({entry:?}) leads to slot {target}, ours is {}",
                            index.index(us, them)
                        ));
                    }
                    file.value_at(slot).err().map(|e| format!("slot {slot}: {e}"))
                })
                .collect();
            assert!(
                problems.is_empty(),
                "{}: {} problems, first: {:?}",
                game.file_name(sector),
                problems.len(),
                &problems[..problems.len().min(5)]
            );
        }
    }
    assert_eq!(files, 28, "sector files in {}", dir.display());
}

#[test]
#[ignore = "needs Malom's files: set MORRIS_MALOM_DIR"]
fn pointers_use_every_kind_of_symmetry() {
    // The rotations (0, 2, and 8, 10 with the ring swap) are the only
    // symmetries that are not their own inverse; sector 0-1 (one opponent
    // stone on an empty board) points through them, so the previous test
    // checks their direction.
    let dir = oracle();
    let db = malom(&dir, MalomGame::Standard);
    let file = db.sector(Sector { w: 0, b: 1, wh: 9, bh: 8 }).unwrap();
    let used: BTreeSet<u32> = (0..file.slots())
        .filter_map(|s| match file.entry(s) {
            Some(MalomEntry::Symmetry(k)) => Some(k),
            _ => None,
        })
        .collect();
    for k in [0, 2, 8, 10] {
        assert!(used.contains(&k), "symmetry {k} unused: {used:?}");
    }
}

#[test]
#[ignore = "needs Malom's files: set MORRIS_MALOM_DIR"]
fn counts_and_longest_distances_match_malom_md_and_the_oracle() {
    let dir = oracle();
    let db = malom(&dir, MalomGame::Standard);
    // (sector, slots, canonical, wins, losses, draws, longest win, longest loss)
    let expected = [
        (Sector::sliding(3, 3), 210_140, 169_626, 140_621, 28_736, 269, 25, 26),
        (Sector::sliding(4, 3), 862_980, 760_398, 75_397, 3_095, 681_906, 1, 32),
        (Sector::sliding(3, 4), 945_630, 760_398, 102_281, 0, 658_117, 33, 0),
    ];
    for (sector, slots, canonical, wins, losses, draws, max_win, max_loss) in expected {
        let c = db.sector(sector).unwrap().census().unwrap();
        let v = c.values;
        assert_eq!(
            (c.slots, v.positions(), v.wins, v.losses, v.draws, v.max_win(), v.max_loss()),
            (slots, canonical, wins, losses, draws, max_win, max_loss),
            "sector {sector}"
        );
    }
}

#[test]
#[ignore = "needs Malom's files: set MORRIS_MALOM_DIR"]
fn our_sliding_sectors_agree_with_malom_on_every_position() {
    let dir = oracle();
    let theirs = malom(&dir, MalomGame::Standard);
    let mut total = 0;
    for sector in SLIDING {
        let c = compare_sector(ours(), &theirs, sector, 5, &|_| {}).unwrap();
        let header = ours().table(sector).unwrap().header().clone();
        assert_eq!(c.compared, header.canonical_positions, "sector {sector}");
        assert_eq!(c.layout_differences, 0, "sector {sector}");
        assert_eq!(
            c.mismatches,
            0,
            "sector {sector}: {} mismatches, first: {}",
            c.mismatches,
            c.examples
                .iter()
                .map(|m| format!(
                    "{} ours {:?} Malom {:?}",
                    m.position.to_text(theirs.rules().board()),
                    m.ours,
                    m.malom
                ))
                .collect::<Vec<_>>()
                .join("; ")
        );
        total += c.compared;
    }
    assert_eq!(total, 169_626 + 760_398 + 760_398);
}

/// The moves of `moves` with the best value: all shortest wins, or all
/// longest losses (as notation, for comparing).
fn best_set(moves: &[(morris_db::Move, Value)], board: &morris_db::Board) -> BTreeSet<String> {
    let best = moves[0].1;
    moves.iter().filter(|(_, v)| *v == best).map(|(m, _)| m.notation(board)).collect()
}

#[test]
#[ignore = "needs Malom's files: set MORRIS_MALOM_DIR"]
fn probing_through_both_gives_the_same_values_and_best_moves() {
    let dir = oracle();
    let theirs = malom(&dir, MalomGame::Standard);
    let rules = theirs.rules().clone();
    let board = rules.board();
    let syms = board.symmetries();
    let mut checked_decisive = 0;
    for sector in SLIDING {
        let index = rules.indexer().sector(sector);
        let positions: Vec<(u64, Position)> = (0..index.len())
            .step_by(37)
            .filter_map(|slot| index.position(slot).map(|p| (slot, p)))
            .map(|(slot, (us, them))| {
                // A symmetric image (through Malom's pointers) with either colour to move.
                let s = &syms[slot as usize % syms.len()];
                let color = if slot % 2 == 0 { Color::White } else { Color::Black };
                (slot, Position::from_sector(sector, color, s.apply(us), s.apply(them)))
            })
            .collect();
        // Solve our tables before entering the thread pool: the solver uses
        // the same pool, whose threads would all wait on the OnceLock.
        let ours = ours();
        let results: Vec<Result<bool, String>> = positions
            .par_iter()
            .map(|(_, pos)| {
                let text = pos.to_text(board);
                let ours_value = ours.value(pos).map_err(|e| format!("{text}: ours: {e}"))?;
                let malom_value = theirs.value(pos).map_err(|e| format!("{text}: Malom: {e}"))?;
                if ours_value != malom_value {
                    return Err(format!("{text}: ours {ours_value:?}, Malom {malom_value:?}"));
                }
                let a = ours.analyze(pos).map_err(|e| format!("{text}: ours: {e}"))?;
                let b = theirs.analyze(pos).map_err(|e| format!("{text}: Malom: {e}"))?;
                let as_set = |v: &[(morris_db::Move, Value)]| -> BTreeSet<(String, String)> {
                    v.iter().map(|(m, x)| (m.notation(board), format!("{x:?}"))).collect()
                };
                if as_set(&a) != as_set(&b) {
                    return Err(format!("{text}: the moves' values differ: ours {a:?}, Malom {b:?}"));
                }
                if a.is_empty() || ours_value == Value::Draw {
                    return Ok(false);
                }
                if best_set(&a, board) != best_set(&b, board) {
                    return Err(format!("{text}: best moves differ"));
                }
                let (best, v) = theirs.best_move(pos).unwrap().unwrap();
                if v != ours_value || !best_set(&a, board).contains(&best.notation(board)) {
                    return Err(format!("{text}: Malom's best move {} {v:?} is not one of ours", best.notation(board)));
                }
                Ok(true)
            })
            .collect();
        let errors: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
        assert!(
            errors.is_empty(),
            "sector {sector}: {} disagreements, first: {:?}",
            errors.len(),
            &errors[..errors.len().min(5)]
        );
        checked_decisive += results.iter().filter(|r| matches!(r, Ok(true))).count();
    }
    assert!(checked_decisive > 3_000, "{checked_decisive} wins and losses checked");
}

#[test]
#[ignore = "needs Malom's files: set MORRIS_MALOM_DIR"]
fn drawn_positions_of_the_oracle_are_draws_with_equal_stones() {
    let dir = oracle();
    let db = malom(&dir, MalomGame::Standard);
    for text in ["W:a4,a1,d3 B:a7,d1,c4 w", "W:a1,d3,c3 B:d1,c4,e3 w", "W:a4,a1,b2 B:a7,d1,b4 w"] {
        let pos = Position::parse(text, db.rules()).unwrap();
        let v = db.evaluate(&pos).unwrap();
        assert_eq!((v.value, v.draw_rank()), (Value::Draw, Some(0)), "{text}");
    }
}

#[test]
#[ignore = "needs Malom's files: set MORRIS_MALOM_DIR"]
fn the_empty_board_of_each_game() {
    let dir = oracle();
    let empty = |game: MalomGame| -> (MalomDatabase, Position) {
        let db = malom(&dir, game);
        let n = db.rules().stones();
        let pos = Position::parse(&format!("W: B: w {n} {n}"), db.rules()).unwrap();
        (db, pos)
    };
    // The standard game is a draw (Gasser), with equal stones: A = 0 (docs/malom.md).
    let (std, pos) = empty(MalomGame::Standard);
    assert_eq!(std.evaluate(&pos).unwrap(), MalomValue { value: Value::Draw, a: 0 });
    let moves = std.analyze(&pos).unwrap();
    assert_eq!(moves.len(), 24);
    assert_eq!(std.best_move(&pos).unwrap().unwrap().1, Value::Draw);
    // Lasker is a draw, Morabaraba a win for White (Gévay and Danner).
    let (lask, pos) = empty(MalomGame::Lasker);
    assert_eq!(lask.value(&pos).unwrap(), Value::Draw);
    let (mora, pos) = empty(MalomGame::Morabaraba);
    let v = mora.value(&pos).unwrap();
    assert!(matches!(v, Value::Win(_)), "{v:?}");
    let (_, best) = mora.best_move(&pos).unwrap().unwrap();
    assert_eq!(best, v, "Morabaraba's best first placement");
}

/// Checks `pos`'s value from Malom's files against the values its legal
/// moves lead to (under our move generation), as in `probe_queries.rs`.
/// `Ok(false)` when a successor's sector file is not in `present`.
fn consistent_with_moves(db: &MalomDatabase, present: &HashSet<Sector>, pos: &Position) -> Result<bool, String> {
    let board = db.rules().board();
    let moves = pos.legal_moves(db.rules());
    let children: Vec<Position> = moves.iter().map(|&mv| pos.play_unchecked(mv)).collect();
    if children.iter().any(|c| c.us().count_ones() + c.us_in_hand() as u32 >= 3 && !present.contains(&c.sector())) {
        return Ok(false);
    }
    let text = pos.to_text(board);
    let value = db.evaluate(pos).map_err(|e| format!("{text}: {e}"))?;
    let mut children = moves
        .iter()
        .zip(&children)
        .map(|(mv, c)| match db.evaluate(c) {
            Ok(v) => Ok((*mv, v.back())),
            Err(e) => Err(format!("{text}: after {}: {e}", mv.notation(board))),
        })
        .collect::<Result<Vec<_>, String>>()?;
    children.sort_by(|x, y| MalomValue::best_first(&x.1, &y.1));
    let best = children.first().map(|c| c.1.value);
    let ok = match value.value {
        Value::LOST => children.is_empty(),
        Value::Win(n) => best == Some(Value::Win(n)),
        Value::Loss(n) => best == Some(Value::Loss(n)),
        Value::Draw => best == Some(Value::Draw),
    };
    if !ok {
        let list: Vec<String> = children.iter().map(|(m, v)| format!("{} {v}", m.notation(board))).collect();
        return Err(format!("{text}: Malom says {value}, the moves give: {}", list.join(", ")));
    }
    Ok(true)
}

#[test]
#[ignore = "needs Malom's files: set MORRIS_MALOM_DIR"]
fn placement_positions_agree_with_their_moves() {
    let dir = oracle();
    for game in MalomGame::ALL {
        let db = malom(&dir, game);
        let mut checked = 0;
        let present: HashSet<Sector> = db.sectors_present().into_iter().collect();
        for sector in db.sectors_present().into_iter().filter(|s| !s.is_sliding()) {
            let index = db.rules().indexer().sector(sector);
            let results: Vec<Result<bool, String>> = (0..index.len())
                .into_par_iter()
                .filter_map(|slot| index.position(slot))
                .map(|(us, them)| {
                    // White places first: with one stone more in the
                    // mover's hand Black is to move (outside Lasker).
                    let lasker = db.rules().lasker();
                    let side = if lasker || sector.wh == sector.bh { Color::White } else { Color::Black };
                    let pos = Position::from_sector(sector, side, us, them);
                    consistent_with_moves(&db, &present, &pos)
                })
                .collect();
            let errors: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
            assert!(
                errors.is_empty(),
                "{}: {} of {} positions disagree with their moves, first: {:?}",
                game.file_name(sector),
                errors.len(),
                results.len(),
                &errors[..errors.len().min(5)]
            );
            checked += results.iter().filter(|r| matches!(r, Ok(true))).count();
        }
        eprintln!("{}: {checked} placement positions checked against their moves", game.prefix());
        assert!(checked > 0, "{}: no placement position had its successors' files", game.prefix());
    }
}

#[test]
#[ignore = "needs Malom's files: set MORRIS_MALOM_DIR"]
fn missing_and_damaged_files_give_typed_errors() {
    let dir = oracle();
    let rules = RuleSet::preset("nine").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    fs::copy(dir.join("std.secval"), tmp.path().join("std.secval")).unwrap();
    let good = fs::read(dir.join("std_3_3_0_0.sec2")).unwrap();
    let pos = Position::parse("W:a4,a1,d3 B:a7,d1,c4 w", &rules).unwrap();
    let probe = |bytes: Option<&[u8]>| {
        let path = tmp.path().join("std_3_3_0_0.sec2");
        let _ = fs::remove_file(&path);
        if let Some(b) = bytes {
            fs::write(&path, b).unwrap();
        }
        MalomDatabase::open(tmp.path(), rules.clone()).unwrap().value(&pos)
    };
    assert_eq!(probe(Some(&good)).unwrap(), Value::Draw);
    let e = probe(None).unwrap_err();
    assert!(matches!(e, ProbeError::MissingTable { sector, .. } if sector == Sector::sliding(3, 3)), "{e}");
    let corrupt_field = |e: ProbeError| match e {
        ProbeError::Table(TableError::Corrupt { field, .. }) => field,
        e => panic!("not a corrupt-table error: {e}"),
    };
    assert_eq!(corrupt_field(probe(Some(&good[..good.len() - 1])).unwrap_err()), "file size");
    assert_eq!(corrupt_field(probe(Some(&good[..40])).unwrap_err()), "file size");
    let mut bad = good.clone();
    bad[0] = 3;
    assert_eq!(corrupt_field(probe(Some(&bad)).unwrap_err()), "version");
    let mut bad = good.clone();
    bad[8] = 30;
    assert_eq!(corrupt_field(probe(Some(&bad)).unwrap_err()), "field 1 width");
    let mut bad = good.clone();
    bad[12] = 1;
    assert_eq!(corrupt_field(probe(Some(&bad)).unwrap_err()), "flag");
    // A pointer to a pointer: slot of the canonical position made a pointer.
    let index = rules.indexer().sector(Sector::sliding(3, 3));
    let slot = index.index(pos.us(), pos.them()) as usize;
    let mut bad = good.clone();
    bad[64 + 3 * slot..64 + 3 * slot + 3].copy_from_slice(&[0, 0xf0, 0xff]); // symmetry 0
    assert_eq!(corrupt_field(probe(Some(&bad)).unwrap_err()), "payload");
    // Other directories: no `.secval`, another rule set.
    let empty = tempfile::tempdir().unwrap();
    assert!(matches!(MalomDatabase::open(empty.path(), rules.clone()), Err(ProbeError::NoDatabase { .. })));
    let six = RuleSet::preset("six").unwrap();
    assert!(matches!(MalomDatabase::open(&dir, six), Err(ProbeError::NoDatabase { .. })));
}
