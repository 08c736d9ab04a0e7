//! The one table front-end: a directory of one rule set's per-sector files,
//! each mapped on first use and kept ([`Tables`]), the checks every query
//! makes before it reads a file ([`check_position`]), the queries themselves
//! (value, every move's value, a best move, the principal line), and a
//! per-thread handle that probes without locks ([`TableProber`]).
//!
//! What differs between file formats is an [`Encoding`]: our DTM tables
//! ([`Dtm`], `.mtb` / `.mtz`), our WDL files ([`crate::wdl::WdlFiles`],
//! `.mwdl`) and Malom's files ([`crate::malom::MalomFiles`], `.sec2`). The
//! names the rest of the code uses are aliases: [`crate::Database`] is
//! `Tables<Dtm>`, [`crate::wdl::WdlDatabase`] is `Tables<WdlFiles>`.
//!
//! Errors keep a missing file ([`ProbeError::MissingTable`]) apart from a
//! damaged or foreign one ([`ProbeError::Table`]), and both apart from a
//! position that is wrong ([`ProbeError::InvalidPosition`],
//! [`ProbeError::Unreachable`]).

use std::cmp::Ordering;
use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use arc_swap::ArcSwap;

use morris_db::derived::Stub;
use morris_db::wdl::{Wdl, WdlTable};
use morris_db::{Bitboard, Move, Position, RuleSet, Sector, SectorIndex, Store, Table, TableError, Value};
use rustc_hash::FxHashMap;

use crate::{MissingHint, ProbeError};

/// What a file says about a position, for the side to move.
pub trait Answer: Copy + Debug + Send + Sync {
    /// The value of a move for the mover, given this value of the position
    /// it leads to.
    fn back(self) -> Self;
    /// Orders answers best first for the side to move (shortest win first,
    /// longest loss last).
    fn best_first(a: &Self, b: &Self) -> Ordering;
    /// Win, draw or loss, without distance.
    fn wdl(self) -> Wdl;
    /// The answer that a value with distance gives, where this kind of
    /// answer can be made from one (for a position without a legal move in
    /// a single-sided sector, whose value the rule set decides); `None`
    /// where it cannot (Malom's draw ranks).
    fn of_value(_value: Value) -> Option<Self> {
        None
    }
}

impl Answer for Value {
    fn back(self) -> Value {
        Value::back(self)
    }

    fn best_first(a: &Value, b: &Value) -> Ordering {
        Value::best_first(a, b)
    }

    fn wdl(self) -> Wdl {
        Wdl::from(self)
    }

    fn of_value(value: Value) -> Option<Value> {
        Some(value)
    }
}

impl Answer for Wdl {
    fn back(self) -> Wdl {
        -self
    }

    fn best_first(a: &Wdl, b: &Wdl) -> Ordering {
        b.cmp(a)
    }

    fn wdl(self) -> Wdl {
        self
    }

    fn of_value(value: Value) -> Option<Wdl> {
        Some(Wdl::from(value))
    }
}

/// Keeps [`Encoding`] implemented by this crate only (a sealed trait): the
/// formats are ours ([`Dtm`], [`crate::wdl::WdlFiles`],
/// [`crate::malom::MalomFiles`]), and its methods may change without a
/// breaking release.
mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Dtm {}
    impl Sealed for crate::wdl::WdlFiles {}
    impl Sealed for crate::malom::MalomFiles {}
}

/// A file format of per-sector files: how to open one sector's file and how
/// to read a position's answer from it. Sealed: implemented for [`Dtm`],
/// [`crate::wdl::WdlFiles`] and [`crate::malom::MalomFiles`] only; callers
/// name it as a bound (`fn f<E: Encoding>(db: &Tables<E>)`), never
/// implement it.
pub trait Encoding: sealed::Sealed + Send + Sync + Debug + 'static {
    /// One sector's open file.
    type File: Send + Sync + Debug;
    /// What the file says about a position.
    type Answer: Answer;

    /// Opens and checks the file of `sector` (header, size; not the payload
    /// checksum).
    ///
    /// # Errors
    /// [`TableError::Missing`] when there is no such file; the other
    /// [`TableError`]s when it is damaged or of another rule set or sector.
    fn open(&self, dir: &Path, rules: &RuleSet, sector: Sector) -> Result<Self::File, TableError>;

    /// Reads the whole file and checks its payload checksum (when the
    /// format has one).
    ///
    /// # Errors
    /// [`TableError::Corrupt`] on a mismatch.
    fn verify(&self, file: &Self::File) -> Result<(), TableError>;

    /// The slot of the position `us` (to move) / `them` in `file`: the rule
    /// set's index (`index` when the caller keeps the sector's, else
    /// [`RuleSet::indexer`]); Malom's files index by their own orbit order.
    #[inline]
    fn slot(
        &self,
        _file: &Self::File,
        rules: &RuleSet,
        index: Option<&SectorIndex>,
        us: Bitboard,
        them: Bitboard,
    ) -> u64 {
        match index {
            Some(index) => index.index(us, them),
            None => rules.indexer().slot(us, them),
        }
    }

    /// The first read of the answer at `slot` of `file`, which
    /// [`Encoding::step`] takes (for a WDL file [`WdlTable::head`]; 0
    /// where the format has none). A caller with several positions to
    /// read makes each read for all of them before the next, so that the
    /// reads of different positions overlap.
    #[inline]
    fn head(&self, _file: &Self::File, _slot: u64) -> u64 {
        0
    }

    /// The second read, from the first (for a WDL file [`WdlTable::step`];
    /// `head` itself where the format has none).
    #[inline]
    fn step(&self, _file: &Self::File, _slot: u64, head: u64) -> u64 {
        head
    }

    /// The answer at `slot` of `file`, where `step` is
    /// [`Encoding::step`] of its [`Encoding::head`].
    ///
    /// # Errors
    /// [`ProbeError::Table`] when the slot holds no value (damage).
    fn at_slot(&self, file: &Self::File, slot: u64, step: u64) -> Result<Self::Answer, ProbeError>;

    /// The answer for the position `us` (to move) / `them` of the file's
    /// sector; `index` is the sector's index when the caller keeps one.
    ///
    /// # Errors
    /// As [`Encoding::at_slot`].
    #[inline]
    fn lookup(
        &self,
        file: &Self::File,
        rules: &RuleSet,
        index: Option<&SectorIndex>,
        us: Bitboard,
        them: Bitboard,
    ) -> Result<Self::Answer, ProbeError> {
        let slot = self.slot(file, rules, index, us, them);
        self.at_slot(file, slot, self.step(file, slot, self.head(file, slot)))
    }

    /// `Ok` unless the file shrank underneath its mapping since it was
    /// opened (then what was read from it may be zeros): called after every
    /// read ([`morris_db::storage::header::MappedFile::check_intact`]; Malom's files
    /// are not guarded and always pass).
    ///
    /// # Errors
    /// [`TableError::Corrupt`] naming the file.
    fn check_intact(&self, _file: &Self::File) -> Result<(), TableError> {
        Ok(())
    }

    /// Whether the file's path still names the file that is open (not
    /// replaced, changed or removed since): one stat
    /// ([`morris_db::storage::header::MappedFile::is_current`]; Malom's files are
    /// taken as current).
    fn is_current(&self, _file: &Self::File) -> bool {
        true
    }

    /// The answer for a side to move that has lost (fewer than 3 stones, or
    /// the opponent has a line where a line wins); under misère the game is
    /// decided the other way, which is this answer's [`Answer::back`]
    /// ([`RuleSet::decided_value`]).
    fn lost(&self) -> Self::Answer;
    /// Whether `file` is a single-sided stub ([`morris_db::derived`]): its
    /// values are derived by one ply of search, not read.
    fn derived(&self, _file: &Self::File) -> bool {
        false
    }

    /// The file name looked for and a hint on what to do, for
    /// [`ProbeError::MissingTable`].
    fn missing(&self, dir: &Path, rules: &RuleSet, sector: Sector) -> (String, MissingHint);

    /// Why a directory that does not exist is no database of this kind, and
    /// how to make one.
    fn no_directory(&self) -> &'static str;

    /// The sectors with a file in `dir`, in the order of
    /// [`morris_db::store::sector_order`].
    fn sectors(&self, dir: &Path, rules: &RuleSet) -> std::io::Result<Vec<Sector>>;
}

