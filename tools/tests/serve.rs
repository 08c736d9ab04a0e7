//! `morris serve` and `morris review` as a user runs them: the binary, a
//! database solved by `morris solve`, the server's first line, HTTP on
//! loopback, and a clean stop.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use morris_db::{Position, RuleSet, Value};
use morris_probe::Database;

fn morris() -> Command {
    Command::new(env!("CARGO_BIN_EXE_morris"))
}

fn solve_six(dir: &Path) {
    let out = morris().args(["solve", "--rules", "six", "--phase", "all", "-q", "--db"]).arg(dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn serve_starts_at_once_and_answers() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("six");
    solve_six(&db);
    let t = Instant::now();
    let mut child = morris()
        .args(["serve", "--bind", "127.0.0.1:0", "--db"])
        .arg(&db)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let started = t.elapsed();
    // `morris serve: http://127.0.0.1:PORT/ (six (our tables: 146 tables))`
    let url = line.split_whitespace().nth(2).unwrap_or_else(|| panic!("no address in {line:?}")).to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{line}");
    let tables = std::fs::read_dir(&db)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "mtb"))
        .count();
    assert!(line.contains(&format!("six (our tables: {tables} tables)")), "{line}");
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let mut resp = agent.get(&format!("{url}api/six?position=W:_B:_w_6_6")).call().unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let json: serde_json::Value = serde_json::from_str(&resp.body_mut().read_to_string().unwrap()).unwrap();
    // Six Men's Morris is a draw (published).
    assert_eq!(json["category"], "draw");
    let mut page = agent.get(&url).call().unwrap();
    assert!(page.body_mut().read_to_string().unwrap().contains("<svg"));
    child.kill().unwrap();
    child.wait().unwrap();
    // Generous: a debug binary on a busy machine; the point is that no
    // table is read before the first request.
    assert!(started < Duration::from_secs(10), "took {started:?} to start");
}

#[test]
fn serve_refuses_what_it_cannot_serve() {
    let tmp = tempfile::tempdir().unwrap();
    for (args, words) in [
        (vec!["serve"], "give a database"),
        (vec!["serve", "--db", "/nonexistent/morris"], "not a directory"),
        (vec!["serve", "--db", "chess=/tmp"], "unknown rule set `chess`"),
    ] {
        let out = morris().args(&args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(words), "{args:?}: {err}");
    }
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = morris().args(["serve", "--db"]).arg(&empty).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("no table files"));
}

#[test]
fn review_marks_a_game() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("six");
    solve_six(&db);
    let rules = RuleSet::preset("six").unwrap();
    let probe = Database::open(&db, rules.clone()).unwrap();
    // White's first move is the best one; Black answers with a move that
    // loses if one exists, else the worst one (the probe says which).
    let start = Position::start(&rules);
    let (w1, _) = probe.analyze(&start).unwrap()[0];
    let after = start.play_unchecked(w1);
    let moves = probe.analyze(&after).unwrap();
    let (b1, b1_value) = *moves.last().unwrap();
    let record = format!("1. {} {}", w1.notation(rules.board()), b1.notation(rules.board()));
    let file = tmp.path().join("game.txt");
    std::fs::write(&file, &record).unwrap();
    let out =
        morris().args(["review", "--rules", "six", "--format", "json", "--db"]).arg(&db).arg(&file).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["moves"][0]["mark"], "kept");
    let expected = match b1_value {
        Value::Loss(_) => "lost_draw",
        _ => "kept",
    };
    assert_eq!(json["moves"][1]["mark"], expected, "{record}: {json}");
    assert_eq!(json["summary"]["white"]["kept"], 1);
    let text = morris()
        .args(["review", "--rules", "six", "--db"])
        .arg(&db)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let mut child = text.unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(record.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("White: 1 move: 1 kept the value"), "{text}");
    // An illegal move: the review up to it, the reason, a failure.
    std::fs::write(&file, "1. b4 b4").unwrap();
    let out = morris().args(["review", "--rules", "six", "--db"]).arg(&db).arg(&file).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("b4"));
}
