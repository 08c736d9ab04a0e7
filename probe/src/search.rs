//! A second, independent way to the value of a position with stones in
//! hand: alpha-beta search over the placement phase with the sliding
//! tables at its leaves (Gasser 1996 proved Nine Men's Morris a draw this
//! way, with an 18-ply search from the empty board). It proves win, loss or
//! draw (no DTM), and needs no placement tables.
//!
//! The transposition table is keyed by canonical position (sector and
//! index), so symmetric positions share one entry; it stores bounds, since
//! alpha-beta cut-offs give only bounds. Moves are ordered by a cheap
//! heuristic (mills first, then blocks of the opponent's open mills), which
//! changes the work but never the value.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use morris_db::moves::for_each_move;
use morris_db::{Bitboard, Move, Position, RuleSet, Sector, Table, Value};

use crate::{Database, ProbeError};

/// Win (+1), draw (0) or loss (-1) for the side to move.
pub type Wdl = i8;

/// How to search.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// Use placement tables at the leaves where they exist (else only
    /// sliding tables; placement positions are always searched).
    pub use_placement_tables: bool,
    /// Order moves by the heuristic (mills, then blocks); off: generation
    /// order.
    pub move_ordering: bool,
    /// Counts positions searched as the search goes, for progress display
    /// from another thread (shared by every searcher given the same one).
    pub progress: Option<Arc<AtomicU64>>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions { use_placement_tables: false, move_ordering: true, progress: None }
    }
}

/// Work done by a search.
#[derive(Debug, Clone, Default)]
pub struct SearchStats {
    /// Positions searched (interior nodes).
    pub nodes: u64,
    /// Leaves answered by a table.
    pub table_probes: u64,
    /// Entries in the transposition table at the end.
    pub transpositions: usize,
    /// Wall time, seconds.
    pub seconds: f64,
}

/// Entries kept in one searcher's transposition table (about 40 bytes
/// each) before it is cleared.
const MAX_TRANSPOSITIONS: usize = 40_000_000;

/// Bounds on a position's value: `lower <= value <= upper`.
#[derive(Clone, Copy)]
struct Bounds {
    lower: i8,
    upper: i8,
}

/// An alpha-beta searcher over one database; keeps its transposition table
/// between calls, so proving many positions shares work.
pub struct Prover<'a> {
    db: &'a Database,
    options: SearchOptions,
    tables: HashMap<Sector, Option<Arc<Table>>>,
    transpositions: HashMap<(Sector, u64), Bounds>,
    stats: SearchStats,
}

fn wdl(v: Value) -> Wdl {
    match v {
        Value::Win(_) => 1,
        Value::Draw => 0,
        Value::Loss(_) => -1,
    }
}

