//! End-to-end tests of the `morris` binary (package `morris-tools`) on real
//! small databases: solve, stats, probe, analyze, bestmove, show, their
//! help, and their errors.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use morris_db::{Color, Position, RuleSet, Sector};
use morris_probe::Database;

use crate::common;
use crate::common::{contains_all, db7, fails, ok, run, s};

/// A fresh copy of [`db7`] for a test that damages it.
fn copy_of_db7() -> tempfile::TempDir {
    common::copy_of(db7())
}

/// Every file of a directory: name, contents, modification time, inode.
fn snapshot(dir: &Path) -> BTreeMap<String, (Vec<u8>, std::time::SystemTime, u64)> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let meta = fs::metadata(&path).unwrap();
            (
                path.file_name().unwrap().to_string_lossy().into_owned(),
                (fs::read(&path).unwrap(), meta.modified().unwrap(), meta.ino()),
            )
        })
        .collect()
}

const DRAWN: [&str; 3] = ["W:a4,a1,d3 B:a7,d1,c4 w", "W:a1,d3,c3 B:d1,c4,e3 w", "W:a4,a1,b2 B:a7,d1,b4 w"];

// ---------------------------------------------------------------------------
// solve

#[test]
fn solving_twice_recomputes_nothing_and_leaves_the_same_tables() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let args = ["solve", "--rules", "nine", "--max-stones", "8", "--db", s(&db), "-q"];
    let first = ok(&args);
    contains_all(&first, &["solved 6 tables", "kept 0"], "first run");
    let before = snapshot(&db);
    let names: Vec<&str> = before.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "nine_3_3_0_0.mtb",
            "nine_3_4_0_0.mtb",
            "nine_3_5_0_0.mtb",
            "nine_4_3_0_0.mtb",
            "nine_4_4_0_0.mtb",
            "nine_5_3_0_0.mtb"
        ]
    );
    let second = ok(&args);
    contains_all(&second, &["solved 0 tables", "kept 6 already on disk"], "second run");
    let after = snapshot(&db);
    assert_eq!(before.len(), after.len());
    for (name, (bytes, mtime, inode)) in &before {
        let (bytes2, mtime2, inode2) = &after[name];
        assert!(bytes == bytes2, "{name} changed");
        assert_eq!(mtime, mtime2, "{name} was rewritten");
        assert_eq!(inode, inode2, "{name} was replaced");
    }
    // The tables the 7-stone database shares are the same bytes.
    for name in ["nine_3_3_0_0.mtb", "nine_3_4_0_0.mtb", "nine_4_3_0_0.mtb"] {
        assert!(fs::read(db7().join(name)).unwrap() == before[name].0, "{name} differs between two solves");
    }
}

#[test]
fn one_thread_solves_the_same_tables_as_several() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let out = ok(&["solve", "--rules", "nine", "--max-stones", "7", "--threads", "1", "--db", s(&db), "-q"]);
    contains_all(&out, &["solved 3 tables", "1 thread,"], "solve --threads 1");
    let one = snapshot(&db);
    let many = snapshot(db7());
    assert_eq!(one.len(), many.len());
    for (name, (bytes, _, _)) in &one {
        assert!(bytes == &many[name].0, "{name} depends on the thread count");
    }
}

#[test]
fn solve_removes_stale_temporary_files() {
    // Into an empty directory: the stale file goes, the table comes.
    let dir = tempfile::tempdir().unwrap();
    let stale = dir.path().join("nine_3_3_0_0.mtb.tmp");
    fs::write(&stale, b"left over by an interrupted run").unwrap();
    let other = dir.path().join("nine_4_4_0_0.mtb.tmp");
    fs::write(&other, b"").unwrap();
    let out = ok(&["solve", "--max-stones", "6", "--db", s(dir.path()), "-q"]);
    contains_all(&out, &["solved 1 table"], "solve");
    assert!(!stale.exists(), "{} is still there", stale.display());
    assert!(!other.exists(), "{} is still there", other.display());
    assert!(dir.path().join("nine_3_3_0_0.mtb").is_file());
    ok(&["stats", "--db", s(dir.path())]);

    // Into a complete database: nothing to solve, the stale file still goes.
    let dir = copy_of_db7();
    let stale = dir.path().join("nine_3_4_0_0.mtb.tmp");
    fs::write(&stale, [0u8; 1000]).unwrap();
    let out = ok(&["solve", "--max-stones", "7", "--db", s(dir.path()), "-q"]);
    contains_all(&out, &["solved 0 tables", "kept 3"], "solve");
    assert!(!stale.exists(), "{} is still there", stale.display());
}

/// The slot of a drawn 3-3 position that a capture from 3-4 leads to (the
/// side not to move has a mill).
fn draw_reached_by_a_capture() -> u64 {
    let rules = RuleSet::preset("nine").unwrap();
    let db = Database::open(db7(), rules.clone()).unwrap();
    let index = rules.indexer().sector(Sector::sliding(3, 3));
    (0..index.len())
        .find(|&slot| {
            index.position(slot).is_some_and(|(us, them)| {
                rules.board().stones_in_mills(them) != 0
                    && db.value(&Position::from_sector(Sector::sliding(3, 3), Color::White, us, them)).unwrap()
                        == morris_db::Value::Draw
            })
        })
        .expect("a drawn 3-3 position with a mill")
}

