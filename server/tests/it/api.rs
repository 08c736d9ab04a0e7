//! The JSON API over a real server on loopback, on small databases solved
//! here: `nine` sliding sector 3-3 only (`solve --max-stones 6`), `six` and
//! `three` completely (`solve --phase all`); a custom rule set that fills
//! its board (16 points, 8 stones a side) under both outcomes of the
//! full-board rule. Expected values come from
//! `morris-probe` (checked against the reference solver in tests/) and from
//! a hand-checked position of the probe's documentation (`W:a4,d1,g4
//! B:b2,d6,f2 w` is `Win(15)` in 3-3).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use morris_db::{Move, Position, RuleSet, Value};
use morris_probe::Database;
use morris_server::{Catalog, Config, DirArg};
use proptest::prelude::*;
use serde_json::Value as Json;

struct Dbs {
    _tmp: tempfile::TempDir,
    nine: PathBuf,
    six: PathBuf,
    three: PathBuf,
    damaged: PathBuf,
}

/// The databases, solved once per test binary.
fn dbs() -> &'static Dbs {
    static DBS: OnceLock<Dbs> = OnceLock::new();
    DBS.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let nine = tmp.path().join("nine");
        let six = tmp.path().join("six");
        let three = tmp.path().join("three");
        let damaged = tmp.path().join("damaged");
        let options = morris_solver::SolveOptions { max_stones: 6, progress: false };
        morris_solver::solve_sliding(&RuleSet::preset("nine").unwrap(), &nine, &options).unwrap();
        morris_solver::solve_all(&RuleSet::preset("six").unwrap(), &six, false).unwrap();
        morris_solver::solve_all(&RuleSet::preset("three").unwrap(), &three, false).unwrap();
        // A copy of nine's 3-3 table with one payload byte changed: its
        // checksum no longer matches.
        std::fs::create_dir(&damaged).unwrap();
        let mut bytes = std::fs::read(nine.join("nine_3_3_0_0.mtb")).unwrap();
        let i = bytes.len() - 10;
        bytes[i] ^= 0x55;
        std::fs::write(damaged.join("nine_3_3_0_0.mtb"), bytes).unwrap();
        Dbs { _tmp: tmp, nine, six, three, damaged }
    })
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap())
}

/// A server over `dirs` (rule set named), on a port the system picks.
fn start(dirs: &[(&str, &Path)]) -> SocketAddr {
    let config = Config {
        dbs: dirs.iter().map(|(r, d)| DirArg { rules: Some(r.to_string()), dir: d.to_path_buf() }).collect(),
        max_in_flight: 4,
        ..Config::default()
    };
    let catalog = Catalog::open(&config).unwrap();
    let running = runtime().block_on(morris_server::start(catalog, SocketAddr::from(([127, 0, 0, 1], 0)))).unwrap();
    let addr = running.addr;
    std::mem::forget(running); // serves until the test binary ends
    addr
}

/// The server over nine (3-3), six and three.
fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| {
        let d = dbs();
        start(&[("nine", &d.nine), ("six", &d.six), ("three", &d.three)])
    })
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder().http_status_as_error(false).build().into()
}

/// GET `path_and_query`: the status and the JSON body.
fn get(addr: SocketAddr, path_and_query: &str) -> (u16, Json) {
    let mut resp = agent().get(&format!("http://{addr}{path_and_query}")).call().unwrap();
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().unwrap();
    let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    (status, json)
}

fn post(addr: SocketAddr, path: &str, body: &str) -> (u16, Json) {
    let mut resp = agent().post(&format!("http://{addr}{path}")).send(body).unwrap();
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().unwrap();
    (status, serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}")))
}

fn q(text: &str) -> String {
    text.replace(' ', "_")
}

fn category(v: Value) -> &'static str {
    match v {
        Value::Win(_) => "win",
        Value::Draw => "draw",
        Value::Loss(_) => "loss",
    }
}

fn dtm(v: Value) -> Json {
    v.plies().map_or(Json::Null, Json::from)
}

