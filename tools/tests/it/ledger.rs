//! End-to-end tests of the ledger of verified tables (docs/ledger.md):
//! `morris verify` skipping what a row vouches for and recording what
//! passes, `--recheck`, `--ledger`, bad ledgers, damaged tables and
//! dependencies, `morris solve --verify`, and the solver's determinism
//! that the ledger rests on. On `nine` up to 7 stones (3-3, 3-4, 4-3) and
//! small rule sets.

use std::fs;
use std::path::{Path, PathBuf};

use morris_db::table::{table_path, write_table};
use morris_db::{RuleSet, Sector, Table, TableHeader, Value};

use crate::common;
use crate::common::{ok, s, Run};

fn fails(args: &[&str]) -> Run {
    common::fails_run(args, common::run(args))
}

fn nine() -> RuleSet {
    RuleSet::preset("nine").unwrap()
}

/// A copy of `nine` up to 7 stones without a ledger.
fn fresh_db7() -> tempfile::TempDir {
    let dir = common::copy_of(common::db7());
    // Another test of the binary may have verified the shared database.
    let _ = fs::remove_file(ledger_of(dir.path()));
    dir
}

fn ledger_of(dir: &Path) -> PathBuf {
    dir.join("verified.csv")
}

/// The rows of a ledger (its lines less the column names).
fn rows(ledger: &Path) -> Vec<String> {
    fs::read_to_string(ledger).unwrap().lines().skip(1).map(str::to_string).collect()
}

/// The line `morris verify` printed for `sector`.
fn line_of<'a>(out: &'a str, sector: &str) -> &'a str {
    out.lines().find(|l| l.split_whitespace().next() == Some(sector)).unwrap_or_else(|| panic!("no {sector}:\n{out}"))
}

fn from_ledger(out: &str, sector: &str) -> bool {
    line_of(out, sector).contains("from the ledger")
}

/// Rewrites `sector`'s table of `nine` in `dir` with one value changed
/// (a win made two plies longer) and checksums to match: a table that
/// opens and checksums fine, with a wrong value.
fn change_a_value(dir: &Path, sector: Sector) {
    let rules = nine();
    let index = rules.indexer().sector(sector);
    let t = Table::open(dir, &rules, sector, index.len()).unwrap();
    let mut entries = t.entries().unwrap();
    drop(t);
    let slot = entries.iter().position(|&e| matches!(Value::from_entry(e), Some(Value::Win(_)))).expect("a win");
    let Some(Value::Win(n)) = Value::from_entry(entries[slot]) else { unreachable!() };
    entries[slot] = Value::win(n.get() + 2).unwrap().to_entry();
    write_table(&table_path(dir, &rules, sector), &TableHeader::for_entries(&rules, sector, &entries), &entries)
        .unwrap();
}

/// Flips a bit of the last payload byte of `sector`'s table: the header
/// is intact, the payload checksum no longer matches.
fn damage_payload(dir: &Path, sector: Sector) {
    let path = table_path(dir, &nine(), sector);
    let mut bytes = fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    fs::write(&path, &bytes).unwrap();
}

#[test]
fn a_second_verify_takes_every_table_from_the_ledger() {
    let dir = fresh_db7();
    let out = ok(&["verify", "--db", s(dir.path()), "-q"]);
    assert!(out.contains("3 of 3 tables verified: 0 from the ledger, 3 now"), "{out}");
    let rows = rows(&ledger_of(dir.path()));
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(rows.iter().any(|r| r.starts_with("nine,") && r.contains(",3-4,")), "{rows:?}");
    let again = ok(&["verify", "--db", s(dir.path()), "-q"]);
    for sector in ["3-3", "3-4", "4-3"] {
        assert!(from_ledger(&again, sector), "{sector}:\n{again}");
        assert!(line_of(&again, sector).contains(" OK "), "{again}");
    }
    assert!(again.contains("3 of 3 tables verified: 3 from the ledger, 0 now"), "{again}");
    assert!(again.contains("3 of 3 tables OK, 1690422 positions"), "{again}");
    // Nothing new to record.
    assert_eq!(self::rows(&ledger_of(dir.path())).len(), 3);

    // The values checksum is the same whichever form holds the values: a
    // table compressed (and its .mtb removed) is still found.
    ok(&["compress", "--db", s(dir.path()), "--remove-originals"]);
    assert!(!table_path(dir.path(), &nine(), Sector::sliding(3, 4)).exists());
    let packed = ok(&["verify", "--db", s(dir.path()), "-q"]);
    assert!(packed.contains("3 of 3 tables verified: 3 from the ledger, 0 now"), "{packed}");
}

