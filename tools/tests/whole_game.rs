//! The whole game of `six` (its sliding and placement tables) through
//! the `morris` binary: `solve --plan` before and after, resuming `solve
//! --phase all` after a kill, and compressed tables (`morris compress`),
//! placement tables included, against their originals slot by slot and
//! probed from several threads at once.
//!
//! Expected values: the bytes and headers of a clean solve.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Output, Stdio};
use std::sync::OnceLock;

use common::{morris, tables};
use morris_db::table::HEADER_SIZE;
use morris_db::{Color, Position, RuleSet, Sector, Table};
use morris_probe::Database;

fn run(args: &[&str], dir: &Path) -> Output {
    morris().args(args).arg("--db").arg(dir).output().unwrap()
}

fn ok(args: &[&str], dir: &Path) -> String {
    let out = run(args, dir);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Slots of a table file (its entries: two bytes each after the header).
fn slots(bytes: &[u8]) -> u64 {
    (bytes.len() - HEADER_SIZE) as u64 / 2
}

/// A clean solve of the whole game of `six`, made once.
fn clean() -> &'static (tempfile::TempDir, BTreeMap<String, Vec<u8>>) {
    static CLEAN: OnceLock<(tempfile::TempDir, BTreeMap<String, Vec<u8>>)> = OnceLock::new();
    CLEAN.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        ok(&["solve", "--rules", "six", "--phase", "all", "-q"], dir.path());
        let t = tables(dir.path());
        (dir, t)
    })
}

fn plan(dir: &Path) -> String {
    ok(&["solve", "--rules", "six", "--phase", "all", "--plan"], dir)
}

#[test]
fn plan_and_resume_after_a_kill() {
    let (_, expected) = clean();
    assert!(expected.len() > 100, "{} tables", expected.len());
    let all_slots: u64 = expected.values().map(|b| slots(b)).sum();

    let dir = tempfile::tempdir().unwrap();
    let before = plan(dir.path());
    let n = expected.len();
    assert!(before.starts_with(&format!("{n} tables of six to solve, {all_slots} slots")), "{before}");

    // Killed once some placement tables are written (names with stones in
    // hand), then resumed.
    let mut child = morris()
        .args(["solve", "--rules", "six", "--phase", "all", "-q", "--db"])
        .arg(dir.path())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let placement = |name: &String| !name.ends_with("_0_0.mtb");
    loop {
        if tables(dir.path()).keys().filter(|n| placement(n)).count() >= 5 {
            break;
        }
        assert!(child.try_wait().unwrap().is_none(), "the solve ended before it was killed");
    }
    let _ = child.kill();
    let _ = child.wait();
    let partial = tables(dir.path());
    assert!(partial.len() < expected.len(), "killed after the solve ended");
    for (name, bytes) in &partial {
        assert_eq!(Some(bytes), expected.get(name), "{name}: differs from a clean solve");
    }
    // The plan counts what is missing.
    let missing_slots: u64 = expected.iter().filter(|(n, _)| !partial.contains_key(*n)).map(|(_, b)| slots(b)).sum();
    let missing = expected.len() - partial.len();
    let middle = plan(dir.path());
    assert!(middle.starts_with(&format!("{missing} tables of six to solve, {missing_slots} slots")), "{middle}");

    ok(&["solve", "--rules", "six", "--phase", "all", "-q"], dir.path());
    assert_eq!(&tables(dir.path()), expected, "the resumed solve differs from a clean one");
    let leftovers: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    assert!(plan(dir.path()).starts_with("nothing to solve"), "{}", plan(dir.path()));
}

#[test]
fn compressed_tables_equal_their_originals_slot_by_slot() {
    let (source, expected) = clean();
    let rules = RuleSet::preset("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in expected {
        fs::write(dir.path().join(name), bytes).unwrap();
    }
    ok(&["compress", "--rules", "six"], dir.path());

    // Every slot of every table, sliding and placement, as the original.
    let packed_dir = tempfile::tempdir().unwrap();
    let mut compared = 0u64;
    let mut sectors: Vec<Sector> = Vec::new();
    for name in expected.keys() {
        let mtz = name.replace(".mtb", ".mtz");
        let original = Table::open_unchecked(&dir.path().join(name)).unwrap();
        let packed = Table::open_unchecked(&dir.path().join(&mtz)).unwrap();
        assert!(packed.is_compressed() && !original.is_compressed(), "{mtz}");
        packed.verify_checksum().unwrap();
        assert_eq!(packed.header().entry_count, original.header().entry_count, "{mtz}");
        for slot in 0..original.header().entry_count {
            assert_eq!(packed.entry(slot), original.entry(slot), "{mtz}: slot {slot}");
        }
        compared += original.header().entry_count;
        sectors.push(original.header().sector);
        fs::copy(dir.path().join(&mtz), packed_dir.path().join(&mtz)).unwrap();
    }
    assert!(compared > 3_000_000, "{compared} slots");

    // Four threads probing the compressed tables alone at once answer as
    // the originals, placement positions included.
    let packed = Database::open(packed_dir.path(), rules.clone()).unwrap();
    let originals = Database::open(source.path(), rules.clone()).unwrap();
    std::thread::scope(|scope| {
        for t in 0..4usize {
            let (packed, originals, sectors, rules) = (&packed, &originals, &sectors, &rules);
            scope.spawn(move || {
                for (k, sector) in sectors.iter().enumerate() {
                    let index = rules.indexer().sector(sector.w as usize, sector.b as usize);
                    for slot in (t as u64..index.len()).step_by(4 * 37 + k % 3) {
                        let Some((us, them)) = index.position(slot) else { continue };
                        let side = if (slot + k as u64) & 1 == 0 { Color::White } else { Color::Black };
                        let pos = Position::from_relative(us, them, side, sector.wh, sector.bh);
                        let (a, b) = (packed.value(&pos), originals.value(&pos));
                        assert_eq!(a.as_ref().ok(), b.as_ref().ok(), "{}", pos.to_text(rules.board()));
                    }
                }
            });
        }
    });
}

#[test]
fn compress_refuses_a_damaged_original() {
    let (_, expected) = clean();
    let dir = tempfile::tempdir().unwrap();
    let name = "six_3_3_0_0.mtb";
    let mut bytes = expected[name].clone();
    let last = bytes.len() - 3;
    bytes[last] ^= 0x10;
    fs::write(dir.path().join(name), &bytes).unwrap();
    let out = run(&["compress", "--rules", "six"], dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("payload checksum"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!dir.path().join("six_3_3_0_0.mtz").exists(), "no compressed table of a damaged original");
    assert_eq!(fs::read(dir.path().join(name)).unwrap(), bytes, "the original is kept");
}
