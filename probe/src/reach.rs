//! Whether a position can arise in a game, from the reachability bitmaps
//! `morris reach` writes beside the tables ([`morris_db::reach`]): once
//! ([`reachable`]) or through an open database that keeps each sector's
//! bitmap mapped ([`Database::reachable`]).

use std::path::Path;
use std::sync::Arc;

use morris_db::reach::{ReachFields, ReachMap};
use morris_db::storage::header::OwnFields;
use morris_db::{Position, RuleSet, SectorIndex, TableError};

use crate::Database;

/// Whether `pos` can arise in a game of `rules` from the start by legal
/// play, from its sector's bitmap in `dir`: `Some(false)` when it cannot
/// (with either colour to move: the bitmaps, as the tables, are relative
/// to the side to move), `Some(true)` when it can, `None` when `dir` holds
/// no bitmap of its sector (`morris reach` has not been run) or the
/// sector has no table (the game is over there by count). Each call maps
/// the sector's bitmap and checks its header; the payload checksum is not
/// read (a full read), so a damaged bitmap can answer wrongly but not fail.
///
/// # Errors
/// [`TableError`] when the bitmap exists but cannot be read or belongs to
/// another rule set or sector.
pub fn reachable(dir: &Path, rules: &RuleSet, pos: &Position) -> Result<Option<bool>, TableError> {
    let Ok(index) = rules.sector_index(pos.sector()) else { return Ok(None) };
    match open(dir, rules, &index, pos)? {
        Some(map) => contains(&map, &index, pos).map(Some),
        None => Ok(None),
    }
}

/// The bitmap of `pos`'s sector (whose index is `index`) in `dir`, mapped
/// guarded; `None` when there is none.
///
/// # Errors
/// As [`reachable`].
fn open(dir: &Path, rules: &RuleSet, index: &SectorIndex, pos: &Position) -> Result<Option<ReachMap>, TableError> {
    match ReachMap::open_guarded(dir, rules, pos.sector(), index.len()) {
        Ok(map) => Ok(Some(map)),
        Err(TableError::Missing { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Whether `map`, the bitmap of `pos`'s sector (whose index is `index`),
/// holds `pos`.
///
/// # Errors
/// [`TableError::Corrupt`] when the file shrank underneath its mapping
/// (what was read may be zeros).
fn contains(map: &ReachMap, index: &SectorIndex, pos: &Position) -> Result<bool, TableError> {
    let answer = map.contains(index.index(pos.us(), pos.them()));
    map.check_intact()?;
    Ok(answer)
}

impl Database {
    /// As [`reachable`] over this database's directory, with each sector's
    /// bitmap (or that it has none) kept from one call to the next, as the
    /// tables are ([`Database::table`]): a bitmap replaced by a rename, or
    /// written by `morris reach` after a call found none, is noticed within
    /// [`crate::tables::RECHECK_INTERVAL`] (one stat); one truncated
    /// underneath is an error, never SIGBUS.
    ///
    /// # Errors
    /// As [`reachable`]; [`TableError::Corrupt`] for a bitmap that shrank
    /// underneath.
    pub fn reachable(&self, pos: &Position) -> Result<Option<bool>, TableError> {
        let (dir, rules, sector) = (self.dir(), self.rules(), pos.sector());
        let Ok(index) = rules.sector_index(sector) else { return Ok(None) };
        let cache = self.reach_cache();
        let kept = cache.kept(
            sector,
            |m| m.as_ref().is_none_or(|m| m.check_intact().is_ok()),
            |m| match m {
                Some(m) => m.is_current(),
                // Still none there: `morris reach` has not written it since.
                None => ReachFields::locate(dir, rules, sector).0.is_none(),
            },
        );
        let map = match kept {
            Some(map) => map,
            None => {
                let map = Arc::new(open(dir, rules, &index, pos)?);
                cache.keep(sector, map.clone());
                map
            }
        };
        match map.as_ref() {
            Some(map) => contains(map, &index, pos).map(Some),
            None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use morris_db::reach::{bitmap_words, write_reach, BoardCounts};
    use morris_db::{Position, RuleSet, Sector};

    use super::*;
    use crate::tables::RECHECK_INTERVAL;
    use morris_db::reach::reach_path;

    /// Three Men's Morris solved whole; a position of its 3-3 sector (all
    /// 540 of its canonical positions can arise: docs/results.md).
    fn three() -> (tempfile::TempDir, RuleSet, Position) {
        let rules = RuleSet::preset("three").unwrap();
        let dir = tempfile::tempdir().unwrap();
        morris_solver::solve_all(&rules, dir.path(), false).unwrap();
        let pos = Position::parse("W:a1,b3,c2 B:a2,b1,c3 w", &rules).unwrap();
        (dir, rules, pos)
    }

    fn wait() {
        std::thread::sleep(RECHECK_INTERVAL + Duration::from_millis(150));
    }

    /// The cached answer follows the files as [`reachable`] (which maps the
    /// bitmap afresh) does: none before `morris reach`, the bitmap's once
    /// it is written, the new bitmap's once one is renamed over it, none
    /// once it is removed; and between, the bitmap stays mapped.
    #[test]
    fn bitmaps_are_kept_and_replacements_noticed() {
        let (dir, rules, pos) = three();
        let db = Database::open(dir.path(), rules.clone()).unwrap();
        let sector = Sector::sliding(3, 3);
        assert_eq!(db.reachable(&pos).unwrap(), None);
        assert_eq!(reachable(dir.path(), &rules, &pos).unwrap(), None);

        morris_solver::reach::reach_all(&rules, dir.path(), |_| {}).unwrap();
        wait();
        assert_eq!(reachable(dir.path(), &rules, &pos).unwrap(), Some(true));
        assert_eq!(db.reachable(&pos).unwrap(), Some(true));
        let kept = db.reach_cache().kept(sector, |_| true, |_| true).expect("the bitmap is kept");
        assert!(kept.is_some());

        // A bitmap with no position set, renamed over the first.
        let path = reach_path(dir.path(), &rules, sector);
        let mut header = kept.as_ref().as_ref().unwrap().header().clone();
        header.canonical_positions = 0;
        (header.wins, header.losses, header.draws) = (0, 0, 0);
        let words = vec![0u64; bitmap_words(header.entry_count) as usize];
        drop(kept);
        write_reach(&path, header, BoardCounts::default(), &words).unwrap();
        wait();
        assert_eq!(reachable(dir.path(), &rules, &pos).unwrap(), Some(false));
        assert_eq!(db.reachable(&pos).unwrap(), Some(false));

        std::fs::remove_file(&path).unwrap();
        wait();
        assert_eq!(db.reachable(&pos).unwrap(), None);
    }
}
