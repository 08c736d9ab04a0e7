//! End-to-end tests of `morris verify`, `morris line`, `morris export-wdl`
//! and `morris bench-probe` on a real small database (`nine` up to 7
//! stones).

use std::fs;
use std::path::Path;

use morris_db::table::{table_path, write_table};
use morris_db::{Color, Position, RuleSet, Sector, Table, TableHeader, Value};
use morris_probe::Database;

use crate::common;
use crate::common::{ok, s, Run};

fn fails(args: &[&str]) -> Run {
    common::fails_run(args, common::run(args))
}

fn nine() -> RuleSet {
    RuleSet::preset("nine").unwrap()
}

fn db7() -> &'static Path {
    common::db7()
}

fn copy_of_db7() -> tempfile::TempDir {
    common::copy_of(db7())
}

fn position_where(w: usize, b: usize, pick: impl Fn(Value) -> bool) -> (Position, Value) {
    let rules = nine();
    let db = Database::open(db7(), rules.clone()).unwrap();
    let index = rules.indexer().sector(Sector::sliding(w as u8, b as u8));
    (0..index.len())
        .filter_map(|slot| index.position(slot))
        .map(|(us, them)| Position::from_sector(Sector::sliding(w as u8, b as u8), Color::White, us, them))
        .map(|p| (p, db.value(&p).unwrap()))
        .find(|(_, v)| pick(*v))
        .expect("such a position")
}

// ---------------------------------------------------------------------------
// verify

#[test]
fn verify_passes_on_a_solved_database() {
    // The ledger elsewhere: db7 is shared, and other tests list its files.
    let ledger = tempfile::tempdir().unwrap();
    let ledger = ledger.path().join("verified.csv");
    let out = ok(&["verify", "--db", s(db7()), "-q", "--ledger", s(&ledger)]);
    for sector in ["3-3", "3-4", "4-3"] {
        assert!(out.lines().any(|l| l.starts_with(sector) && l.contains(" OK ")), "{sector}:\n{out}");
    }
    assert!(out.contains("3 of 3 tables OK, 1690422 positions"), "{out}");
    let out = ok(&["verify", "--db", s(db7()), "--sectors", "4-3", "--threads", "1", "--ledger", s(&ledger)]);
    assert_eq!(out.lines().filter(|l| l.contains(" OK ")).count(), 1, "{out}");
    assert!(out.contains("1 of 1 table OK"), "{out}");
}

#[test]
fn verify_names_a_changed_value() {
    let dir = copy_of_db7();
    let (pos, old) = position_where(3, 4, |v| matches!(v, Value::Win(n) if n.get() >= 3));
    let Value::Win(n) = old else { unreachable!() };
    let new = Value::win(n.get() + 2).unwrap();
    // Rewrite the table with the one value changed and checksums to match.
    let rules = nine();
    let sector = Sector::sliding(3, 4);
    let index = rules.indexer().sector(Sector::sliding(3, 4));
    let t = Table::open(dir.path(), &rules, sector, index.len()).unwrap();
    let mut entries: Vec<u16> = (0..index.len()).map(|s| t.entry(s).unwrap()).collect();
    drop(t);
    let slot = index.index(pos.us(), pos.them()) as usize;
    entries[slot] = new.to_entry();
    let header = TableHeader::for_entries(&rules, sector, &entries);
    write_table(&table_path(dir.path(), &rules, sector), &header, &entries).unwrap();

    // `stats` and `probe` see nothing wrong; `verify` does.
    ok(&["stats", "--db", s(dir.path())]);
    let text = pos.to_text(rules.board());
    assert_eq!(ok(&["probe", "--db", s(dir.path()), &text]).trim(), format!("{new:?}"));
    let r = fails(&["verify", "--db", s(dir.path()), "-q"]);
    assert!(r.stdout.contains("3-4       FAILED"), "{}", r.stdout);
    assert!(
        r.stdout.contains(&format!("{text} (slot {slot}): stored {new:?}, but its moves give {old:?}")),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("2 of 3 tables OK"), "{}", r.stdout);
    assert!(r.stderr.contains("1 of 3 tables failed verification"), "{}", r.stderr);
}

