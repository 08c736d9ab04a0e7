//! Rule sets as data (issue 3): custom rule sets from a preset plus
//! overrides, their names and fingerprints; tables of one rule set refuse to
//! serve another; the sliding phase solves for every rule set where it is
//! well defined and is refused clearly elsewhere.

use std::fs;

use morris_db::rules::{Flying, FullBoardOutcome, Overrides, Removal, PRESETS};
use morris_db::store::TableFile;
use morris_db::table::table_path;
use morris_db::{FileKind, Position, RuleSet, Sector, TableError, Value};
use morris_probe::{Database, ProbeError};
use morris_solver::{solve_sliding, SolveError, SolveOptions};

fn quiet(max_stones: u32) -> SolveOptions {
    SolveOptions { max_stones, progress: false }
}

#[test]
fn every_override_changes_the_fingerprint_and_the_name() {
    let nine = RuleSet::preset("nine").unwrap();
    let one = |o: Overrides| RuleSet::custom("nine", &o).unwrap();
    let customs = [
        one(Overrides { stones: Some(10), ..Overrides::default() }),
        one(Overrides { stones: Some(10), flying: Some(Flying::Never), ..Overrides::default() }),
        one(Overrides { remove_per_mill: Some(true), ..Overrides::default() }),
        one(Overrides { removal: Some(Removal::Lenient), ..Overrides::default() }),
        one(Overrides { full_board: Some(FullBoardOutcome::WhiteLoses), ..Overrides::default() }),
        one(Overrides { lasker: Some(true), ..Overrides::default() }),
    ];
    let mut prints = vec![nine.fingerprint()];
    for c in &customs {
        assert!(c.name().starts_with("nine-"), "{}", c.name());
        assert_eq!(c.name().len(), "nine-".len() + 8, "{}", c.name());
        assert!(c.name().len() <= 16);
        assert_eq!(c.name(), format!("nine-{:08x}", (c.fingerprint() >> 32) as u32));
        assert!(!c.is_preset());
        prints.push(c.fingerprint());
        // A table file name parses back to the rule set's name.
        let file = TableFile { rules_name: c.name().to_string(), sector: Sector::sliding(3, 3), kind: FileKind::Dtm };
        assert_eq!(TableFile::parse(&file.file_name()).map(|f| f.rules_name), Some(c.name().to_string()));
    }
    prints.sort_unstable();
    prints.dedup();
    assert_eq!(prints.len(), customs.len() + 1);
    // The fingerprint covers every parameter.
    let d = customs[1].description();
    assert!(d.contains("stones=10") && d.contains("flying=false"), "{d}");
    // Overrides that land on a preset take its name.
    let as_twelve = RuleSet::custom(
        "morabaraba",
        &Overrides { full_board: Some(FullBoardOutcome::WhiteLoses), ..Overrides::default() },
    )
    .unwrap();
    assert_eq!(as_twelve.name(), "twelve");
    assert_eq!(as_twelve.fingerprint(), RuleSet::preset("twelve").unwrap().fingerprint());
    // Too many stones for the board.
    let e = RuleSet::custom("six", &Overrides { stones: Some(9), ..Overrides::default() }).unwrap_err().to_string();
    assert!(e.contains("3 to 8 stones"), "{e}");
    // A custom start position has the custom stones in hand.
    let ten = &customs[0];
    let start = Position::start(ten);
    assert_eq!((start.white_in_hand(), start.black_in_hand()), (10, 10));
    assert_eq!(start.perft(ten, 2), 552);
}