/// Checks a position answer against the probe, field by field.
fn check_position(json: &Json, rules: &RuleSet, db: &Database, pos: &Position) {
    let board = rules.board();
    assert_eq!(json["rules"], rules.name());
    assert_eq!(json["source"], "morris");
    assert_eq!(json["position"], pos.to_text(board));
    assert_eq!(json["fen"], pos.to_fen(rules).map_or(Json::Null, Json::from));
    assert_eq!(json["side_to_move"], if pos.side_to_move() == morris_db::Color::White { "white" } else { "black" });
    let value = db.value(pos).unwrap();
    assert_eq!(json["category"], category(value));
    assert_eq!(json["dtm"], dtm(value));
    assert_eq!(json["draw_rank"], Json::Null);
    assert_eq!(json["stones"]["white"]["board"], pos.white().count_ones());
    assert_eq!(json["stones"]["white"]["hand"], pos.white_in_hand());
    assert_eq!(json["stones"]["black"]["board"], pos.black().count_ones());
    assert_eq!(json["stones"]["black"]["hand"], pos.black_in_hand());
    assert_eq!(json["sector"], pos.sector().to_string());
    let expected: Vec<(Move, Value)> = db.analyze(pos).unwrap();
    let moves = json["moves"].as_array().unwrap();
    assert_eq!(moves.len(), expected.len());
    assert_eq!(moves.len(), pos.legal_moves(rules).len());
    for (m, (mv, v)) in moves.iter().zip(&expected) {
        assert_eq!(m["notation"], mv.notation(board));
        assert_eq!(m["category"], category(*v));
        assert_eq!(m["dtm"], dtm(*v));
        assert_eq!(m["position"], pos.play_unchecked(*mv).to_text(board));
        assert_eq!(m["to"], board.point_name(mv.to));
        assert_eq!(m["from"], mv.from.map_or(Json::Null, |p| Json::from(board.point_name(p))));
        let removes: Vec<&str> = m["removes"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
        assert_eq!(removes, morris_db::Points(mv.removals()).map(|p| board.point_name(p)).collect::<Vec<_>>());
    }
    // Best first: the first move keeps the position's value.
    if let Some(first) = expected.first() {
        assert_eq!(first.1, value);
    }
}

#[test]
fn a_sliding_position_has_every_field() {
    let addr = server();
    let rules = RuleSet::preset("nine").unwrap();
    let db = Database::open(&dbs().nine, rules.clone()).unwrap();
    let text = "W:a4,d1,g4 B:b2,d6,f2 w";
    let pos = Position::parse(text, &rules).unwrap();
    let (status, json) = get(addr, &format!("/api/nine?position={}", q(text)));
    assert_eq!(status, 200, "{json}");
    // The hand-checked value.
    assert_eq!((json["category"].as_str(), json["dtm"].as_u64()), (Some("win"), Some(15)));
    assert_eq!(json["phase"], "sliding");
    assert_eq!(json["flying"], true);
    assert_eq!(json["game_over"], Json::Null);
    check_position(&json, &rules, &db, &pos);
    assert_eq!(json["moves"][0]["category"], "win");
    assert_eq!(json["moves"][0]["dtm"], 15);
    // The FEN of a move's position reads back to that position.
    let fen = json["moves"][0]["fen"].as_str().unwrap();
    assert_eq!(
        morris_db::Setup::from_fen(fen, rules.board()).unwrap().to_text(rules.board()),
        json["moves"][0]["position"].as_str().unwrap()
    );

    // The same position by FEN, and with spaces percent-encoded.
    let fen = pos.to_fen(&rules).unwrap();
    let (status, by_fen) =
        get(addr, &format!("/api/nine?fen={}", fen.replace(' ', "%20").replace('/', "%2F").replace('*', "%2A")));
    assert_eq!(status, 200, "{by_fen}");
    assert_eq!(by_fen, json);
    let (_, spaced) = get(addr, "/api/nine?position=W:a4,d1,g4%20B:b2,d6,f2+w");
    assert_eq!(spaced, json);
}

#[test]
fn every_position_of_a_sample_agrees_with_the_probe() {
    let addr = server();
    for name in ["nine", "six"] {
        let rules = RuleSet::preset(name).unwrap();
        let dir = if name == "nine" { &dbs().nine } else { &dbs().six };
        let db = Database::open(dir, rules.clone()).unwrap();
        for text in morris_server::bench::random_positions(&rules, 6, 20, 7) {
            let pos = Position::parse(&text, &rules).unwrap();
            let (status, json) = get(addr, &format!("/api/{name}?position={}", q(&text)));
            assert_eq!(status, 200, "{text}: {json}");
            check_position(&json, &rules, &db, &pos);
        }
    }
}

#[test]
fn placement_positions_and_phases() {
    let addr = server();
    let rules = RuleSet::preset("six").unwrap();
    let db = Database::open(&dbs().six, rules.clone()).unwrap();
    let start = Position::start(&rules);
    let (status, json) = get(addr, &format!("/api/six?position={}", q(&start.to_text(rules.board()))));
    assert_eq!(status, 200, "{json}");
    assert_eq!(json["phase"], "placement");
    assert_eq!(json["flying"], false);
    assert_eq!(json["fen"], Json::Null, "no FEN on the 16-point board");
    // Six Men's Morris is a draw (published; docs/rules.md).
    assert_eq!(json["category"], "draw");
    assert_eq!(json["moves"].as_array().unwrap().len(), 16);
    check_position(&json, &rules, &db, &start);
    let after = Position::parse("W:b4,d6 B:f4 b 4 5", &rules).unwrap();
    let (status, json) = get(addr, &format!("/api/six?position={}", q(&after.to_text(rules.board()))));
    assert_eq!(status, 200, "{json}");
    check_position(&json, &rules, &db, &after);
}

#[test]
fn game_over_says_why() {
    let addr = server();
    // White down to two stones.
    let (status, json) = get(addr, &format!("/api/nine?position={}", q("W:a4,d1 B:b2,d6,f2 w")));
    assert_eq!(status, 200, "{json}");
    assert_eq!(json["game_over"]["reason"], "two_stones");
    assert_eq!(json["game_over"]["winner"], "black");
    assert_eq!((json["category"].as_str(), json["dtm"].as_u64()), (Some("loss"), Some(0)));
    assert_eq!(json["moves"].as_array().unwrap().len(), 0);
    // Three Men's Morris: White's diagonal line ends the game.
    let (status, json) = get(addr, &format!("/api/three?position={}", q("W:a1,b2,c3 B:a2,b1,c2 b")));
    assert_eq!(status, 200, "{json}");
    assert_eq!(json["game_over"]["reason"], "line");
    assert_eq!(json["game_over"]["winner"], "white");
    assert_eq!(json["category"], "loss");
    // Six Men's Morris without flying: a side to move with no legal move.
    let rules = RuleSet::preset("six").unwrap();
    let blocked = morris_server::bench::random_positions(&rules, 12, 20_000, 3)
        .into_iter()
        .map(|t| Position::parse(&t, &rules).unwrap())
        .find(|p| p.legal_moves(&rules).is_empty())
        .expect("a blocked position among 20,000 random ones");
    let (status, json) = get(addr, &format!("/api/six?position={}", q(&blocked.to_text(rules.board()))));
    assert_eq!(status, 200, "{json}");
    assert_eq!(json["game_over"]["reason"], "blocked");
    assert!(json["game_over"]["why"].as_str().unwrap().ends_with("cannot move"), "{json}");
    let loser = if blocked.side_to_move() == morris_db::Color::White { "black" } else { "white" };
    assert_eq!(json["game_over"]["winner"], loser);
    assert_eq!((json["category"].as_str(), json["dtm"].as_u64()), (Some("loss"), Some(0)));
}

/// A server over a custom rule set (`--db` names presets only): through
/// [`Catalog::from_sources`].
fn start_custom(rules: &RuleSet, dir: &Path) -> SocketAddr {
    let source = morris_server::Source::open_ours(dir, rules.clone()).unwrap();
    let catalog = Catalog::from_sources(vec![(source, dir.to_path_buf())], 4).unwrap();
    let running = runtime().block_on(morris_server::start(catalog, SocketAddr::from(([127, 0, 0, 1], 0)))).unwrap();
    let addr = running.addr;
    std::mem::forget(running);
    addr
}

#[test]
fn a_full_board_ends_the_game_as_the_rule_says() {
    use morris_db::rules::FullBoardOutcome;
    // The smallest game that fills its board (tests/tests/full_board.rs):
    // the 16-point board with 8 stones a side, solved completely under
    // each outcome of the rule. Expected values are the rule's (docs/rules.md:
    // a full board at the end of placement is a draw in Morabaraba, a loss
    // for White, who placed first, in Twelve Men's Morris).
    //
    // Each ring alternates White and Black, so no side of a ring (the
    // mills) is one colour: Black's last placement, c4, closes no mill and
    // fills the board.
    let full = "W:b6,f6,f2,b2,c5,e5,e3,c3 B:d6,f4,d2,b4,d5,e4,d3,c4 w";
    let before = "W:b6,f6,f2,b2,c5,e5,e3,c3 B:d6,f4,d2,b4,d5,e4,d3 b 0 1";
    for (outcome, winner, full_value, last_move) in [
        (FullBoardOutcome::Draw, Json::Null, Value::Draw, Value::Draw),
        (FullBoardOutcome::WhiteLoses, Json::from("black"), Value::LOST, Value::from_ply(1)),
    ] {
        let rules = RuleSet::custom(
            "six",
            &morris_db::Overrides { stones: Some(8), full_board: Some(outcome), ..Default::default() },
        )
        .unwrap();
        let tmp = tempfile::tempdir().unwrap();
        morris_solver::solve_all(&rules, tmp.path(), false).unwrap();
        let db = Database::open(tmp.path(), rules.clone()).unwrap();
        let addr = start_custom(&rules, tmp.path());
        let name = rules.name();

        let (status, json) = get(addr, &format!("/api/{name}?position={}", q(full)));
        assert_eq!(status, 200, "{json}");
        assert_eq!(json["game_over"]["reason"], "full_board", "{name}: {json}");
        assert_eq!(json["game_over"]["winner"], winner, "{name}: {json}");
        assert_eq!((&json["category"], &json["dtm"]), (&Json::from(category(full_value)), &dtm(full_value)));
        assert_eq!(json["moves"].as_array().unwrap().len(), 0);
        check_position(&json, &rules, &db, &Position::parse(full, &rules).unwrap());

        let (status, json) = get(addr, &format!("/api/{name}?position={}", q(before)));
        assert_eq!(status, 200, "{json}");
        assert_eq!(json["game_over"], Json::Null);
        assert_eq!(json["phase"], "placement");
        let moves = json["moves"].as_array().unwrap();
        assert_eq!(moves.len(), 1, "{json}");
        assert_eq!(moves[0]["notation"], "c4");
        let full_text = Position::parse(full, &rules).unwrap().to_text(rules.board());
        assert_eq!(moves[0]["position"], full_text);
        assert_eq!((&moves[0]["category"], &moves[0]["dtm"]), (&Json::from(category(last_move)), &dtm(last_move)));
        assert_eq!((&json["category"], &json["dtm"]), (&Json::from(category(last_move)), &dtm(last_move)));
        check_position(&json, &rules, &db, &Position::parse(before, &rules).unwrap());

        // The line from Black's last placement ends on the full board.
        let (status, json) = get(addr, &format!("/api/{name}/line?position={}", q(before)));
        assert_eq!(status, 200, "{json}");
        assert_eq!(json["line"][0]["notation"], "c4", "{json}");
        if last_move == Value::Draw {
            // A drawn line stops after a few plies or at the end of the game.
            assert_eq!(json["line"].as_array().unwrap().len(), 1, "{json}");
        }
        assert_eq!(json["game_over"]["reason"], "full_board", "{json}");
        assert_eq!(json["game_over"]["winner"], winner, "{json}");
    }
}

#[test]
fn the_line_ends_the_game() {
    let addr = server();
    let (status, json) = get(addr, &format!("/api/nine/line?position={}", q("W:a4,d1,g4 B:b2,d6,f2 w")));
    assert_eq!(status, 200, "{json}");
    let line = json["line"].as_array().unwrap();
    assert_eq!(line.len(), 15);
    assert_eq!(json["category"], "win");
    assert_eq!(line[0]["side"], "white");
    assert_eq!(line[0]["number"], "1.");
    assert_eq!(line[1]["side"], "black");
    for (i, ply) in line.iter().enumerate() {
        // Each ply's DTM, for its mover, counts down by one.
        assert_eq!(ply["dtm"], 15 - i as u64);
        assert_eq!(ply["category"], if i % 2 == 0 { "win" } else { "loss" });
    }
    assert_eq!(json["game_over"]["winner"], "white");
    assert!(json["record"].as_str().unwrap().starts_with("1. "));
    let (status, json) = get(addr, &format!("/api/nine/line?position={}&plies=3", q("W:a4,d1,g4 B:b2,d6,f2 w")));
    assert_eq!(status, 200, "{json}");
    assert_eq!(json["line"].as_array().unwrap().len(), 3);
    assert_eq!(json["game_over"], Json::Null);
    for bad in ["0", "abc", "1001", "-1"] {
        let (status, json) =
            get(addr, &format!("/api/nine/line?position={}&plies={bad}", q("W:a4,d1,g4 B:b2,d6,f2 w")));
        assert_eq!((status, json["error"].as_str()), (400, Some("bad_parameter")), "{bad}: {json}");
    }
}

#[test]
fn rules_list_boards_and_phases() {
    let addr = server();
    let (status, json) = get(addr, "/api/rules");
    assert_eq!(status, 200);
    let rules = json["rules"].as_array().unwrap();
    let names: Vec<&str> = rules.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["nine", "six", "three"]);
    let nine = &rules[0];
    // docs/rules.md: 24 points, 32 adjacent pairs (three rings of 8, 8
    // spokes), 16 mills; 16 points, 20 pairs (two rings of 8, 4 spokes of
    // two), 8 mills; 9 points with diagonals, 16 pairs (6 rows, 6 columns,
    // 4 on the diagonals), 8 lines.
    for (r, points, edges, mills) in [(&rules[0], 24, 32, 16), (&rules[1], 16, 20, 8), (&rules[2], 9, 16, 8)] {
        assert_eq!(r["board"]["points"].as_array().unwrap().len(), points, "{}", r["name"]);
        assert_eq!(r["board"]["edges"].as_array().unwrap().len(), edges, "{}", r["name"]);
        assert_eq!(r["board"]["mills"].as_array().unwrap().len(), mills, "{}", r["name"]);
    }
    let a7 = nine["board"]["points"].as_array().unwrap().iter().find(|p| p["name"] == "a7").unwrap();
    assert_eq!((a7["x"].as_u64(), a7["y"].as_u64()), (Some(0), Some(6)));
    assert_eq!(nine["phases"]["sliding"], true);
    assert_eq!(nine["phases"]["placement"], false);
    assert_eq!(nine["sectors"], 1);
    assert_eq!(nine["start"], "W: B: w 9 9");
    // Not the start (the placement phase is not there), but a 3-3 position.
    let example = nine["example"].as_str().unwrap();
    let (status, _) = get(addr, &format!("/api/nine?position={}", q(example)));
    assert_eq!(status, 200, "{example}");
    assert_eq!(rules[1]["phases"]["placement"], true);
    assert_eq!(rules[1]["example"], rules[1]["start"]);
    assert_eq!(rules[1]["flying"], false);
    assert_eq!(rules[2]["line_wins"], true);
}