#[test]
fn verify_reports_damaged_tables_and_leftovers() {
    let dir = copy_of_db7();
    let path = table_path(dir.path(), &nine(), Sector::sliding(4, 3));
    let mut bytes = fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    fs::write(&path, &bytes).unwrap();
    fs::write(dir.path().join("nine_5_3_0_0.mtb.tmp"), b"partial").unwrap();
    let r = fails(&["verify", "--db", s(dir.path()), "-q"]);
    assert!(r.stdout.contains("note: nine_5_3_0_0.mtb.tmp is a temporary file"), "{}", r.stdout);
    assert!(r.stdout.contains("4-3       FAILED"), "{}", r.stdout);
    assert!(r.stdout.contains("payload checksum"), "{}", r.stdout);
    assert!(r.stdout.contains("nine_4_3_0_0.mtb"), "{}", r.stdout);

    // Cut short: refused before any value is read.
    fs::write(&path, &bytes[..1000]).unwrap();
    let r = fails(&["verify", "--db", s(dir.path()), "--sectors", "4-3"]);
    assert!(r.stdout.contains("file size"), "{}", r.stdout);

    // A listed sector without a table.
    let r = fails(&["verify", "--db", s(dir.path()), "--sectors", "4-4"]);
    assert!(r.stdout.contains("no table for sector 4-4"), "{}", r.stdout);
}

#[test]
fn verify_refuses_what_it_cannot_check() {
    let r = fails(&["verify", "--db", s(db7()), "--rules", "six"]);
    assert!(r.stderr.contains("is `--rules` right?") && r.stderr.contains("nine"), "{}", r.stderr);
    let r = fails(&["verify", "--db", "/nonexistent/morris-db"]);
    assert!(r.stderr.contains("/nonexistent/morris-db"), "{}", r.stderr);
    let r = fails(&["verify", "--db", s(db7()), "--sectors", "x-y"]);
    assert!(r.stderr.contains("not a sector"), "{}", r.stderr);
}

// ---------------------------------------------------------------------------
// line

/// Lines of `morris line` that list one ply each.
fn plies(out: &str) -> Vec<&str> {
    out.lines()
        .filter(|l| l.trim_start().split_once(". ").is_some_and(|(n, _)| n.parse::<usize>().is_ok()))
        .filter(|l| !l.starts_with("line:"))
        .collect()
}

#[test]
fn line_of_a_win_goes_to_the_end() {
    let (pos, value) = position_where(3, 3, |v| matches!(v, Value::Win(n) if n.get() >= 7));
    let Some(n) = value.plies() else { unreachable!() };
    let text = pos.to_text(nine().board());
    let out = ok(&["line", "--db", s(db7()), &text]);
    assert!(out.starts_with(&format!("position: {text}  value: Win({n})")), "{out}");
    let listed = plies(&out);
    assert_eq!(listed.len(), n as usize, "{out}");
    // Values count down to the end, alternating sides.
    for (i, l) in listed.iter().enumerate() {
        let remaining = n as usize - i;
        let expect = if remaining % 2 == 1 { format!("Win({remaining})") } else { format!("Loss({remaining})") };
        assert!(l.ends_with(&expect), "ply {}: `{l}`, expected {expect}\n{out}", i + 1);
        assert!(l.contains(if i % 2 == 0 { "White" } else { "Black" }), "{l}");
    }
    assert!(out.contains(&format!("White wins in {n} plies: Black is down to 2 stones")), "{out}");
    assert!(out.contains("line: 1. "), "{out}");
    // The library gives the same line.
    let db = Database::open(db7(), nine()).unwrap();
    let line = db.principal_line(&pos, 1000).unwrap();
    assert_eq!(line.len(), n as usize);
    for ((mv, _), l) in line.iter().zip(&listed) {
        assert!(l.contains(&format!(" {} ", mv.notation(nine().board()))), "{l}");
    }
}

#[test]
fn line_of_a_draw_shows_a_few_plies() {
    let text = "W:a4,a1,d3,g7 B:a7,d1,c4 b";
    let out = ok(&["line", "--db", s(db7()), text]);
    assert_eq!(plies(&out).len(), 12, "{out}");
    assert!(plies(&out).iter().all(|l| l.ends_with("Draw")), "{out}");
    assert!(out.contains("line: 1... "), "Black moves first:\n{out}");
    assert!(out.contains("a draw: neither side can force a win"), "{out}");
    let out = ok(&["line", "--db", s(db7()), "--plies", "3", text]);
    assert_eq!(plies(&out).len(), 3, "{out}");
}

#[test]
fn line_of_a_finished_game_is_empty() {
    let out = ok(&["line", "--db", s(db7()), "W:a1,a4 B:a7,d7,g7 w"]);
    assert!(out.contains("value: Loss(0)"), "{out}");
    assert!(plies(&out).is_empty(), "{out}");
}

// ---------------------------------------------------------------------------
// export-wdl and bench-probe

