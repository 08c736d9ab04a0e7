//! The committed results (`results/nine-sliding.csv`,
//! `results/nine-placement.csv`: `morris stats --format csv` of the solved
//! `nine` tables) checked without the tables:
//!
//! - every row's canonical positions against an independent count: the
//!   orbits of (side to move's stones, opponent's stones) under the 16
//!   symmetries of the 24-point board, by Burnside's lemma, with the
//!   symmetries written here as moves of the 7x7 grid (the dihedral group
//!   of the square times the swap of the inner and outer rings), not taken
//!   from `morris-db`;
//! - the 49 sliding sectors sum to 8,904,593,601 canonical positions, the
//!   published total (Gévay and Danner 2016);
//! - wins + losses + draws = positions on every row, longest wins odd and
//!   longest losses even, empty exactly when there is none;
//! - the published rows: 3-3, 3-4, 4-3 (counts and longest distances) and
//!   4-4 (counts), as Gévay and Danner's Malom database gives them (also in
//!   the project's oracle notes); the empty board a draw (Gasser 1996);
//! - `morris stats --format csv` of a fresh solve of the sectors with at
//!   most 8 stones prints exactly the committed rows of those sectors.
//!
//! And the results of the small rule sets solved completely
//! (`results/small.sh`: `results/<name>-{sliding,placement,longest}.csv`,
//! `results/values.csv`):
//!
//! - every row of `values.csv` has as many positions and tables as its
//!   rule set's stats files; `nine` a draw with every first move a draw
//!   (Gasser 1996), `three` a win for White by the centre only (Wikipedia,
//!   "Three men's morris");
//! - every longest-win list is sorted, starts with the longest win of its
//!   stats files, names sectors that hold such a win, and writes positions
//!   of those sectors (the FEN, where there is one, the same position);
//! - a fresh solve of `three` and `six` prints exactly the committed rows
//!   (stats, longest wins, the value row but its times), and every listed
//!   position replays with `morris line` as a won line of exactly its DTM.
//! - `stats --longest` in words shows what the CSV shows, and a table it
//!   reads that is damaged is named with the checksum that failed;
//! - every verify list (`results/<name>-verify.csv`) names exactly the
//!   tables of its stats files and adds up to its `values.csv` row's
//!   `verify_s`; every timed verify's list (`<name>-verify-timing.csv`)
//!   names them too and fits in its `<name>-runs.csv` verify row.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The 24 points of the board, by name.
const POINTS: [&str; 24] = [
    "a7", "d7", "g7", "b6", "d6", "f6", "c5", "d5", "e5", "a4", "b4", "c4", "e4", "f4", "g4", "c3", "d3", "e3", "b2",
    "d2", "f2", "a1", "d1", "g1",
];

/// A move of the 7x7 grid, on coordinates 0..=6.
type Move = fn(i32, i32) -> (i32, i32);

/// The 16 symmetries of the 24-point board as permutations of [`POINTS`]:
/// the 8 moves of the square (on grid coordinates 0..=6) each with and
/// without the swap of the outer and inner rings (coordinates 0 <-> 2 and
/// 4 <-> 6 on both axes; the middle ring stays).
fn symmetries() -> Vec<[usize; 24]> {
    let xy = |name: &str| {
        let b = name.as_bytes();
        ((b[0] - b'a') as i32, (b[1] - b'1') as i32)
    };
    let swap = |v: i32| match v {
        0 => 2,
        2 => 0,
        4 => 6,
        6 => 4,
        v => v,
    };
    let square: [Move; 8] = [
        |x, y| (x, y),
        |x, y| (6 - x, y),
        |x, y| (x, 6 - y),
        |x, y| (6 - x, 6 - y),
        |x, y| (y, x),
        |x, y| (6 - y, x),
        |x, y| (y, 6 - x),
        |x, y| (6 - y, 6 - x),
    ];
    let mut out = Vec::new();
    for g in square {
        for rings in [false, true] {
            let mut perm = [0; 24];
            for (i, name) in POINTS.iter().enumerate() {
                let (mut x, mut y) = xy(name);
                if rings {
                    (x, y) = (swap(x), swap(y));
                }
                let (x, y) = g(x, y);
                perm[i] = POINTS.iter().position(|p| xy(p) == (x, y)).expect("a symmetry maps points to points");
            }
            out.push(perm);
        }
    }
    let distinct: BTreeSet<_> = out.iter().collect();
    assert_eq!(distinct.len(), 16);
    out
}

/// The number of orbits of pairs (w stones, b stones) on disjoint points
/// under the 16 symmetries (Burnside: the mean over the symmetries of the
/// pairs each leaves fixed; a pair is fixed when both sets are unions of the
/// symmetry's cycles, counted by the coefficient of x^w y^b in the product
/// over cycles of length L of 1 + x^L + y^L).
fn canonical_positions(symmetries: &[[usize; 24]], w: usize, b: usize) -> u64 {
    let mut total = 0u64;
    for perm in symmetries {
        let mut seen = [false; 24];
        // poly[i][j]: the coefficient of x^i y^j.
        let mut poly = vec![vec![0u64; b + 1]; w + 1];
        poly[0][0] = 1;
        for start in 0..24 {
            if seen[start] {
                continue;
            }
            let mut len = 0;
            let mut p = start;
            while !seen[p] {
                seen[p] = true;
                p = perm[p];
                len += 1;
            }
            let mut next = poly.clone();
            for i in 0..=w {
                for j in 0..=b {
                    if i + len <= w {
                        next[i + len][j] += poly[i][j];
                    }
                    if j + len <= b {
                        next[i][j + len] += poly[i][j];
                    }
                }
            }
            poly = next;
        }
        total += poly[w][b];
    }
    assert_eq!(total % 16, 0);
    total / 16
}