#[test]
fn recheck_checks_every_table_and_still_records() {
    let dir = fresh_db7();
    ok(&["verify", "--db", s(dir.path()), "-q"]);
    let out = ok(&["verify", "--db", s(dir.path()), "-q", "--recheck"]);
    assert!(out.contains("3 of 3 tables verified: 0 from the ledger, 3 now"), "{out}");
    assert!(!out.contains("from the ledger ("), "{out}");
    assert_eq!(rows(&ledger_of(dir.path())).len(), 6);
}

#[test]
fn a_table_whose_values_changed_is_checked_again() {
    let dir = fresh_db7();
    ok(&["verify", "--db", s(dir.path()), "-q"]);
    // 3-4 is not among the tables its moves lead to: only its own
    // checksum tells that it changed.
    change_a_value(dir.path(), Sector::sliding(3, 4));
    let r = fails(&["verify", "--db", s(dir.path()), "-q"]);
    assert!(from_ledger(&r.stdout, "3-3"), "{}", r.stdout);
    assert!(line_of(&r.stdout, "3-4").contains("FAILED"), "{}", r.stdout);
    assert!(r.stdout.contains("stored Win("), "{}", r.stdout);
    assert!(r.stderr.contains("failed verification"), "{}", r.stderr);
}

#[test]
fn a_table_whose_successor_changed_is_checked_again() {
    let dir = fresh_db7();
    ok(&["verify", "--db", s(dir.path()), "-q"]);
    // 3-4's moves lead into 4-3 (and 4-3's into 3-4 and 3-3); 3-3's only
    // into 3-3.
    change_a_value(dir.path(), Sector::sliding(4, 3));
    let r = fails(&["verify", "--db", s(dir.path()), "-q"]);
    assert!(from_ledger(&r.stdout, "3-3"), "{}", r.stdout);
    assert!(!from_ledger(&r.stdout, "3-4"), "{}", r.stdout);
    assert!(line_of(&r.stdout, "4-3").contains("FAILED"), "{}", r.stdout);
}

#[test]
fn a_damaged_payload_is_caught_with_a_ledger_present() {
    let dir = fresh_db7();
    ok(&["verify", "--db", s(dir.path()), "-q"]);
    damage_payload(dir.path(), Sector::sliding(3, 3));
    let r = fails(&["verify", "--db", s(dir.path()), "-q"]);
    assert!(line_of(&r.stdout, "3-3").contains("FAILED"), "{}", r.stdout);
    assert!(r.stdout.contains("payload checksum"), "{}", r.stdout);
    // The same after the table was compressed: the .mtz form's payload.
    let dir = fresh_db7();
    ok(&["verify", "--db", s(dir.path()), "-q"]);
    ok(&["compress", "--db", s(dir.path()), "--remove-originals"]);
    let path = table_path(dir.path(), &nine(), Sector::sliding(3, 3)).with_extension("mtz");
    let mut bytes = fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    fs::write(&path, &bytes).unwrap();
    let r = fails(&["verify", "--db", s(dir.path()), "-q"]);
    assert!(line_of(&r.stdout, "3-3").contains("FAILED"), "{}", r.stdout);
    assert!(r.stdout.contains("payload checksum"), "{}", r.stdout);
}

#[test]
fn a_damaged_dependency_is_reported_once_and_its_dependents_not_checked() {
    let dir = fresh_db7();
    damage_payload(dir.path(), Sector::sliding(4, 3));
    let r = fails(&["verify", "--db", s(dir.path()), "-q"]);
    // 3-4 is intact, but its moves lead into 4-3.
    assert!(line_of(&r.stdout, "3-4").contains("not checked (depends on 4-3, which is damaged)"), "{}", r.stdout);
    assert!(!line_of(&r.stdout, "3-4").contains("FAILED"), "{}", r.stdout);
    assert!(line_of(&r.stdout, "4-3").contains("FAILED"), "{}", r.stdout);
    assert!(line_of(&r.stdout, "3-3").contains(" OK "), "{}", r.stdout);
    assert_eq!(r.stdout.matches("payload checksum").count(), 1, "{}", r.stdout);
    assert!(r.stderr.contains("1 of 3 tables failed verification, 1 not checked"), "{}", r.stderr);
    // Only 3-3 was recorded.
    let rows = rows(&ledger_of(dir.path()));
    assert!(rows.len() == 1 && rows[0].contains(",3-3,"), "{rows:?}");
    // Checked alone, 3-4 names the damage of the table it depends on.
    let r = fails(&["verify", "--db", s(dir.path()), "-q", "--sectors", "3-4"]);
    assert!(r.stdout.contains("not checked (depends on 4-3"), "{}", r.stdout);
    assert!(r.stdout.contains("payload checksum"), "{}", r.stdout);
    assert!(r.stderr.contains("1 of 1 table not checked"), "{}", r.stderr);
}