fn failure(addr: SocketAddr, path: &str) -> (u16, String, Json) {
    let (status, json) = get(addr, path);
    (status, json["error"].as_str().unwrap_or("").to_string(), json)
}

#[test]
fn client_errors_are_400_with_a_reason() {
    let addr = server();
    let ok = q("W:a4,d1,g4 B:b2,d6,f2 w");
    let cases = [
        (format!("/api/chess?position={ok}"), "unknown_rules", "not a rule set"),
        (format!("/api/twelve?position={ok}"), "unknown_rules", "not served"),
        ("/api/nine".to_string(), "bad_parameter", "missing `position`"),
        (format!("/api/nine?position={ok}&fen=x"), "bad_parameter", "not both"),
        (format!("/api/nine?position={ok}&depth=3"), "bad_parameter", "unknown parameter `depth`"),
        (format!("/api/nine?position={ok}&position={ok}"), "bad_parameter", "twice"),
        ("/api/nine?position=W:a4,z9_B:b2_w".to_string(), "bad_position", "z9"),
        ("/api/nine?position=hello".to_string(), "bad_position", "hello"),
        ("/api/nine?position=W:a4,a4_B:b2_w".to_string(), "bad_position", "a4"),
        ("/api/nine?position=W:a4_B:a4,b2,d2_w".to_string(), "bad_position", "a4"),
        ("/api/nine?position=W:a1,a4,a7,b2,b4,b6,c3,c4,c5,d1_B:g1,g4,g7_w".to_string(), "bad_position", "10"),
        // Black has two stones: the game ended before White was to move.
        ("/api/nine?position=W:a1,a4,a7_B:g1,g4_w".to_string(), "bad_position", "fewer than 3"),
        ("/api/nine?fen=not_a_fen/at_all".to_string(), "bad_position", ""),
        ("/api/six?fen=********/********/********_w_p_p_0_9_0_9_0_0_0_0_0_0_1".to_string(), "bad_position", ""),
        ("/api/nine?position=%ZZ".to_string(), "bad_position", "%ZZ"),
    ];
    for (path, code, words) in cases {
        let (status, error, json) = failure(addr, &path);
        assert_eq!((status, error.as_str()), (400, code), "{path}: {json}");
        assert!(json["message"].as_str().unwrap().contains(words), "{path}: {json}");
    }
}