/// One row of a committed CSV.
#[derive(Debug)]
struct Row {
    line: String,
    sector: Vec<usize>,
    positions: u64,
    wins: u64,
    losses: u64,
    draws: u64,
    max_win: Option<u32>,
    max_loss: Option<u32>,
}

const HEADER: &str = "sector,positions,wins,losses,draws,max_win,max_loss,reachable,rules";

/// The rows of `results/<name>`, a file of `nine`.
fn read_csv(name: &str) -> Vec<Row> {
    read_csv_of(name, "nine")
}

/// The rows of `results/<name>`, whose `rules` column must be `rules`.
fn read_csv_of(name: &str, rules: &str) -> Vec<Row> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(HEADER), "{name}: header");
    lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f.len(), 9, "{name}: {line}");
            assert_eq!(f[8], rules, "{name}: {line}");
            let n = |s: &str| s.parse::<u64>().unwrap_or_else(|e| panic!("{name}: {line}: {e}"));
            let opt = |s: &str| (!s.is_empty()).then(|| n(s) as u32);
            Row {
                line: line.to_string(),
                sector: f[0].split('-').map(|s| n(s) as usize).collect(),
                positions: n(f[1]),
                wins: n(f[2]),
                losses: n(f[3]),
                draws: n(f[4]),
                max_win: opt(f[5]),
                max_loss: opt(f[6]),
            }
        })
        .collect()
}

/// What every row must satisfy: counts that add up to the independent
/// count of canonical positions, and longest distances of the right parity
/// that are there exactly when there are wins (losses).
fn check_row(row: &Row, symmetries: &[[usize; 24]]) {
    let (w, b) = (row.sector[0], row.sector[1]);
    assert_eq!(row.positions, canonical_positions(symmetries, w, b), "{}", row.line);
    assert_eq!(row.wins + row.losses + row.draws, row.positions, "{}", row.line);
    assert_eq!(row.max_win.is_some(), row.wins > 0, "{}", row.line);
    assert_eq!(row.max_loss.is_some(), row.losses > 0, "{}", row.line);
    assert!(row.max_win.is_none_or(|d| d % 2 == 1), "{}", row.line);
    assert!(row.max_loss.is_none_or(|d| d % 2 == 0), "{}", row.line);
}

/// The 49 sliding rows of a 24-point game with 9 stones: one per sector
/// w-b (3 <= w, b <= 9), each passing [`check_row`], and together Gévay and
/// Danner's (2016) 8,904,593,601 canonical positions.
fn check_sliding_rows(rows: &[Row]) {
    let symmetries = symmetries();
    let sectors: BTreeSet<(usize, usize)> = rows.iter().map(|r| (r.sector[0], r.sector[1])).collect();
    let expected: BTreeSet<(usize, usize)> = (3..=9).flat_map(|w| (3..=9).map(move |b| (w, b))).collect();
    assert_eq!(rows.len(), 49);
    assert_eq!(sectors, expected, "one row per sliding sector w-b, 3 <= w, b <= 9");
    for row in rows {
        assert_eq!(row.sector.len(), 2, "{}", row.line);
        check_row(row, &symmetries);
    }
    assert_eq!(rows.iter().map(|r| r.positions).sum::<u64>(), 8_904_593_601);
}

#[test]
fn sliding_results_add_up_to_the_published_counts() {
    let rows = read_csv("nine-sliding.csv");
    check_sliding_rows(&rows);

    // Published rows (Gévay and Danner's Malom database, whose counts agree
    // with an independent solver; the longest 3-3 loss of 26 plies also in
    // Gasser 1996). 4-4: counts only.
    let published = [
        ("3-3", 140_621, 28_736, 269, Some(25), Some(26)),
        ("3-4", 102_281, 0, 658_117, Some(33), None),
        ("4-3", 75_397, 3_095, 681_906, Some(1), Some(32)),
    ];
    for (sector, wins, losses, draws, max_win, max_loss) in published {
        let row = rows.iter().find(|r| r.line.starts_with(&format!("{sector},"))).unwrap();
        assert_eq!(
            (row.wins, row.losses, row.draws, row.max_win, row.max_loss),
            (wins, losses, draws, max_win, max_loss),
            "{sector}"
        );
    }
    let row = rows.iter().find(|r| r.line.starts_with("4-4,")).unwrap();
    assert_eq!((row.wins, row.losses, row.draws), (159, 29, 3_225_409), "4-4");
}

