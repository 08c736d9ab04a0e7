//! Arbitrary text as a position and a move, through the whole probe on a
//! real database (nine up to 7 stones and its WDL export): parse, validate,
//! value, every move's value, best move, principal line, WDL. Errors are
//! fine; panics are not.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use morris_db::wdl::{export_table, wdl_path};
use morris_db::{RuleSet, Table};
use morris_probe::wdl::WdlDatabase;
use morris_probe::Database;
use morris_solver::{solve_sliding, SolveOptions};

struct Setup {
    _dir: tempfile::TempDir,
    db: Database,
    wdl: WdlDatabase,
}

fn setup() -> &'static Setup {
    static S: OnceLock<Setup> = OnceLock::new();
    S.get_or_init(|| {
        let rules = RuleSet::preset("nine").unwrap();
        let dir = tempfile::tempdir().unwrap();
        solve_sliding(&rules, dir.path(), &SolveOptions { max_stones: 7, progress: false }).unwrap();
        for (w, b) in [(3u8, 3u8), (3, 4), (4, 3)] {
            let sector = morris_db::Sector::sliding(w, b);
            let len = rules.indexer().sector(sector).len();
            let t = Table::open(dir.path(), &rules, sector, len).unwrap();
            export_table(&t, &wdl_path(dir.path(), &rules, sector)).unwrap();
        }
        let db = Database::open(dir.path(), rules.clone()).unwrap();
        let wdl = WdlDatabase::open(dir.path(), rules).unwrap();
        Setup { _dir: dir, db, wdl }
    })
}

fuzz_target!(|data: &[u8]| {
    let s = setup();
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (pos_text, move_text) = text.split_once('|').unwrap_or((text, ""));
    let rules = s.db.rules();
    let Ok(raw) = morris_db::Setup::read(pos_text, rules.board()) else {
        return;
    };
    let _ = raw.to_text(rules.board());
    let _ = raw.diagram(rules.board());
    // Only a validated position reaches the probe (the type says so).
    let Ok(pos) = raw.validate(rules) else {
        return;
    };
    let _ = pos.parse_move(rules, move_text);
    let value = s.db.value(&pos);
    let wdl = s.wdl.wdl(&pos);
    // The per-thread handles answer as the databases do.
    assert_eq!(format!("{:?}", s.db.prober().value(&pos)), format!("{value:?}"));
    assert_eq!(format!("{:?}", s.wdl.prober().wdl(&pos)), format!("{wdl:?}"));
    if let (Ok(v), Ok(w)) = (&value, &wdl) {
        assert_eq!(morris_db::wdl::Wdl::from(*v), *w, "{}", pos.to_text(rules.board()));
    }
    let _ = s.db.analyze(&pos);
    let _ = s.db.best_move(&pos);
    let _ = s.db.principal_line(&pos, 30);
    let _ = s.wdl.analyze(&pos);
});