/// A sector's file read for win, draw or loss only, whatever its encoding
/// (for searches that stop at the tables: [`crate::prove`]).
pub(crate) trait WdlSlots: Send + Sync {
    /// Win, draw or loss at `slot`; `None` for padding, past the end, or
    /// damage.
    fn wdl_at(&self, slot: u64) -> Option<Wdl>;
    /// The file's path (for errors).
    fn file_path(&self) -> &Path;
    /// Whether the file is a single-sided stub, which holds no value
    /// ([`morris_db::derived`]).
    fn derived(&self) -> bool {
        false
    }
}

impl WdlSlots for Table {
    #[inline]
    fn wdl_at(&self, slot: u64) -> Option<Wdl> {
        self.value(slot).map(Wdl::from)
    }

    fn file_path(&self) -> &Path {
        self.path()
    }
}

impl WdlSlots for DtmFile {
    #[inline]
    fn wdl_at(&self, slot: u64) -> Option<Wdl> {
        match self {
            DtmFile::Stored(table) => table.wdl_at(slot),
            DtmFile::Derived(_) => None,
        }
    }

    fn file_path(&self) -> &Path {
        self.path()
    }

    fn derived(&self) -> bool {
        matches!(self, DtmFile::Derived(_))
    }
}

impl WdlSlots for WdlTable {
    #[inline]
    fn wdl_at(&self, slot: u64) -> Option<Wdl> {
        self.wdl(slot)
    }

    fn file_path(&self) -> &Path {
        self.path()
    }

    fn derived(&self) -> bool {
        self.is_derived()
    }
}

/// Win, draw or loss of a canonical position's `slot` in `file`.
///
/// # Errors
/// [`ProbeError::Table`] when the slot holds no value ([`no_value`]).
#[inline]
pub(crate) fn read_wdl(file: &dyn WdlSlots, slot: u64) -> Result<Wdl, ProbeError> {
    file.wdl_at(slot).ok_or_else(|| no_value(file.file_path(), slot))
}

/// The error for a canonical position's slot that holds no value: the file
/// is damaged.
pub(crate) fn no_value(path: &Path, slot: u64) -> ProbeError {
    ProbeError::Table(TableError::Corrupt {
        path: path.to_path_buf(),
        field: "payload",
        detail: format!("slot {slot} of a canonical position holds no value"),
    })
}

/// Whether `pos` has a stone off `rules`' board: then it is a position of
/// another rule set, which no index of this one may read.
#[inline]
fn off_board(rules: &RuleSet, pos: &Position) -> bool {
    (pos.white() | pos.black()) & !rules.board().all() != 0
}

/// Refuses a position with a stone off `rules`' board (one validated under
/// another rule set), with the reason [`morris_db::Setup::validate`] gives.
/// A [`Position`] is not validated again: it was checked when it was made,
/// and this is the one check that keeps one of another rule set from
/// being read out of bounds (its sector is then checked by
/// [`Tables::table`]).
///
/// # Errors
/// [`ProbeError::InvalidPosition`].
pub(crate) fn check_board(rules: &RuleSet, pos: &Position) -> Result<(), ProbeError> {
    if off_board(rules, pos) {
        pos.to_setup().validate(rules)?;
    }
    Ok(())
}

/// The checks every query makes before it reads a file. `Ok(true)` when
/// the side to move has already lost (fewer than 3 stones, or where a line
/// wins, the opponent has one); `Ok(false)` when a file must be read.
/// `pos` is a [`Position`] of `rules` (validated when it was made), so it
/// is not validated again: only a stone off the board (a position of
/// another rule set) is refused here, before an index reads it.
///
/// # Errors
/// [`ProbeError::InvalidPosition`] for a stone off the board;
/// [`ProbeError::Unreachable`] when the game ended before this side was
/// to move (the opponent has fewer than 3 stones, or the side to move has
/// a line).
pub fn check_position(rules: &RuleSet, pos: &Position) -> Result<bool, ProbeError> {
    check_board(rules, pos)?;
    let us = pos.us().count_ones() + pos.us_in_hand() as u32;
    let them = pos.them().count_ones() + pos.them_in_hand() as u32;
    if them < 3 {
        return Err(ProbeError::Unreachable {
            reason: format!(
                "{} has fewer than 3 stones, so the game ended before {} was to move",
                pos.side_to_move().other(),
                pos.side_to_move()
            ),
        });
    }
    if us < 3 {
        return Ok(true);
    }
    if rules.line_wins() {
        // Three Men's Morris: the opponent's line ended the game; a line of
        // the side to move cannot arise (WDL files read padding as a draw,
        // so this must be caught here).
        if rules.has_line(pos.them()) {
            return Ok(true);
        }
        if rules.has_line(pos.us()) {
            return Err(ProbeError::Unreachable {
                reason: format!(
                    "{} has a line, so the game ended before {} was to move",
                    pos.side_to_move(),
                    pos.side_to_move()
                ),
            });
        }
    }
    Ok(false)
}

/// An open database: one rule set's files of one encoding in one
/// directory. Opening is cheap; each file is mapped on first use (and, by
/// default, its payload checksum checked then) and kept.
///
/// A handle: the directory, the rule set and the mapped files sit behind
/// an [`Arc`], so a clone is cheap and shares them (files mapped through
/// one clone are mapped for all). `Send + Sync + 'static` and owned: a
/// server or a language binding keeps one (or a clone per thread) with no
/// borrow to outlive.
///
/// ```
/// use morris_db::{Position, RuleSet, Value};
/// use morris_probe::Database;
///
/// // A tiny database: the sliding sector 3-3 of the standard game.
/// let rules = RuleSet::preset("nine")?;
/// let dir = tempfile::tempdir()?;
/// let options = morris_solver::SolveOptions { max_stones: 6, progress: false };
/// morris_solver::solve_sliding(&rules, dir.path(), &options)?;
///
/// let db = Database::open(dir.path(), rules)?;
/// let pos = Position::parse("W:a4,d1,g4 B:b2,d6,f2 w", db.rules())?;
/// // Threads each take a clone (or a prober): no lifetimes to manage.
/// let handles: Vec<_> = (0..2)
///     .map(|_| {
///         let (db, pos) = (db.clone(), pos);
///         std::thread::spawn(move || db.value(&pos))
///     })
///     .collect();
/// for h in handles {
///     assert_eq!(h.join().unwrap()?, Value::win(15).unwrap()); // ok: a valid DTM
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Tables<E: Encoding> {
    shared: Arc<Shared<E>>,
}