/// Issue 14: the seeds' base game without flying has the same sliding
/// sectors as `nine` (the same board and stones), so its 49 rows must add
/// up to the same independent counts, Burnside's per row and Gévay and
/// Danner's total.
#[test]
fn noflying_sliding_results_add_up_to_the_same_counts() {
    check_sliding_rows(&read_csv_of("nine-noflying-sliding.csv", "nine-noflying"));
}

/// Issue 14: the board with diagonals has the same points and the same 16
/// symmetries (each maps the four diagonals onto themselves), so the same
/// counts per sector as `nine`, whatever the values.
#[test]
fn diagonal_sliding_results_add_up_to_the_same_counts() {
    check_sliding_rows(&read_csv_of("nine-diagonal-sliding.csv", "nine-diagonal"));
}

/// Issue 14: the same for the board with diagonals without flying.
#[test]
fn diagonal_noflying_sliding_results_add_up_to_the_same_counts() {
    check_sliding_rows(&read_csv_of("nine-diagonal-noflying-sliding.csv", "nine-diagonal-noflying"));
}

#[test]
fn placement_results_add_up() {
    check_placement_rows(&read_csv("nine-placement.csv"), Start::Draw);
}

/// Issue 14: the same board, so the same 449 sectors and the same counts
/// of positions as `nine`, whatever the values.
#[test]
fn noflying_placement_results_add_up_to_the_same_counts() {
    check_placement_rows(&read_csv_of("nine-noflying-placement.csv", "nine-noflying"), Start::Draw);
}

/// Issue 14: the board with diagonals, likewise.
#[test]
fn diagonal_placement_results_add_up_to_the_same_counts() {
    check_placement_rows(&read_csv_of("nine-diagonal-placement.csv", "nine-diagonal"), Start::Win);
}

/// The value of the empty board, established outside the placement tables.
#[derive(Clone, Copy, PartialEq)]
enum Start {
    /// `nine`: Gasser 1996, Gévay and Danner 2016; `nine-noflying`:
    /// `morris prove`, a search that reads no placement table (docs/results.md).
    Draw,
    /// `nine-diagonal`: `morris prove` likewise
    /// (`results/nine-diagonal-prove.txt`).
    Win,
}

/// The placement rows of a rule set on the 24-point board with 9 stones
/// each (`nine`, `nine-noflying`, `nine-diagonal`): sectors, counts per row
/// and in all, and the empty board's value.
fn check_placement_rows(rows: &[Row], start_value: Start) {
    let symmetries = symmetries();
    // Malom's standard database has the same 449 placement sectors (its
    // `std.secval`): the 48 with an empty opponent after a move cannot
    // occur and are not solved (`RuleSet::sector_occurs`).
    assert_eq!(rows.len(), 449, "the 449 placement sectors of Malom's std.secval");
    let sectors: BTreeSet<&[usize]> = rows.iter().map(|r| &r.sector[..]).collect();
    assert_eq!(sectors.len(), rows.len(), "one row per sector");
    for row in rows {
        let s = &row.sector;
        assert_eq!(s.len(), 4, "{}", row.line);
        let (w, b, wh, bh) = (s[0], s[1], s[2], s[3]);
        // Stones in hand: White to move with as many as Black, or Black to
        // move with one more; nobody above 9 stones.
        assert!(wh + bh > 0 && (wh == bh || wh == bh + 1), "{}", row.line);
        assert!(w + wh <= 9 && b + bh <= 9, "{}", row.line);
        assert!(b > 0 || (w, wh, bh) == (0, 9, 9), "an empty opponent only at the start: {}", row.line);
        check_row(row, &symmetries);
    }
    let start = rows.iter().find(|r| r.line.starts_with("0-0-9-9,")).unwrap();
    let expected = if start_value == Start::Draw { (1, 0, 1) } else { (1, 1, 0) };
    assert_eq!((start.positions, start.wins, start.draws), expected, "{}", start.line);
    // The README's figure (a regression check: no outside source counts
    // the placement positions this way).
    assert_eq!(rows.iter().map(|r| r.positions).sum::<u64>(), 17_856_741_338);
}

#[test]
fn a_fresh_solve_prints_the_committed_rows() {
    let dir = tempfile::tempdir().unwrap();
    let morris = env!("CARGO_BIN_EXE_morris");
    let solve = Command::new(morris)
        .args(["solve", "--rules", "nine", "--max-stones", "8", "-q", "--db"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(solve.status.success(), "{}", String::from_utf8_lossy(&solve.stderr));
    let stats = Command::new(morris).args(["stats", "--format", "csv", "--db"]).arg(dir.path()).output().unwrap();
    assert!(stats.status.success(), "{}", String::from_utf8_lossy(&stats.stderr));
    let committed: Vec<String> = std::iter::once(HEADER.to_string())
        .chain(read_csv("nine-sliding.csv").into_iter().filter(|r| r.sector.iter().sum::<usize>() <= 8).map(|r| r.line))
        .collect();
    assert_eq!(committed.len(), 7);
    assert_eq!(String::from_utf8(stats.stdout).unwrap(), committed.join("\n") + "\n");
}

// ---------------------------------------------------------------------------
// The small rule sets: values.csv and the longest wins

use morris_db::store::NamedRules;
use morris_db::Position;

const VALUES_HEADER: &str = "rules,start,first_moves,positions,tables,solve_s,verify_s";
const LONGEST_HEADER: &str = "rank,rules,sector,dtm,position,fen";

fn results_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../results")
}

/// The lines of a committed file.
fn committed(name: &str) -> Vec<String> {
    let path = results_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().map(str::to_string).collect()
}

/// The fields of a CSV line; a field in double quotes may hold commas.
fn fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out
}

