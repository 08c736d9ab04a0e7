//! Reachability (`morris_solver::reach`, `morris reach`) against the
//! reference's own move code (`morris_tests::reference_game`, which shares
//! no code with `morris-db`: its own board data, moves, no symmetry, no
//! index).
//!
//! - On small games (`three`, `three-nodiagonal`, the 16-point board with
//!   4 stones with and without flying, and with 3 stones under the Lasker
//!   rule) a plain breadth-first search over positions from the empty board
//!   with the reference's moves gives every reachable position; mapped to
//!   the database's slots (by point names, through the index only for the
//!   comparison) they must be exactly the bitmaps' bits, sector by sector,
//!   and the positions on the board (the bitmaps' image counts) exactly the
//!   search's positions, with their wins, draws and losses.
//! - On the whole of Six Men's Morris, too big for a search without
//!   symmetry here: every reachable position's children (by the
//!   reference's moves) are reachable, and every position of a sample walks
//!   back to the start through reachable parents (each parent checked by
//!   the reference's moves).

use std::collections::VecDeque;

use morris_db::reach::ReachMap;
use morris_db::store::sector_order;
use morris_db::{Overrides, RuleSet, Sector, Value};
use morris_solver::reach::{reach_all, reach_counts, start_sector, SectorReach};
use morris_solver::solve_all;
use morris_tests::reference_game::{RefGame, RefPos};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Carries sets of points between the reference's bit order and the
/// database's, by point names.
struct Points {
    to_db: Vec<u32>,
    to_ref: Vec<u32>,
}

impl Points {
    fn new(game: &RefGame, rules: &RuleSet) -> Points {
        let board = rules.board();
        assert_eq!(board.len(), game.points.len(), "{}", game.name);
        let to_db = game.points.iter().map(|n| 1u32 << board.point(n).expect("point of the board")).collect();
        let to_ref = (0..board.len() as u8).map(|p| game.bit(board.point_name(p))).collect();
        Points { to_db, to_ref }
    }

    fn map(table: &[u32], set: u32) -> u32 {
        (0..table.len()).filter(|&i| set & (1 << i) != 0).fold(0, |a, i| a | table[i])
    }

    fn db(&self, set: u32) -> u32 {
        Points::map(&self.to_db, set)
    }

    fn reference(&self, set: u32) -> u32 {
        Points::map(&self.to_ref, set)
    }
}

fn sector_of(p: RefPos) -> Sector {
    Sector { w: p.us.count_ones() as u8, b: p.them.count_ones() as u8, wh: p.us_hand, bh: p.them_hand }
}

/// The bitmaps of a database directory, opened.
struct Bitmaps {
    rules: RuleSet,
    maps: HashMap<Sector, ReachMap>,
}

impl Bitmaps {
    fn open(rules: &RuleSet, dir: &std::path::Path, reports: &[SectorReach]) -> Bitmaps {
        let maps = reports
            .iter()
            .map(|r| {
                let len = rules.indexer().sector(r.sector).len();
                let map = ReachMap::open(dir, rules, r.sector, len).expect("bitmap");
                map.verify_checksum().expect("bitmap checksum");
                (r.sector, map)
            })
            .collect();
        Bitmaps { rules: rules.clone(), maps }
    }

    /// Whether the database position `(us, them)` of `sector` is marked;
    /// `None` when the sector has no bitmap.
    fn marked(&self, sector: Sector, us: u32, them: u32) -> Option<bool> {
        let map = self.maps.get(&sector)?;
        Some(map.contains(self.rules.indexer().slot(us, them)))
    }
}

/// Solves `rules` whole, runs reachability, and compares it with the
/// reference's search position by position and in counts; returns the
/// reachable positions on the board and the number reached only through a
/// capture (fewer stones than placed).
fn agree(rules: RuleSet, game: RefGame) -> (u64, u64) {
    agree_after_rerun(rules, game, |_| false)
}

