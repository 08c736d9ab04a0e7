//! How the `morris` binary reads its input (issue 19): one position
//! argument for every subcommand that takes a position, in our notation or
//! as a Sanmill FEN, as one argument or several words, with the options
//! before or after it; FENs as Sanmill writes them today; `replay`'s clocks;
//! game records as Sanmill exports them; impossible hands; and the reason a
//! game ended.

use crate::common;
use crate::common::{fails, ok, ok_in, s, Run, Runner};

fn morris(args: &[&str], stdin: &str) -> Run {
    Runner::default().stdin(stdin).run(args)
}

/// `nine` up to 7 stones, solved once by `morris solve`.
fn db7() -> &'static str {
    s(common::db7())
}

/// `three`, solved completely (seconds).
fn db_three() -> &'static str {
    s(common::three())
}

/// A sliding position, White a4 a1 d3 against Black a7 d1 c4, in both
/// notations. The FEN was written by hand from docs/rules.md's ring order
/// (inner d5 e5 e4 e3 d3 c3 c4 c5, middle d6 .. b6, outer d7 g7 g4 g1 d1 a1
/// a4 a7), with the fields as Sanmill writes them.
const SLIDING: &str = "W:a4,a1,d3 B:a7,d1,c4 w";
const SLIDING_FEN: &str = "****O*@*/********/****@OO@ w m s 3 0 3 0 0 0 -1 -1 -1 -1 0 0 10 ids:nodes";

/// A placement position, White a1 d1 and Black a7 d7, one stone in hand
/// each, White to move; its FEN by hand likewise.
const PLACING: &str = "W:a1,d1 B:a7,d7 w 1 1";
const PLACING_FEN: &str = "********/********/@***OO*@ w p p 2 1 2 1 0 0 -1 -1 -1 -1 0 0 9 ids:nodes";