/// What the clones of one [`Tables`] share.
#[derive(Debug)]
struct Shared<E: Encoding> {
    dir: PathBuf,
    rules: RuleSet,
    options: ProbeOptions,
    encoding: E,
    files: FileCache<E::File>,
    /// The reachability bitmaps (`morris reach`) beside the tables, `None`
    /// for a sector that has none ([`Tables::reachable`]).
    reach: FileCache<Option<morris_db::reach::ReachMap>>,
}

/// Per-sector files kept open, each with when its path was last checked:
/// the one cache of [`Tables::table`] (and of [`Tables::reachable`]'s
/// bitmaps).
///
/// Read on every probe by every thread, so a look-up writes nothing shared:
/// the map is swapped whole when a file is kept or dropped (rare: once per
/// sector, and when a file is replaced) and read through [`ArcSwap`], whose
/// reads take no lock and touch no shared counter; a file is lent for the
/// look-up, not cloned ([`FileCache::with_kept`]). A lock and a reference
/// count touched by every probe made threads probing at once slower each
/// than one alone.
#[derive(Debug)]
pub(crate) struct FileCache<F> {
    /// By sector, hashed with FxHash rather than SipHash: a sector is four
    /// small counts, too few for colliding keys to matter.
    files: ArcSwap<FxHashMap<Sector, Arc<Cached<F>>>>,
    /// Taken by whoever changes `files`, so that two changes at once do
    /// not lose one.
    change: Mutex<()>,
    /// The time [`Cached::checked`] counts from: a coarse clock (the
    /// kernel's tick, a few milliseconds), read on every look-up, where a
    /// precise one would cost about a fifth of a probe.
    epoch: coarsetime::Instant,
}

/// A file kept by a [`FileCache`], with when its path was last checked.
#[derive(Debug)]
struct Cached<F> {
    file: Arc<F>,
    /// Milliseconds after [`FileCache::epoch`] when the path was last seen
    /// to name this file (`current` of [`FileCache::kept`]).
    checked: AtomicU64,
}

impl<F> FileCache<F> {
    fn new() -> FileCache<F> {
        FileCache {
            files: ArcSwap::from_pointee(FxHashMap::default()),
            change: Mutex::new(()),
            epoch: coarsetime::Instant::now(),
        }
    }

    /// Milliseconds since [`FileCache::epoch`], to the coarse clock's tick.
    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis()
    }

    /// `read` of the file kept for `sector`, unless `intact` says it shrank
    /// underneath or `current` (asked at most once per
    /// [`RECHECK_INTERVAL`]: one stat) says its path names another file
    /// now; such a file is dropped. `Err(read)` when there is none to use:
    /// open it, [`FileCache::keep`] it and read it.
    #[inline]
    pub(crate) fn with_kept<R, G: FnOnce(&Arc<F>) -> R>(
        &self,
        sector: Sector,
        intact: impl Fn(&F) -> bool,
        current: impl Fn(&F) -> bool,
        read: G,
    ) -> Result<R, G> {
        let files = self.files.load();
        let Some(c) = files.get(&sector) else { return Err(read) };
        let usable = intact(&c.file) && {
            let now = self.now();
            let due =
                now.saturating_sub(c.checked.load(AtomicOrdering::Relaxed)) >= RECHECK_INTERVAL.as_millis() as u64;
            !due || {
                let current = current(&c.file);
                if current {
                    c.checked.store(now, AtomicOrdering::Relaxed);
                }
                current
            }
        };
        if usable {
            return Ok(read(&c.file));
        }
        let dropped = Arc::clone(c);
        drop(files);
        self.change_files(|map| {
            // Unless another thread has put a new file there meanwhile.
            if map.get(&sector).is_some_and(|c| Arc::ptr_eq(c, &dropped)) {
                map.remove(&sector);
            }
        });
        Err(read)
    }

    /// The file kept for `sector`, as [`FileCache::with_kept`] finds it.
    pub(crate) fn kept(
        &self,
        sector: Sector,
        intact: impl Fn(&F) -> bool,
        current: impl Fn(&F) -> bool,
    ) -> Option<Arc<F>> {
        self.with_kept(sector, intact, current, Arc::clone).ok()
    }

    /// Keeps `file` as `sector`'s, checked now.
    pub(crate) fn keep(&self, sector: Sector, file: Arc<F>) {
        let cached = Arc::new(Cached { file, checked: AtomicU64::new(self.now()) });
        self.change_files(|map| {
            map.insert(sector, cached);
        });
    }

    /// Replaces the map by a changed copy of it.
    fn change_files(&self, change: impl FnOnce(&mut FxHashMap<Sector, Arc<Cached<F>>>)) {
        // A thread that panicked while holding the lock left the map as it
        // was (it is swapped whole): go on.
        let _changing = self.change.lock().unwrap_or_else(PoisonError::into_inner);
        let mut map = FxHashMap::clone(&self.files.load());
        change(&mut map);
        self.files.store(Arc::new(map));
    }
}

/// How often [`Tables::table`] checks that a mapped file's path still
/// names it (one stat, at most once per interval per file); a file found
/// replaced, changed or removed is reopened, so a table renamed over the
/// old one is served from then on.
pub const RECHECK_INTERVAL: Duration = Duration::from_secs(1);

impl<E: Encoding> Clone for Tables<E> {
    /// Another handle on the same directory and mapped files (an [`Arc`]
    /// clone).
    fn clone(&self) -> Self {
        Tables { shared: self.shared.clone() }
    }
}

impl<E: Encoding> Tables<E> {
    /// Opens the files of `rules` in `dir`, read as `encoding`. Maps
    /// nothing yet.
    ///
    /// # Errors
    /// [`ProbeError::NoDatabase`] when `dir` is not a directory.
    pub fn with_encoding(
        dir: impl AsRef<Path>,
        rules: RuleSet,
        options: ProbeOptions,
        encoding: E,
    ) -> Result<Tables<E>, ProbeError> {
        let dir = dir.as_ref().to_path_buf();
        if !dir.is_dir() {
            let why = if dir.exists() { "not a directory" } else { encoding.no_directory() };
            return Err(ProbeError::NoDatabase { path: dir, why: why.to_string() });
        }
        let (files, reach) = (FileCache::new(), FileCache::new());
        Ok(Tables { shared: Arc::new(Shared { dir, rules, options, encoding, files, reach }) })
    }

    /// The rule set.
    pub fn rules(&self) -> &RuleSet {
        &self.shared.rules
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.shared.dir
    }

    /// The encoding.
    pub fn encoding(&self) -> &E {
        &self.shared.encoding
    }

    /// The cache of reachability bitmaps ([`Tables::reachable`]).
    pub(crate) fn reach_cache(&self) -> &FileCache<Option<morris_db::reach::ReachMap>> {
        &self.shared.reach
    }

