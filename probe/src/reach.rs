//! Whether a position can arise in a game, from the reachability bitmaps
//! `morris reach` writes beside the tables ([`morris_db::reach`]).

use std::path::Path;

use morris_db::reach::ReachMap;
use morris_db::{Position, RuleSet, TableError};

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
    let sector = pos.sector();
    let Ok(index) = rules.sector_index(sector) else { return Ok(None) };
    match ReachMap::open_guarded(dir, rules, sector, index.len()) {
        Ok(map) => Ok(Some(map.contains(index.index(pos.us(), pos.them())))),
        Err(TableError::Missing { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}