fn words(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

/// Every way of giving `pos` (our notation) and `fen` (the same position)
/// to `cmd` with `opts`: one argument or several words, options before or
/// after, and `--fen`. Each must succeed and print what the first prints
/// (its first line only for `prove`, whose other lines give times).
fn same_everywhere(cmd: &str, opts: &[&str], pos: &str, fen: &str, stdin: &str) -> String {
    let keep = |out: String| if cmd == "prove" { out.lines().next().unwrap_or("").to_string() } else { out };
    let mut forms: Vec<Vec<&str>> = Vec::new();
    for text in [pos, fen] {
        forms.push([&[cmd][..], opts, &[text]].concat());
        forms.push([&[cmd][..], &words(text), opts].concat());
        forms.push([&[cmd][..], &[text], opts].concat());
    }
    forms.push([&[cmd][..], opts, &["--fen", fen]].concat());
    forms.push([&[cmd][..], &["--fen", fen], opts].concat());
    forms.push([&[cmd][..], &["--fen"], &words(fen), opts].concat());
    let first = keep(ok_in(&forms[0], stdin));
    for form in &forms[1..] {
        assert_eq!(keep(ok_in(form, stdin)), first, "morris {form:?} differs from morris {:?}", forms[0]);
    }
    first
}

#[test]
fn every_subcommand_reads_a_position_in_both_notations_with_options_anywhere() {
    let db = db7();
    let probe = same_everywhere("probe", &["--db", db], SLIDING, SLIDING_FEN, "");
    assert_eq!(probe.trim(), "Draw");
    let analyze = same_everywhere("analyze", &["--db", db], SLIDING, SLIDING_FEN, "");
    assert!(analyze.starts_with("position: W:a1,a4,d3 B:a7,c4,d1 w  value: Draw"), "{analyze}");
    same_everywhere("bestmove", &["--db", db], SLIDING, SLIDING_FEN, "");
    let show = same_everywhere("show", &["--rules", "nine"], SLIDING, SLIDING_FEN, "");
    assert!(show.contains("position: W:a1,a4,d3 B:a7,c4,d1 w"), "{show}");
    let line = same_everywhere("line", &["--db", db, "--plies", "2"], SLIDING, SLIDING_FEN, "");
    assert!(line.contains("2 plies"), "{line}");
    same_everywhere("perft", &["--depth", "2"], PLACING, PLACING_FEN, "");
    let prove = same_everywhere("prove", &["--db", db, "-q", "--threads", "1"], PLACING, PLACING_FEN, "");
    assert!(prove.contains("position `W:a1,d1 B:a7,d7 w 1 1`"), "{prove}");
    // `play --from` takes the position as one argument or several words.
    let play = ok_in(&["play", "--db", db, "--from", SLIDING], "quit\n");
    assert!(play.contains("White to move"), "{play}");
    for text in [SLIDING, SLIDING_FEN] {
        assert_eq!(ok_in(&[&["play", "--from"][..], &words(text), &["--db", db]].concat(), "quit\n"), play);
        assert_eq!(ok_in(&["play", "--from", text, "--db", db], "quit\n"), play);
    }

    // `--from` of `replay` is one argument (a file name follows it).
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.txt");
    std::fs::write(&file, "1. a1-b2\n").unwrap();
    let a = ok(&["replay", "--from", SLIDING, s(&file)]);
    let b = ok(&["replay", s(&file), "--from", SLIDING_FEN]);
    assert_eq!(a, b);
    assert!(a.contains("a1-b2") && a.contains("W:a4,b2,d3 B:a7,c4,d1 b"), "{a}");
}

#[test]
fn fen_option_takes_a_fen_only_and_nothing_after_a_quoted_one() {
    let db = db7();
    let err = fails(&["probe", "--db", db, "--fen", SLIDING]);
    assert!(err.contains("is not a FEN"), "{err}");
    let err = fails(&["probe", "--db", db, "--fen", SLIDING_FEN, "W:a1", "B:a7", "w"]);
    assert!(err.contains("follows the FEN"), "{err}");
}

#[test]
fn fen_on_a_board_without_fen_says_so() {
    // Issue 19: `prove --rules six ... <FEN>` said "malformed position".
    let dir = tempfile::tempdir().unwrap();
    let err = fails(&[
        "prove",
        "--rules",
        "six",
        "--db",
        s(dir.path()),
        "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1",
    ]);
    assert!(err.contains("24-point board") && !err.contains("malformed"), "{err}");
}

#[test]
fn show_reads_sanmills_fen_with_minus_one_fields() {
    // Issue 19: "`-1` is not a number".
    let out = ok(&["show", "********/********/******** w p p 0 9 0 9 0 0 -1 -1 -1 -1 0 0 1"]);
    assert!(out.contains("position: W: B: w 9 9"), "{out}");
    assert!(out.contains("FEN: ********/********/******** w p p 0 9 0 9 0 0 -1 -1 -1 -1 0 0 1 ids:nodes"), "{out}");
}

#[test]
fn replay_fen_counts_moves_and_quiet_plies_as_sanmill_does() {
    // Issue 19: the move number went from 10 down to 9 and the half-move
    // clock stayed 0. Sanmill: the full-move number goes up after Black's
    // move; a slide adds one to the half-move clock, a placement or a
    // removal sets it to 0.
    let out =
        ok_in(&["replay", "--fen", "--from", "W:a1,d1,g1,f4 B:a7,d7,c5,e5,b2 w", "-"], "1. d1-d2 a7-a4 2. f4-e4\n");
    let clocks: Vec<String> = out
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f[f.len() - 3..f.len() - 1].join(" ")
        })
        .collect();
    assert_eq!(clocks, ["0 10", "1 10", "2 11", "3 11"], "{out}");
    // A FEN's own clocks are the start, and a placement restarts the clock.
    let out = ok_in(
        &["replay", "--fen", "--from", "********/********/******** w p p 0 9 0 9 0 0 -1 -1 -1 -1 0 7 4", "-"],
        "d6 d2\n",
    );
    let last: Vec<&str> = out.lines().map(|l| l.trim_end_matches(" ids:nodes")).collect();
    assert!(last[0].ends_with(" 7 4") && last[1].ends_with(" 0 4") && last[2].ends_with(" 0 5"), "{out}");
}

#[test]
fn impossible_hands_are_refused_with_the_reason() {
    // Issue 19: the first suggested a solve that cannot help, the second
    // answered `Draw`.
    let dir = tempfile::tempdir().unwrap();
    for (pos, why) in [
        ("W:b2 B: w 5 6", "White has placed 1 stone and Black 0, yet it is White's turn"),
        ("W: B:b2 w 6 5", "White has placed 0 stones and Black 1, yet it is White's turn"),
    ] {
        let err = fails(&["probe", "--rules", "six", "--db", s(dir.path()), pos]);
        assert!(err.contains(why) && err.contains("placements alternate"), "{pos}: {err}");
        let err = fails(&["show", "--rules", "six", pos]);
        assert!(err.contains(why), "{pos}: {err}");
    }
    ok(&["show", "--rules", "six", "W:b2 B: b 5 6"]);
}