    /// The sectors with a file in the directory, in the order of
    /// [`morris_db::store::sector_order`] (sliding sectors first, then
    /// placement ones: [`Sector::is_sliding`] tells the phase).
    ///
    /// # Errors
    /// When the directory cannot be read.
    pub fn sectors(&self) -> std::io::Result<Vec<Sector>> {
        self.shared.encoding.sectors(&self.shared.dir, &self.shared.rules)
    }

    /// The file of `sector`, mapped and checked on first use.
    ///
    /// # Errors
    /// [`ProbeError::Unreachable`] for a sector the rule set cannot have,
    /// or that no game reaches ([`RuleSet::sector_occurs`]);
    /// [`ProbeError::MissingTable`] when the file is not there;
    /// [`ProbeError::Table`] when it is damaged or of another rule set or
    /// sector.
    ///
    /// A file kept from an earlier call is checked first: one that shrank
    /// underneath ([`Encoding::check_intact`]), or whose path names another
    /// file now ([`Encoding::is_current`], a stat at most once per
    /// [`RECHECK_INTERVAL`]), is dropped and the file opened again, so a
    /// table replaced by a rename is read from then on and one truncated
    /// gives its error.
    pub fn table(&self, sector: Sector) -> Result<Arc<E::File>, ProbeError> {
        self.with_table(sector, Arc::clone)
    }

    /// `read` of the file of `sector`, as [`Tables::table`] finds it, lent
    /// rather than cloned (no reference count is touched).
    ///
    /// # Errors
    /// As [`Tables::table`].
    #[inline]
    fn with_table<R>(&self, sector: Sector, read: impl FnOnce(&Arc<E::File>) -> R) -> Result<R, ProbeError> {
        let encoding = &self.shared.encoding;
        let intact = |f: &E::File| encoding.check_intact(f).is_ok();
        match self.shared.files.with_kept(sector, intact, |f| encoding.is_current(f), read) {
            Ok(r) => Ok(r),
            Err(read) => Ok(read(&self.open_table(sector)?)),
        }
    }

    /// Opens, checks and keeps the file of `sector`.
    ///
    /// # Errors
    /// As [`Tables::table`].
    fn open_table(&self, sector: Sector) -> Result<Arc<E::File>, ProbeError> {
        self.shared.rules.check_sector(sector).map_err(|e| ProbeError::Unreachable { reason: e.to_string() })?;
        if !self.shared.rules.sector_occurs(sector) {
            return Err(ProbeError::Unreachable {
                reason: format!(
                    "sector {sector}: the player who just moved has no stone on the board, \
                     which only the start position has (a move never removes the mover's own stones)"
                ),
            });
        }
        let file = match self.shared.encoding.open(&self.shared.dir, &self.shared.rules, sector) {
            Ok(f) => f,
            Err(TableError::Missing { .. }) => {
                let (file, hint) = self.shared.encoding.missing(&self.shared.dir, &self.shared.rules, sector);
                return Err(ProbeError::MissingTable { sector, path: self.shared.dir.join(file), hint });
            }
            Err(e) => return Err(e.into()),
        };
        if self.shared.options.verify_checksums {
            self.shared.encoding.verify(&file)?;
        }
        self.shared.encoding.check_intact(&file)?;
        let file = Arc::new(file);
        self.shared.files.keep(sector, file.clone());
        Ok(file)
    }

    /// The value of `pos` for the side to move (for our DTM tables `Win(n)`
    /// / `Loss(n)` with n plies to the end of the game under perfect play,
    /// or `Draw`). A side to move with fewer than 3 stones has lost.
    ///
    /// # Errors
    /// As [`check_position`], and the errors of [`Tables::table`].
    pub fn value(&self, pos: &Position) -> Result<E::Answer, ProbeError> {
        self.value_from(pos, true)
    }

    /// The value of `pos` found by one ply of search: the best of its
    /// moves, each valued from the table its move leads to, as a
    /// single-sided sector ([`morris_db::derived`]) answers, whether or not
    /// `pos`'s own sector has a table. Where it has one, the two agree on
    /// every position (the tables hold the solution of this equation):
    /// `morris compress --single-sided` checks a sample before it removes a
    /// table.
    ///
    /// # Errors
    /// As [`Tables::value`], for `pos` and each position a move leads to;
    /// [`ProbeError::Unsupported`] when a move leads into a single-sided
    /// sector, or a line wins under the rule set.
    pub fn searched_value(&self, pos: &Position) -> Result<E::Answer, ProbeError> {
        if self.shared.rules.line_wins() {
            return Err(ProbeError::Unsupported(
                "a rule set where a line wins has no single-sided sectors (a line decides a position, not a move)"
                    .into(),
            ));
        }
        if check_position(&self.shared.rules, pos)? {
            return self.value(pos);
        }
        derive_value(&self.shared.rules, pos, |child| self.value_from(child, false))
    }

    /// [`Tables::value`]; a position of a single-sided sector is searched
    /// one ply when `derive`, and is an error when not (a stub among the
    /// tables a stub's moves lead to).
    fn value_from(&self, pos: &Position, derive: bool) -> Result<E::Answer, ProbeError> {
        if check_position(&self.shared.rules, pos)? {
            let lost = self.shared.encoding.lost();
            return Ok(if self.shared.rules.misere() { lost.back() } else { lost });
        }
        self.with_table(pos.sector(), |table| {
            if self.shared.encoding.derived(table) {
                if !derive {
                    return Err(derived_twice(pos.sector()));
                }
                return derive_value(&self.shared.rules, pos, |child| self.value_from(child, false));
            }
            let answer = self.shared.encoding.lookup(table, &self.shared.rules, None, pos.us(), pos.them());
            self.shared.encoding.check_intact(table)?;
            answer
        })?
    }

    /// Every legal move with its value for the mover, best first
    /// ([`Answer::best_first`]; ties in notation order). Empty when the game
    /// is over.
    ///
    /// # Errors
    /// As [`Tables::value`], for the position or any position a move leads
    /// to.
    pub fn analyze(&self, pos: &Position) -> Result<Vec<(Move, E::Answer)>, ProbeError> {
        // Refuses what `value` refuses (invalid or after the end of the game).
        self.value(pos)?;
        let board = self.shared.rules.board();
        let mut out = pos
            .legal_moves(&self.shared.rules)
            .into_iter()
            .map(|mv| Ok((mv, self.value(&pos.play_unchecked(mv))?.back())))
            .collect::<Result<Vec<_>, ProbeError>>()?;
        out.sort_by(|a, b| {
            E::Answer::best_first(&a.1, &b.1).then_with(|| a.0.notation(board).cmp(&b.0.notation(board)))
        });
        Ok(out)
    }

    /// A best move with its value (see [`Tables::analyze`] for the order);
    /// `None` when the game is over.
    ///
    /// # Errors
    /// As [`Tables::analyze`].
    pub fn best_move(&self, pos: &Position) -> Result<Option<(Move, E::Answer)>, ProbeError> {
        Ok(self.analyze(pos)?.into_iter().next())
    }

    /// Every best move with its value: the moves [`Tables::analyze`] lists
    /// first that are as good as the first (for DTM tables, the same win or
    /// loss in the same number of plies), in notation order. Empty when the
    /// game is over.
    ///
    /// # Errors
    /// As [`Tables::analyze`].
    pub fn best_moves(&self, pos: &Position) -> Result<Vec<(Move, E::Answer)>, ProbeError> {
        let mut all = self.analyze(pos)?;
        if let Some(&(_, first)) = all.first() {
            all.retain(|(_, v)| E::Answer::best_first(v, &first) == Ordering::Equal);
        }
        Ok(all)
    }