/// A way to damage a table, and its name.
type Damage = (&'static str, fn(&mut Vec<u8>));

// A table whose header is intact but whose payload is damaged must not
// count as already solved, nor be built on: `morris solve` re-solves it.
#[test]
fn solve_never_builds_on_a_damaged_table() {
    // What is done to 3-3's table.
    let damages: [Damage; 3] = [
        ("cut short", |b| b.truncate(b.len() - 3)),
        ("header byte changed", |b| b[60] ^= 0x10),
        ("payload byte changed", |b| {
            // A draw becomes Loss(0): a wrong value, not padding, and one
            // that changes the captures into it from 3-4.
            let i = 128 + 2 * draw_reached_by_a_capture() as usize;
            assert_eq!((b[i], b[i + 1]), (0, 0));
            b[i] = 1;
        }),
    ];
    let clean = snapshot(db7());
    let mut failures = Vec::new();
    for (what, damage) in damages {
        let dir = tempfile::tempdir().unwrap();
        let t33 = dir.path().join("nine_3_3_0_0.mtb");
        let mut bytes = clean["nine_3_3_0_0.mtb"].0.clone();
        damage(&mut bytes);
        fs::write(&t33, &bytes).unwrap();
        let r = run(&["solve", "--max-stones", "7", "--db", s(dir.path()), "-q"]);
        if r.code != Some(0) {
            // Refusing is fine if the message names the file.
            if !r.stderr.contains("nine_3_3_0_0.mtb") {
                failures.push(format!("{what}: solve failed without naming the file:\n{}", r.stderr));
            }
            continue;
        }
        // Succeeding is fine if every table is now the clean one.
        let now = snapshot(dir.path());
        for (name, (bytes, _, _)) in &clean {
            if now.get(name).map(|f| &f.0) != Some(bytes) {
                failures
                    .push(format!("{what}: solve succeeded ({}) but {name} is not the correct table", r.stdout.trim()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn solve_refuses_unknown_and_unsupported_rule_sets() {
    let dir = tempfile::tempdir().unwrap();
    let err = fails(&["solve", "--rules", "ninety", "--db", s(dir.path()), "-q"]);
    contains_all(&err, &["ninety", "nine-noflying"], "unknown rule set");
    let err =
        fails(&["solve", "--rules", "nine", "--remove-per-mill", "--db", s(dir.path()), "--max-stones", "6", "-q"]);
    contains_all(&err, &["nine-", "not supported"], "unsupported rule set");
}

// ---------------------------------------------------------------------------
// stats

#[test]
fn stats_csv_gives_the_oracle_figures() {
    let out = ok(&["stats", "--db", s(db7()), "--format", "csv"]);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("sector,positions,wins,losses,draws,max_win,max_loss,reachable,rules"));
    let rows: BTreeMap<&str, &str> = lines.map(|l| (l.split(',').next().unwrap(), l)).collect();
    assert_eq!(rows.keys().copied().collect::<Vec<_>>(), ["3-3", "3-4", "4-3"]);
    for row in rows.values() {
        assert_eq!(row.split(',').count(), 9, "{row}");
    }
    // docs/testing.md, "The oracle": wins, losses, draws, longest win and
    // loss; no reachability bitmap, so no reachable count.
    assert_eq!(rows["3-3"], "3-3,169626,140621,28736,269,25,26,,nine");
    assert_eq!(rows["3-4"], "3-4,760398,102281,0,658117,33,,,nine");
    assert_eq!(rows["4-3"], "4-3,760398,75397,3095,681906,1,32,,nine");
}

/// Issue 19: after `compress` without `--remove-originals` each sector has a
/// `.mtb` and a `.mtz` file; `stats` counts each table once (3 tables, as
/// the oracle's three sectors), with the same figures as before.
#[test]
fn stats_counts_a_table_with_its_compressed_twin_once() {
    let dir = copy_of_db7();
    ok(&["compress", "--db", s(dir.path())]);
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 6);
    let out = ok(&["stats", "--db", s(dir.path())]);
    contains_all(&out, &["3 tables, 1690422 canonical positions"], "stats with twins");
    assert_eq!(
        ok(&["stats", "--db", s(dir.path()), "--format", "csv"]),
        ok(&["stats", "--db", s(db7()), "--format", "csv"])
    );
}

/// Issue 19: a stale or damaged `.mtz` beside a good `.mtb` (which every
/// command reads) is reported by `stats` as a warning naming it, and does not
/// make `stats` fail while `verify` and `probe` pass.
#[test]
fn stats_reports_a_damaged_compressed_twin_without_failing() {
    let dir = copy_of_db7();
    ok(&["compress", "--db", s(dir.path())]);
    let twin = dir.path().join("nine_3_3_0_0.mtz");
    let mut bytes = fs::read(&twin).unwrap();
    let last = bytes.len() - 10;
    bytes[last] ^= 0x41;
    fs::write(&twin, &bytes).unwrap();
    let r = run(&["stats", "--db", s(dir.path())]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    contains_all(&r.stderr, &["warning", "nine_3_3_0_0.mtz", "payload checksum", "nine_3_3_0_0.mtb"], "stale twin");
    contains_all(&r.stdout, &["3 tables, 1690422 canonical positions"], "stats with a damaged twin");
    contains_all(&ok(&["verify", "--db", s(dir.path())]), &["3 of 3 tables OK"], "verify");
    ok(&["probe", "--db", s(dir.path()), DRAWN[0]]);
}

/// Issue 19: `stats` on a directory without tables fails as the other
/// commands do, instead of printing "0 tables".
#[test]
fn stats_of_an_empty_directory_fails() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("notes.txt"), "not a table").unwrap();
    let err = fails(&["stats", "--db", s(dir.path())]);
    contains_all(&err, &[s(dir.path()), "holds no table"], "empty directory");
}

/// Issue 19: `stats --rules` lists one rule set's tables; a rule set
/// without tables there is an error naming the ones present.
#[test]
fn stats_rules_selects_one_rule_set() {
    let dir = copy_of_db7();
    ok(&["solve", "--rules", "six", "--max-stones", "6", "--db", s(dir.path()), "-q"]);
    let all = ok(&["stats", "--db", s(dir.path()), "--format", "csv"]);
    assert!(all.contains(",nine\n") && all.contains(",six\n"), "{all}");
    let nine = ok(&["stats", "--db", s(dir.path()), "--rules", "nine", "--format", "csv"]);
    assert_eq!(nine, ok(&["stats", "--db", s(db7()), "--format", "csv"]));
    let six = ok(&["stats", "--db", s(dir.path()), "--rules", "six", "--format", "csv"]);
    assert_eq!(six.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect::<Vec<_>>(), ["3-3"]);
    let err = fails(&["stats", "--db", s(dir.path()), "--rules", "lasker"]);
    contains_all(&err, &["lasker", "nine, six"], "stats --rules lasker");
    let err = fails(&["stats", "--db", s(dir.path()), "--rules", "ninety"]);
    contains_all(&err, &["ninety"], "stats --rules ninety");
}

/// Issue 19: the tables of a custom rule set whose name uses a short preset
/// name (`nine-dg-<hex>` for `nine-diagonal --stones 8`) are read; 3-3 has
/// as many canonical positions as the preset `nine-diagonal`'s 3-3 (same
/// board, same symmetries).
#[test]
fn stats_reads_a_custom_rule_set_with_a_short_preset_name() {
    let dir = tempfile::tempdir().unwrap();
    ok(&["solve", "--rules", "nine-diagonal", "--stones", "8", "--max-stones", "6", "--db", s(dir.path()), "-q"]);
    let name = RuleSet::custom("nine-diagonal", &morris_db::Overrides { stones: Some(8), ..Default::default() })
        .unwrap()
        .name()
        .to_string();
    assert!(name.starts_with("nine-dg-"), "{name}");
    let out = ok(&["stats", "--db", s(dir.path()), "--format", "csv"]);
    let row = out.lines().nth(1).unwrap_or_default().to_string();
    assert!(row.starts_with("3-3,") && row.ends_with(&format!(",{name}")), "{out}");
    assert_eq!(out, ok(&["stats", "--db", s(dir.path()), "--rules", &name, "--format", "csv"]));
    let preset = tempfile::tempdir().unwrap();
    ok(&["solve", "--rules", "nine-diagonal", "--max-stones", "6", "--db", s(preset.path()), "-q"]);
    let preset_row = ok(&["stats", "--db", s(preset.path()), "--format", "csv"]).lines().nth(1).unwrap().to_string();
    assert_eq!(row.split(',').nth(1), preset_row.split(',').nth(1), "{row} / {preset_row}");
}

#[test]
fn stats_json_parses_and_holds_every_sector() {
    let out = ok(&["stats", "--db", s(db7()), "--format", "json"]);
    let json = Json::parse(&out).unwrap_or_else(|e| panic!("invalid JSON ({e}):\n{out}"));
    let Json::Array(items) = json else { panic!("not an array:\n{out}") };
    let mut by_sector = BTreeMap::new();
    for item in &items {
        let Json::Object(m) = item else { panic!("not an object: {item:?}") };
        let Some(Json::String(sector)) = m.get("sector") else { panic!("no sector: {item:?}") };
        assert_eq!(m.get("rules"), Some(&Json::String("nine".into())));
        by_sector.insert(sector.clone(), m.clone());
    }
    assert_eq!(by_sector.keys().collect::<Vec<_>>(), ["3-3", "3-4", "4-3"]);
    let num = |sector: &str, key: &str| match by_sector[sector].get(key) {
        Some(Json::Number(n)) => Some(*n),
        Some(Json::Null) | None => None,
        other => panic!("{sector}.{key}: {other:?}"),
    };
    let expected = [
        ("3-3", 169626.0, 140621.0, 28736.0, 269.0, Some(25.0), Some(26.0)),
        ("3-4", 760398.0, 102281.0, 0.0, 658117.0, Some(33.0), None),
        ("4-3", 760398.0, 75397.0, 3095.0, 681906.0, Some(1.0), Some(32.0)),
    ];
    for (sector, positions, wins, losses, draws, max_win, max_loss) in expected {
        assert_eq!(num(sector, "positions"), Some(positions), "{sector}");
        assert_eq!(num(sector, "wins"), Some(wins), "{sector}");
        assert_eq!(num(sector, "losses"), Some(losses), "{sector}");
        assert_eq!(num(sector, "draws"), Some(draws), "{sector}");
        assert_eq!(num(sector, "max_win"), max_win, "{sector}");
        assert_eq!(num(sector, "max_loss"), max_loss, "{sector}");
        assert!(num(sector, "slots").unwrap() >= positions, "{sector}");
    }
}

#[test]
fn stats_table_lists_every_sector() {
    let out = ok(&["stats", "--db", s(db7())]);
    assert_eq!(out, ok(&["stats", "--db", s(db7()), "--format", "table"]));
    for sector in ["3-3", "3-4", "4-3"] {
        let line = out
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(sector))
            .unwrap_or_else(|| panic!("no row for {sector}:\n{out}"));
        assert!(line.starts_with("nine "), "{line}");
    }
    let row33: Vec<&str> =
        out.lines().find(|l| l.split_whitespace().nth(1) == Some("3-3")).unwrap().split_whitespace().collect();
    assert_eq!(row33[2..8], ["169626", "140621", "28736", "269", "25", "26"]);
    contains_all(&out, &["3 tables", "1690422 canonical positions"], "stats");
}

// ---------------------------------------------------------------------------
// probe, analyze, bestmove, show

#[test]
fn the_oracle_draws_probe_as_draws() {
    for text in DRAWN {
        let out = ok(&["probe", "--db", s(db7()), text]);
        assert_eq!(out.trim(), "Draw", "{text}");
        // The same as separate words, and with --rules given.
        let mut args = vec!["probe", "--rules", "nine", "--db", s(db7())];
        args.extend(text.split_whitespace());
        assert_eq!(ok(&args).trim(), "Draw", "{text} as words");
    }
}

#[test]
fn probe_agrees_with_the_library() {
    let rules = RuleSet::preset("nine").unwrap();
    let db = Database::open(db7(), rules.clone()).unwrap();
    let mut checked = 0;
    for (w, b) in [(3, 3), (3, 4), (4, 3)] {
        let index = rules.indexer().sector(Sector::sliding(w, b));
        for slot in (0..index.len()).step_by(index.len() as usize / 5) {
            let Some((us, them)) = index.position(slot) else {
                continue;
            };
            for side in [Color::White, Color::Black] {
                let pos = Position::from_sector(Sector::sliding(w, b), side, us, them);
                let text = pos.to_text(rules.board());
                let expected = format!("{:?}", db.value(&pos).unwrap());
                assert_eq!(ok(&["probe", "--db", s(db7()), &text]).trim(), expected, "{text}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 20);
    // A side to move with two stones has lost; it needs no table.
    assert_eq!(ok(&["probe", "--db", s(db7()), "W:a1,a4 B:a7,d7,g7 w"]).trim(), "Loss(0)");
}

/// A 3-3 position won in `n` plies, n >= 5, found with the library.
fn a_won_position() -> (String, u16) {
    let rules = RuleSet::preset("nine").unwrap();
    let db = Database::open(db7(), rules.clone()).unwrap();
    let index = rules.indexer().sector(Sector::sliding(3, 3));
    (0..index.len())
        .filter_map(|slot| index.position(slot))
        .map(|(us, them)| Position::from_sector(Sector::sliding(3, 3), Color::White, us, them))
        .find_map(|p| match db.value(&p).unwrap() {
            morris_db::Value::Win(n) if n.get() >= 5 => Some((p.to_text(rules.board()), n.get())),
            _ => None,
        })
        .expect("a 3-3 win in 5 or more")
}

#[test]
fn analyze_and_bestmove_of_a_draw() {
    let rules = RuleSet::preset("nine").unwrap();
    let text = DRAWN[0];
    let pos = Position::parse(text, &rules).unwrap();
    let out = ok(&["analyze", "--db", s(db7()), text]);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("position: W:a1,a4,d3 B:a7,c4,d1 w  value: Draw"));
    let moves: Vec<(String, String)> = lines
        .map(|l| {
            let mut it = l.split_whitespace();
            (it.next().unwrap().to_string(), it.next().unwrap().to_string())
        })
        .collect();
    let legal = pos.legal_move_names(&rules);
    let mut listed: Vec<String> = moves.iter().map(|(m, _)| m.clone()).collect();
    listed.sort();
    assert_eq!(listed, legal, "analyze lists every legal move once");
    assert_eq!(moves[0].1, "Draw", "the best move of a draw draws");
    assert!(
        moves.iter().all(|(_, v)| v == "Draw" || v.starts_with("Loss(")),
        "a drawn position has no winning move:\n{out}"
    );
    // Best first: draws before losses.
    let first_loss = moves.iter().position(|(_, v)| v != "Draw").unwrap_or(moves.len());
    assert!(moves[first_loss..].iter().all(|(_, v)| v.starts_with("Loss(")));

    let best = ok(&["bestmove", "--db", s(db7()), text]);
    assert_eq!(best.trim(), format!("{} Draw", moves[0].0));
}

#[test]
fn analyze_and_bestmove_of_a_win() {
    let (text, n) = a_won_position();
    let out = ok(&["analyze", "--db", s(db7()), &text]);
    assert!(out.lines().next().unwrap().ends_with(&format!("value: Win({n})")), "{out}");
    let first = out.lines().nth(1).unwrap();
    let best = ok(&["bestmove", "--db", s(db7()), &text]);
    assert_eq!(best.split_whitespace().collect::<Vec<_>>(), first.split_whitespace().collect::<Vec<_>>());
    assert_eq!(best.split_whitespace().nth(1), Some(format!("Win({n})").as_str()));
    assert_eq!(ok(&["probe", "--db", s(db7()), &text]).trim(), format!("Win({n})"));
}

#[test]
fn a_lost_game_has_no_moves() {
    let text = "W:a1,a4 B:a7,d7,g7 w";
    let out = ok(&["analyze", "--db", s(db7()), text]);
    contains_all(&out, &["Loss(0)", "no legal move", "White has lost"], "analyze");
    let out = ok(&["bestmove", "--db", s(db7()), text]);
    contains_all(&out, &["none", "White has lost"], "bestmove");
}

#[test]
fn show_draws_the_board() {
    // The drawing, without the lines in text and FEN that follow it.
    let ok = |args: &[&str]| ok(args).split("position:").next().unwrap().to_string();
    let out = ok(&["show", DRAWN[0]]);
    assert_eq!(out.matches('O').count(), 3, "{out}");
    assert_eq!(out.matches('@').count(), 3, "{out}");
    contains_all(&out, &["White to move"], "show");
    // Rank 7 first: a7 is Black, d7 and g7 empty.
    let rank7 = out.lines().next().unwrap();
    assert!(rank7.starts_with("7 @"), "{out}");
    // As words, with stones in hand and Black to move.
    let out = ok(&["show", "--rules", "nine", "W:d6", "B:", "b", "8", "9"]);
    assert_eq!(out.matches('O').count(), 1, "{out}");
    contains_all(&out, &["Black to move", "White 8", "Black 9"], "show");
    // The 16-point board of Six Men's Morris.
    let out = ok(&["show", "--rules", "six", "W:b2,b4 B:d6 w"]);
    assert_eq!(out.matches('O').count(), 2, "{out}");
    assert!(!out.contains("7 "), "the 16-point board has no rank 7:\n{out}");
    // Nor rank 1 or file a: the drawing starts at b2.
    assert!(out.lines().all(|l| l != "1" && !l.starts_with("1 ")), "{out}");
    assert!(out.contains("\n  b c d e f\n"), "{out}");
}

#[test]
fn every_subcommand_has_help() {
    let top = ok(&["--help"]);
    contains_all(&top, &["solve", "stats", "probe", "analyze", "bestmove", "show"], "morris --help");
    ok(&["--version"]);
    let cases: [(&str, &[&str]); 6] = [
        ("solve", &["--rules", "--db", "--max-stones", "--threads", "--quiet"]),
        ("stats", &["--db", "--format", "csv", "json"]),
        ("probe", &["--rules", "--db", "POSITION"]),
        ("analyze", &["--rules", "--db", "POSITION"]),
        ("bestmove", &["--rules", "--db", "POSITION"]),
        ("show", &["--rules", "POSITION"]),
    ];
    for (sub, options) in cases {
        let out = ok(&[sub, "--help"]);
        contains_all(&out, options, &format!("morris {sub} --help"));
        let out = ok(&["help", sub]);
        contains_all(&out, options, &format!("morris help {sub}"));
    }
}

// ---------------------------------------------------------------------------
// Errors

#[test]
fn bad_positions_are_refused_with_a_message() {
    let db = s(db7());
    let cases: [(&str, &[&str]); 6] = [
        ("W:a4 B:a7", &["malformed position", "side to move"]),
        ("W:z9,a1,a4 B:a7,d1,c4 w", &["unknown point", "z9"]),
        ("W:a4,a1,d3 B:a4,d1,c4 w", &["a4", "both"]),
        ("W:a4,a1,a4 B:a7,d1,c4 w", &["a4", "twice"]),
        ("W:a1,a4,a7,b2,b4,b6,c3,c4,c5,d1 B:g1,g4,g7 w", &["White", "10", "9", "nine"]),
        ("W:a1,a4,d3 B:a7,d1,c4 x", &["malformed position", "`x`"]),
    ];
    for (text, parts) in cases {
        for sub in ["probe", "analyze", "bestmove"] {
            let err = fails(&[sub, "--db", db, text]);
            contains_all(&err, parts, &format!("{sub} {text}"));
        }
        let err = fails(&["show", text]);
        contains_all(&err, parts, &format!("show {text}"));
    }
    // No position at all.
    fails(&["probe", "--db", db]);
}

// A position after the end of the game (the side not to move has fewer
// than 3 stones) is refused by every query, `bestmove` included.
#[test]
fn a_position_after_the_end_of_the_game_is_refused() {
    let text = "W:a1,a4,d3 B:a7,d1 w";
    for sub in ["probe", "analyze", "bestmove"] {
        let err = fails(&[sub, "--db", s(db7()), text]);
        contains_all(&err, &["not a position of a game"], sub);
    }
}

#[test]
fn a_missing_table_is_named() {
    let five_five = "W:a1,a4,a7,d7,g7 B:b2,b4,b6,d6,f6 w";
    for sub in ["probe", "analyze", "bestmove"] {
        let err = fails(&[sub, "--db", s(db7()), five_five]);
        contains_all(&err, &["5-5", "nine_5_5_0_0.mtb"], sub);
    }
    // A 4-3 position whose moves lead into 3-4, which is gone.
    let dir = copy_of_db7();
    fs::remove_file(dir.path().join("nine_3_4_0_0.mtb")).unwrap();
    let err = fails(&["analyze", "--db", s(dir.path()), "W:a1,a4,d3,g7 B:a7,d1,c4 w"]);
    contains_all(&err, &["3-4", "nine_3_4_0_0.mtb"], "analyze");
    // Asked with another rule set: the hint says what the directory holds.
    let err = fails(&["probe", "--rules", "nine-noflying", "--db", s(db7()), DRAWN[0]]);
    contains_all(&err, &["3-3", "nine-noflying_3_3_0_0.mtb", "nine"], "probe");
}

#[test]
fn bad_options_are_refused_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("no-such-db");
    let gone = s(&gone);
    for sub in ["probe", "analyze", "bestmove"] {
        let err = fails(&[sub, "--db", gone, DRAWN[0]]);
        contains_all(&err, &[gone, "does not exist"], sub);
        let err = fails(&[sub, "--rules", "ninety", "--db", s(db7()), DRAWN[0]]);
        contains_all(&err, &["ninety", "nine-noflying"], sub);
    }
    let err = fails(&["stats", "--db", gone]);
    contains_all(&err, &[gone], "stats");
    let err = fails(&["show", "--rules", "ninety", DRAWN[0]]);
    contains_all(&err, &["ninety"], "show");
    fails(&["stats", "--db", s(db7()), "--format", "xml"]);
    fails(&["solve", "--db", gone, "--max-stones", "many"]);
    fails(&["frobnicate"]);
}

// ---------------------------------------------------------------------------
// Damaged and foreign tables

/// Damages 3-3's table in a copy of [`db7`] and checks that `probe` and
/// `stats` refuse it, naming the file and `what` is wrong.
fn refused(damage: impl FnOnce(&mut Vec<u8>), what: &str) {
    let dir = copy_of_db7();
    let path = dir.path().join("nine_3_3_0_0.mtb");
    let mut bytes = fs::read(&path).unwrap();
    damage(&mut bytes);
    fs::write(&path, &bytes).unwrap();
    let parts = ["nine_3_3_0_0.mtb", what];
    for sub in ["probe", "analyze", "bestmove"] {
        let err = fails(&[sub, "--db", s(dir.path()), DRAWN[0]]);
        contains_all(&err, &parts, &format!("{sub} of a table with {what}"));
    }
    let r = run(&["stats", "--db", s(dir.path()), "--format", "csv"]);
    assert!(matches!(r.code, Some(c) if c != 0), "stats passed a table with {what}");
    contains_all(&r.stderr, &parts, &format!("stats of a table with {what}"));
    // The other tables are still listed, the damaged one is not.
    assert!(r.stdout.contains("\n3-4,") && r.stdout.contains("\n4-3,"), "{}", r.stdout);
    assert!(!r.stdout.contains("\n3-3,"), "{}", r.stdout);
    // Positions of other sectors are still answered.
    ok(&["probe", "--db", s(dir.path()), "W:a1,a4,d3,g7 B:a7,d1,c4 w"]);
}

#[test]
fn a_table_cut_short_is_refused() {
    refused(|b| b.truncate(b.len() - 1), "file size");
    refused(|b| b.truncate(100), "file size");
}

#[test]
fn a_table_with_a_byte_appended_is_refused() {
    refused(|b| b.push(0), "file size");
}

#[test]
fn a_changed_header_byte_is_refused() {
    refused(|b| b[60] ^= 0x01, "header checksum");
    refused(|b| b[30] = b'x', "header checksum");
    refused(|b| b[0] = b'X', "magic");
    refused(|b| b[8] = 7, "version");
}

#[test]
fn a_changed_payload_byte_is_caught_by_the_checksum() {
    refused(
        |b| {
            let mid = 128 + (b.len() - 128) / 2;
            b[mid] ^= 0x04;
        },
        "payload checksum",
    );
    refused(|b| *b.last_mut().unwrap() ^= 0x80, "payload checksum");
}

#[test]
fn a_table_of_another_rule_set_is_refused() {
    let other = tempfile::tempdir().unwrap();
    let out = ok(&["solve", "--rules", "nine-noflying", "--max-stones", "6", "--db", s(other.path()), "-q"]);
    contains_all(&out, &["nine-noflying", "solved 1 table"], "solve nine-noflying");
    let foreign = other.path().join("nine-noflying_3_3_0_0.mtb");
    // It probes fine under its own rule set.
    ok(&["probe", "--rules", "nine-noflying", "--db", s(other.path()), DRAWN[0]]);

    let dir = copy_of_db7();
    fs::rename(&foreign, dir.path().join("nine_3_3_0_0.mtb")).unwrap();
    let parts = ["nine_3_3_0_0.mtb", "`nine-noflying`", "`nine`"];
    for sub in ["probe", "analyze", "bestmove"] {
        let err = fails(&[sub, "--db", s(dir.path()), DRAWN[0]]);
        contains_all(&err, &parts, sub);
    }
    let err = fails(&["stats", "--db", s(dir.path())]);
    contains_all(&err, &parts, "stats");
}

// ---------------------------------------------------------------------------
// A small JSON reader, enough to check `stats --format json` and Cargo's
// messages without a JSON crate.

#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Json>),
    Object(BTreeMap<String, Json>),
}

impl Json {
    fn parse(text: &str) -> Result<Json, String> {
        let mut p = JsonParser { bytes: text.as_bytes(), pos: 0 };
        let v = p.value()?;
        p.space();
        if p.pos != p.bytes.len() {
            return Err(format!("trailing characters at {}", p.pos));
        }
        Ok(v)
    }
}

struct JsonParser<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl JsonParser<'_> {
    fn space(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        self.space();
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!("expected `{}` at {}", c as char, self.pos))
        }
    }

    fn literal(&mut self, word: &str, v: Json) -> Result<Json, String> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(v)
        } else {
            Err(format!("bad literal at {}", self.pos))
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.space();
        match self.peek().ok_or("unexpected end")? {
            b'n' => self.literal("null", Json::Null),
            b't' => self.literal("true", Json::Bool(true)),
            b'f' => self.literal("false", Json::Bool(false)),
            b'"' => self.string().map(Json::String),
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                self.space();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                loop {
                    items.push(self.value()?);
                    self.space();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(Json::Array(items));
                        }
                        _ => return Err(format!("expected `,` or `]` at {}", self.pos)),
                    }
                }
            }
            b'{' => {
                self.pos += 1;
                let mut map = BTreeMap::new();
                self.space();
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                    return Ok(Json::Object(map));
                }
                loop {
                    self.space();
                    let key = self.string()?;
                    self.expect(b':')?;
                    let v = self.value()?;
                    if map.insert(key.clone(), v).is_some() {
                        return Err(format!("key `{key}` given twice"));
                    }
                    self.space();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {
                            self.pos += 1;
                            return Ok(Json::Object(map));
                        }
                        _ => return Err(format!("expected `,` or `}}` at {}", self.pos)),
                    }
                }
            }
            b'-' | b'0'..=b'9' => {
                let start = self.pos;
                while self.peek().is_some_and(|c| c.is_ascii_digit() || b"+-.eE".contains(&c)) {
                    self.pos += 1;
                }
                let text = std::str::from_utf8(&self.bytes[start..self.pos]).unwrap();
                text.parse().map(Json::Number).map_err(|_| format!("bad number `{text}`"))
            }
            c => Err(format!("unexpected `{}` at {}", c as char, self.pos)),
        }
    }

    fn string(&mut self) -> Result<String, String> {
        if self.peek() != Some(b'"') {
            return Err(format!("expected a string at {}", self.pos));
        }
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let c = self.peek().ok_or("unterminated string")?;
            self.pos += 1;
            match c {
                b'"' => return String::from_utf8(out).map_err(|_| "not UTF-8".to_string()),
                b'\\' => {
                    let e = self.peek().ok_or("unterminated escape")?;
                    self.pos += 1;
                    match e {
                        b'"' | b'\\' | b'/' => out.push(e),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let hex = self
                                .bytes
                                .get(self.pos..self.pos + 4)
                                .and_then(|h| std::str::from_utf8(h).ok())
                                .and_then(|h| u32::from_str_radix(h, 16).ok())
                                .ok_or("bad \\u escape")?;
                            self.pos += 4;
                            let ch = char::from_u32(hex).unwrap_or('\u{FFFD}');
                            out.extend_from_slice(ch.to_string().as_bytes());
                        }
                        _ => return Err(format!("bad escape at {}", self.pos)),
                    }
                }
                c if c < 0x20 => return Err("control character in a string".to_string()),
                c => out.push(c),
            }
        }
    }
}