/// [`agree`], where the bitmaps of the sectors `forget` names are deleted
/// after the first run and the run is repeated: it must keep the others
/// (reading them to expand their positions) and write the forgotten ones
/// again, the same as the reference's search.
fn agree_after_rerun(rules: RuleSet, game: RefGame, forget: impl Fn(Sector) -> bool) -> (u64, u64) {
    let dir = tempfile::tempdir().expect("temp dir");
    solve_all(&rules, dir.path(), false).expect("solve");
    let mut reports = reach_all(&rules, dir.path(), |_| {}).expect("reach");
    if reports.iter().any(|r| forget(r.sector)) {
        let store = morris_db::Store::new(dir.path());
        for r in reports.iter().filter(|r| forget(r.sector)) {
            std::fs::remove_file(store.reach_path(&rules, r.sector)).expect("remove a bitmap");
        }
        reports = reach_all(&rules, dir.path(), |_| {}).expect("reach again");
        for r in &reports {
            assert_eq!(r.kept, !forget(r.sector), "{}: sector {} kept on the rerun", rules.name(), r.sector);
        }
    }
    // Counted without the tables: the same reachable positions per sector,
    // canonical and on the board (which the reference checks below), no
    // values.
    let counted = reach_counts(&rules, |_| {}).expect("reach --counts-only");
    assert_eq!(counted.len(), reports.len(), "{}", rules.name());
    for (c, r) in counted.iter().zip(&reports) {
        assert_eq!(
            (c.sector, c.header.canonical_positions, c.board.positions, c.values, c.header.wins),
            (r.sector, r.header.canonical_positions, r.board.positions, false, 0),
            "{}: counted without the tables",
            rules.name()
        );
    }
    let bitmaps = Bitmaps::open(&rules, dir.path(), &reports);
    let points = Points::new(&game, &rules);
    let mut tables: HashMap<Sector, morris_db::Table> = HashMap::default();

    // The reference's positions per sector: their slots, and their count
    // and values on the board.
    let reached = game.reachable();
    let mut slots: HashMap<Sector, HashSet<u64>> = HashMap::default();
    let mut board: HashMap<Sector, [u64; 4]> = HashMap::default();
    let (mut total, mut after_capture) = (0u64, 0u64);
    let n = rules.stones() as u32;
    for &p in &reached {
        let s = sector_of(p);
        if !bitmaps.maps.contains_key(&s) {
            // Only positions whose side to move has lost by count lack a
            // table.
            assert!(s.w + s.wh < 3, "{}: reached sector {s} has no table", rules.name());
            continue;
        }
        let (us, them) = (points.db(p.us), points.db(p.them));
        let slot = rules.indexer().slot(us, them);
        slots.entry(s).or_default().insert(slot);
        let table = tables.entry(s).or_insert_with(|| {
            morris_db::Table::open(dir.path(), &rules, s, rules.indexer().sector(s).len()).expect("table")
        });
        let value = table.value(slot).expect("a reached position has a value");
        let counts = board.entry(s).or_default();
        counts[0] += 1;
        counts[match value {
            Value::Win(_) => 1,
            Value::Draw => 2,
            Value::Loss(_) => 3,
        }] += 1;
        total += 1;
        if ((s.w + s.b + s.wh + s.bh) as u32) < 2 * n {
            after_capture += 1;
        }
    }
    let mut mismatches = Vec::new();
    for r in &reports {
        let s = r.sector;
        let map = &bitmaps.maps[&s];
        let ours: HashSet<u64> = (0..rules.indexer().sector(s).len()).filter(|&slot| map.contains(slot)).collect();
        let want = slots.remove(&s).unwrap_or_default();
        if ours != want {
            let extra = ours.difference(&want).count();
            let lacking = want.difference(&ours).count();
            mismatches.push(format!("{s}: {extra} slots marked but not reached, {lacking} reached but not marked"));
        }
        let h = &r.header;
        assert_eq!(h.canonical_positions, want.len() as u64, "{}: {s} canonical count", rules.name());
        let got = [r.board.positions, r.board.wins, r.board.draws, r.board.losses];
        let want_board = board.get(&s).copied().unwrap_or_default();
        if got != want_board {
            mismatches.push(format!("{s}: on the board {got:?}, the reference reaches {want_board:?}"));
        }
    }
    morris_tests::assert_no_mismatches(mismatches, &format!("{} sectors of {}", reports.len(), rules.name()), 20);
    (total, after_capture)
}