    /// The principal line from `pos`: a best move of the side to move (see
    /// [`Tables::best_move`]), then a best move of the opponent, and so on,
    /// each with its value for the player who makes it, until the game ends
    /// or `max_plies` moves are listed. With DTM tables, from a won or lost
    /// position the line is exactly as long as the distance to mate (the
    /// winner takes the shortest win, the loser the longest loss) and ends
    /// the game; from a draw it never ends, so `max_plies` bounds it. Empty
    /// when the game is over.
    ///
    /// ```
    /// use morris_db::{Position, RuleSet, Value};
    /// use morris_probe::Database;
    ///
    /// // A tiny database: the sliding sector 3-3 of the standard game.
    /// let rules = RuleSet::preset("nine")?;
    /// let dir = tempfile::tempdir()?;
    /// let options = morris_solver::SolveOptions { max_stones: 6, progress: false };
    /// morris_solver::solve_sliding(&rules, dir.path(), &options)?;
    ///
    /// let db = Database::open(dir.path(), rules)?;
    /// let pos = Position::parse("W:a4,d1,g4 B:b2,d6,f2 w", db.rules())?;
    /// assert_eq!(db.value(&pos)?, Value::win(15).unwrap()); // ok: 15 plies is a valid DTM
    /// let line = db.principal_line(&pos, 100)?;
    /// assert_eq!(line.len(), 15); // to the end of the game
    /// assert_eq!(line[0].1, Value::win(15).unwrap()); // ok: a valid DTM
    /// assert_eq!(line[14].1, Value::win(1).unwrap()); // ok: a valid DTM
    /// for (mv, value) in &line {
    ///     println!("{} {value:?}", mv.notation(db.rules().board()));
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Tables::analyze`], for any position on the line.
    pub fn principal_line(&self, pos: &Position, max_plies: usize) -> Result<Vec<(Move, E::Answer)>, ProbeError> {
        let mut line = Vec::new();
        let mut current = *pos;
        while line.len() < max_plies {
            let Some((mv, value)) = self.best_move(&current)? else {
                break;
            };
            line.push((mv, value));
            current = current.play_unchecked(mv);
        }
        Ok(line)
    }

    /// A [`TableProber`] for fast repeated probes from one thread (it holds
    /// a clone of this handle: owned, `'static`).
    pub fn prober(&self) -> TableProber<E> {
        TableProber { db: self.clone(), tables: Vec::new(), buckets: [0; SECTOR_BUCKETS] }
    }
}

/// A handle for many probes from one thread: it keeps the files and sector
/// indexes it has used, so that a probe skips what each [`Tables::value`]
/// call does before it reads (the look-up of the file in the shared map,
/// a clock read for the recheck interval, the sector's index set-up):
/// about 1.5 to 2 times as many probes a second. Answers exactly as
/// [`Tables::value`]. Get one per thread with [`Tables::prober`].
///
/// Owned and `Send + 'static` (it holds a clone of the [`Tables`]), so a
/// thread may keep one for as long as it likes; cloning one copies its
/// cache of sectors.
///
/// ```
/// use morris_db::{Position, RuleSet, Value};
/// use morris_probe::Database;
///
/// // A tiny database: the sliding sector 3-3 of the standard game.
/// let rules = RuleSet::preset("nine")?;
/// let dir = tempfile::tempdir()?;
/// let options = morris_solver::SolveOptions { max_stones: 6, progress: false };
/// morris_solver::solve_sliding(&rules, dir.path(), &options)?;
/// let db = Database::open(dir.path(), rules)?;
///
/// let positions = vec![Position::parse("W:a4,d1,g4 B:b2,d6,f2 w", db.rules())?; 100];
/// let values: Vec<Value> = std::thread::scope(|s| {
///     let handles: Vec<_> = positions
///         .chunks(50)
///         .map(|chunk| {
///             let mut prober = db.prober();
///             s.spawn(move || chunk.iter().map(|p| prober.value(p)).collect::<Result<Vec<_>, _>>())
///         })
///         .collect();
///     // ok: an example; a prober thread that panicked ends it.
///     handles.into_iter().flat_map(|h| h.join().unwrap().unwrap()).collect()
/// });
/// assert!(values.iter().all(|&v| v == Value::win(15).unwrap())); // ok: a valid DTM
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct TableProber<E: Encoding> {
    db: Tables<E>,
    /// The sectors used so far, in the order first used.
    tables: Vec<(Sector, SectorIndex, Arc<E::File>)>,
    /// Per bucket of [`sector_bucket`], 1 + the place in `tables` of the
    /// sector last found there (0: none): one read finds a sector, with no
    /// scan and no branch that depends on which sector a probe is in.
    buckets: [u16; SECTOR_BUCKETS],
}

/// Positions [`TableProber::values_with`] reads a step at a time.
const BATCH: usize = 16;

/// Buckets of [`TableProber`]'s sector look-up.
const SECTOR_BUCKETS: usize = 256;

/// The bucket of `sector` in [`TableProber`]'s look-up: a multiplicative
/// hash of its four counts (Knuth's constant), spreading the sectors of a
/// game (at most a few hundred) over [`SECTOR_BUCKETS`].
#[inline]
fn sector_bucket(sector: Sector) -> usize {
    let key = u32::from_le_bytes([sector.w, sector.b, sector.wh, sector.bh]);
    (key.wrapping_mul(0x9E37_79B1) >> 24) as usize % SECTOR_BUCKETS
}

impl<E: Encoding> Clone for TableProber<E> {
    fn clone(&self) -> Self {
        TableProber { db: self.db.clone(), tables: self.tables.clone(), buckets: self.buckets }
    }
}

impl<E: Encoding> TableProber<E> {
    /// The tables this prober reads.
    pub fn tables(&self) -> &Tables<E> {
        &self.db
    }

    /// The value of `pos`, as [`Tables::value`].
    ///
    /// # Errors
    /// As [`Tables::value`].
    #[inline]
    pub fn value(&mut self, pos: &Position) -> Result<E::Answer, ProbeError> {
        self.value_from(pos, true)
    }

    /// Values of many positions: calls `answer(k, result)` exactly once for
    /// each `positions[k]`, with what [`TableProber::value`] returns for
    /// it, in no particular order. Faster per position than a call each
    /// when the tables are larger than the processor's caches: each of
    /// the reads that find a value ([`Encoding::head`], [`Encoding::step`])
    /// is made for a batch of positions before the next, so that the waits
    /// for memory overlap. The one-ply search of a position in a
    /// single-sided sector reads its moves' values this way.
    pub fn values_with(&mut self, positions: &[Position], answer: impl FnMut(usize, Result<E::Answer, ProbeError>)) {
        self.values_from(positions, true, answer);
    }

    /// Values of many positions, in order: `values(p)[k]` is
    /// [`TableProber::value`]`(&p[k])`, read as
    /// [`TableProber::values_with`] reads them.
    pub fn values(&mut self, positions: &[Position]) -> Vec<Result<E::Answer, ProbeError>> {
        self.values_in_order(positions, true)
    }

