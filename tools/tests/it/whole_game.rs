//! The whole game of `six` (its sliding and placement tables) through
//! the `morris` binary: `solve --plan` before and after, resuming `solve
//! --phase all` after a kill, compressed tables (`morris compress`),
//! placement tables included, against their originals slot by slot and
//! probed from several threads at once, and `solve --compress` (from an
//! empty directory, killed and resumed, from `.mtb` or only `.mtz` sliding
//! tables) against a clean solve without it.
//!
//! Expected values: the bytes and headers of a clean solve.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Output, Stdio};
use std::sync::OnceLock;

use crate::common::{morris, tables, temporaries};
use morris_db::table::HEADER_SIZE;
use morris_db::{Color, RuleSet, Sector, Setup, Table};
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
    let leftovers = temporaries(dir.path());
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
                    let index = rules.indexer().sector(*sector);
                    for slot in (t as u64..index.len()).step_by(4 * 37 + k % 3) {
                        let Some((us, them)) = index.position(slot) else { continue };
                        let side = if (slot + k as u64) & 1 == 0 { Color::White } else { Color::Black };
                        // A side to move the hands do not allow is no position.
                        let setup = Setup::from_relative(us, them, side, sector.wh, sector.bh);
                        let Ok(pos) = setup.validate(rules) else { continue };
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

/// The files of a directory, by name.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// Checks a directory against the clean solve: every table there is whole,
/// as `.mtb` (the clean bytes) or `.mtz` (the clean header's counts and
/// every slot the clean entry); with `complete`, every table is there,
/// only as `.mtz`, and nothing else is.
fn check_against_clean(dir: &Path, complete: bool) {
    let (_, expected) = clean();
    for (name, bytes) in expected {
        let plain = dir.join(name);
        let packed = dir.join(name.replace(".mtb", ".mtz"));
        if plain.exists() {
            assert!(!complete, "{name}: still there as .mtb");
            assert_eq!(&fs::read(&plain).unwrap(), bytes, "{name}: differs from a clean solve");
        }
        if packed.exists() {
            let original = Table::open_unchecked(&plain_copy(name, bytes)).unwrap();
            let z = Table::open_unchecked(&packed).unwrap();
            z.verify_checksum().unwrap();
            let (a, b) = (z.header(), original.header());
            assert_eq!(
                (a.sector, a.entry_count, a.canonical_positions, a.wins, a.losses, a.draws, a.own),
                (b.sector, b.entry_count, b.canonical_positions, b.wins, b.losses, b.draws, b.own),
                "{name}: header"
            );
            for slot in 0..b.entry_count {
                assert_eq!(z.entry(slot), original.entry(slot), "{name}: slot {slot}");
            }
        } else {
            assert!(!complete, "{name}: no .mtz table");
        }
    }
    if complete {
        let expected_names: Vec<String> = expected.keys().map(|n| n.replace(".mtb", ".mtz")).collect();
        assert_eq!(names(dir), expected_names, "the directory holds exactly the compressed tables");
    }
}

/// The clean table `name` as a file (in a directory kept for the test run).
fn plain_copy(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    static COPIES: OnceLock<tempfile::TempDir> = OnceLock::new();
    let path = COPIES.get_or_init(|| tempfile::tempdir().unwrap()).path().join(name);
    if !path.exists() {
        let tmp = path.with_extension(format!("{}.part", std::process::id()));
        fs::write(&tmp, bytes).unwrap();
        fs::rename(&tmp, &path).unwrap();
    }
    path
}

fn stats_csv(dir: &Path) -> String {
    ok(&["stats", "--rules", "six", "--format", "csv"], dir)
}

#[test]
fn solve_compress_gives_the_clean_values_and_leaves_only_mtz() {
    let (source, expected) = clean();
    let dir = tempfile::tempdir().unwrap();
    let plan = ok(&["solve", "--rules", "six", "--phase", "all", "--compress", "--plan"], dir.path());
    assert!(plan.contains("at the peak with --compress"), "{plan}");
    let out = ok(&["solve", "--rules", "six", "--phase", "all", "--compress", "-q"], dir.path());
    assert!(out.contains(&format!("compressed {} tables", expected.len())), "{out}");
    check_against_clean(dir.path(), true);
    assert_eq!(stats_csv(dir.path()), stats_csv(source.path()));
    let verified = ok(&["verify", "--rules", "six", "-q"], dir.path());
    let n = expected.len();
    assert!(verified.contains(&format!("{n} of {n} tables OK")), "{verified}");
}

#[test]
fn solve_compress_resumes_after_kills() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["solve", "--rules", "six", "--phase", "all", "--compress", "-q", "--db"];
    // Killed three times: as soon as a compressed table is being written
    // (a `.mtz.tmp` file), then after 40 and 90 compressed tables; each
    // time every table left is whole, then a rerun finishes the job.
    let mut caught_writing = false;
    for stop_at in [0usize, 40, 90] {
        let mut child = morris().args(args).arg(dir.path()).stdout(Stdio::null()).spawn().unwrap();
        loop {
            let names = names(dir.path());
            let writing = names.iter().any(|n| n.ends_with(".mtz.tmp"));
            if (stop_at == 0 && writing) || names.iter().filter(|n| n.ends_with(".mtz")).count() >= stop_at.max(1) {
                caught_writing |= writing;
                break;
            }
            if child.try_wait().unwrap().is_some() {
                break;
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        check_against_clean(dir.path(), false);
    }
    eprintln!("killed while a .mtz file was being written: {caught_writing}");
    ok(&["solve", "--rules", "six", "--phase", "all", "--compress", "-q"], dir.path());
    check_against_clean(dir.path(), true);
    let n = clean().1.len();
    let verified = ok(&["verify", "--rules", "six", "-q"], dir.path());
    assert!(verified.contains(&format!("{n} of {n} tables OK")), "{verified}");
}

#[test]
fn solve_compress_from_sliding_tables_on_disk() {
    let (_, expected) = clean();
    // The sliding tables there as `.mtb` (a sliding solve done before): all
    // are compressed by the end, the clean values everywhere.
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in expected.iter().filter(|(n, _)| n.ends_with("_0_0.mtb")) {
        fs::write(dir.path().join(name), bytes).unwrap();
    }
    ok(&["solve", "--rules", "six", "--phase", "all", "--compress", "-q"], dir.path());
    check_against_clean(dir.path(), true);

    // The sliding tables there only as `.mtz` (a sliding solve with
    // --compress: no placement sector in that run reads them): those the
    // placement sectors read are expanded for them, then removed again.
    let dir = tempfile::tempdir().unwrap();
    let out = ok(&["solve", "--rules", "six", "--compress", "-q"], dir.path());
    let sliding = expected.keys().filter(|n| n.ends_with("_0_0.mtb")).count();
    assert!(out.contains(&format!("compressed {sliding} tables")), "{out}");
    assert!(names(dir.path()).iter().all(|n| n.ends_with(".mtz")), "{:?}", names(dir.path()));
    let out = ok(&["solve", "--rules", "six", "--phase", "all", "--compress", "-q"], dir.path());
    assert!(out.contains("expanded"), "{out}");
    check_against_clean(dir.path(), true);

    // Without --compress, expanded tables go back to `.mtz` alone too, and
    // the tables solved stay `.mtb`.
    let dir = tempfile::tempdir().unwrap();
    ok(&["solve", "--rules", "six", "--compress", "-q"], dir.path());
    ok(&["solve", "--rules", "six", "--phase", "all", "-q"], dir.path());
    for (name, bytes) in expected {
        let plain = dir.path().join(name);
        if name.ends_with("_0_0.mtb") {
            assert!(!plain.exists(), "{name}: expanded and kept");
        } else {
            assert_eq!(&fs::read(&plain).unwrap(), bytes, "{name}");
        }
    }
    check_against_clean(dir.path(), false);
}

/// The sectors of the stubs (`.mtd`) in `dir`.
fn stub_sectors(rules: &RuleSet, dir: &Path) -> Vec<Sector> {
    morris_db::Store::new(dir).sectors(rules, &[morris_db::FileKind::Derived]).unwrap()
}

#[test]
fn single_sided_tables_answer_as_the_full_ones_everywhere() {
    let (clean_dir, expected) = clean();
    let rules = RuleSet::preset("six").unwrap();
    let dir = crate::common::copy_of(clean_dir.path());
    let out = ok(&["compress", "--rules", "six", "--single-sided", "--check-positions", "50"], dir.path());
    let stubs = stub_sectors(&rules, dir.path());
    assert!(stubs.len() >= 40, "{} stubs: {out}", stubs.len());
    assert!(out.contains(&format!("{} of {} sectors derived by search", stubs.len(), expected.len())), "{out}");
    // The tables kept are the clean ones, byte for byte.
    let kept = tables(dir.path());
    assert_eq!(kept.len() + stubs.len(), expected.len());
    for (name, bytes) in &kept {
        assert_eq!(Some(bytes), expected.get(name), "{name}");
    }

    // Every position of every single-sided sector: the value searched one
    // ply equals the clean table's, through `Tables` and a `TableProber`.
    let full = Database::open(clean_dir.path(), rules.clone()).unwrap();
    let single = Database::open(dir.path(), rules.clone()).unwrap();
    let mut prober = single.prober();
    let mut positions = 0u64;
    for &sector in &stubs {
        let color = morris_probe::longest::side_to_move(&rules, sector);
        let index = rules.indexer().sector(sector);
        for slot in 0..index.len() {
            let Some((us, them)) = index.position(slot) else { continue };
            let pos = morris_db::Position::from_sector(sector, color, us, them);
            let want = full.value(&pos).unwrap();
            assert_eq!(single.value(&pos).unwrap(), want, "{sector} slot {slot}");
            assert_eq!(prober.value(&pos).unwrap(), want, "{sector} slot {slot}, prober");
            positions += 1;
        }
    }
    assert!(positions > 100_000, "{positions} positions of single-sided sectors");

    // A second run finds nothing to do; a kill after a stub was written
    // but before its table was removed is finished by the next run.
    let again = ok(&["compress", "--rules", "six", "--single-sided"], dir.path());
    assert!(again.contains("0 bytes of tables removed now"), "{again}");
    let back = morris_db::Store::new(dir.path()).path("six", stubs[0], morris_db::FileKind::Dtm);
    let back = back.file_name().unwrap().to_str().unwrap().to_string();
    fs::write(dir.path().join(&back), &expected[&back]).unwrap();
    let resumed = ok(&["compress", "--rules", "six", "--single-sided"], dir.path());
    assert!(!dir.path().join(&back).exists(), "{back} kept: {resumed}");
    assert_eq!(stub_sectors(&rules, dir.path()), stubs);
}

/// The total of the "WDL bytes" an `export-wdl` run printed.
fn wdl_bytes(out: &str) -> u64 {
    out.split(" bytes, ")
        .next()
        .and_then(|t| t.rsplit(": ").next()?.parse().ok())
        .unwrap_or_else(|| panic!("no total in:\n{out}"))
}

#[test]
fn single_sided_wdl_files_answer_as_the_full_tables_everywhere() {
    let (clean_dir, expected) = clean();
    let rules = RuleSet::preset("six").unwrap();
    let export = |out: &Path, more: &[&str]| {
        let args = [&["export-wdl", "--rules", "six", "--compress", "--out", out.to_str().unwrap()], more].concat();
        ok(&args, clean_dir.path())
    };
    let whole = tempfile::tempdir().unwrap();
    let whole_out = export(whole.path(), &[]);
    let wdl = tempfile::tempdir().unwrap();
    let out = export(wdl.path(), &["--single-sided", "--check-positions", "50"]);
    let db = morris_probe::wdl::WdlDatabase::open(wdl.path(), rules.clone()).unwrap();
    let sectors = db.sectors().unwrap();
    assert_eq!(sectors.len(), expected.len(), "{out}");
    let stubs: Vec<Sector> = sectors
        .iter()
        .copied()
        .filter(|&s| db.table(s).unwrap().coding() == morris_db::wdl::WdlCoding::Derived)
        .collect();
    assert!(stubs.len() >= 40, "{} stubs: {out}", stubs.len());
    assert!(out.contains(&format!("{} of {} sectors have a stub", stubs.len(), expected.len())), "{out}");
    assert_eq!(out.matches("  stub").count(), stubs.len(), "{out}");
    // No stub's moves lead into another stub.
    for &s in &stubs {
        for child in rules.successor_sectors(s) {
            assert!(!stubs.contains(&child), "{s} leads into {child}, a stub too");
        }
    }
    let (single, full) = (wdl_bytes(&out), wdl_bytes(&whole_out));
    assert!(single < full * 3 / 4, "single-sided {single} bytes, whole {full}");

    // Every position of every sector, through `Tables` and a
    // `TableProber`: the clean DTM table's value, less its distance.
    let dtm = Database::open(clean_dir.path(), rules.clone()).unwrap();
    let mut prober = db.prober();
    let mut searched = 0u64;
    let (mut all, mut wants) = (Vec::new(), Vec::new());
    for &sector in &sectors {
        let color = morris_probe::longest::side_to_move(&rules, sector);
        let index = rules.indexer().sector(sector);
        for slot in 0..index.len() {
            let Some((us, them)) = index.position(slot) else { continue };
            let pos = morris_db::Position::from_sector(sector, color, us, them);
            let want = morris_db::wdl::Wdl::from(dtm.value(&pos).unwrap());
            assert_eq!(db.wdl(&pos).unwrap(), want, "{sector} slot {slot}");
            assert_eq!(prober.wdl(&pos).unwrap(), want, "{sector} slot {slot}, prober");
            searched += stubs.contains(&sector) as u64;
            all.push(pos);
            wants.push(want);
        }
    }
    assert!(searched > 100_000, "{searched} positions of stubs");
    // The same positions read in batches, by a fresh prober (which opens
    // the files as it goes) and by the one that has them all.
    for mut prober in [db.prober(), prober] {
        let batched: Vec<_> = prober.values(&all).into_iter().map(|v| v.unwrap()).collect();
        assert!(batched == wants, "values in batches differ from the tables'");
    }

    // A second run keeps every file and stub.
    let again = export(wdl.path(), &["--single-sided"]);
    assert!(again.contains(&format!("{} files already up to date were kept", expected.len())), "{again}");

    // A stub's sector whose table disagrees with its moves (every win made
    // a draw, under a valid checksum) gets no stub, and the run fails.
    let bad = crate::common::copy_of(clean_dir.path());
    let sector = *stubs.iter().max_by_key(|s| dtm.table(**s).unwrap().header().wins).unwrap();
    assert!(dtm.table(sector).unwrap().header().wins > 1000);
    let len = rules.indexer().sector(sector).len();
    let table = Table::open(bad.path(), &rules, sector, len).unwrap();
    let entries: Vec<u16> = (0..len)
        .map(|slot| match table.value(slot) {
            Some(morris_db::Value::Win(_)) => morris_db::Value::Draw.to_entry(),
            _ => table.entry(slot).unwrap(),
        })
        .collect();
    drop(table);
    let path = morris_db::table::table_path(bad.path(), &rules, sector);
    let header = morris_db::TableHeader::for_entries(&rules, sector, &entries);
    morris_db::table::write_table(&path, &header, &entries).unwrap();
    let bad_out = tempfile::tempdir().unwrap();
    let args = ["export-wdl", "--rules", "six", "--single-sided", "--out", bad_out.path().to_str().unwrap()];
    let run = run(&args, bad.path());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{err}");
    assert!(err.contains("its stub was not written"), "{err}");
    // The sector named is the changed one, or one whose moves lead into it
    // (the stubs are chosen by the tables' counts, which changed too); it
    // has no file.
    let named = err.split("sector ").nth(1).and_then(|t| Sector::parse(t.split(':').next()?)).expect(&err);
    assert!(named == sector || rules.successor_sectors(named).contains(&sector), "{err}");
    assert!(!morris_db::wdl::wdl_path(bad_out.path(), &rules, named).exists());
}

#[test]
fn single_sided_stubs_that_meet_are_refused_with_their_reason() {
    let (clean_dir, _) = clean();
    let rules = RuleSet::preset("six").unwrap();
    let dir = crate::common::copy_of(clean_dir.path());
    ok(&["compress", "--rules", "six", "--single-sided", "--check-positions", "10"], dir.path());
    // A table a stub's moves lead to replaced by a stub too (by hand, as
    // `choose` never does): the probe names the problem, not a wrong value.
    let stub = stub_sectors(&rules, dir.path())[0];
    let child = rules.successor_sectors(stub).into_iter().find(|c| !rules.indexer().sector(*c).is_empty()).unwrap();
    let len = rules.indexer().sector(child).len();
    let table = morris_db::Table::open(dir.path(), &rules, child, len).unwrap();
    morris_db::derived::write_stub(dir.path(), &rules, &table).unwrap();
    drop(table);
    let store = morris_db::Store::new(dir.path());
    fs::remove_file(store.dtm_file(&rules, child).unwrap()).unwrap();
    let full = Database::open(clean_dir.path(), rules.clone()).unwrap();
    let single = Database::open(dir.path(), rules.clone()).unwrap();
    let index = rules.indexer().sector(stub);
    let color = morris_probe::longest::side_to_move(&rules, stub);
    let mut refused = 0;
    for slot in 0..index.len() {
        let Some((us, them)) = index.position(slot) else { continue };
        let pos = morris_db::Position::from_sector(stub, color, us, them);
        match single.value(&pos) {
            Ok(v) => assert_eq!(v, full.value(&pos).unwrap(), "{stub} slot {slot}"),
            Err(e) => {
                let e = e.to_string();
                assert!(e.contains("single-sided") && e.contains(&child.to_string()), "{e}");
                refused += 1;
            }
        }
    }
    assert!(refused > 0, "no position of {stub} moves into {child}");
    // And a second `compress --single-sided` refuses to go on from there.
    let out = run(&["compress", "--rules", "six", "--single-sided"], dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("meet other stubs"), "{err}");
}

#[test]
fn recompress_rewrites_mtz_tables_with_the_same_values() {
    let (clean_dir, _) = clean();
    let dir = crate::common::copy_of(clean_dir.path());
    ok(&["compress", "--rules", "six", "--remove-originals"], dir.path());
    let before: u64 = names(dir.path()).iter().map(|n| fs::metadata(dir.path().join(n)).unwrap().len()).sum();
    let out = ok(&["compress", "--rules", "six", "--recompress", "--level", "9", "--block-slots", "65536"], dir.path());
    assert!(out.contains("old .mtz bytes"), "{out}");
    let after: u64 = names(dir.path()).iter().map(|n| fs::metadata(dir.path().join(n)).unwrap().len()).sum();
    assert!(after < before, "{after} bytes after, {before} before");
    check_against_clean(dir.path(), true);
    // Byte for byte what compressing the originals at those settings gives.
    let direct = crate::common::copy_of(clean_dir.path());
    let args = ["compress", "--rules", "six", "--remove-originals", "--level", "9", "--block-slots", "65536"];
    ok(&args, direct.path());
    assert_eq!(crate::common::files(dir.path()), crate::common::files(direct.path()));
}