/// A file whose name names a sector the rule set cannot have (20 + 20
/// stones on 24 points) is an error naming the file, not a panic.
#[test]
fn impossible_sector_in_a_file_name_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(db7().join("nine_3_3_0_0.mtb"), dir.path().join("nine_20_20_0_0.mtb")).unwrap();
    let err = fails(&["stats", "--db", s(dir.path())]);
    contains_all(&err, &["nine_20_20_0_0.mtb", "20-20"], "impossible sector");
    let err = fails(&["verify", "--db", s(dir.path())]);
    assert!(!err.contains("panicked"), "{err}");
}

// ---------------------------------------------------------------------------
// compress

#[test]
fn compressed_tables_answer_as_the_originals() {
    let dir = copy_of_db7();
    let out = ok(&["compress", "--db", s(dir.path()), "--remove-originals"]);
    contains_all(&out, &["3-3", "3-4", "4-3", "every slot checked"], "compress");
    let names: Vec<String> =
        fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|n| n.ends_with(".mtz")), "{names:?}");
    assert_eq!(names.len(), 3);
    // verify re-derives every stored value from its successors' values.
    contains_all(&ok(&["verify", "--db", s(dir.path())]), &["3 of 3 tables OK"], "verify");
    assert_eq!(
        ok(&["stats", "--db", s(dir.path()), "--format", "csv"]),
        ok(&["stats", "--db", s(db7()), "--format", "csv"])
    );
    let (won, _) = a_won_position();
    for text in DRAWN.iter().copied().chain([won.as_str()]) {
        assert_eq!(ok(&["analyze", "--db", s(dir.path()), text]), ok(&["analyze", "--db", s(db7()), text]), "{text}");
    }
    // A damaged compressed table is refused, as a damaged original is.
    let path = dir.path().join("nine_3_3_0_0.mtz");
    let mut bytes = fs::read(&path).unwrap();
    let last = bytes.len() - 10;
    bytes[last] ^= 0x41;
    fs::write(&path, &bytes).unwrap();
    contains_all(&fails(&["probe", "--db", s(dir.path()), DRAWN[0]]), &["payload checksum"], "damaged");
}