#[test]
fn a_bad_ledger_is_an_error_naming_file_and_line() {
    let dir = fresh_db7();
    ok(&["verify", "--db", s(dir.path()), "-q"]);
    let ledger = ledger_of(dir.path());
    let good = fs::read_to_string(&ledger).unwrap();
    let first = good.lines().nth(1).unwrap().to_string();
    let cases = [
        (format!("{good}{first},extra\n"), "verified.csv:5: 9 fields"),
        (format!("{good}not,a,row\n"), "verified.csv:5: 3 fields"),
        (good.replacen(",3-3,", ",3-x,", 1), "`3-x` is not a sector"),
        (good.replacen("nine,", "six,", 1), "verified.csv:2: a row of rule set `six`, which has no tables"),
    ];
    for (text, expect) in &cases {
        fs::write(&ledger, text).unwrap();
        let r = fails(&["verify", "--db", s(dir.path()), "-q"]);
        assert!(r.stderr.contains(expect), "{expect}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "nothing checked or skipped:\n{}", r.stdout);
    }
    // A non-hex checksum.
    let sum = first.split(',').nth(3).unwrap();
    fs::write(&ledger, good.replacen(sum, &sum.replacen(|_| true, "z", 1), 1)).unwrap();
    let r = fails(&["verify", "--db", s(dir.path()), "-q"]);
    assert!(r.stderr.contains("verified.csv:2: checksum"), "{}", r.stderr);

    // --ledger names another file: one of another rule set is refused.
    let elsewhere = tempfile::tempdir().unwrap();
    let six = elsewhere.path().join("six-verified.csv");
    fs::write(&six, good.replace("nine,", "six,")).unwrap();
    let r = fails(&["verify", "--db", s(dir.path()), "-q", "--ledger", s(&six)]);
    assert!(r.stderr.contains("six-verified.csv:2:") && r.stderr.contains("`six`"), "{}", r.stderr);
    // A ledger elsewhere is written and read like the default one.
    let mine = elsewhere.path().join("nine-verified.csv");
    ok(&["verify", "--db", s(dir.path()), "-q", "--ledger", s(&mine)]);
    let out = ok(&["verify", "--db", s(dir.path()), "-q", "--ledger", s(&mine)]);
    assert!(out.contains("3 from the ledger, 0 now"), "{out}");
}

#[test]
fn an_edited_or_cut_off_row_vouches_for_nothing() {
    let dir = fresh_db7();
    ok(&["verify", "--db", s(dir.path()), "-q"]);
    let ledger = ledger_of(dir.path());
    let good = fs::read_to_string(&ledger).unwrap();
    // 3-3's checksum edited (to valid hex): the row describes no table.
    let row = good.lines().find(|l| l.contains(",3-3,")).unwrap();
    let sum = row.split(',').nth(3).unwrap();
    let edited = format!("{:016x}", u64::from_str_radix(sum, 16).unwrap() ^ 1);
    fs::write(&ledger, good.replace(&format!(",3-3,{sum},"), &format!(",3-3,{edited},"))).unwrap();
    let out = ok(&["verify", "--db", s(dir.path()), "-q"]);
    assert!(!from_ledger(&out, "3-3") && from_ledger(&out, "3-4"), "{out}");

    // A last row without its end of line (a write cut off by a crash):
    // a warning, and it counts for nothing, even when complete.
    let text = fs::read_to_string(&ledger).unwrap();
    let kept: Vec<&str> = text.lines().filter(|l| !l.contains(",4-3,")).collect();
    let cut = text.lines().find(|l| l.contains(",4-3,")).unwrap();
    fs::write(&ledger, format!("{}\n{cut}", kept.join("\n"))).unwrap();
    let r = common::run(&["verify", "--db", s(dir.path()), "-q"]);
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(r.stderr.contains("verified.csv:") && r.stderr.contains("has no end of line"), "{}", r.stderr);
    assert!(!from_ledger(&r.stdout, "4-3") && from_ledger(&r.stdout, "3-4"), "{}", r.stdout);
    let text = fs::read_to_string(&ledger).unwrap();
    assert!(text.ends_with('\n') && text.lines().all(|l| l.split(',').count() == 8), "{text}");
}

#[test]
fn solve_verify_records_every_table_and_keeps_them_across_runs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("six");
    let out = ok(&["solve", "--rules", "six", "--phase", "all", "--db", s(&db), "--verify", "-q"]);
    let tables = morris_db::Store::new(&db).dtm_sectors(&RuleSet::preset("six").unwrap()).unwrap();
    assert!(tables.len() > 100, "{tables:?}");
    let n = tables.len();
    assert!(out.contains(&format!("verified {n} tables: 0 from the ledger, {n} now")), "{out}");
    let rows = rows(&ledger_of(&db));
    assert_eq!(rows.len(), n, "{rows:?}");
    for sector in &tables {
        assert!(rows.iter().any(|r| r.split(',').nth(2) == Some(&sector.to_string())), "{sector}: {rows:?}");
    }
    let out = ok(&["verify", "--rules", "six", "--db", s(&db), "-q"]);
    assert!(out.contains(&format!("{n} of {n} tables verified: {n} from the ledger, 0 now")), "{out}");

    // Stopped and resumed: what was verified stays verified, the rest is
    // verified now; a --ledger elsewhere is used instead of the default.
    let db = dir.path().join("nine");
    let ledger = dir.path().join("nine-verified.csv");
    let args = ["solve", "--rules", "nine", "--db", s(&db), "--verify", "--ledger", s(&ledger), "-q"];
    let out = ok(&[&args[..], &["--max-stones", "6"]].concat());
    assert!(out.contains("verified 1 table: 0 from the ledger, 1 now"), "{out}");
    let out = ok(&[&args[..], &["--max-stones", "7"]].concat());
    assert!(out.contains("verified 3 tables: 1 from the ledger, 2 now"), "{out}");
    assert_eq!(self::rows(&ledger).len(), 3);
    assert!(!ledger_of(&db).exists());
    // -q -v (what results/whole.sh logs): each table's check, from the
    // ledger or re-derived with its seconds.
    let out = ok(&[&args[..], &["--max-stones", "8", "-v"]].concat());
    assert!(line_of(&out, "3-3").contains("from the ledger"), "{out}");
    assert!(line_of(&out, "4-4").contains("re-derived in"), "{out}");
    assert!(line_of(&out, "3-5").contains("re-derived in"), "{out}");
}