#[test]
fn export_wdl_writes_small_files_and_keeps_them() {
    let out_dir = tempfile::tempdir().unwrap();
    let wdl = out_dir.path().join("wdl");
    let out = ok(&["export-wdl", "--db", s(db7()), "--out", s(&wdl)]);
    assert!(out.contains("exported 1690422 positions"), "{out}");
    let mut names: Vec<String> =
        fs::read_dir(&wdl).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["nine_3_3_0_0.mwdl", "nine_3_4_0_0.mwdl", "nine_4_3_0_0.mwdl"]);
    // Bytes per position, as printed: at most a quarter byte (2 bits).
    let per_position: f64 = out
        .split("bytes (")
        .next()
        .and_then(|t| t.rsplit(", ").next())
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or_else(|| panic!("no bytes per position in:\n{out}"));
    assert!(per_position <= 0.25, "{per_position} bytes per position");
    let again = ok(&["export-wdl", "--db", s(db7()), "--out", s(&wdl)]);
    assert!(again.contains("3 files already up to date were kept"), "{again}");
    // Compressed, both forms: each replaces the files of another form (not
    // up to date for it), in fewer bytes, and the probe reads them with
    // the same answers.
    let size = |out: &str| out.split(" bytes, ").next().and_then(|t| t.rsplit(": ").next()?.parse::<u64>().ok());
    // Zstd in blocks of 4 KiB after 1 KiB: not up to date (another block
    // size), written again.
    for form in [
        ["--compress", "zstd", "--level", "3"].as_slice(),
        &["--compress", "zstd", "--level", "3", "--block-bytes", "4096"],
        &["--compress"],
    ] {
        let args = [&["export-wdl", "--db", s(db7()), "--out", s(&wdl)], form].concat();
        let packed = ok(&args);
        assert!(packed.contains("exported 1690422 positions") && !packed.contains("kept"), "{packed}");
        assert!(size(&packed) < size(&out) && size(&packed).is_some(), "{packed}\n{out}");
        let bench = ok(&["bench-probe", "--db", s(db7()), "--wdl", s(&wdl), "--positions", "2000", "--runs", "1"]);
        assert!(bench.contains("wdl, warm:"), "{bench}");
        let again = ok(&args);
        assert!(again.contains("3 files already up to date were kept"), "{again}");
    }
    for level_alone in
        [&["--level", "3"][..], &["--compress", "--level", "3"], &["--compress", "groups", "--level", "3"]]
    {
        let err = fails(&[&["export-wdl", "--db", s(db7()), "--out", s(&wdl)], level_alone].concat());
        assert!(err.stderr.contains("--compress zstd"), "{}", err.stderr);
    }
    let err = fails(&["export-wdl", "--db", s(db7()), "--out", s(&wdl), "--compress", "--block-bytes", "4096"]);
    assert!(err.stderr.contains("--block-bytes") && err.stderr.contains("--compress zstd"), "{}", err.stderr);
    let err = fails(&["export-wdl", "--db", s(db7()), "--out", s(&wdl), "--compress", "zstd", "--block-bytes", "2048"]);
    assert!(err.stderr.contains("2048") && err.stderr.contains("4096"), "{}", err.stderr);
    // Plain again: the compressed files are replaced.
    let plain = ok(&["export-wdl", "--db", s(db7()), "--out", s(&wdl)]);
    assert_eq!(size(&plain), size(&out), "{plain}");

    let bench = ok(&[
        "bench-probe",
        "--db",
        s(db7()),
        "--wdl",
        s(&wdl),
        "--positions",
        "2000",
        "--runs",
        "1",
        "--threads",
        "2",
    ]);
    for part in [
        "open + first query (with checksum check",
        "value, warm:",
        "one-ply (every legal move's value;",
        "wdl, warm:",
        "M probes/s per thread",
    ] {
        assert!(bench.contains(part), "`{part}` missing:\n{bench}");
    }
    // The WDL part alone: no DTM line.
    let wdl_only =
        ok(&["bench-probe", "--db", s(db7()), "--wdl", s(&wdl), "--wdl-only", "--positions", "2000", "--runs", "1"]);
    assert!(wdl_only.contains("wdl through a WdlProber per thread, warm:"), "{wdl_only}");
    assert!(!wdl_only.contains("value, warm:") && !wdl_only.contains("open + first query"), "{wdl_only}");
    let err = fails(&["bench-probe", "--db", s(db7()), "--wdl-only"]);
    assert!(err.stderr.contains("required") && err.stderr.contains("--wdl <DIR>"), "{}", err.stderr);
}