// ---------------------------------------------------------------------------
// prove

#[test]
fn prove_gives_the_published_start_values_by_both_searches() {
    let dir = tempfile::tempdir().unwrap();
    ok(&["solve", "--rules", "three", "--phase", "all", "--db", s(dir.path()), "-q"]);
    // Three Men's Morris: White wins, only by opening in the centre.
    let out = ok(&["prove", "--rules", "three", "--db", s(dir.path()), "--divide", "--check", "-q"]);
    contains_all(
        &out,
        &["b2       Win", "a1       Draw", "a2       Loss", ": Win (by search)", "placement tables agree"],
        "prove",
    );
    let out = ok(&["prove", "--rules", "three", "--db", s(dir.path()), "--dtm", "--divide", "--check"]);
    contains_all(&out, &["b2       Win(9)  (tables agree)", "Win(9) (by search)  (tables agree)"], "prove --dtm");
    assert!(!out.contains("DISAGREE"), "{out}");
    // Six Men's Morris from its sliding tables only: a draw (Liou 2026).
    let six = tempfile::tempdir().unwrap();
    ok(&["solve", "--rules", "six", "--db", s(six.path()), "-q"]);
    let out = ok(&["prove", "--rules", "six", "--db", s(six.path()), "--threads", "1", "-q"]);
    contains_all(&out, &["`W: B: w 6 6`: Draw (by search)"], "prove six");
    // A placement position needs no placement table; a missing sliding one is named.
    let err = fails(&["prove", "--rules", "six", "--db", s(dir.path()), "-q"]);
    contains_all(&err, &["six_"], "prove without tables");
}

