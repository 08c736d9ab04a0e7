//! `morris play`: a game against perfect play, driven through standard
//! input: the board after each move, the program's replies, illegal input
//! answered with the legal moves, `value`, `moves`, `hint`, `quit`, the end
//! of the game and the end of input.

use std::path::Path;

use crate::common;
use crate::common::{s, Run, Runner};
use morris_db::{Color, Position, RuleSet, Sector, Value};
use morris_probe::Database;

fn morris(args: &[&str], stdin: &str) -> Run {
    Runner::default().stdin(stdin).limit(std::time::Duration::from_secs(120)).run(args)
}

/// `nine` up to 7 stones, solved once by `morris solve`.
fn db7() -> &'static Path {
    common::db7()
}

fn rules() -> RuleSet {
    RuleSet::preset("nine").unwrap()
}

/// The first position of sliding sector `w-b` (White to move) with the
/// value `want`.
fn position_with(w: usize, b: usize, want: Value) -> Position {
    let rules = rules();
    let db = Database::open(db7(), rules.clone()).unwrap();
    let index = rules.indexer().sector(Sector::sliding(w as u8, b as u8));
    (0..index.len())
        .filter_map(|slot| index.position(slot))
        .map(|(us, them)| Position::from_sector(Sector::sliding(w as u8, b as u8), Color::White, us, them))
        .find(|p| db.value(p).unwrap() == want)
        .unwrap_or_else(|| panic!("a {w}-{b} position with value {want:?}"))
}

fn play(args: &[&str], stdin: &str) -> String {
    let mut all = vec!["play", "--db", s(db7())];
    all.extend_from_slice(args);
    let r = morris(&all, stdin);
    assert_eq!(r.code, Some(0), "morris {all:?} failed:\n{}\n{}", r.stdout, r.stderr);
    r.stdout
}

#[test]
fn you_win_by_playing_the_winning_capture() {
    let rules = rules();
    let pos = position_with(4, 3, Value::win(1).unwrap());
    let text = pos.to_text(rules.board());
    let db = Database::open(db7(), rules.clone()).unwrap();
    let (best, _) = db.best_move(&pos).unwrap().unwrap();
    let best = best.notation(rules.board());
    let input = format!("nonsense\nvalue\nmoves\nhint\n{best}\n");
    let out = play(&["--from", &text], &input);
    // The board is drawn at the start and after the move.
    assert_eq!(out.matches("White to move; in hand").count(), 1, "{out}");
    assert_eq!(out.matches("Black to move; in hand").count(), 1, "{out}");
    assert!(out.contains("cannot read move `nonsense`"), "{out}");
    assert!(out.contains("value: Win(1), White wins in 1 ply"), "{out}");
    let legal = pos.legal_move_names(&rules);
    assert!(out.contains(&format!("legal moves: {}", legal.join(" "))), "{out}");
    assert!(out.contains(&format!("hint: {best} (White wins in 1 ply)")), "{out}");
    assert!(out.contains("game over after 1 ply: Black is down to 2 stones; you win."), "{out}");
}

#[test]
fn an_illegal_move_is_answered_with_the_legal_moves() {
    let rules = rules();
    let pos = position_with(4, 3, Value::win(1).unwrap());
    let text = pos.to_text(rules.board());
    // A slide from an empty point: readable, but not legal.
    let empty = rules.board().all() & !pos.white() & !pos.black();
    let mut empties = morris_db::Points(empty);
    let (a, b) = (empties.next().unwrap(), empties.next().unwrap());
    let mv = format!("{}-{}", rules.board().point_name(a), rules.board().point_name(b));
    let out = play(&["--from", &text], &format!("{mv}\nquit\n"));
    assert!(out.contains(&format!("illegal move `{mv}`")), "{out}");
    assert!(out.contains("legal moves: "), "{out}");
    assert!(out.contains("game left unfinished after 0 plies"), "{out}");
}

#[test]
fn the_program_wins_a_lost_position() {
    // Every move of White leads to a win in one for Black.
    let rules = rules();
    let pos = position_with(3, 3, Value::loss(2).unwrap());
    let text = pos.to_text(rules.board());
    let first = pos.legal_moves(&rules)[0].notation(rules.board());
    let out = play(&["--from", &text], &format!("{first}\n"));
    assert!(out.contains("Black plays "), "{out}");
    assert!(out.contains("(Black wins in 1 ply)"), "{out}");
    assert!(out.contains("game over after 2 plies: White is down to 2 stones; you lose."), "{out}");
}

#[test]
fn the_program_moves_first_when_you_play_black() {
    let rules = rules();
    let pos = position_with(3, 3, Value::Draw);
    let text = pos.to_text(rules.board());
    let out = play(&["--as", "black", "--from", &text], "value\nquit\n");
    assert!(out.contains("you are Black"), "{out}");
    assert!(out.contains("White plays "), "{out}");
    assert!(out.contains("(a draw)"), "{out}");
    assert!(out.contains("value: Draw, a draw"), "{out}");
    assert!(out.contains("game left unfinished after 1 ply"), "{out}");
}

#[test]
fn end_of_input_ends_the_game() {
    let rules = rules();
    let text = position_with(3, 3, Value::Draw).to_text(rules.board());
    let out = play(&["--from", &text], "");
    assert!(out.contains("end of input"), "{out}");
}

#[test]
fn a_missing_table_is_an_error_not_a_panic() {
    // From the start the program (Black) needs the placement tables: the
    // database is refused before the first prompt, with what to solve.
    let r = morris(&["play", "--db", s(db7()), "--as", "white"], "d6\n");
    assert_ne!(r.code, Some(0), "{}", r.stdout);
    assert!(!r.stdout.contains("to move>"), "{}", r.stdout);
    assert!(r.stderr.contains("lacks") && r.stderr.contains("--phase all"), "{}", r.stderr);
    // A bad starting position is refused with a message.
    let r = morris(&["play", "--db", s(db7()), "--from", "W:a1,z9 B: w"], "");
    assert_ne!(r.code, Some(0));
    assert!(r.stderr.contains("z9"), "{}", r.stderr);
}