    /// [`TableProber::values`] as [`TableProber::value_from`] answers each
    /// position.
    fn values_in_order(&mut self, positions: &[Position], derive: bool) -> Vec<Result<E::Answer, ProbeError>> {
        // Every place is written: `values_from` answers each position once.
        let lost = self.db.shared.encoding.lost();
        let mut out: Vec<Result<E::Answer, ProbeError>> = Vec::new();
        out.resize_with(positions.len(), || Ok(lost));
        self.values_from(positions, derive, |k, v| out[k] = v);
        out
    }

    /// [`TableProber::values_with`] as [`TableProber::value_from`] answers
    /// each position.
    fn values_from(
        &mut self,
        positions: &[Position],
        derive: bool,
        mut answer: impl FnMut(usize, Result<E::Answer, ProbeError>),
    ) {
        for (c, chunk) in positions.chunks(BATCH).enumerate() {
            let base = c * BATCH;
            // First the slots of the positions a table read answers
            // (opening a file only adds to `self.tables`, so the places
            // stay valid)...
            let mut reads = [(0usize, 0u64, 0u64); BATCH];
            let mut read_for = [0usize; BATCH];
            let mut n = 0;
            let mut others = [0usize; BATCH];
            let mut m = 0;
            for (k, pos) in chunk.iter().enumerate() {
                match self.quick_place(pos) {
                    Ok(Some(i)) => {
                        let encoding = &self.db.shared.encoding;
                        let (_, index, table) = &self.tables[i];
                        let slot = encoding.slot(table, &self.db.shared.rules, Some(index), pos.us(), pos.them());
                        reads[n] = (i, slot, 0);
                        read_for[n] = k;
                        n += 1;
                    }
                    Ok(None) => {
                        others[m] = k;
                        m += 1;
                    }
                    Err(e) => answer(base + k, Err(e)),
                }
            }
            // ... then the first read of each (a loop of little more than
            // the reads, so that many are under way at once)...
            let encoding = &self.db.shared.encoding;
            for (i, slot, head) in &mut reads[..n] {
                *head = encoding.head(&self.tables[*i].2, *slot);
            }
            // ... then the second...
            for (i, slot, head) in &mut reads[..n] {
                *head = encoding.step(&self.tables[*i].2, *slot, *head);
            }
            // ... then their values...
            let mut shrank = false;
            for (&(i, slot, step), &k) in reads[..n].iter().zip(&read_for) {
                let table = &self.tables[i].2;
                let value = encoding.at_slot(table, slot, step);
                match encoding.check_intact(table) {
                    Ok(()) => answer(base + k, value),
                    Err(e) => {
                        shrank = true;
                        answer(base + k, Err(e.into()));
                    }
                }
            }
            if shrank {
                self.forget_shrunk();
            }
            // ... and last the others (single-sided sectors, unusual cases,
            // errors), one at a time.
            for &k in &others[..m] {
                answer(base + k, self.value_from(&chunk[k], derive));
            }
        }
    }

    /// [`TableProber::value`]; a position of a single-sided sector is
    /// searched one ply when `derive`, and is an error when not (a stub
    /// among the tables a stub's moves lead to), as
    /// [`Tables::value_from`].
    #[inline]
    fn value_from(&mut self, pos: &Position, derive: bool) -> Result<E::Answer, ProbeError> {
        if !self.is_usual(pos) {
            // Every unusual case, and every error, as `Tables::value` says.
            return self.db.value_from(pos, derive);
        }
        let i = self.place(pos.sector())?;
        let (_, index, table) = &self.tables[i];
        let encoding = &self.db.shared.encoding;
        if encoding.derived(table) {
            return self.derived_value(pos, derive);
        }
        let answer = encoding.lookup(table, &self.db.shared.rules, Some(index), pos.us(), pos.them());
        if let Err(e) = encoding.check_intact(table) {
            self.forget_shrunk();
            return Err(e.into());
        }
        answer
    }

    /// The value of a position of a single-sided sector: searched one ply
    /// (its moves' values read in a batch) when `derive`, else an error.
    #[cold]
    fn derived_value(&mut self, pos: &Position, derive: bool) -> Result<E::Answer, ProbeError> {
        if !derive {
            return Err(derived_twice(pos.sector()));
        }
        let rules = self.db.shared.rules.clone();
        let children: Vec<Position> = pos.legal_moves(&rules).into_iter().map(|mv| pos.play_unchecked(mv)).collect();
        let values = self.values_in_order(&children, false);
        best_of(&rules, pos, values.into_iter())
    }

    /// Whether `pos` is read from its sector's file (else
    /// [`Tables::value_from`] answers it: a rule set where a line wins, a
    /// side with fewer than 3 stones, a stone off the board).
    #[inline]
    fn is_usual(&self, pos: &Position) -> bool {
        let rules = &self.db.shared.rules;
        let sector = pos.sector();
        !(rules.line_wins() || sector.w + sector.wh < 3 || sector.b + sector.bh < 3 || off_board(rules, pos))
    }

    /// The place in the prober's tables of `pos`'s sector when a read of
    /// its file answers `pos`; `None` for a single-sided sector's stub and
    /// for what [`TableProber::is_usual`] leaves to others.
    ///
    /// # Errors
    /// As [`Tables::table`].
    #[inline]
    fn quick_place(&mut self, pos: &Position) -> Result<Option<usize>, ProbeError> {
        if !self.is_usual(pos) {
            return Ok(None);
        }
        let i = self.place(pos.sector())?;
        Ok((!self.db.shared.encoding.derived(&self.tables[i].2)).then_some(i))
    }

    /// The place in the prober's tables of `sector`'s, opening it on first
    /// use.
    ///
    /// # Errors
    /// As [`Tables::table`].
    #[inline]
    fn place(&mut self, sector: Sector) -> Result<usize, ProbeError> {
        let bucket = sector_bucket(sector);
        let last = usize::from(self.buckets[bucket]).wrapping_sub(1);
        if self.tables.get(last).is_some_and(|(s, _, _)| *s == sector) {
            return Ok(last);
        }
        let i = match self.tables.iter().position(|(s, _, _)| *s == sector) {
            Some(i) => i,
            None => {
                let table = self.db.table(sector)?;
                let index = self.db.shared.rules.indexer().sector(sector);
                self.tables.push((sector, index, table));
                self.tables.len() - 1
            }
        };
        // (A game has far fewer than 65,535 sectors; a place that does
        // not fit is simply not remembered.)
        self.buckets[bucket] = u16::try_from(i + 1).unwrap_or(0);
        Ok(i)
    }

    /// Forgets the files that shrank underneath their mapping, so that a
    /// later probe opens them again (and gets their error, or a file put
    /// back).
    #[cold]
    fn forget_shrunk(&mut self) {
        let encoding = &self.db.shared.encoding;
        self.tables.retain(|(_, _, t)| encoding.check_intact(t).is_ok());
        self.buckets = [0; SECTOR_BUCKETS];
    }
}

/// Our DTM tables ([`morris_db::table`], `.mtb`, or compressed `.mtz`): the
/// exact value with distance.
#[derive(Debug, Clone, Copy, Default)]
pub struct Dtm;