#[test]
fn a_missing_table_is_404_naming_the_sector() {
    let addr = server();
    // 4-3: nine has only 3-3 here.
    let (status, error, json) = failure(addr, &format!("/api/nine?position={}", q("W:a4,d1,g4,g1 B:b2,d6,f2 w")));
    assert_eq!((status, error.as_str()), (404, "missing_table"), "{json}");
    assert_eq!(json["sector"], "4-3");
    assert_eq!(json["file"], "nine_4_3_0_0.mtb");
    let message = json["message"].as_str().unwrap();
    let dir = dbs().nine.to_string_lossy().into_owned();
    assert!(!message.contains(&dir), "the server's directory leaks: {message}");
    // A position whose own table exists but one of whose moves needs a
    // missing one (placement in nine: no placement tables here).
    let (status, error, json) = failure(addr, "/api/nine?position=W:_B:_w_9_9");
    assert_eq!((status, error.as_str()), (404, "missing_table"), "{json}");
    assert_eq!(json["sector"], "0-0-9-9");
}

#[test]
fn a_damaged_table_is_500_and_the_rest_still_serves() {
    let d = dbs();
    let addr = start(&[("nine", &d.damaged), ("six", &d.six)]);
    for _ in 0..2 {
        let (status, error, json) = failure(addr, &format!("/api/nine?position={}", q("W:a4,d1,g4 B:b2,d6,f2 w")));
        assert_eq!((status, error.as_str()), (500, "damaged_table"), "{json}");
        assert_eq!(json["file"], "nine_3_3_0_0.mtb");
        let message = json["message"].as_str().unwrap();
        assert!(message.contains("checksum"), "{message}");
        assert!(!message.contains(&d.damaged.to_string_lossy().into_owned()), "{message}");
        let (status, _) = get(addr, "/api/six?position=W:_B:_w_6_6");
        assert_eq!(status, 200);
        let (status, _) = get(addr, "/api/rules");
        assert_eq!(status, 200);
    }
}