#[test]
fn three_mens_morris_ends_by_the_rule_that_ended_it() {
    // Issue 19: "White wins in 9 plies: Black cannot move" and "no legal
    // move: Black has lost", where White had made a line of three.
    let db = db_three();
    let out = ok(&["line", "--rules", "three", "--db", db, "W: B: w 3 3"]);
    let last = out.lines().last().unwrap();
    assert!(last.starts_with("White wins in") && last.ends_with("White has a line of three"), "{out}");
    let out = ok(&["analyze", "--rules", "three", "--db", db, "W:c1,c2,c3 B:a3,a2,b1 b"]);
    assert!(out.contains("no legal move: Black has lost: White has a line of three"), "{out}");
    let out = ok(&["bestmove", "--rules", "three", "--db", db, "W:c1,c2,c3 B:a3,a2,b1 b"]);
    assert!(out.contains("White has a line of three"), "{out}");
}

/// Runs `morris` and expects success; returns (standard output, standard error).
fn ok_with_stderr(args: &[&str], stdin: &str) -> (String, String) {
    let r = morris(args, stdin);
    assert_eq!(r.code, Some(0), "morris {args:?} failed:\nstdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    (r.stdout, r.stderr)
}

#[test]
fn replay_reads_records_as_sanmill_exports_them() {
    // Laid out as Sanmill's `addTagPairs` and `moveHistoryText` write a game
    // from a set-up position: CRLF tag pairs, `[FEN]` and `[SetUp]`, moves
    // numbered from 1, a variation after the move it replaces, the result.
    // From W a1 d1 / B a7 d7 with one stone in hand each, g1 closes
    // a1-d1-g1 and removes d7, which leaves Black two stones.
    let record = format!(
        "[Event \"Sanmill-Game\"]\r\n[Site \"Sanmill\"]\r\n[Result \"1-0\"]\r\n[Variant \"Nine Men's Morris\"]\r\n\
         [PlyCount \"1\"]\r\n[FEN \"{PLACING_FEN}\"]\r\n[SetUp \"1\"]\r\n\r\n\
         {{set up}} 1. g1 x d7 {{a mill}} (1. g4 {{quiet}} g7) 1-0"
    );
    let (out, err) = ok_with_stderr(&["replay", "-"], &record);
    assert!(err.is_empty(), "{err}");
    assert!(out.starts_with("start W:a1,d1 B:a7,d7 w 1 1"), "{out}");
    assert!(out.contains("g1xd7") && out.contains("W:a1,d1,g1 B:a7 b 0 1"), "{out}");
    assert!(out.contains("game over: Black has lost: Black is down to 2 stones"), "{out}");
    // `--from` agreeing with the tag is fine; disagreeing is an error.
    ok_with_stderr(&["replay", "--from", PLACING, "-"], &record);
    let r = morris(&["replay", "--from", "W:a1,d1 B:a7,g7 w 1 1", "-"], &record);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("[FEN] tag"), "{}", r.stderr);
}

#[test]
fn replay_refuses_unclosed_comments_and_warns_about_move_numbers() {
    let r = morris(&["replay", "-"], "1. d6 f4\n2. d2 {a comment never closed\n b4 3. a1\n");
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("line 2, column 7") && r.stderr.contains("never closed"), "{}", r.stderr);
    let r = morris(&["replay", "-"], "1. d6 (1. d2 f4\n2. d2\n");
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("line 1, column 7") && r.stderr.contains("variation"), "{}", r.stderr);
    let (out, err) = ok_with_stderr(&["replay", "-"], "1. d6 f4 3. d2 b4\n");
    assert!(out.contains("2.     d2"), "{out}");
    assert!(err.contains("warning: line 1: `3.` before `d2`, which is move 2."), "{err}");
}

#[test]
fn the_record_in_rules_md_replays() {
    let rules_md = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/rules.md")).unwrap();
    let start = rules_md.find("```\n[Event").expect("docs/rules.md shows a PGN record") + 4;
    let record = &rules_md[start..start + rules_md[start..].find("```").unwrap()];
    let (out, err) = ok_with_stderr(&["replay", "-"], record);
    assert!(err.is_empty(), "{err}");
    assert!(out.starts_with("start W:d7 B: b 8 9") && out.contains("W:d7,g1 B:d2 b 7 8"), "{out}");
}