/// A sector's file as [`Dtm`] reads it: a table (`.mtb` or `.mtz`), or a
/// single-sided stub (`.mtd`, [`morris_db::derived`]) whose positions are
/// valued by one ply of search.
#[derive(Debug)]
pub enum DtmFile {
    /// A table holding every value.
    Stored(Table),
    /// A stub: the values are derived from the tables the moves lead to.
    Derived(Stub),
}

impl DtmFile {
    /// The file's path.
    pub fn path(&self) -> &Path {
        match self {
            DtmFile::Stored(t) => t.path(),
            DtmFile::Derived(s) => s.path(),
        }
    }

    /// The table, or `None` for a stub.
    pub fn stored(&self) -> Option<&Table> {
        match self {
            DtmFile::Stored(t) => Some(t),
            DtmFile::Derived(_) => None,
        }
    }

    /// The file's header fields that a table and a stub share: sector,
    /// counts and longest distances (those of the table a stub replaced).
    pub fn header(&self) -> morris_db::TableHeader {
        match self {
            DtmFile::Stored(t) => t.header().clone(),
            DtmFile::Derived(s) => {
                let h = s.header();
                morris_db::TableHeader {
                    rules_fingerprint: h.rules_fingerprint,
                    rules_name: h.rules_name.clone(),
                    sector: h.sector,
                    encoding: h.encoding,
                    entry_count: h.entry_count,
                    canonical_positions: h.canonical_positions,
                    wins: h.wins,
                    losses: h.losses,
                    draws: h.draws,
                    own: h.own.0,
                    payload_checksum: h.payload_checksum,
                }
            }
        }
    }
}

impl Encoding for Dtm {
    type File = DtmFile;
    type Answer = Value;

    fn open(&self, dir: &Path, rules: &RuleSet, sector: Sector) -> Result<DtmFile, TableError> {
        let len = rules.indexer().sector(sector).len();
        if Store::new(dir).dtm_file(rules, sector).is_none() {
            if let Ok(stub) = Stub::open_guarded(dir, rules, sector, len) {
                return Ok(DtmFile::Derived(stub));
            }
        }
        Table::open_guarded(dir, rules, sector, len).map(DtmFile::Stored)
    }

    fn verify(&self, file: &DtmFile) -> Result<(), TableError> {
        match file {
            DtmFile::Stored(t) => t.verify_checksum(),
            DtmFile::Derived(s) => s.verify_checksum(),
        }
    }

    #[inline]
    fn check_intact(&self, file: &DtmFile) -> Result<(), TableError> {
        match file {
            DtmFile::Stored(t) => t.check_intact(),
            DtmFile::Derived(s) => s.check_intact(),
        }
    }

    fn is_current(&self, file: &DtmFile) -> bool {
        match file {
            DtmFile::Stored(t) => t.is_current(),
            DtmFile::Derived(s) => s.is_current(),
        }
    }

    #[inline]
    fn derived(&self, file: &DtmFile) -> bool {
        matches!(file, DtmFile::Derived(_))
    }

    #[inline]
    fn at_slot(&self, file: &DtmFile, slot: u64, _step: u64) -> Result<Value, ProbeError> {
        match file {
            DtmFile::Stored(t) => t.value(slot).ok_or_else(|| no_value(t.path(), slot)),
            DtmFile::Derived(s) => Err(no_value(s.path(), slot)),
        }
    }

    fn lost(&self) -> Value {
        Value::LOST
    }

    fn missing(&self, dir: &Path, rules: &RuleSet, sector: Sector) -> (String, MissingHint) {
        let store = Store::new(dir);
        let file =
            store.table_path(rules, sector).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        let others = store.other_rule_sets(rules.name());
        let hint = if !others.is_empty() {
            MissingHint::OtherRuleSets(others)
        } else {
            MissingHint::Unsolved { rules: rules.name().to_string(), placement: !sector.is_sliding() }
        };
        (file, hint)
    }

    fn no_directory(&self) -> &'static str {
        "does not exist (no tables were solved there)"
    }

    fn sectors(&self, dir: &Path, rules: &RuleSet) -> std::io::Result<Vec<Sector>> {
        Store::new(dir).dtm_sectors(rules)
    }
}

/// The value of `pos`, a position of a single-sided sector, by one ply of
/// search: the best of its moves' values for the mover, each the `back` of
/// `child`'s answer for the position the move leads to; a position without
/// a legal move has the rule set's [`RuleSet::no_move_value`]. The tables
/// store exactly this equation's solution, so the answer is the value the
/// sector's table held.
///
/// # Errors
/// The first error of `child`.
fn derive_value<A: Answer>(
    rules: &RuleSet,
    pos: &Position,
    mut child: impl FnMut(&Position) -> Result<A, ProbeError>,
) -> Result<A, ProbeError> {
    best_of(rules, pos, pos.legal_moves(rules).into_iter().map(|mv| child(&pos.play_unchecked(mv))))
}

/// [`derive_value`] from the answers `children` gives for the positions
/// `pos`'s legal moves lead to, in the order of [`Position::legal_moves`].
///
/// # Errors
/// The first error among `children`.
fn best_of<A: Answer>(
    rules: &RuleSet,
    pos: &Position,
    children: impl Iterator<Item = Result<A, ProbeError>>,
) -> Result<A, ProbeError> {
    let mut best: Option<A> = None;
    for child in children {
        let v = child?.back();
        if best.is_none_or(|b| A::best_first(&v, &b) == Ordering::Less) {
            best = Some(v);
        }
    }
    match best {
        Some(v) => Ok(v),
        None => A::of_value(rules.no_move_value(pos.us(), pos.them()))
            .ok_or_else(|| ProbeError::Unsupported("a single-sided sector read for this kind of answer".into())),
    }
}

/// The error for a move from a single-sided sector into another one,
/// `sector`: the stubs were not chosen together ([`morris_db::derived::choose`]).
fn derived_twice(sector: Sector) -> ProbeError {
    ProbeError::Unsupported(format!(
        "a move from a single-sided sector leads into sector {sector}, single-sided too (a `.mtd` stub): \
         put back the table of one of them (`morris compress --single-sided` never chooses two that meet)"
    ))
}

/// Options for opening a database.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    /// Check each table's payload checksum when it is first mapped (a full
    /// read of the file, about 0.1 s per GB). Default: on.
    pub verify_checksums: bool,
}

impl Default for ProbeOptions {
    fn default() -> Self {
        ProbeOptions { verify_checksums: true }
    }
}

/// An open database of our DTM tables: one rule set's tables in one
/// directory (the [`Tables`] front-end over the [`Dtm`] encoding). Maps
/// each table on first use; `Send + Sync`.
pub type Database = Tables<Dtm>;

/// A handle for many probes of a [`Database`] from one thread (see
/// [`TableProber`]).
pub type Prober = TableProber<Dtm>;

impl Tables<Dtm> {
    /// Opens the database in `dir` for `rules`, with default options. Maps
    /// nothing yet.
    ///
    /// # Errors
    /// [`ProbeError::NoDatabase`] when `dir` is not a directory.
    pub fn open(dir: impl AsRef<Path>, rules: RuleSet) -> Result<Database, ProbeError> {
        Database::open_with(dir, rules, ProbeOptions::default())
    }