#[test]
fn limits_and_unknown_routes() {
    let addr = server();
    let long = "a".repeat(morris_server::MAX_QUERY + 1);
    let (status, error, _) = failure(addr, &format!("/api/nine?position={long}"));
    assert_eq!((status, error.as_str()), (414, "too_long"));
    let (status, error, _) = failure(addr, "/api/nine/nothing");
    assert_eq!((status, error.as_str()), (404, "not_found"));
    let (status, error, _) = failure(addr, "/etc/passwd");
    assert_eq!((status, error.as_str()), (404, "not_found"));
    let (status, error, _) = failure(addr, "/api/..%2F..%2Fetc%2Fpasswd?position=x");
    assert_eq!((status, error.as_str()), (400, "unknown_rules"));
    let big = "d6 ".repeat(morris_server::MAX_BODY / 3 + 10);
    let mut resp = agent().post(&format!("http://{addr}/api/six/review")).send(big.as_str()).unwrap();
    assert_eq!(resp.status().as_u16(), 413);
    let _ = resp.body_mut().read_to_string();
    // The page itself.
    let mut resp = agent().get(&format!("http://{addr}/")).call().unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let html = resp.body_mut().read_to_string().unwrap();
    assert!(html.contains("<svg id=\"board\""));
}

#[test]
fn review_marks_moves_against_the_tables() {
    let addr = server();
    let rules = RuleSet::preset("nine").unwrap();
    let db = Database::open(&dbs().nine, rules.clone()).unwrap();
    let start = Position::parse("W:a4,d1,g4 B:b2,d6,f2 w", &rules).unwrap();
    let moves = db.analyze(&start).unwrap();
    // A move that throws the win away (the probe says it draws or loses).
    let (bad, bad_value) = *moves.iter().find(|(_, v)| !matches!(v, Value::Win(_))).expect("a move that does not win");
    let after_bad = start.play_unchecked(bad);
    let (reply, _) = db.analyze(&after_bad).unwrap()[0];
    let record = format!("1. {} {}", bad.notation(rules.board()), reply.notation(rules.board()));
    let (status, json) =
        post(addr, &format!("/api/nine/review?position={}", q(&start.to_text(rules.board()))), &record);
    assert_eq!(status, 200, "{json}");
    let m = &json["moves"][0];
    assert_eq!(m["mark"], "threw_win");
    assert_eq!(m["before"]["category"], "win");
    assert_eq!(m["before"]["dtm"], 15);
    assert_eq!(m["after"]["category"], category(bad_value));
    assert_eq!(m["best"]["notation"], moves[0].0.notation(rules.board()));
    assert_eq!(json["moves"][1]["mark"], "kept");
    // Each move's points and the position after it (the page steps
    // through these), from the moves the probe gave.
    let board = rules.board();
    for (m, (mv, after)) in
        json["moves"].as_array().unwrap().iter().zip([(bad, after_bad), (reply, after_bad.play_unchecked(reply))])
    {
        assert_eq!(m["position_after"], after.to_text(board), "{m}");
        assert_eq!(m["to"], board.point_name(mv.to), "{m}");
        assert_eq!(m["from"], mv.from.map_or(Json::Null, |p| Json::from(board.point_name(p))), "{m}");
        let removes: Vec<&str> = morris_db::Points(mv.removals()).map(|p| board.point_name(p)).collect();
        assert_eq!(m["removes"], Json::from(removes), "{m}");
    }
    assert_eq!(json["moves"][1]["position"], json["moves"][0]["position_after"]);
    assert_eq!(json["first_decisive_mistake"], 1);
    assert_eq!(json["summary"]["white"]["threw_win"], 1);
    assert_eq!(json["summary"]["white"]["first_decisive_mistake"], 1);
    assert_eq!(json["summary"]["black"]["kept"], 1);
    assert_eq!(json["error"], Json::Null);

    // The same game as a PGN, its start in a [FEN] tag.
    let pgn = format!(
        "[Event \"test\"]\n[FEN \"{}\"]\n\n1. {} {} *\n",
        start.to_fen(&rules).unwrap(),
        bad.notation(rules.board()),
        reply.notation(rules.board())
    );
    let (status, from_pgn) = post(addr, "/api/nine/review", &pgn);
    assert_eq!(status, 200, "{from_pgn}");
    assert_eq!(from_pgn["moves"], json["moves"], "{pgn}");
    assert_eq!(from_pgn["start"], start.to_text(rules.board()));

    // A slower win: the mark counts the plies given away.
    if let Some((slow, Value::Win(n))) = moves.iter().find(|(_, v)| matches!(v, Value::Win(n) if n.get() > 15)) {
        let (_, json) = post(
            addr,
            &format!("/api/nine/review?position={}", q(&start.to_text(rules.board()))),
            &slow.notation(rules.board()),
        );
        assert_eq!(json["moves"][0]["mark"], "gave_plies");
        assert_eq!(json["moves"][0]["plies_given"], u64::from(n.get() - 15));
    }

    // Not covered: 4-3 has no table here.
    let (_, json) = post(addr, &format!("/api/nine/review?position={}", q("W:a4,d1,g4,g1 B:b2,d6,f2 w")), "a4-a7");
    assert_eq!(json["moves"][0]["mark"], "not_covered", "{json}");
    assert_eq!(json["moves"][0]["before"], Json::Null);
    assert_eq!(json["summary"]["white"]["not_covered"], 1);

    // An illegal move is a bad record: 400, saying where.
    let (status, json) = post(addr, "/api/six/review", "1. b4 b4");
    assert_eq!(status, 400, "{json}");
    assert_eq!(json["error"], "bad_record");
    assert!(json["message"].as_str().unwrap().contains("b4"), "{json}");
}