/// The stats rows of one file prefix (`six`, `lasker-6`): sector, positions
/// and longest win of each, and the rule set's name the rows carry.
fn stats_rows(prefix: &str) -> (String, Vec<(String, u64, Option<u32>)>) {
    let mut name = None;
    let mut rows = Vec::new();
    for part in ["sliding", "placement"] {
        let lines = committed(&format!("{prefix}-{part}.csv"));
        assert_eq!(lines[0], HEADER, "{prefix}-{part}.csv");
        for line in &lines[1..] {
            let f = fields(line);
            assert_eq!(f.len(), 9, "{line}");
            assert_eq!(f[0].split('-').count(), if part == "sliding" { 2 } else { 4 }, "{prefix}-{part}.csv: {line}");
            assert_eq!(*name.get_or_insert_with(|| f[8].clone()), f[8], "{line}");
            rows.push((f[0].clone(), f[1].parse().unwrap(), (!f[5].is_empty()).then(|| f[5].parse().unwrap())));
        }
    }
    (name.expect("stats rows"), rows)
}

/// The 16 mills of the 24-point board, as sets of [`POINTS`] (bit `i` for
/// `POINTS[i]`): the three points of each row and each column of the grid
/// that are joined by lines.
fn mills() -> Vec<u32> {
    let lines = [
        "a7 d7 g7", "b6 d6 f6", "c5 d5 e5", "a4 b4 c4", "e4 f4 g4", "c3 d3 e3", "b2 d2 f2", "a1 d1 g1", "a7 a4 a1",
        "b6 b4 b2", "c5 c4 c3", "d7 d6 d5", "d3 d2 d1", "e5 e4 e3", "f6 f4 f2", "g7 g4 g1",
    ];
    lines
        .iter()
        .map(|l| l.split(' ').map(|p| 1u32 << POINTS.iter().position(|q| *q == p).expect("a point")).sum())
        .collect()
}

/// `results/nine-reach-counts.csv` (`morris reach --counts-only`, no
/// tables): its rows add up to its `all` row, and its `9-9` row is what
/// the rules alone say. With 9 stones each on the board, no stone was ever
/// removed; every mill closed (by a placement or a move) removes a stone,
/// so no mill was ever closed, and no position of `9-9` holds one. And
/// every pair of disjoint 9-point sets without a mill arises, with the
/// first set's colour to move: placed in any order (no subset of them
/// holds a mill), they are the position after the last placement, White to
/// move. So the reachable positions of `9-9` are the ordered pairs of
/// disjoint mill-free 9-point sets: counted here on the board, and as
/// orbits under the 16 symmetries (each pair with the first set the
/// smallest of its images, the second the smallest under the symmetries
/// that fix the first).
#[test]
fn nine_reach_counts_add_up_and_nine_nine_is_every_position_without_a_mill() {
    let lines = committed("nine-reach-counts.csv");
    assert_eq!(
        lines[0],
        "sector,positions,reachable,wins,draws,losses,board_reachable,board_wins,board_draws,board_losses,rules"
    );
    let rows: Vec<Vec<String>> = lines[1..].iter().map(|l| fields(l)).collect();
    let (all, sectors) = rows.split_last().expect("rows");
    assert_eq!(all[0], "all");
    let sum = |col: usize| sectors.iter().map(|f| f[col].parse::<u64>().expect("a count")).sum::<u64>();
    assert_eq!(sum(2).to_string(), all[2]);
    assert_eq!(sum(6).to_string(), all[6]);
    for f in &rows {
        assert_eq!(f[10], "nine", "{f:?}");
        for col in [1, 3, 4, 5, 7, 8, 9] {
            assert_eq!(f[col], "", "counted without values: {f:?}");
        }
    }
    let nine_nine = sectors.iter().find(|f| f[0] == "9-9").expect("a 9-9 row");

    let symmetries = symmetries();
    let apply =
        |perm: &[usize; 24], set: u32| -> u32 { (0..24).filter(|&i| set >> i & 1 == 1).map(|i| 1u32 << perm[i]).sum() };
    let mills = mills();
    let mill_free = |set: u32| mills.iter().all(|&m| set & m != m);
    let nines = |within: u32| {
        // The 9-point subsets of `within` (Gosper's step over its points).
        let points: Vec<usize> = (0..24).filter(|&i| within >> i & 1 == 1).collect();
        let n = points.len();
        let mut out = Vec::new();
        let mut c: u32 = (1 << 9) - 1;
        while c < 1 << n {
            out.push((0..n).filter(|&i| c >> i & 1 == 1).map(|i| 1u32 << points[i]).sum::<u32>());
            let low = c & c.wrapping_neg();
            let high = c + low;
            c = (((high ^ c) >> 2) / low) | high;
        }
        out
    };
    let (mut board, mut canonical) = (0u64, 0u64);
    for first in nines((1 << 24) - 1).into_iter().filter(|&f| mill_free(f)) {
        let images: Vec<u32> = symmetries.iter().map(|g| apply(g, first)).collect();
        if images.iter().any(|&i| i < first) {
            continue;
        }
        let stabiliser: Vec<&[usize; 24]> =
            symmetries.iter().zip(&images).filter(|(_, &i)| i == first).map(|(g, _)| g).collect();
        let orbit = (symmetries.len() / stabiliser.len()) as u64;
        for second in nines(!first & ((1 << 24) - 1)).into_iter().filter(|&s| mill_free(s)) {
            board += orbit;
            canonical += u64::from(stabiliser.len() == 1 || stabiliser.iter().all(|g| apply(g, second) >= second));
        }
    }
    assert_eq!(nine_nine[2], canonical.to_string(), "canonical");
    assert_eq!(nine_nine[6], board.to_string(), "on the board");
}