    /// Opens the database in `dir` for `rules` with `options`.
    ///
    /// # Errors
    /// [`ProbeError::NoDatabase`] when `dir` is not a directory.
    pub fn open_with(dir: impl AsRef<Path>, rules: RuleSet, options: ProbeOptions) -> Result<Database, ProbeError> {
        Tables::with_encoding(dir, rules, options, Dtm)
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::PathBuf;

    use morris_db::table::{table_path, write_table};
    use morris_db::{Position, RuleSet, Sector, Table, TableHeader, Value};

    use crate::{Database, ProbeError};

    /// `nine`'s sliding sectors of at most 7 stones, solved in a temporary
    /// directory: 3-3, 4-3 and 3-4.
    fn nine7() -> (tempfile::TempDir, RuleSet) {
        let rules = RuleSet::preset("nine").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let options = morris_solver::SolveOptions { max_stones: 7, progress: false };
        morris_solver::solve_sliding(&rules, dir.path(), &options).unwrap();
        (dir, rules)
    }

    /// Win(15), as the README and Gasser's figures for this 3-3 position
    /// (checked by the reference solver in `tests/`).
    const POS33: &str = "W:a4,d1,g4 B:b2,d6,f2 w";
    /// A position of sector 4-3.
    const POS43: &str = "W:a4,d1,g4,g1 B:b2,d6,f2 w";

    fn path33(dir: &std::path::Path, rules: &RuleSet) -> PathBuf {
        table_path(dir, rules, Sector::sliding(3, 3))
    }

    /// A prober reads the table of the sector asked for whatever its
    /// look-up buckets hold: with the bucket of sector 4-3 pointing at the
    /// table of 3-3 (as when two sectors share a bucket), a probe of 4-3
    /// still answers from 4-3's table, and 3-3's answers stay Gasser's.
    #[test]
    fn a_prober_reads_the_sector_asked_for_when_buckets_collide() {
        let (dir, rules) = nine7();
        let db = Database::open(dir.path(), rules.clone()).unwrap();
        let p33 = Position::parse(POS33, &rules).unwrap();
        let p43 = Position::parse(POS43, &rules).unwrap();
        let mut prober = db.prober();
        assert_eq!(prober.value(&p33).unwrap(), Value::win(15).unwrap());
        // Positions of 4-3, every 97th slot, each probed with 4-3's bucket
        // pointing at the first table the prober kept, 3-3's.
        let sector = Sector::sliding(4, 3);
        let index = rules.indexer().sector(sector);
        let mut probed = 0;
        for slot in (0..index.len()).step_by(97) {
            let Some((us, them)) = index.position(slot) else { continue };
            let pos = Position::from_sector(sector, morris_db::Color::White, us, them);
            prober.buckets[super::sector_bucket(sector)] = 1;
            assert_eq!(prober.value(&pos).unwrap(), db.value(&pos).unwrap(), "slot {slot}");
            probed += 1;
        }
        assert!(probed > 100, "{probed}");
        prober.buckets = [2; super::SECTOR_BUCKETS];
        assert_eq!(prober.value(&p33).unwrap(), Value::win(15).unwrap());
        assert_eq!(prober.value(&p43).unwrap(), db.value(&p43).unwrap());
    }

    /// A table renamed over the one a database has mapped is read once
    /// the path is checked again (within [`super::RECHECK_INTERVAL`]): the
    /// edited copy's value comes back, not the old mapping's.
    #[test]
    fn a_table_replaced_by_rename_is_read_again() {
        let (dir, rules) = nine7();
        let db = Database::open(dir.path(), rules.clone()).unwrap();
        let pos = Position::parse(POS33, &rules).unwrap();
        assert_eq!(db.value(&pos).unwrap(), Value::win(15).unwrap());
        // An edited copy: this position's slot now says Loss(4).
        let sector = Sector::sliding(3, 3);
        let old = Table::open(dir.path(), &rules, sector, rules.indexer().sector(sector).len()).unwrap();
        let mut entries = old.entries().unwrap();
        entries[rules.indexer().slot(pos.us(), pos.them()) as usize] = Value::loss(4).unwrap().to_entry();
        drop(old);
        let path = path33(dir.path(), &rules);
        write_table(&path, &TableHeader::for_entries(&rules, sector, &entries), &entries).unwrap();
        std::thread::sleep(super::RECHECK_INTERVAL + std::time::Duration::from_millis(100));
        assert_eq!(db.value(&pos).unwrap(), Value::loss(4).unwrap());
        // A prober made now reads the new file too.
        assert_eq!(db.prober().value(&pos).unwrap(), Value::loss(4).unwrap());
    }

    /// A table truncated under a prober (which never stats) and under the
    /// database gives an error naming the file, never SIGBUS; another
    /// sector's table still answers.
    #[test]
    fn a_table_truncated_underneath_is_an_error_naming_it() {
        let (dir, rules) = nine7();
        let db = Database::open(dir.path(), rules.clone()).unwrap();
        let mut prober = db.prober();
        let (p33, p43) = (Position::parse(POS33, &rules).unwrap(), Position::parse(POS43, &rules).unwrap());
        let v43 = prober.value(&p43).unwrap();
        assert_eq!(prober.value(&p33).unwrap(), Value::win(15).unwrap());
        let path = path33(dir.path(), &rules);
        fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(200).unwrap();
        let expect_shrank = |e: ProbeError| {
            let text = e.to_string();
            assert!(text.contains("nine_3_3") && text.contains("file size"), "{text}");
        };
        // Many probes, so that some land past the first page.
        let mut errors = 0;
        for mv in p33.legal_moves(&rules) {
            let after = p33.play_unchecked(mv);
            if after.sector() == Sector::sliding(3, 3) {
                if let Err(e) = prober.value(&after.play_unchecked(after.legal_moves(&rules)[0])) {
                    expect_shrank(e);
                    errors += 1;
                }
            }
        }
        assert!(errors > 0, "no probe read past the new end");
        expect_shrank(db.value(&p33).unwrap_err());
        assert_eq!(prober.value(&p43).unwrap(), v43);
        assert_eq!(db.value(&p43).unwrap(), v43);
    }

    /// A table this process may not read is [`ProbeError::PermissionDenied`]
    /// naming it, not a missing table; so is one in a directory it may not
    /// search. Root reads whatever the permissions say, so under root the
    /// test says so and checks nothing.
    #[cfg(unix)]
    #[test]
    fn a_table_that_may_not_be_read_says_so() {
        use std::os::unix::fs::PermissionsExt;
        let (dir, rules) = nine7();
        let path = path33(dir.path(), &rules);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o000)).unwrap();
        if fs::File::open(&path).is_ok() {
            eprintln!(
                "skipped: this process reads a file of mode 000 (running as root), so permissions cannot be tested"
            );
            return;
        }
        let pos = Position::parse(POS33, &rules).unwrap();
        let db = Database::open(dir.path(), rules.clone()).unwrap();
        match db.value(&pos).unwrap_err() {
            ProbeError::PermissionDenied { path: p } => assert_eq!(p, path),
            other => panic!("expected permission denied, got {other:?}"),
        }
        assert!(db.value(&pos).unwrap_err().to_string().contains("permission denied"));
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        // The directory may be listed but not searched.
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o600)).unwrap();
        let err = db.value(&pos).unwrap_err();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        assert!(matches!(err, ProbeError::PermissionDenied { .. }), "{err:?}");
        assert_eq!(db.value(&pos).unwrap(), Value::win(15).unwrap());
    }
}
