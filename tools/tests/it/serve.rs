//! `morris serve` and `morris review` as a user runs them: the binary, a
//! database solved by `morris solve`, the server's first line, HTTP on
//! loopback, and a clean stop; Malom's files served (`--malom`), checked
//! against `morris analyze` reading the same files.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::common::{morris, ok, s};
use morris_db::{Position, RuleSet, Value};
use morris_probe::Database;

fn solve_six(dir: &Path) {
    let out = morris().args(["solve", "--rules", "six", "--phase", "all", "-q", "--db"]).arg(dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Starts `morris serve` on a port the system picks with `args`: the
/// process, the URL it serves and its first line (`morris serve:
/// http://127.0.0.1:PORT/ (six (our tables: 146 tables))`).
fn serve(args: &[&str]) -> (Child, String, String) {
    let mut child = morris()
        .args(["serve", "--bind", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.split_whitespace().nth(2).unwrap_or_else(|| panic!("no address in {line:?}")).to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{line}");
    (child, url, line)
}

#[test]
fn serve_starts_at_once_and_answers() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("six");
    solve_six(&db);
    let t = Instant::now();
    let (mut child, url, line) = serve(&["--db", s(&db)]);
    let started = t.elapsed();
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

/// A value as `morris analyze --malom` prints it, from an answer's
/// `category`, `dtm` and `draw_rank`: `Win(25)`, `Draw (Malom A = 0)`.
fn shown(json: &serde_json::Value) -> String {
    let dtm = &json["dtm"];
    let value = match json["category"].as_str() {
        Some("win") => format!("Win({dtm})"),
        Some("loss") => format!("Loss({dtm})"),
        Some("draw") => {
            assert!(dtm.is_null(), "{json}");
            "Draw".to_string()
        }
        _ => panic!("no category: {json}"),
    };
    match json["draw_rank"].as_i64() {
        Some(a) => format!("{value} (Malom A = {a})"),
        None => value,
    }
}

#[test]
#[ignore = "needs Malom's files: set MORRIS_MALOM_DIR"]
fn serve_answers_from_malom_files_as_analyze_reads_them() {
    let dir = morris_tests::malom_dir();
    let d = s(&dir);
    // The directory holds files of several games: each is named.
    let (mut child, url, line) = serve(&["--malom", &format!("nine={d}"), "--malom", &format!("morabaraba={d}")]);
    assert!(line.contains("nine (Malom's files") && line.contains("morabaraba (Malom's files"), "{line}");
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let mut ranks = 0;
    for (rules, position) in [
        ("nine", "W: B: w 9 9"),
        ("nine", "W:d6 B: b 8 9"),
        ("nine", "W:a4 B:d2 w 8 8"),
        ("nine", "W:a4,b4 B:d2 b 7 8"),
        ("nine", "W:a4,a1,d3 B:a7,d1,c4 w"),
        ("nine", "W:a4,d1,g4 B:b2,d6,f2 w"),
        ("nine", "W:a1,a4,d7,g4 B:c3,e3,d2 b"),
        ("morabaraba", "W: B: w 12 12"),
        ("morabaraba", "W:d6 B:d2 w 11 11"),
    ] {
        let query = position.replace(' ', "_");
        let mut resp = agent.get(&format!("{url}api/{rules}?position={query}")).call().unwrap();
        let body = resp.body_mut().read_to_string().unwrap();
        assert_eq!(resp.status().as_u16(), 200, "{rules} {position}: {body}");
        let json: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(json["source"], "malom", "{json}");
        // `position: W:... w  value: Draw (Malom A = 0)`, then `move value`.
        let out = ok(&["analyze", "--rules", rules, "--malom", d, position]);
        let mut lines = out.lines();
        let first = lines.next().unwrap();
        let value = first.split("  value: ").nth(1).unwrap_or_else(|| panic!("{out}"));
        assert_eq!(shown(&json), value, "{rules} {position}");
        let expected: BTreeMap<String, String> = lines
            .filter(|l| !l.starts_with("no legal move"))
            .map(|l| {
                let (mv, v) = l.split_once(' ').unwrap();
                (mv.to_string(), v.trim().to_string())
            })
            .collect();
        let moves = json["moves"].as_array().unwrap();
        let served: BTreeMap<String, String> =
            moves.iter().map(|m| (m["notation"].as_str().unwrap().to_string(), shown(m))).collect();
        assert_eq!(served, expected, "{rules} {position}");
        // Best first: the first move keeps the position's value.
        if let Some(m) = moves.first() {
            assert_eq!((&m["category"], &m["dtm"]), (&json["category"], &json["dtm"]), "{rules} {position}");
        }
        ranks += moves.iter().filter(|m| !m["draw_rank"].is_null()).count();
    }
    assert!(ranks > 0, "no draw rank served");
    child.kill().unwrap();
    child.wait().unwrap();
}

/// SIGTERM (what systemd, Docker and Kubernetes send) stops the server
/// gracefully with exit code 0; the access log has one line per request.
#[test]
fn sigterm_stops_it_cleanly_with_an_access_log() {
    let three = crate::common::three();
    let (child, url, _) = serve(&["--db", s(three)]);
    let answer = ureq::get(&format!("{url}api/three?position=W:_B:_w_3_3")).call().unwrap();
    assert_eq!(answer.status().as_u16(), 200);
    let killed = std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let start = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(start.elapsed() < Duration::from_secs(15), "took {:?} to stop", start.elapsed());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("SIGTERM"), "{stderr}");
    assert!(stderr.contains("GET /api/three?position=W:_B:_w_3_3 200"), "no access log line: {stderr}");
}

/// Limits out of range are refused before anything is served.
#[test]
fn serve_refuses_limits_out_of_range() {
    let three = crate::common::three();
    for bad in [
        &["--max-in-flight", "0"][..],
        &["--max-connections", "0"],
        &["--header-timeout", "0"],
        &["--idle-timeout", "-3"],
        &["--request-timeout", "100000"],
        &["--cors-origin", "example.org"],
        &["--log-format", "xml"],
    ] {
        let out = morris()
            .args(["serve", "--bind", "127.0.0.1:0", "--db", s(three)])
            .args(bad)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{bad:?} was accepted");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(bad[0].trim_start_matches('-')), "{bad:?}: {stderr}");
    }
}