/// The `reachable` column of the stats files of every rule set with a
/// `-reach.csv` is the reachable count that `morris reach` wrote there
/// (the same bitmaps, read by two commands), sector by sector; where there
/// is no `-reach.csv` the column is empty.
#[test]
fn the_reachable_column_agrees_with_the_reach_files() {
    let reach = prefixes("-reach.csv");
    assert!(reach.iter().any(|p| p == "seven"), "{reach:?}");
    for prefix in prefixes("-sliding.csv") {
        let mut from_reach = std::collections::BTreeMap::new();
        if reach.contains(&prefix) {
            for line in &committed(&format!("{prefix}-reach.csv"))[1..] {
                let f = fields(line);
                if f[0] != "all" {
                    from_reach.insert(f[0].clone(), f[2].clone());
                }
            }
        }
        for part in ["sliding", "placement"] {
            let file = format!("{prefix}-{part}.csv");
            if !results_dir().join(&file).exists() {
                continue;
            }
            for line in &committed(&file)[1..] {
                let f = fields(line);
                let want = from_reach.remove(&f[0]).unwrap_or_default();
                assert_eq!(f[7], want, "{file}: {line}");
            }
        }
        assert!(from_reach.is_empty(), "{prefix}: sectors of -reach.csv without a stats row: {from_reach:?}");
    }
}

/// The file prefixes of the committed files named `<prefix><suffix>`
/// (`-longest.csv`: the longest-win lists), sorted.
fn prefixes(suffix: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(results_dir())
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().into_string().ok()?.strip_suffix(suffix).map(str::to_string))
        .collect();
    out.sort();
    out
}

/// The `values.csv` row of rule set `name`, split into its fields.
fn values_row(values: &[String], name: &str) -> Vec<String> {
    values.iter().map(|l| fields(l)).find(|f| f[0] == name).unwrap_or_else(|| panic!("no values.csv row for {name}"))
}

#[test]
fn values_csv_agrees_with_the_stats_files_and_the_published_values() {
    let lines = committed("values.csv");
    assert_eq!(lines[0], VALUES_HEADER);
    let mut by_name = std::collections::BTreeMap::new();
    for prefix in prefixes("-longest.csv") {
        let (name, rows) = stats_rows(&prefix);
        by_name.insert(name, rows);
    }
    let prove_names = prefixes("-prove.txt");
    assert!(prove_names.iter().any(|p| p == "nine-diagonal"), "{prove_names:?}");
    let mut seen = BTreeSet::new();
    for line in &lines[1..] {
        let f = fields(line);
        assert_eq!(f.len(), 7, "{line}");
        assert!(seen.insert(f[0].clone()), "one row per rule set: {line}");
        let rows = by_name.get(&f[0]).unwrap_or_else(|| panic!("no stats files for {line}"));
        assert_eq!(f[3].parse::<u64>().unwrap(), rows.iter().map(|r| r.1).sum::<u64>(), "positions: {line}");
        assert_eq!(f[4].parse::<usize>().unwrap(), rows.len(), "tables: {line}");
        for t in [&f[5], &f[6]] {
            assert!(t.is_empty() || t.parse::<f64>().is_ok_and(|s| s >= 0.0), "{line}");
        }
        let moves: Vec<(&str, &str)> = f[2].split(';').map(|m| m.split_once('=').expect("move=value")).collect();
        // The search over the placement phase (`morris prove --divide`,
        // which reads only the sliding tables), where committed, found the
        // same values: the start and each first move.
        if prove_names.contains(&f[0]) {
            let prove = committed(&format!("{}-prove.txt", f[0]));
            let by_search: Vec<(String, String)> = prove
                .iter()
                .filter_map(|l| {
                    let mut w = l.split_whitespace();
                    let (m, v) = (w.next()?, w.next()?);
                    (m.len() == 2 && w.next().is_some()).then(|| (m.to_string(), v.to_string()))
                })
                .collect();
            assert_eq!(by_search.len(), moves.len(), "{prove:?}");
            let start = prove
                .iter()
                .find_map(|l| l.strip_suffix(" (by search)")?.rsplit_once(": ").map(|(_, v)| v.to_string()))
                .unwrap_or_else(|| panic!("no start value: {prove:?}"));
            assert_eq!(f[1].split('(').next().unwrap(), start, "{line}");
            for (m, v) in by_search {
                let table = moves.iter().find(|(tm, _)| *tm == m).unwrap_or_else(|| panic!("{m}: {line}")).1;
                assert_eq!(table.split('(').next().unwrap(), v, "{m}: {line}");
            }
        }
        match f[0].as_str() {
            // Gasser 1996: a draw; every first move draws (a1, a4, b2, b4
            // up to symmetry).
            "nine" => {
                assert_eq!(f[1], "Draw", "{line}");
                assert_eq!(moves, [("a1", "Draw"), ("a4", "Draw"), ("b2", "Draw"), ("b4", "Draw")], "{line}");
            }
            // White wins, and only by opening in the centre.
            "three" => {
                assert!(f[1].starts_with("Win("), "{line}");
                let wins: Vec<&str> = moves.iter().filter(|(_, v)| v.starts_with("Win(")).map(|(m, _)| *m).collect();
                assert_eq!(wins, ["b2"], "{line}");
            }
            _ => {}
        }
    }
    assert!(seen.contains("nine") && seen.contains("three"), "{lines:?}");
}