#[test]
fn stats_reads_custom_rule_sets_and_checks_their_names() {
    let dir = tempfile::tempdir().unwrap();
    ok(&["solve", "--rules", "six", "--stones", "4", "--max-stones", "7", "--db", s(dir.path()), "-q"]);
    let out = ok(&["stats", "--db", s(dir.path()), "--format", "csv"]);
    let name = RuleSet::custom("six", &morris_db::Overrides { stones: Some(4), ..Default::default() })
        .unwrap()
        .name()
        .to_string();
    assert!(name.starts_with("six-"), "{name}");
    contains_all(&out, &["3-3,", "3-4,", "4-3,"], "stats of a custom rule set");
    // A table renamed to another custom rule set of the same preset is refused.
    let from = dir.path().join(format!("{name}_3_3_0_0.mtb"));
    fs::rename(&from, dir.path().join("six-0123abcd_3_3_0_0.mtb")).unwrap();
    contains_all(&fails(&["stats", "--db", s(dir.path())]), &["six-0123abcd", "not `six-0123abcd`"], "renamed");
}

// ---------------------------------------------------------------------------
// reach

/// `morris reach` on Three Men's Morris: every one of its 540 canonical
/// positions can arise, and on the board 3,870, counted by hand: 1 start,
/// 9 after one stone, 9·8 = 72 after two, 9·C(8,2) = 252, C(9,2)·C(7,2) =
/// 756, C(9,3)·C(6,2) = 1,260 (Black's two stones make no line, White's
/// three may), and with three stones each C(9,3)·C(6,3) = 1,680 less the
/// 8·20 = 160 where the side to move has a line (the game ended a move
/// before). A rerun keeps the 7 bitmaps; without the placement tables it
/// names them and fails.
#[test]
fn reach_counts_three_mens_morris_and_names_missing_tables() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    ok(&["solve", "--rules", "three", "--db", s(&db), "-q"]);
    let err = fails(&["reach", "--rules", "three", "--db", s(&db)]);
    contains_all(&err, &["lacks the tables of 6 sectors", "0-0-3-3", "--phase all"], "reach without placement");
    ok(&["solve", "--rules", "three", "--phase", "all", "--db", s(&db), "-q"]);
    let out = ok(&["reach", "--db", s(&db)]);
    contains_all(&out, &["540 of 540 canonical positions reachable", "3870 positions on the board"], "reach");
    let csv = ok(&["reach", "--db", s(&db), "--format", "csv"]);
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(
        rows[0],
        "sector,positions,reachable,wins,draws,losses,board_reachable,board_wins,board_draws,board_losses,rules"
    );
    let board: Vec<(String, u64)> = rows[1..]
        .iter()
        .map(|r| {
            let f: Vec<&str> = r.split(',').collect();
            (f[0].to_string(), f[6].parse().unwrap())
        })
        .collect();
    let expected = [
        ("3-3", 1520),
        ("2-3-1-0", 1260),
        ("2-2-1-1", 756),
        ("1-2-2-1", 252),
        ("1-1-2-2", 72),
        ("0-1-3-2", 9),
        ("0-0-3-3", 1),
        ("all", 3870),
    ];
    assert_eq!(board, expected.map(|(s, n)| (s.to_string(), n)));
    assert!(out.lines().last().unwrap().contains("7 bitmaps"), "{out}");
    let again = ok(&["reach", "--db", s(&db)]);
    contains_all(&again, &["(7 already on disk, kept)", "3870 positions on the board"], "rerun");
    assert!(db.join("three_3_3_0_0.reach").is_file());
    // `stats` gives each table's reachable positions: all of them here.
    let stats = ok(&["stats", "--db", s(&db), "--format", "csv"]);
    let mut total = 0;
    for row in stats.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        assert_eq!(f[7], f[1], "every position of three is reachable: {row}");
        total += f[7].parse::<u64>().unwrap();
    }
    assert_eq!(total, 540);
}

