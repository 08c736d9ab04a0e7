//! The standard game's sliding sectors 3-3, 3-4, 4-3 and 4-4 against the
//! published win/loss/draw counts and longest DTMs
//! (docs/testing.md, "The oracle": two independent solvers and Malom's files).

use morris_db::{RuleSet, Sector, Table};
use morris_solver::{solve_sliding, SolveOptions};

#[test]
fn nine_sliding_sectors_up_to_eight_stones_match_the_oracle() {
    let dir = tempfile::tempdir().unwrap();
    let rules = RuleSet::preset("nine").unwrap();
    let report = solve_sliding(&rules, dir.path(), &SolveOptions { max_stones: 8, progress: false }).unwrap();
    eprintln!("solved {} canonical positions in {:.2} s", report.positions, report.seconds);
    // (sector, wins, losses, draws, longest win, longest loss); None where
    // the oracle publishes no figure.
    type Row = (u8, u8, u64, u64, u64, Option<u32>, Option<u32>);
    let expected: [Row; 4] = [
        (3, 3, 140_621, 28_736, 269, Some(25), Some(26)),
        (3, 4, 102_281, 0, 658_117, Some(33), None),
        (4, 3, 75_397, 3_095, 681_906, Some(1), Some(32)),
        (4, 4, 159, 29, 3_225_409, None, None),
    ];
    for (w, b, wins, losses, draws, max_win, max_loss) in expected {
        let sector = Sector::sliding(w, b);
        let len = rules.indexer().sector(Sector::sliding(w, b)).len();
        let table = Table::open(dir.path(), &rules, sector, len).unwrap();
        table.verify_checksum().unwrap();
        let h = table.header();
        assert_eq!((h.wins, h.losses, h.draws), (wins, losses, draws), "sector {sector}");
        if let Some(m) = max_win {
            assert_eq!(h.own.max_win, m, "longest win of {sector}");
        }
        if let Some(m) = max_loss {
            assert_eq!(h.own.max_loss, m, "longest loss of {sector}");
        }
    }
}