fn custom(preset: &str, overrides: Overrides) -> RuleSet {
    RuleSet::custom(preset, &overrides).expect("custom rule set")
}

/// Three Men's Morris, with and without diagonals: no captures, a line
/// wins. The start and every position a line ends are reached.
#[test]
fn three_mens_morris_agrees_with_a_plain_search() {
    for (rules, game) in [("three", RefGame::three(true)), ("three-nodiagonal", RefGame::three(false))] {
        let (total, _) = agree(RuleSet::preset(rules).unwrap(), game);
        eprintln!("{rules}: {total} reachable positions on the board");
        assert!(total > 1000, "{rules}: {total}");
    }
}

/// The 16-point board with 4 stones, with and without flying: captures in
/// both phases. The reference reaches many positions only through a
/// capture, so a search that skipped captures would fail here.
#[test]
fn the_sixteen_point_board_agrees_with_a_plain_search() {
    for flying in [false, true] {
        let preset = if flying { "six-flying" } else { "six" };
        let rules = custom(preset, Overrides { stones: Some(4), ..Default::default() });
        let (total, after_capture) = agree(rules, RefGame::sixteen(4, flying));
        eprintln!("{preset} --stones 4: {total} reachable positions on the board, {after_capture} after a capture");
        assert!(after_capture > 1000, "{preset}: {after_capture}");
    }
}

/// A rerun that finds some bitmaps gone writes them again from the ones it
/// keeps: here a middle group of the placement phase (4 stones in hand in
/// all) and the sliding sectors of up to 7 stones, the last groups, whose
/// positions are reached only through the kept groups before them.
#[test]
fn a_rerun_rewrites_missing_bitmaps_from_the_kept_ones() {
    let rules = custom("six", Overrides { stones: Some(4), ..Default::default() });
    let forget = |s: Sector| s.wh + s.bh == 4 || (s.is_sliding() && s.w + s.b <= 7);
    let (total, _) = agree_after_rerun(rules, RefGame::sixteen(4, false), forget);
    assert!(total > 1000, "{total}");
}

/// Under the Lasker rule a player with stones in hand may also move, so a
/// placement sector and its mirror lead into each other (a fixed point
/// within the placement phase too).
#[test]
fn the_lasker_rule_agrees_with_a_plain_search() {
    let rules = custom("six", Overrides { stones: Some(3), lasker: Some(true), ..Default::default() });
    let (total, _) = agree(rules, RefGame::sixteen(3, false).with_lasker());
    assert!(total > 1000, "{total}");
}

/// The parents of a reference position under the reference's rules: every
/// position one of whose moves leads to it, found by undoing a placement
/// or a slide (or flight), with or without a removal, and checked by the
/// reference's move generator.
fn parents(game: &RefGame, p: RefPos) -> Vec<RefPos> {
    let all = game.all();
    let empty = all & !(p.us | p.them);
    let bits = |set: u32| (0..game.points.len()).map(|i| 1u32 << i).filter(move |b| set & b != 0);
    let mut out = Vec::new();
    for t in bits(p.them) {
        // The mover (them) last moved to t: from its hand, or from a point
        // empty now; it may have removed a stone of ours from a point empty
        // now.
        let mut sources: Vec<(u32, u8)> = bits(empty).map(|f| (p.them & !t | f, p.them_hand)).collect();
        if p.them_hand < game.stones {
            sources.push((p.them & !t, p.them_hand + 1));
        }
        for (mover, hand) in sources {
            let free = empty & !mover;
            let victims = std::iter::once(p.us).chain(bits(free).map(|r| p.us | r));
            for victim in victims {
                let parent = RefPos { us: mover, them: victim, us_hand: hand, them_hand: p.us_hand };
                if game.children(parent).contains(&p) {
                    out.push(parent);
                }
            }
        }
    }
    out
}

/// The order the search visits groups in: more stones in hand, then more
/// on the board, come first; a walk back always goes to a position
/// earlier or in the same group.
fn group_rank(p: RefPos) -> (u32, u32) {
    (u32::from(p.us_hand + p.them_hand), p.us.count_ones() + p.them.count_ones())
}