/// `morris reach --counts-only` needs no table: Three Men's Morris's
/// hand-counted 3,870 positions on the board (above) and its 540 canonical
/// ones, per table as the full run has them, the values left empty; it
/// refuses a `--db` beside it, and without either asks for one.
#[test]
fn reach_counts_only_needs_no_table() {
    let csv = ok(&["reach", "--rules", "three", "--counts-only", "--format", "csv"]);
    let rows: Vec<Vec<&str>> = csv.lines().skip(1).map(|r| r.split(',').collect()).collect();
    let all = rows.last().unwrap();
    assert_eq!(all[..], ["all", "", "540", "", "", "", "3870", "", "", "", "three"], "{csv}");
    let sector_3_3 = rows.iter().find(|r| r[0] == "3-3").unwrap();
    assert_eq!((sector_3_3[2], sector_3_3[6]), ("204", "1520"), "{csv}");
    let out = ok(&["reach", "--rules", "three", "--counts-only"]);
    contains_all(&out, &["540 canonical positions reachable in 7 tables, 3870 positions on the board"], "table");
    let dir = tempfile::tempdir().unwrap();
    let err = fails(&["reach", "--rules", "three", "--counts-only", "--db", s(dir.path())]);
    contains_all(&err, &["--counts-only", "--db"], "both");
    let err = fails(&["reach", "--rules", "three"]);
    contains_all(&err, &["--db"], "neither");
}
