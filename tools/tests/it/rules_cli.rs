//! The `morris` command line for issue 3: `perft`, `replay`, custom rule
//! sets (`--rules nine --stones 10 --no-flying`), positions given as Sanmill
//! FEN, `show --fen`.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::common::morris_bin;

/// Runs `morris args` with `stdin`; returns (success, stdout, stderr).
fn run(args: &[&str], stdin: &str) -> (bool, String, String) {
    let mut child = Command::new(morris_bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running morris");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let (o, e) = (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(!e.contains("panicked"), "morris {args:?} panicked:\n{e}");
    (out.status.success(), o, e)
}

fn ok(args: &[&str]) -> String {
    let (success, out, err) = run(args, "");
    assert!(success, "morris {args:?} failed:\n{out}\n{err}");
    out
}

fn fails(args: &[&str], stdin: &str) -> (String, String) {
    let (success, out, err) = run(args, stdin);
    assert!(!success, "morris {args:?} should fail:\n{out}\n{err}");
    (out, err)
}

#[test]
fn perft_from_the_start_and_from_positions() {
    for (d, n) in [("1", "24"), ("2", "552"), ("3", "12144"), ("4", "255024")] {
        assert_eq!(ok(&["perft", "--depth", d]).trim(), n);
    }
    let divide = ok(&["perft", "--rules", "nine", "--depth", "2", "--divide"]);
    let lines: Vec<&str> = divide.lines().collect();
    assert_eq!(lines.len(), 25, "{divide}");
    assert_eq!(lines[0], "a1 23");
    assert_eq!(*lines.last().unwrap(), "total 552");
    // A position in words and the same as a FEN.
    let words = ok(&["perft", "--depth", "2", "W:a7,d7", "B:b6,d6,f6,d2", "w", "5", "5"]);
    let fen = ok(&["perft", "--depth", "2", "********/@@**@**@/O******O w p p 2 5 4 5 0 0 0 0 0 0 0 0 5"]);
    assert_eq!(words, fen);
    assert_eq!(ok(&["perft", "--rules", "three", "--depth", "6"]).trim(), "54720");
    // A custom rule set: ten stones place as nine's do at first.
    assert_eq!(ok(&["perft", "--rules", "nine", "--stones", "10", "--no-flying", "--depth", "3"]).trim(), "12144");
}

#[test]
fn replay_prints_positions_or_the_first_illegal_move() {
    let record = "1. a7 b6 2. d7 d6\n3. g7xb6 f4\n";
    let (success, out, err) = run(&["replay", "-"], record);
    assert!(success, "{out}\n{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "start W: B: w 9 9");
    assert!(lines[5].starts_with("3.") && lines[5].contains("g7xb6"), "{out}");
    assert!(lines[6].ends_with("W:a7,d7,g7 B:d6,f4 w 6 6"), "{out}");

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.txt");
    std::fs::write(&file, "1. a7 b6 2. d7 d6 3. g7 f4").unwrap();
    let (out, err) = fails(&["replay", file.to_str().unwrap()], "");
    assert!(out.contains("2...") && !out.contains("3."), "{out}");
    assert!(err.contains("move 3.") && err.contains("ply 5") && err.contains("closes a mill"), "{err}");
    assert!(err.contains("legal moves: ") && err.contains("g7xb6"), "{err}");
}

#[test]
fn replay_from_a_position_and_with_fen_output() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("g.txt");
    std::fs::write(&file, "g7xd2 b4").unwrap();
    let out = ok(&["replay", "--fen", "--from", "W:a7,d7 B:b6,d6,f6,d2 w 5 5", file.to_str().unwrap()]);
    assert!(out.lines().all(|l| l.contains('/')), "{out}");
    std::fs::write(&file, "g7xd2 b6-b4").unwrap();
    let (_, err) = fails(&["replay", "--from", "W:a7,d7 B:b6,d6,f6,d2 w 5 5", file.to_str().unwrap()], "");
    assert!(err.contains("must place"), "{err}");
}

#[test]
fn custom_rule_sets_name_their_tables() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().to_str().unwrap();
    let out = ok(&["solve", "--rules", "nine", "--no-flying", "--stones", "8", "--db", db, "--max-stones", "6", "-q"]);
    let names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names.len(), 1, "{names:?}");
    let name = &names[0];
    assert!(name.starts_with("nine-") && name.ends_with("_3_3_0_0.mtb"), "{name}");
    assert!(out.contains(&name[..13]), "{out}");
    // The same tables serve the same overrides, and not the preset.
    ok(&["probe", "--rules", "nine", "--stones", "8", "--no-flying", "--db", db, "W:a1,d7,g4 B:b6,d6,f6 w"]);
    let (_, err) = fails(&["probe", "--rules", "nine", "--db", db, "W:a1,d7,g4 B:b6,d6,f6 w"], "");
    assert!(err.contains(&name[..13]), "{err}");
    // Unsupported: a clear error naming the rule set.
    let (_, err) = fails(&["solve", "--rules", "nine", "--remove-per-mill", "--db", db, "--max-stones", "6"], "");
    assert!(err.contains("nine-") && err.contains("not supported"), "{err}");
    let (_, err) = fails(&["perft", "--rules", "six", "--stones", "9", "--depth", "1"], "");
    assert!(err.contains("3 to 8 stones"), "{err}");
}

#[test]
fn positions_as_fen_everywhere() {
    let out = ok(&["show", "--fen", "O@******/*O@*****/**O@**** b m s 3 0 3 0 0 0 0 0 0 0 0 0 30"]);
    assert!(out.contains("position: W:d5,f6,g4 B:e5,f4,g1 b"), "{out}");
    assert!(out.contains("FEN: O@******/*O@*****/**O@**** b m s 3 0 3 0"), "{out}");
    let (_, err) = fails(&["show", "OO*****O/********/@@@***** w p r 3 6 3 6 1 0 0 0 0 0 0 0 4"], "");
    assert!(err.contains("removal pending"), "{err}");
}