/// The whole of Six Men's Morris (and with flying): the bitmaps are closed
/// under the reference's moves (every child of a reachable position that
/// has a table is marked), and sampled marked positions walk back to the
/// start through marked parents, each a parent by the reference's moves.
/// Together: no reachable position is left out, and the sample holds no
/// position that cannot arise.
#[test]
fn six_mens_morris_is_closed_and_every_sample_walks_back_to_the_start() {
    for (preset, flying) in [("six", false), ("six-flying", true)] {
        let rules = RuleSet::preset(preset).unwrap();
        let game = RefGame::sixteen(6, flying);
        let points = Points::new(&game, &rules);
        let dir = tempfile::tempdir().expect("temp dir");
        solve_all(&rules, dir.path(), false).expect("solve");
        let reports = reach_all(&rules, dir.path(), |_| {}).expect("reach");
        let bitmaps = Bitmaps::open(&rules, dir.path(), &reports);
        let marked = |p: RefPos| bitmaps.marked(sector_of(p), points.db(p.us), points.db(p.them));

        // Closed: every marked position's children are marked.
        let mut samples = Vec::new();
        let mut checked = 0u64;
        for r in &reports {
            let index = rules.indexer().sector(r.sector);
            let map = &bitmaps.maps[&r.sector];
            let (mut k, mut next_sample) = (0u64, 0u64);
            for slot in (0..index.len()).filter(|&s| map.contains(s)) {
                let (us, them) = index.position(slot).expect("a marked slot is a canonical position");
                let p = RefPos {
                    us: points.reference(us),
                    them: points.reference(them),
                    us_hand: r.sector.wh,
                    them_hand: r.sector.bh,
                };
                for c in game.children(p) {
                    let s = sector_of(c);
                    if s.w + s.wh < 3 {
                        continue;
                    }
                    assert_eq!(marked(c), Some(true), "{preset}: child {c:?} of marked {p:?} is not marked");
                }
                checked += 1;
                // About 200 samples spread over the sectors.
                if k == next_sample {
                    samples.push(p);
                    next_sample += (r.header.canonical_positions / 2).max(1);
                }
                k += 1;
            }
            assert_eq!(k, r.header.canonical_positions, "{preset}: {}", r.sector);
        }
        assert!(checked > 100_000, "{preset}: {checked}");

        // Sound: each sample walks back to the start. From a position, go
        // to a marked parent in an earlier group if there is one; else
        // search back within the group (breadth first) for a marked
        // position that has one.
        let start = game.start();
        for &sample in &samples {
            let mut p = sample;
            let mut steps = 0;
            while p != start {
                let mut queue = VecDeque::from([p]);
                let mut seen: HashSet<RefPos> = HashSet::from_iter([p]);
                let mut next = None;
                'search: while let Some(q) = queue.pop_front() {
                    let ps: Vec<RefPos> = parents(&game, q).into_iter().filter(|&x| marked(x) == Some(true)).collect();
                    for &x in &ps {
                        if group_rank(x) > group_rank(q) {
                            next = Some(x);
                            break 'search;
                        }
                    }
                    for x in ps {
                        assert_eq!(group_rank(x), group_rank(q), "{preset}: a parent from a later group");
                        if seen.insert(x) {
                            queue.push_back(x);
                        }
                    }
                }
                p = next.unwrap_or_else(|| {
                    panic!("{preset}: marked {sample:?} does not walk back to the start (stuck at {p:?})")
                });
                steps += 1;
                assert!(steps < 1000, "{preset}: {sample:?}");
            }
        }
        assert!(samples.len() > 100, "{preset}: {} samples", samples.len());
        let start_sector = start_sector(&rules);
        assert!(reports.iter().any(|r| r.sector == start_sector && r.header.canonical_positions == 1));
        let mut order: Vec<Sector> = reports.iter().map(|r| r.sector).collect();
        order.sort_by_key(sector_order);
        assert_eq!(order, reports.iter().map(|r| r.sector).collect::<Vec<_>>(), "reports in sector order");
        eprintln!("{preset}: {checked} marked positions closed, {} samples walked back", samples.len());
    }
}