impl<'a> Prover<'a> {
    /// A searcher reading `db`'s tables.
    pub fn new(db: &'a Database, options: SearchOptions) -> Prover<'a> {
        Prover { db, options, tables: HashMap::new(), transpositions: HashMap::new(), stats: SearchStats::default() }
    }

    /// The work done so far.
    pub fn stats(&self) -> SearchStats {
        SearchStats { transpositions: self.transpositions.len(), ..self.stats.clone() }
    }

    /// Proves the value of `pos` (win, draw or loss for the side to move).
    ///
    /// # Errors
    /// [`ProbeError::InvalidPosition`] / [`ProbeError::Unreachable`] as
    /// [`Database::value`]; [`ProbeError::MissingTable`] when a sliding
    /// table the search reaches is missing; [`ProbeError::Table`] for a
    /// damaged one; [`ProbeError::Unsupported`] for the Lasker rule.
    pub fn prove(&mut self, pos: &Position) -> Result<Wdl, ProbeError> {
        let rules = self.db.rules();
        pos.validate(rules)?;
        if rules.lasker {
            return Err(ProbeError::Unsupported("search under the Lasker rule".to_string()));
        }
        if pos.them().count_ones() + (pos.them_in_hand() as u32) < 3 {
            // Same answer as the tables give.
            return self.db.value(pos).map(wdl);
        }
        let start = Instant::now();
        let v = self.search(pos.us(), pos.them(), pos.us_in_hand(), pos.them_in_hand(), -1, 1)?;
        self.stats.seconds += start.elapsed().as_secs_f64();
        Ok(v)
    }

    fn table(&mut self, sector: Sector) -> Result<Option<Arc<Table>>, ProbeError> {
        if let Some(t) = self.tables.get(&sector) {
            return Ok(t.clone());
        }
        let t = match self.db.table(sector) {
            Ok(t) => Some(t),
            Err(ProbeError::MissingTable { .. }) if !sector.is_sliding() => None,
            Err(e) => return Err(e),
        };
        self.tables.insert(sector, t.clone());
        Ok(t)
    }

    fn search(
        &mut self,
        us: Bitboard,
        them: Bitboard,
        uh: u8,
        th: u8,
        mut alpha: Wdl,
        mut beta: Wdl,
    ) -> Result<Wdl, ProbeError> {
        let rules = self.db.rules();
        if us.count_ones() + uh as u32 <= 2 {
            return Ok(-1);
        }
        if rules.line_wins && rules.has_line(them) {
            return Ok(-1);
        }
        let sector = Sector { w: us.count_ones() as u8, b: them.count_ones() as u8, wh: uh, bh: th };
        let index = rules.indexer().sector(sector.w as usize, sector.b as usize);
        if sector.is_sliding() || self.options.use_placement_tables {
            if let Some(table) = self.table(sector)? {
                self.stats.table_probes += 1;
                let slot = index.index(us, them);
                return table.value(slot).map(wdl).ok_or_else(|| {
                    ProbeError::Table(morris_db::TableError::Corrupt {
                        path: table.path().to_path_buf(),
                        field: "payload",
                        detail: format!("slot {slot} of a canonical position holds no value"),
                    })
                });
            }
        }
        self.stats.nodes += 1;
        if self.stats.nodes & 4095 == 0 {
            if let Some(p) = &self.options.progress {
                p.fetch_add(4096, Ordering::Relaxed);
            }
        }
        let key = (sector, index.index(us, them));
        if let Some(b) = self.transpositions.get(&key) {
            if b.lower >= beta || b.lower == b.upper {
                return Ok(b.lower);
            }
            if b.upper <= alpha {
                return Ok(b.upper);
            }
            alpha = alpha.max(b.lower);
            beta = beta.min(b.upper);
        }
        let (alpha0, beta0) = (alpha, beta);
        let mut moves: Vec<(i32, Move, Bitboard)> = Vec::new();
        let threats = if self.options.move_ordering { open_mills(rules, them, us) } else { 0 };
        for_each_move(rules, us, them, uh, |mv, after| {
            let score = if !self.options.move_ordering {
                0
            } else if mv.removal.is_some() || (rules.line_wins && rules.has_line(after)) {
                -2
            } else if threats & (1 << mv.to) != 0 {
                -1
            } else {
                0
            };
            moves.push((score, mv, after));
        });
        if moves.is_empty() {
            return Ok(wdl(rules.no_move_value(us, them)));
        }
        moves.sort_by_key(|m| m.0);
        let mut best = -2;
        for (_, mv, after) in moves {
            let victims = them & !mv.removals();
            let placed = if mv.from.is_none() { 1 } else { 0 };
            let v = if rules.line_wins && rules.has_line(after) {
                1
            } else {
                -self.search(victims, after, th, uh - placed, -beta, -alpha)?
            };
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        let bounds = if best <= alpha0 {
            Bounds { lower: -1, upper: best }
        } else if best >= beta0 {
            Bounds { lower: best, upper: 1 }
        } else {
            Bounds { lower: best, upper: best }
        };
        let merged = match self.transpositions.get(&key) {
            Some(old) => Bounds { lower: old.lower.max(bounds.lower), upper: old.upper.min(bounds.upper) },
            None => bounds,
        };
        if self.transpositions.len() >= MAX_TRANSPOSITIONS {
            // Bounded memory: start afresh (values stay exact, work grows).
            self.transpositions.clear();
        }
        self.transpositions.insert(key, merged);
        Ok(best)
    }
}

/// Empty points that would complete a mill of `stones` (two of a mill's
/// points held, the third empty): placing there blocks the opponent.
fn open_mills(rules: &RuleSet, stones: Bitboard, other: Bitboard) -> Bitboard {
    rules
        .board()
        .mills()
        .iter()
        .filter(|&&m| (m & stones).count_ones() == 2 && m & other == 0)
        .fold(0, |acc, &m| acc | (m & !stones))
}