#[test]
fn solve_verify_stops_at_a_table_that_fails() {
    let dir = fresh_db7();
    change_a_value(dir.path(), Sector::sliding(3, 4));
    let r = fails(&["solve", "--db", s(dir.path()), "--max-stones", "8", "--verify", "-q"]);
    assert!(r.stderr.contains("the table of sector 3-4 failed verification"), "{}", r.stderr);
    assert!(line_of(&r.stdout, "3-4").contains("FAILED"), "{}", r.stdout);
    // Stopped there: no table of 8 stones was solved.
    assert!(!table_path(dir.path(), &nine(), Sector::sliding(4, 4)).exists());
    assert!(!table_path(dir.path(), &nine(), Sector::sliding(3, 5)).exists());
}

/// The ledger vouches for values by checksum, which is sound only because
/// the solver is deterministic: the same rule set solved twice (with
/// different thread counts) gives byte-identical tables.
#[test]
fn the_solver_writes_the_same_bytes_every_time() {
    for (rules, extra) in
        [("three", &["--phase", "all"][..]), ("six", &["--phase", "all"]), ("nine", &["--max-stones", "7"])]
    {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        for (db, threads) in [(&a, "1"), (&b, "2")] {
            let args = [&["solve", "--rules", rules, "--db", s(db), "-q", "--threads", threads][..], extra].concat();
            ok(&args);
        }
        let (ta, tb) = (common::tables(&a), common::tables(&b));
        assert!(ta.len() >= 3, "{rules}: {:?}", ta.keys());
        assert_eq!(ta.keys().collect::<Vec<_>>(), tb.keys().collect::<Vec<_>>(), "{rules}");
        for (name, bytes) in &ta {
            assert!(bytes == &tb[name], "{rules}: {name} differs between two solves");
        }
    }
}