/// The seconds of a committed per-table list (`sector,wall_s`, such as
/// `results/<prefix>-verify.csv`), added up, after checking that it names
/// exactly the tables of `rows` (the rule set's stats files), each once.
fn table_seconds(file: &str, rows: &[(String, u64, Option<u32>)]) -> f64 {
    let lines = committed(file);
    assert_eq!(lines[0], "sector,wall_s", "{file}");
    let mut listed = BTreeSet::new();
    let mut seconds = 0.0;
    for line in &lines[1..] {
        let (sector, s) = line.split_once(',').unwrap_or_else(|| panic!("{file}: {line}"));
        assert!(listed.insert(sector.to_string()), "{file}: listed twice: {line}");
        seconds += s.parse::<f64>().unwrap_or_else(|e| panic!("{file}: {line}: {e}"));
    }
    let tables: BTreeSet<String> = rows.iter().map(|r| r.0.clone()).collect();
    assert_eq!(listed, tables, "{file}: not the tables of the stats files");
    seconds
}

/// Every committed verify list (`results/<prefix>-verify.csv`, written by
/// `results/whole.sh`: each table's wall seconds, appended when it passed
/// `morris verify`) names exactly the tables of the rule set's stats files,
/// each once, and its seconds add up to the `verify_s` of the rule set's
/// `values.csv` row: the row's claim that every table was verified.
#[test]
fn verify_lists_name_every_table_and_add_up_to_the_values_row() {
    let prefixes = prefixes("-verify.csv");
    assert!(prefixes.iter().any(|p| p == "nine-diagonal"), "{prefixes:?}");
    let values = committed("values.csv");
    for prefix in prefixes {
        let (name, rows) = stats_rows(&prefix);
        let seconds = table_seconds(&format!("{prefix}-verify.csv"), &rows);
        let row = values_row(&values, &name);
        let verify_s: f64 = row[6].parse().unwrap_or_else(|e| panic!("{name}: verify_s {:?}: {e}", row[6]));
        assert!((verify_s - seconds).abs() <= 0.5, "{name}: verify_s {verify_s}, the list adds up to {seconds}");
    }
}

