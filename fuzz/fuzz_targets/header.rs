//! Arbitrary bytes as a table file and as a WDL file: the header decoders,
//! the file openers and the probe must refuse them with an error or answer,
//! never panic. Each input is tried as it is and "sealed": with a correct
//! header checksum written over bytes 120..128, so that the fuzzer reaches
//! the checks behind the checksum (sizes, counts, rule set, sector).
#![no_main]

use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use morris_db::table::table_path;
use morris_db::wdl::{wdl_path, WdlHeader, WdlTable};
use morris_db::{Position, RuleSet, Sector, Table, TableHeader};
use morris_probe::wdl::WdlDatabase;
use morris_probe::{Database, ProbeOptions};

struct Setup {
    dir: tempfile::TempDir,
    rules: RuleSet,
    pos: Position,
}

fn setup() -> &'static Setup {
    static S: OnceLock<Setup> = OnceLock::new();
    S.get_or_init(|| {
        let rules = RuleSet::preset("nine").unwrap();
        let pos = Position::parse("W:a4,a1,d3 B:a7,d1,c4 w", &rules).unwrap();
        Setup { dir: tempfile::tempdir().unwrap(), rules, pos }
    })
}

fuzz_target!(|data: &[u8]| {
    check(data);
    if data.len() >= 128 {
        let mut sealed = data.to_vec();
        let sum = xxhash_rust::xxh3::xxh3_64(&sealed[..120]);
        sealed[120..128].copy_from_slice(&sum.to_le_bytes());
        check(&sealed);
    }
});

fn check(data: &[u8]) {
    let s = setup();
    let _ = TableHeader::decode(data, Path::new("fuzz.mtb"));
    let _ = WdlHeader::decode(data, Path::new("fuzz.mwdl"));
    let sector = Sector::sliding(3, 3);
    let slots = s.rules.indexer().sector(sector).len();
    let table = table_path(s.dir.path(), &s.rules, sector);
    let wdl = wdl_path(s.dir.path(), &s.rules, sector);
    std::fs::write(&table, data).unwrap();
    std::fs::write(&wdl, data).unwrap();
    if let Ok(t) = Table::open_unchecked(&table) {
        let _ = t.verify_checksum();
        let _ = t.check(&s.rules, sector, slots);
        let n = t.header().entry_count;
        for slot in [0, 1, n / 2, n.saturating_sub(1), n, n.saturating_add(1)] {
            let _ = t.value(slot);
        }
    }
    if let Ok(t) = WdlTable::open_unchecked(&wdl) {
        let _ = t.verify_checksum();
        let n = t.header().entry_count;
        for slot in [0, 1, 5, n / 2, n.saturating_sub(1), n, n.saturating_add(1), u64::MAX] {
            let _ = t.wdl(slot);
        }
    }
    for verify_checksums in [false, true] {
        let options = ProbeOptions { verify_checksums };
        let db = Database::open_with(s.dir.path(), s.rules.clone(), options.clone()).unwrap();
        let _ = db.value(&s.pos);
        let db = WdlDatabase::open_with(s.dir.path(), s.rules.clone(), options).unwrap();
        let _ = db.wdl(&s.pos);
    }
}
