//! The placement phase (DESIGN.md, "Solving"): sectors `w-b-wh-bh` with
//! stones in hand. Without the Lasker rule every turn places a stone, so the
//! stones in hand fall by one each ply and the sectors form a directed
//! acyclic graph; each sector is computed in one pass from the tables of the
//! sectors its moves lead to (already solved), down to the start `0-0-N-N`.
//! DTM stays exact through the change of phase: a child's distance plus one.

use std::path::Path;

use morris_db::moves::for_each_move;
use morris_db::value::{Value, PADDING_ENTRY};
use morris_db::{Bitboard, RuleSet, Sector, SectorIndex, Table};
use rayon::prelude::*;

use crate::SolveError;

/// The placement sectors of a rule set without the Lasker rule, in solving
/// order (fewest stones in hand first). The side to move places, so it has
/// stones in hand; White places first, so hands are `(k, k)` with White to
/// move or `(k + 1, k)` with Black to move. Sectors where a player has
/// fewer than 3 stones in all are left out (the game is over there).
pub fn placement_sectors(rules: &RuleSet) -> Vec<Sector> {
    let n = rules.stones;
    let points = rules.board().len() as u8;
    let mut hands: Vec<(u8, u8)> = (1..=n).map(|k| (k, k)).chain((0..n).map(|k| (k + 1, k))).collect();
    hands.sort_by_key(|&(wh, bh)| (wh + bh, wh));
    let mut sectors = Vec::new();
    for (wh, bh) in hands {
        for w in 0..=(n - wh) {
            for b in 0..=(n - bh) {
                if w + wh >= 3 && b + bh >= 3 && w + b <= points {
                    sectors.push(Sector { w, b, wh, bh });
                }
            }
        }
    }
    sectors
}

/// A solved table with its index, for child look-ups.
struct Child {
    sector: Sector,
    index: SectorIndex,
    table: Table,
}

/// Opens (and checksums) the tables a sector's moves lead to.
fn open_children(rules: &RuleSet, dir: &Path, sector: Sector) -> Result<Vec<Child>, SolveError> {
    let mut wanted = Vec::new();
    let placed = sector.wh.saturating_sub(1);
    for removed in 0..=2u8 {
        if removed <= sector.b {
            wanted.push(Sector { w: sector.b - removed, b: sector.w + 1, wh: sector.bh, bh: placed });
        }
    }
    let mut children = Vec::new();
    for s in wanted {
        if s.w + s.wh < 3 || s.w + s.b > rules.board().len() as u8 {
            continue;
        }
        let index = rules.indexer().sector(s.w as usize, s.b as usize);
        match Table::open(dir, rules, s, index.len()) {
            Ok(table) => {
                table.verify_checksum()?;
                children.push(Child { sector: s, index, table });
            }
            // Two removals at once only exist with one removal per mill.
            Err(morris_db::TableError::Missing { .. }) if s.w + 2 == sector.b => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(children)
}

/// The value of one position with the side to move placing.
fn position_value(rules: &RuleSet, children: &[Child], sector: Sector, us: Bitboard, them: Bitboard) -> Option<u16> {
    if rules.line_wins {
        if rules.has_line(us) {
            return Some(PADDING_ENTRY);
        }
        if rules.has_line(them) {
            return Some(Value::Loss(0).to_entry());
        }
    }
    let mut best_win: Option<u16> = None;
    let mut draw = false;
    let mut longest_loss = 0u16;
    let mut any = false;
    let mut missing = false;
    for_each_move(rules, us, them, sector.wh, |mv, after| {
        any = true;
        let victims = them & !mv.removals();
        let child = if victims.count_ones() + sector.bh as u32 >= 3 && !(rules.line_wins && rules.has_line(after)) {
            let s =
                Sector { w: victims.count_ones() as u8, b: after.count_ones() as u8, wh: sector.bh, bh: sector.wh - 1 };
            match children.iter().find(|c| c.sector == s) {
                Some(c) => c.table.value(c.index.index(victims, after)),
                None => None,
            }
        } else {
            Some(Value::Loss(0))
        };
        match child.map(Value::back) {
            Some(Value::Win(n)) => best_win = Some(best_win.map_or(n, |b| b.min(n))),
            Some(Value::Draw) => draw = true,
            Some(Value::Loss(n)) => longest_loss = longest_loss.max(n),
            None => missing = true,
        }
    });
    if missing {
        return None;
    }
    let value = if !any {
        rules.no_move_value(us, them)
    } else if let Some(n) = best_win {
        Value::Win(n)
    } else if draw {
        Value::Draw
    } else {
        Value::Loss(longest_loss)
    };
    Some(value.to_entry())
}

/// Solves one placement sector from its children's tables.
pub(crate) fn solve_placement_sector(rules: &RuleSet, dir: &Path, sector: Sector) -> Result<Vec<u16>, SolveError> {
    let children = open_children(rules, dir, sector)?;
    let index = rules.indexer().sector(sector.w as usize, sector.b as usize);
    let block = index.opponent_sets() as usize;
    let mut entries = vec![PADDING_ENTRY; index.len() as usize];
    let faults: usize = entries
        .par_chunks_mut(block.max(1))
        .enumerate()
        .map(|(orbit, chunk)| {
            let base = (orbit * block) as u64;
            let mut faults = 0;
            index.for_each_in_orbit(orbit, |slot, us, them| match position_value(rules, &children, sector, us, them) {
                Some(e) => chunk[(slot - base) as usize] = e,
                None => faults += 1,
            });
            faults
        })
        .sum();
    if faults > 0 {
        return Err(SolveError::Internal {
            sector,
            detail: format!("{faults} positions lead to a table that is missing or holds no value there"),
        });
    }
    Ok(entries)
}