/// Characters that make up positions, FENs and junk.
fn text() -> impl Strategy<Value = String> {
    prop::string::string_regex("[-a-zA-Z0-9:,_ /*@%+=&;.xX]{0,80}").unwrap()
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.:,*".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// No query makes a handler panic or answer anything but JSON with a
    /// known status.
    #[test]
    fn any_query_gets_a_json_answer(
        rules in prop::sample::select(vec!["nine", "six", "three", "twelve", "x", ""]),
        route in prop::sample::select(vec!["", "/line"]),
        key in prop::sample::select(vec!["position", "fen", "plies", "other"]),
        value in text(),
        raw in prop::bool::ANY,
    ) {
        let addr = server();
        let value = if raw { value.replace(['%', '#', ' ', '&', '+'], "") } else { encode(&value) };
        let path = format!("/api/{rules}{route}?{key}={value}");
        let mut resp = agent().get(&format!("http://{addr}{path}")).call().unwrap();
        let status = resp.status().as_u16();
        let body = resp.body_mut().read_to_string().unwrap();
        prop_assert!([200, 400, 404].contains(&status), "{path}: {status} {body}");
        let json: Json = serde_json::from_str(&body).unwrap();
        if status != 200 {
            prop_assert!(json["message"].is_string(), "{path}: {body}");
        }
    }

    /// The query parser refuses or accepts any text without panicking.
    #[test]
    fn the_query_parser_never_panics(raw in ".{0,200}") {
        let rules = RuleSet::preset("nine").unwrap();
        if let Ok(pairs) = morris_server::api::parse_query(Some(&raw), &["position", "fen", "plies"]) {
            let _ = morris_server::api::position_param(&pairs, &rules);
        }
    }
}

/// `six`'s tables exported to WDL files (`morris export-wdl`), once.
fn six_wdl() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = dbs()._tmp.path().join("six-wdl");
        std::fs::create_dir(&dir).unwrap();
        let rules = RuleSet::preset("six").unwrap();
        for sector in Database::open(&dbs().six, rules.clone()).unwrap().sectors().unwrap() {
            let slots = rules.indexer().sector(sector).len();
            let table = morris_db::Table::open(&dbs().six, &rules, sector, slots).unwrap();
            morris_db::wdl::export_table(&table, &morris_db::wdl::wdl_path(&dir, &rules, sector)).unwrap();
        }
        dir
    })
}

/// Positions of six to compare two servers on: the start and every
/// position two plies after it (placement), and random positions of
/// every sliding sector.
fn six_positions() -> Vec<Position> {
    let rules = RuleSet::preset("six").unwrap();
    let start = Position::start(&rules);
    let mut out = vec![start];
    for mv in start.legal_moves(&rules) {
        let next = start.play_unchecked(mv);
        out.push(next);
        out.extend(next.legal_moves(&rules).into_iter().step_by(5).map(|m| next.play_unchecked(m)));
    }
    let db = Database::open(&dbs().six, rules.clone()).unwrap();
    for sector in db.sectors().unwrap().into_iter().filter(|s| s.is_sliding()) {
        out.extend(morris_probe::sample(&db, sector, 6, 41).unwrap().into_iter().map(|s| s.position));
    }
    out
}

