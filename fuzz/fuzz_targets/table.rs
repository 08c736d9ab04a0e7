//! A real table (nine, sector 3-3) and its WDL export, damaged by the
//! fuzzer's patches (byte changes, a new length): opening, probing every
//! kind of query, exporting and reading the export must give errors or
//! answers, never a panic. Checksums are not checked on opening, so the
//! damaged payloads reach the probe.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use morris_db::table::table_path;
use morris_db::wdl::{export_table, wdl_path, WdlTable};
use morris_db::{Color, Position, RuleSet, Sector, Table};
use morris_probe::wdl::WdlDatabase;
use morris_probe::{Database, ProbeOptions};
use morris_solver::{solve_sliding, SolveOptions};

struct Setup {
    dir: tempfile::TempDir,
    rules: RuleSet,
    table: Vec<u8>,
    wdl: Vec<u8>,
    positions: Vec<Position>,
}

fn setup() -> &'static Setup {
    static S: OnceLock<Setup> = OnceLock::new();
    S.get_or_init(|| {
        let rules = RuleSet::preset("nine").unwrap();
        let dir = tempfile::tempdir().unwrap();
        solve_sliding(&rules, dir.path(), &SolveOptions { max_stones: 6, progress: false }).unwrap();
        let sector = Sector::sliding(3, 3);
        let index = rules.indexer().sector(sector);
        let t = Table::open(dir.path(), &rules, sector, index.len()).unwrap();
        export_table(&t, &wdl_path(dir.path(), &rules, sector)).unwrap();
        drop(t);
        let table = std::fs::read(table_path(dir.path(), &rules, sector)).unwrap();
        let wdl = std::fs::read(wdl_path(dir.path(), &rules, sector)).unwrap();
        let positions = (0..index.len())
            .step_by(9973)
            .filter_map(|s| index.position(s))
            .map(|(us, them)| Position::from_sector(sector, Color::White, us, them))
            .collect();
        Setup { dir, rules, table, wdl, positions }
    })
}

/// Applies the fuzzer's input to `bytes`: the first two bytes choose a
/// length change, then each 4 bytes are a patch (3-byte offset, value).
fn damage(mut bytes: Vec<u8>, data: &[u8]) -> Vec<u8> {
    let Some((head, patches)) = data.split_first_chunk::<2>() else {
        return bytes;
    };
    for p in patches.chunks_exact(4) {
        if bytes.is_empty() {
            break;
        }
        let offset = u32::from_le_bytes([p[0], p[1], p[2], 0]) as usize % bytes.len();
        bytes[offset] = p[3];
    }
    match head[0] % 4 {
        1 => bytes.truncate(bytes.len().saturating_sub(head[1] as usize + 1)),
        2 => bytes.extend(std::iter::repeat(head[1]).take(head[0] as usize / 4 + 1)),
        3 => bytes.truncate(head[1] as usize * 2),
        _ => {}
    }
    bytes
}

fuzz_target!(|data: &[u8]| {
    let s = setup();
    let sector = Sector::sliding(3, 3);
    let slots = s.rules.indexer().sector(sector).len();
    let table = table_path(s.dir.path(), &s.rules, sector);
    let wdl = wdl_path(s.dir.path(), &s.rules, sector);
    let (dtm_part, wdl_part) = data.split_at(data.len() / 2);
    std::fs::write(&table, damage(s.table.clone(), dtm_part)).unwrap();
    std::fs::write(&wdl, damage(s.wdl.clone(), wdl_part)).unwrap();

    let options = ProbeOptions { verify_checksums: false };
    let db = Database::open_with(s.dir.path(), s.rules.clone(), options.clone()).unwrap();
    for p in &s.positions {
        let _ = db.value(p);
    }
    if let Some(p) = s.positions.first() {
        let _ = db.analyze(p);
        let _ = db.principal_line(p, 40);
    }
    // Exporting syncs a file to disk: slow, so only for some inputs.
    let export = data.first().is_some_and(|b| b % 32 == 0);
    if export {
        if let Ok(t) = Table::open(s.dir.path(), &s.rules, sector, slots) {
            let out = tempfile::tempdir().unwrap();
            if export_table(&t, &wdl_path(out.path(), &s.rules, sector)).is_ok() {
                let _ = WdlTable::open(out.path(), &s.rules, sector, slots).map(|w| w.verify_checksum());
            }
        }
    }
    let wdb = WdlDatabase::open_with(s.dir.path(), s.rules.clone(), options).unwrap();
    for p in &s.positions {
        let _ = wdb.wdl(p);
    }
    if let Some(p) = s.positions.first() {
        let _ = wdb.analyze(p);
    }
});