/// Every committed timed run (`results/<prefix>-runs.csv`, written by
/// `results/timed.sh`: each step one process under `/usr/bin/time -v`) has
/// the columns of issue 15 and the version that produced each row (issue
/// 38), at most one row per step; its solve row's wall
/// seconds are the `solve_s` of the rule set's `values.csv` row, and cover the
/// per-table timings of that run (`<prefix>-sliding-timing.csv`, a pair
/// `w-b/b-w` standing for both its sectors, and `-placement-timing.csv`),
/// which name exactly the tables of the stats files, each once.
#[test]
fn timed_runs_name_every_table_and_agree_with_the_values_row() {
    let prefixes = prefixes("-runs.csv");
    assert!(prefixes.iter().any(|p| p == "nine"), "{prefixes:?}");
    let values = committed("values.csv");
    for prefix in prefixes {
        let (name, rows) = stats_rows(&prefix);
        let lines = committed(&format!("{prefix}-runs.csv"));
        assert_eq!(
            lines[0], "step,wall_s,cpu_s,peak_rss_mib,disk_peak_gb,disk_final_gb,quiet,version",
            "{prefix}-runs.csv"
        );
        let mut steps = BTreeSet::new();
        let mut solve_wall = None;
        for line in &lines[1..] {
            let f = fields(line);
            assert_eq!(f.len(), 8, "{prefix}-runs.csv: {line}");
            assert!(
                ["solve", "verify", "export-wdl"].contains(&f[0].as_str()) && steps.insert(f[0].clone()),
                "{prefix}-runs.csv: {line}"
            );
            for n in &f[1..6] {
                assert!(n.parse::<f64>().is_ok_and(|x| x >= 0.0), "{prefix}-runs.csv: {line}");
            }
            assert!(f[6] == "yes" || f[6].contains("no (load up to ") || f[6].starts_with("resumed; "), "{line}");
            // `morris --version`'s number and the commit built: `0.1.0 (4192461)`.
            let (number, commit) =
                f[7].split_once(" (").unwrap_or_else(|| panic!("{prefix}-runs.csv: version: {line}"));
            assert!(number.split('.').count() == 3 && number.split('.').all(|n| n.parse::<u32>().is_ok()), "{line}");
            assert!(
                commit.strip_suffix(')').is_some_and(|c| c.len() >= 7 && c.chars().all(|c| c.is_ascii_hexdigit())),
                "{line}"
            );
            if f[0] == "solve" {
                solve_wall = Some(f[1].parse::<f64>().unwrap());
            }
        }
        let row = values_row(&values, &name);
        let Some(wall) = solve_wall else { continue };
        let solve_s: f64 = row[5].parse().unwrap_or_else(|e| panic!("{name}: solve_s {:?}: {e}", row[5]));
        assert_eq!(solve_s, wall, "{name}: values.csv's solve_s is the timed run's");
        let mut listed = BTreeSet::new();
        let mut seconds = 0.0;
        for (part, header) in [("sliding", "pair"), ("placement", "sector")] {
            let lines = committed(&format!("{prefix}-{part}-timing.csv"));
            // Runs before the store's time was logged have no `store_s`.
            let columns = fields(&lines[0]).len();
            assert!(
                [4, 5].contains(&columns)
                    && lines[0].starts_with(&format!("{header},initialise_s,iterate_s,plies"))
                    && (columns == 4 || lines[0].ends_with(",store_s")),
                "{prefix}-{part}-timing.csv: {}",
                lines[0]
            );
            for line in &lines[1..] {
                let f = fields(line);
                assert_eq!(f.len(), columns, "{prefix}-{part}-timing.csv: {line}");
                if columns == 5 {
                    seconds += f[4].parse::<f64>().unwrap();
                }
                for table in f[0].split('/') {
                    assert!(listed.insert(table.to_string()), "{prefix}-{part}-timing.csv: listed twice: {line}");
                }
                seconds += f[1].parse::<f64>().unwrap() + f[2].parse::<f64>().unwrap();
                f[3].parse::<u32>().unwrap_or_else(|e| panic!("{line}: {e}"));
            }
        }
        let tables: BTreeSet<String> = rows.iter().map(|r| r.0.clone()).collect();
        assert_eq!(listed, tables, "{prefix}: the timings are not of the stats files' tables");
        assert!(seconds <= wall, "{name}: the tables took {seconds} s, more than the run's {wall} s");
    }
}

/// Every committed timed verify's per-table seconds
/// (`results/<prefix>-verify-timing.csv`, written by `results/timed.sh`
/// from the log of the timed `morris verify`) names exactly the tables of
/// the stats files, each once, and adds up to no more than the wall
/// seconds of the verify row of `results/<prefix>-runs.csv`, which the
/// file belongs to.
#[test]
fn timed_verify_lists_every_table_within_the_runs_verify_row() {
    let prefixes = prefixes("-verify-timing.csv");
    assert!(prefixes.iter().any(|p| p == "nine"), "{prefixes:?}");
    for prefix in prefixes {
        let (_, rows) = stats_rows(&prefix);
        let seconds = table_seconds(&format!("{prefix}-verify-timing.csv"), &rows);
        let runs = committed(&format!("{prefix}-runs.csv"));
        let wall: f64 = runs
            .iter()
            .map(|l| fields(l))
            .find(|f| f[0] == "verify")
            .unwrap_or_else(|| panic!("{prefix}-runs.csv has no verify row for {prefix}-verify-timing.csv"))[1]
            .parse()
            .unwrap();
        assert!(seconds <= wall, "{prefix}: the tables took {seconds} s, more than the verify's {wall} s");
    }
}

#[test]
fn longest_wins_agree_with_the_stats_files() {
    let prefixes = prefixes("-longest.csv");
    assert!(prefixes.iter().any(|p| p == "three") && prefixes.iter().any(|p| p == "six"), "{prefixes:?}");
    for prefix in prefixes {
        let (name, rows) = stats_rows(&prefix);
        let rules = NamedRules::parse(&name).unwrap().preset;
        let lines = committed(&format!("{prefix}-longest.csv"));
        assert_eq!(lines[0], LONGEST_HEADER, "{prefix}");
        assert_eq!(lines.len(), 11, "{prefix}: the top 10");
        let longest = rows.iter().filter_map(|r| r.2).max().unwrap();
        let mut previous = u32::MAX;
        for (i, line) in lines[1..].iter().enumerate() {
            let f = fields(line);
            assert_eq!(f.len(), 6, "{line}");
            assert_eq!(f[0], (i + 1).to_string(), "{line}");
            assert_eq!(f[1], name, "{line}");
            let dtm: u32 = f[3].parse().unwrap();
            assert!(dtm % 2 == 1 && dtm <= previous, "{prefix}: sorted, odd: {line}");
            if i == 0 {
                assert_eq!(dtm, longest, "{prefix}: the first is the longest win of any table");
            }
            previous = dtm;
            let row = rows.iter().find(|r| r.0 == f[2]).unwrap_or_else(|| panic!("{prefix}: no sector {line}"));
            assert!(row.2.is_some_and(|m| m >= dtm), "{prefix}: the sector holds no such win: {line}");
            // Parsed and validated under the rule set.
            let pos = Position::parse(&f[4], &rules).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(pos.sector().to_string(), f[2], "{line}");
            if rules.board().len() == 24 {
                assert_eq!(Position::read_for(&f[5], &rules).unwrap().0, pos, "{line}");
            } else {
                assert!(f[5].is_empty(), "no FEN off the 24-point board: {line}");
            }
        }
    }
}