#[test]
fn tables_of_one_rule_set_refuse_to_serve_another() {
    let dir = tempfile::tempdir().unwrap();
    let nine = RuleSet::preset("nine").unwrap();
    solve_sliding(&nine, dir.path(), &quiet(6)).unwrap();
    let sector = Sector::sliding(3, 3);
    let pos = Position::parse("W:a1,d7,g4 B:b6,d6,f6 w", &nine).unwrap();
    assert!(Database::open(dir.path(), nine.clone()).unwrap().value(&pos).is_ok());

    let custom =
        RuleSet::custom("nine", &Overrides { stones: Some(10), flying: Some(Flying::Never), ..Overrides::default() })
            .unwrap();
    for other in [RuleSet::preset("nine-noflying").unwrap(), custom] {
        // Under its own file name: missing, with a hint naming the rule set
        // whose tables the directory holds.
        let db = Database::open(dir.path(), other.clone()).unwrap();
        let e = db.value(&pos).unwrap_err();
        assert!(matches!(e, ProbeError::MissingTable { .. }), "{e}");
        let msg = e.to_string();
        assert!(msg.contains("nine") && msg.contains(other.name()), "{msg}");
        // A table copied under its name: refused by the fingerprint, naming
        // both rule sets.
        fs::copy(table_path(dir.path(), &nine, sector), table_path(dir.path(), &other, sector)).unwrap();
        let db = Database::open(dir.path(), other.clone()).unwrap();
        let e = db.value(&pos).unwrap_err();
        assert!(matches!(e, ProbeError::Table(TableError::RuleSetMismatch { .. })), "{e}");
        let msg = e.to_string();
        assert!(msg.contains("`nine`") && msg.contains(&format!("`{}`", other.name())), "{msg}");
        fs::remove_file(table_path(dir.path(), &other, sector)).unwrap();
    }
}

#[test]
fn sliding_phase_solves_where_it_is_defined() {
    let supported: Vec<&str> =
        PRESETS.iter().copied().filter(|p| RuleSet::preset(p).unwrap().sliding_phase_supported()).collect();
    for p in ["nine", "nine-noflying", "nine-diagonal", "twelve", "morabaraba", "six", "six-flying"] {
        assert!(supported.contains(&p), "{p}: {supported:?}");
    }
    assert!(!supported.contains(&"lasker"));
    // Three Men's Morris (a line wins) has a solver of its own making.
    let supported = supported.into_iter().filter(|p| !p.starts_with("three"));
    for preset in supported {
        let rules = RuleSet::preset(preset).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let report = solve_sliding(&rules, dir.path(), &quiet(7)).unwrap();
        assert_eq!(report.solved.len(), 3, "{preset}");
        let db = Database::open(dir.path(), rules.clone()).unwrap();
        // White to move closes a mill on a three-stone Black: a win in 1.
        let text = if rules.board().len() == 24 { "W:a7,d7,g4,a1 B:b6,d2,f4 w" } else { "W:b6,d6,f4,b2 B:d2,e4,c3 w" };
        let pos = Position::parse(text, &rules).unwrap();
        assert_eq!(db.value(&pos).unwrap(), Value::win(1).unwrap(), "{preset}");
    }
    // A custom rule set where stones in mills may always be removed.
    let always =
        RuleSet::custom("six", &Overrides { removal: Some(Removal::Lenient), ..Overrides::default() }).unwrap();
    assert!(always.sliding_phase_supported());
    let dir = tempfile::tempdir().unwrap();
    solve_sliding(&always, dir.path(), &quiet(7)).unwrap();
    assert!(table_path(dir.path(), &always, Sector::sliding(4, 3))
        .file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("six-"));

    // The Lasker rule changes nothing while both hands are empty: its
    // sliding sectors are those of `nine` (10 stones change no sector of 7).
    let lasker = RuleSet::preset("lasker").unwrap();
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(solve_sliding(&lasker, dir.path(), &quiet(7)).unwrap().solved.len(), 3);
    let nine_dir = tempfile::tempdir().unwrap();
    let nine = RuleSet::preset("nine").unwrap();
    solve_sliding(&nine, nine_dir.path(), &quiet(7)).unwrap();
    let (l, n) = (Database::open(dir.path(), lasker).unwrap(), Database::open(nine_dir.path(), nine).unwrap());
    for text in ["W:a7,d7,g4,a1 B:b6,d2,f4 w", "W:a4,d1,g4 B:b2,d6,f2 w", "W:a4,d1,g4 B:b2,d6,f2,d3 b"] {
        let pos = Position::parse(text, n.rules()).unwrap();
        assert_eq!(l.value(&pos).unwrap(), n.value(&pos).unwrap(), "{text}");
    }

    // One removal per mill is not solved yet: a clear error naming it.
    let rules = RuleSet::custom("nine", &Overrides { remove_per_mill: Some(true), ..Overrides::default() }).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = solve_sliding(&rules, dir.path(), &quiet(7)).unwrap_err();
    assert!(matches!(e, SolveError::Unsupported(_)), "{}: {e}", rules.name());
    assert!(e.to_string().contains(rules.name()), "{e}");
}