/// A directory of WDL files only is served (the rule set told from the
/// file names): every position's category and every move's category, for
/// the mover, are those the DTM-backed server gives, `dtm` is `null`
/// throughout, and the moves come win, draw, loss. The line and the review
/// answer too, without distances.
#[test]
fn a_wdl_only_directory_answers_every_category_as_the_dtm_tables() {
    let dtm_server = server();
    let config = Config {
        dbs: vec![DirArg { rules: None, dir: six_wdl().to_path_buf() }],
        max_in_flight: 4,
        ..Config::default()
    };
    let catalog = Catalog::open(&config).unwrap();
    let running = runtime().block_on(morris_server::start(catalog, SocketAddr::from(([127, 0, 0, 1], 0)))).unwrap();
    let wdl_server = running.addr;
    let (status, rules) = get(wdl_server, "/api/rules");
    assert_eq!(status, 200);
    assert_eq!(rules["rules"][0]["source"], "morris-wdl", "{rules}");
    assert_eq!(rules["rules"][0]["sectors"], 131, "{rules}");
    let board = RuleSet::preset("six").unwrap();
    let positions = six_positions();
    assert!(positions.len() > 100, "{}", positions.len());
    let rank = |c: &Json| ["loss", "draw", "win"].iter().position(|w| c == w).unwrap();
    for pos in &positions {
        let path = format!("/api/six?position={}", q(&pos.to_text(board.board())));
        let ((s1, a), (s2, b)) = (get(dtm_server, &path), get(wdl_server, &path));
        assert_eq!((s1, s2), (200, 200), "{path}: {a} {b}");
        assert_eq!(a["category"], b["category"], "{path}");
        assert_eq!(b["dtm"], Json::Null, "{path}");
        let (ma, mb) = (a["moves"].as_array().unwrap(), b["moves"].as_array().unwrap());
        assert_eq!(ma.len(), mb.len(), "{path}");
        for m in mb {
            let same = ma.iter().find(|x| x["notation"] == m["notation"]).unwrap();
            assert_eq!(m["category"], same["category"], "{path} {}", m["notation"]);
            assert_eq!(m["dtm"], Json::Null);
        }
        assert!(mb.windows(2).all(|w| rank(&w[0]["category"]) >= rank(&w[1]["category"])), "{path}: best first");
        if let Some(best) = mb.first() {
            assert_eq!(best["category"], b["category"], "{path}: the best move keeps the value");
        }
    }
    let (status, line) = get(wdl_server, "/api/six/line?position=W:_B:_w_6_6&plies=4");
    assert_eq!(status, 200, "{line}");
    let plies = line["line"].as_array().unwrap();
    assert_eq!(plies.len(), 4);
    assert!(plies.iter().all(|p| p["category"] == "draw" && p["dtm"] == Json::Null), "{line}");
    let (status, review) = post(wdl_server, "/api/six/review", "1. d2 d6 2. b4");
    assert_eq!(status, 200, "{review}");
    assert_eq!(review["moves"][0]["mark"], "kept", "{review}");
    assert_eq!(review["moves"][0]["before"]["dtm"], Json::Null, "{review}");
    runtime().block_on(running.stop()).unwrap();
}

/// The traps of `after` counted with the probe crate alone: the replies
/// whose category for the replier is below that of `after` for them.
fn traps_by_probe(db: &Database, after: &Position) -> u64 {
    if after.game_over(db.rules()).is_some() || db.value(after).is_err() {
        return 0;
    }
    let own = morris_probe::Wdl::from(db.value(after).unwrap());
    db.analyze(after).unwrap().into_iter().filter(|(_, v)| morris_probe::Wdl::from(*v) < own).count() as u64
}

/// Every move's `traps` is the number of the opponent's replies that lose
/// a category for them, counted independently through `morris-probe`'s
/// `analyze` of the position after the move, on positions of six (both
/// phases) and three; traps are in the position answer only, not in the
/// line's plies.
#[test]
fn traps_count_the_replies_that_lose_a_category() {
    let addr = server();
    let mut cases: Vec<(&str, Position)> = six_positions().into_iter().step_by(3).map(|p| ("six", p)).collect();
    let three = RuleSet::preset("three").unwrap();
    let three_db = Database::open(&dbs().three, three.clone()).unwrap();
    for sector in three_db.sectors().unwrap() {
        if let Ok(samples) = morris_probe::sample(&three_db, sector, 8, 7) {
            cases.extend(samples.into_iter().map(|s| ("three", s.position)));
        }
    }
    let mut with_traps = 0;
    for (name, pos) in cases {
        let rules = RuleSet::preset(name).unwrap();
        let db = Database::open(if name == "six" { &dbs().six } else { &dbs().three }, rules.clone()).unwrap();
        let (status, json) = get(addr, &format!("/api/{name}?position={}", q(&pos.to_text(rules.board()))));
        if status != 200 {
            continue; // a sampled position the API refuses (over already) has no moves to check
        }
        for m in json["moves"].as_array().unwrap() {
            let mv =
                pos.legal_moves(&rules).into_iter().find(|mv| mv.notation(rules.board()) == m["notation"]).unwrap();
            let expected = traps_by_probe(&db, &pos.play_unchecked(mv));
            assert_eq!(m["traps"].as_u64(), Some(expected), "{name} {} {}", pos.to_text(rules.board()), m["notation"]);
            with_traps += usize::from(expected > 0);
        }
    }
    assert!(with_traps > 20, "too few moves with traps to tell: {with_traps}");
    let (_, line) = get(addr, "/api/six/line?position=W:_B:_w_6_6&plies=2");
    assert!(line["line"][0].get("traps").is_none(), "{line}");
}