/// `morris` with `args`, which must succeed; its standard output.
fn morris_ok(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_morris")).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_fresh_solve_of_three_and_six_prints_the_committed_results_and_every_longest_win_replays() {
    for name in ["three", "six"] {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().to_str().unwrap();
        morris_ok(&["solve", "--rules", name, "--phase", "all", "-q", "--db", db]);
        // The committed files were written after `morris reach` (their
        // reachable column).
        morris_ok(&["reach", "--rules", name, "--format", "csv", "--db", db]);
        let stats = morris_ok(&["stats", "--format", "csv", "--db", db]);
        let mut expected = committed(&format!("{name}-sliding.csv"));
        expected.extend(committed(&format!("{name}-placement.csv")).into_iter().skip(1));
        let mut got: Vec<String> = stats.lines().map(str::to_string).collect();
        got[1..].sort();
        expected[1..].sort();
        assert_eq!(got, expected, "{name}: stats");

        let longest = morris_ok(&["stats", "--longest", "10", "--reachable", "no", "--format", "csv", "--db", db]);
        assert_eq!(longest.lines().collect::<Vec<_>>(), committed(&format!("{name}-longest.csv")), "{name}");
        // The DTMs listed are the 10 longest wins of all slots of all
        // tables, read here one by one (no header, no pruning).
        let mut all = Vec::new();
        for t in morris_db::Store::new(dir.path()).tables().unwrap() {
            let table = morris_db::Table::open_unchecked(&t.path).unwrap();
            for slot in 0..table.header().entry_count {
                if let Some(morris_db::Value::Win(n)) = table.value(slot) {
                    all.push(u32::from(n.get()));
                }
            }
        }
        all.sort_unstable_by(|a, b| b.cmp(a));
        let listed: Vec<u32> = longest.lines().skip(1).map(|l| fields(l)[3].parse().unwrap()).collect();
        assert_eq!(listed, all[..10], "{name}");

        let value = morris_ok(&["value", "--rules", name, "--db", db, "--no-solve", "--format", "csv"]);
        let row = value.lines().nth(1).unwrap();
        let ours = committed("values.csv").into_iter().find(|l| l.starts_with(&format!("{name},"))).unwrap();
        assert_eq!(fields(row)[..5], fields(&ours)[..5], "{name}: values.csv");

        for line in longest.lines().skip(1) {
            let f = fields(line);
            let dtm: usize = f[3].parse().unwrap();
            let out = morris_ok(&["line", "--rules", name, "--db", db, &f[4]]);
            let plies = out
                .lines()
                .filter(|l| l.trim_start().split('.').next().is_some_and(|n| n.parse::<usize>().is_ok()))
                .count();
            assert_eq!(plies, dtm, "{name}: {line}\n{out}");
            assert!(out.contains(&format!("value: Win({dtm})")), "{out}");
            assert!(out.trim_end().lines().last().unwrap().contains(&format!("wins in {dtm} plies:")), "{out}");
            // The FEN names the same position.
            if !f[5].is_empty() {
                assert!(
                    morris_ok(&["line", "--rules", name, "--db", db, "--fen", &f[5]]).contains(&format!("Win({dtm})"))
                );
            }
        }
    }
}

#[test]
fn the_longest_wins_in_words_and_a_damaged_table_read_for_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().to_str().unwrap();
    morris_ok(&["solve", "--rules", "three", "--phase", "all", "-q", "--db", db]);
    let csv = morris_ok(&["stats", "--longest", "2", "--format", "csv", "--db", db]);
    let text = morris_ok(&["stats", "--longest", "2", "--db", db]);
    for line in csv.lines().skip(1) {
        let f = fields(line);
        let shown = text.lines().find(|l| l.contains(&f[4])).unwrap_or_else(|| panic!("{line} not in\n{text}"));
        assert_eq!(shown.split_whitespace().take(4).collect::<Vec<_>>(), [&f[0], &f[1], &f[2], &f[3]], "{text}");
    }
    assert!(text.contains("canonical representative"), "{text}");

    // 3-3 holds the longest win of `three`, so it is read: a changed
    // entry is found by its checksum, and nothing is listed.
    let table = dir.path().join("three_3_3_0_0.mtb");
    let mut bytes = std::fs::read(&table).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&table, bytes).unwrap();
    let out =
        Command::new(env!("CARGO_BIN_EXE_morris")).args(["stats", "--longest", "2", "--db", db]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("three_3_3_0_0.mtb") && stderr.contains("payload checksum"), "{stderr}");
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
}
