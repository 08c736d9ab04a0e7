//! The exact value of a position with stones in hand by search, distance
//! to mate included (`morris prove --dtm`): minimax over the placement
//! phase with the DTM tables of the sliding phase at its leaves.
//!
//! Alpha-beta proves win, draw or loss ([`crate::prove`]); an exact DTM
//! needs the exact value of every move that could be the best, so this
//! search visits every placement position reachable from the root once
//! (values memoised by canonical position: sector and index) and prunes
//! nothing. That is affordable for small games (every placement position of
//! `three` or `six`: thousands to a few million), not for `nine` from the
//! empty board, whose value the alpha-beta search proves instead.

use std::collections::HashMap;
use std::time::Instant;

use morris_db::moves::for_each_move;
use morris_db::{Bitboard, Color, Position, Sector, Value};

use crate::{Database, ProbeError, Prober};

/// Work done by [`prove_dtm`].
#[derive(Debug, Clone, Default)]
pub struct DtmSearchStats {
    /// Distinct placement positions valued (canonical).
    pub positions: u64,
    /// Leaves answered by a sliding table.
    pub table_probes: u64,
    /// Wall time, seconds.
    pub seconds: f64,
}

struct DtmSearch<'a> {
    db: &'a Database,
    prober: Prober,
    memo: HashMap<(Sector, u64), Value>,
    stats: DtmSearchStats,
}

/// The exact value of `pos` (`Win(n)`, `Loss(n)` in plies to the end of
/// the game, or `Draw`) by full minimax over its placement phase, reading
/// the sliding tables of `db` at the leaves; placement tables are not used,
/// so the result is a check on them. Work grows with the number of
/// placement positions reachable from `pos` (see the module docs).
///
/// # Errors
/// [`ProbeError::InvalidPosition`] / [`ProbeError::Unreachable`] as
/// [`Database::value`]; [`ProbeError::MissingTable`] when a sliding table
/// the search reaches is missing; [`ProbeError::Table`] for a damaged one;
/// [`ProbeError::Unsupported`] under the Lasker rule (its placement phase
/// is cyclic: solve its tables instead).
pub fn prove_dtm(db: &Database, pos: &Position) -> Result<(Value, DtmSearchStats), ProbeError> {
    let rules = db.rules();
    crate::tables::check_board(rules, pos)?;
    if rules.lasker() {
        return Err(ProbeError::Unsupported(
            "search under the Lasker rule (its placement phase is cyclic)".to_string(),
        ));
    }
    if pos.us_in_hand() == 0 && pos.them_in_hand() == 0 || pos.them().count_ones() + (pos.them_in_hand() as u32) < 3 {
        return Ok((db.value(pos)?, DtmSearchStats::default()));
    }
    // Refuses what the tables refuse (a line already on the board).
    if rules.line_wins() && rules.has_line(pos.us()) {
        return Err(ProbeError::unreachable(format!(
            "{} has a line, so the game ended before {} was to move",
            pos.side_to_move(),
            pos.side_to_move()
        )));
    }
    let start = Instant::now();
    let mut search = DtmSearch { db, prober: db.prober(), memo: HashMap::new(), stats: DtmSearchStats::default() };
    let v = search.value(pos.us(), pos.them(), pos.us_in_hand(), pos.them_in_hand())?;
    search.stats.positions = search.memo.len() as u64;
    search.stats.seconds = start.elapsed().as_secs_f64();
    Ok((v, search.stats))
}

impl DtmSearch<'_> {
    fn value(&mut self, us: Bitboard, them: Bitboard, uh: u8, th: u8) -> Result<Value, ProbeError> {
        let rules = self.db.rules();
        if us.count_ones() + uh as u32 <= 2 || (rules.line_wins() && rules.has_line(them)) {
            // Decided: lost, or won under misère.
            return Ok(rules.decided_value());
        }
        let (w, b) = (us.count_ones() as u8, them.count_ones() as u8);
        if uh == 0 && th == 0 {
            self.stats.table_probes += 1;
            // The side's colour does not change the value of a sliding
            // position; a child of move generation, so a trusted one.
            return self.prober.value(&Position::from_sector(Sector::sliding(w, b), Color::White, us, them));
        }
        let sector = Sector { w, b, wh: uh, bh: th };
        let key = (sector, rules.indexer().sector(Sector::sliding(w, b)).index(us, them));
        if let Some(&v) = self.memo.get(&key) {
            return Ok(v);
        }
        let mut children = Vec::new();
        for_each_move(rules, us, them, uh, |mv, after| {
            let placed = u8::from(mv.from.is_none());
            children.push((them & !mv.removals(), after, uh - placed));
        });
        let mut best: Option<Value> = None;
        for (victims, after, uh_after) in children {
            let v = if rules.line_wins() && rules.has_line(after) {
                Value::LOST.back()
            } else {
                self.value(victims, after, th, uh_after)?.back()
            };
            if best.is_none_or(|b| Value::best_first(&v, &b).is_lt()) {
                best = Some(v);
            }
        }
        let v = best.unwrap_or_else(|| rules.no_move_value(us, them));
        self.memo.insert(key, v);
        Ok(v)
    }
}