/// A position of Three Men's Morris counted by hand (9-point board with
/// diagonals; a line of three wins). White a1, a2, b3; Black b1, c2, c3;
/// White plays b3-b2. Black then has three replies (b1 can only go to c1,
/// a1 and b2 being White's; c2 only to c1; c3 only to b3):
///
/// - b1-c1 makes c1-c2-c3, a line: Black wins;
/// - c2-c1 and c3-b3 leave White to play b2-a3, making a1-a2-a3: Black
///   loses.
///
/// So Black's position is a win, and two of its three replies throw it
/// away: the move b3-b2 sets 2 traps.
#[test]
fn traps_of_a_hand_checked_position_of_three() {
    let (status, json) = get(server(), "/api/three?position=W:a1,a2,b3_B:b1,c2,c3_w");
    assert_eq!(status, 200, "{json}");
    let mv = json["moves"].as_array().unwrap().iter().find(|m| m["notation"] == "b3-b2").unwrap();
    assert_eq!(mv["category"], "loss", "{mv}");
    assert_eq!(mv["traps"], 2, "{mv}");
    let (_, after) =
        get(server(), &format!("/api/three?position={}", mv["position"].as_str().unwrap().replace(' ', "_")));
    let replies: Vec<(&str, &str)> = after["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["notation"].as_str().unwrap(), m["category"].as_str().unwrap()))
        .collect();
    assert_eq!(replies, [("b1-c1", "win"), ("c2-c1", "loss"), ("c3-b3", "loss")]);
}

/// `reachable`: from six's bitmaps (`morris reach`, written here beside a
/// copy of its tables) as `morris_probe::reach::reachable` reads them
/// afresh, both values among a sample (48.9% of six's canonical positions
/// can arise: docs/results.md); `null` for nine, which has no bitmaps.
#[test]
fn reachable_comes_from_the_bitmaps() {
    let rules = RuleSet::preset("six").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(&dbs().six).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, tmp.path().join(path.file_name().unwrap())).unwrap();
    }
    morris_solver::reach::reach_all(&rules, tmp.path(), |_| {}).unwrap();
    let addr = start(&[("six", tmp.path()), ("nine", &dbs().nine)]);
    let mut seen = [0; 2];
    for text in morris_server::bench::random_positions(&rules, 12, 60, 9) {
        let pos = Position::parse(&text, &rules).unwrap();
        let expected = morris_probe::reach::reachable(tmp.path(), &rules, &pos).unwrap().unwrap();
        // Twice: the second answer from the bitmap kept mapped.
        for _ in 0..2 {
            let (status, json) = get(addr, &format!("/api/six?position={}", q(&text)));
            assert_eq!(status, 200, "{json}");
            assert_eq!(json["reachable"], expected, "{text}");
        }
        seen[usize::from(expected)] += 1;
    }
    assert!(seen[0] > 0 && seen[1] > 0, "{seen:?}");
    let (_, json) = get(addr, &format!("/api/nine?position={}", q("W:a4,d1,g4 B:b2,d6,f2 w")));
    assert_eq!(json["reachable"], Json::Null);
}

/// `bench-serve --idle`: idle connections held through the load, each
/// answered once and kept alive to the end; past the server's connection
/// cap the rest are refused (and so are the active clients, whose
/// requests all fail).
#[test]
fn bench_holds_idle_connections_up_to_the_cap() {
    let run = |idle: usize, cap: usize| {
        let config = Config {
            dbs: vec![DirArg { rules: Some("nine".into()), dir: dbs().nine.clone() }],
            max_in_flight: 4,
            limits: morris_server::Limits { max_connections: cap, ..Default::default() },
            ..Config::default()
        };
        let options = morris_server::bench::BenchOptions {
            clients: 2,
            duration: std::time::Duration::from_millis(800),
            max_stones: 6,
            positions: 50,
            seed: 1,
            idle,
            stop_under_load: false,
        };
        morris_server::bench::run(&config, &options).unwrap()
    };
    let r = run(8, 12);
    assert_eq!(r.idle, (8, 8));
    assert!(r.requests > 0 && r.errors == 0, "{r:?}");
    let r = run(20, 12);
    assert_eq!(r.idle, (12, 12));
    assert!(r.errors > 0 && r.errors == r.requests, "{r:?}");
}

/// `bench-serve --stop-under-load`: the server stopped while 8 clients send
/// answers every request it had begun (none cut off) and ends well within
/// its shutdown timeout; the load before the stop had no error.
#[test]
fn bench_stop_under_load_answers_the_requests_in_flight() {
    let config = Config {
        dbs: vec![DirArg { rules: Some("nine".into()), dir: dbs().nine.clone() }],
        max_in_flight: 4,
        ..Config::default()
    };
    let options = morris_server::bench::BenchOptions {
        clients: 8,
        duration: std::time::Duration::from_millis(600),
        max_stones: 6,
        positions: 50,
        seed: 2,
        idle: 0,
        stop_under_load: true,
    };
    let r = morris_server::bench::run(&config, &options).unwrap();
    let stop = r.stop.expect("a stop was asked for");
    assert!(r.requests > 0 && r.errors == 0, "{r:?}");
    assert!(stop.answered >= stop.begun && stop.in_flight >= stop.answered, "{r:?}");
    assert_eq!(stop.cut_off, 0, "{r:?}");
    assert!(stop.took < morris_server::Limits::default().shutdown_timeout / 2, "{r:?}");
}
