//! One handle over every kind of table a directory may hold, for
//! embedders (the Python package, the C library): our DTM tables, our WDL
//! files, Malom's files, from one or more directories, with the rule set
//! read off the file names when it is not given.

use std::path::Path;

use morris_db::store::file_names;
use morris_db::{Move, Position, RuleSet, Sector, Store, Value};

use crate::malom::{MalomDatabase, MalomGame};
use crate::wdl::WdlDatabase;
use crate::{Answer, Database, ProbeError, Sample, Wdl};

/// One directory's files of one kind.
#[derive(Debug, Clone)]
enum Source {
    Dtm(Database),
    Wdl(WdlDatabase),
    Malom(MalomDatabase),
}

/// Tables of one rule set from one or more directories, each holding our
/// DTM tables (`morris solve`), our WDL files (`morris export-wdl`) or
/// Malom's files. A query asks each source in the order added and answers
/// from the first that has the position's table; when none has it, the
/// error is the first source's [`ProbeError::MissingTable`].
///
/// An owned handle: `Clone` (cheap, shares the mapped files), `Send +
/// Sync + 'static`.
///
/// ```
/// use morris_db::{Position, Value};
/// use morris_probe::{Tablebase, Wdl};
///
/// // Three Men's Morris, every phase, solved here (what
/// // `morris solve --rules three --phase all` writes).
/// let dir = tempfile::tempdir()?;
/// morris_solver::solve_all(&morris_db::RuleSet::preset("three")?, dir.path(), false)?;
///
/// let tb = Tablebase::open(dir.path(), None)?; // the rule set from the files
/// assert_eq!(tb.rules().name(), "three");
/// let start = Position::start(tb.rules());
/// assert_eq!(tb.value(&start)?, Value::win(9).unwrap()); // ok: a valid DTM
/// assert_eq!(tb.wdl(&start)?, Wdl::Win);
/// let (best, _) = tb.best_move(&start)?.unwrap(); // ok: the game is on
/// assert_eq!(best.notation(tb.rules().board()), "b2");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Tablebase {
    rules: RuleSet,
    sources: Vec<Source>,
}

/// The rule-set names whose files (ours, DTM or WDL, or Malom's) are in
/// `dir`, sorted, each once.
///
/// # Errors
/// When `dir` cannot be read.
pub fn rule_sets_in(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut names: Vec<String> = Store::new(dir).files()?.into_iter().map(|f| f.rules_name).collect();
    for name in file_names(dir)? {
        let game = MalomGame::parse_file_name(&name)
            .map(|(g, _)| g)
            .or_else(|| MalomGame::ALL.into_iter().find(|g| g.values_file_name() == name));
        if let Some(g) = game {
            names.push(g.preset().to_string());
        }
    }
    names.sort();
    names.dedup();
    Ok(names)
}

impl Tablebase {
    /// Opens the tables of `dir`: of the rule set `rules` (a preset name:
    /// `three`, `six`, `nine`, ...), or, when `None`, of the one rule set
    /// whose files the directory holds. Maps nothing yet.
    ///
    /// # Errors
    /// [`ProbeError::NoDatabase`] when `dir` is not a directory, holds no
    /// table and no rule set is given, or holds tables of several rule
    /// sets and none is given; [`ProbeError::Unsupported`] for a rule-set
    /// name that is no preset.
    pub fn open(dir: impl AsRef<Path>, rules: Option<&str>) -> Result<Tablebase, ProbeError> {
        let dir = dir.as_ref();
        let name = match rules {
            Some(name) => name.to_string(),
            None => infer_rules(dir)?,
        };
        let rules = RuleSet::preset(&name).map_err(|e| ProbeError::Unsupported(e.to_string()))?;
        let mut tb = Tablebase { rules, sources: Vec::new() };
        tb.add_directory(dir)?;
        Ok(tb)
    }

    /// Adds the tables of the rule set in `dir`, asked after those added
    /// before: our DTM tables, our WDL files and Malom's files, each kind
    /// the directory holds (our DTM tables when it holds none, so that a
    /// query names the table it lacks).
    ///
    /// # Errors
    /// [`ProbeError::NoDatabase`] when `dir` is not a directory;
    /// [`ProbeError::Table`] for Malom's sector values file malformed.
    pub fn add_directory(&mut self, dir: impl AsRef<Path>) -> Result<(), ProbeError> {
        let dir = dir.as_ref();
        let dtm = Database::open(dir, self.rules.clone())?;
        let wdl = WdlDatabase::open(dir, self.rules.clone())?;
        let mut added = Vec::new();
        if !dtm.sectors().unwrap_or_default().is_empty() {
            added.push(Source::Dtm(dtm.clone()));
        }
        if !wdl.sectors().unwrap_or_default().is_empty() {
            added.push(Source::Wdl(wdl));
        }
        if let Some(game) = MalomGame::for_rules(&self.rules) {
            if dir.join(game.values_file_name()).is_file() {
                added.push(Source::Malom(MalomDatabase::open(dir, self.rules.clone())?));
            }
        }
        if added.is_empty() {
            added.push(Source::Dtm(dtm));
        }
        self.sources.extend(added);
        Ok(())
    }

    /// The rule set.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// Asks each source able to answer in turn (`f` gives `None` for a
    /// source of the wrong kind) and answers from the first with the table.
    fn first<T>(&self, mut f: impl FnMut(&Source) -> Option<Result<T, ProbeError>>) -> Result<T, ProbeError> {
        let mut missing = None;
        for source in &self.sources {
            match f(source) {
                None => continue,
                Some(Err(e @ ProbeError::MissingTable { .. })) => {
                    missing.get_or_insert(e);
                }
                Some(other) => return other,
            }
        }
        Err(missing.unwrap_or_else(wdl_only))
    }

    /// The value of `pos` for the side to move: `Win(n)` / `Loss(n)` with
    /// n plies to the end of the game under perfect play, or `Draw`. From
    /// DTM tables (ours or Malom's); WDL files give no distance.
    ///
    /// # Errors
    /// As [`crate::Tables::value`]; [`ProbeError::Unsupported`] when only
    /// WDL files were opened.
    pub fn value(&self, pos: &Position) -> Result<Value, ProbeError> {
        self.first(|s| match s {
            Source::Dtm(db) => Some(db.value(pos)),
            Source::Malom(db) => Some(db.value(pos)),
            Source::Wdl(_) => None,
        })
    }

    /// Win, draw or loss for the side to move, from any kind of table.
    ///
    /// # Errors
    /// As [`crate::Tables::value`].
    pub fn wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        self.first(|s| {
            Some(match s {
                Source::Dtm(db) => db.value(pos).map(Wdl::from),
                Source::Malom(db) => db.value(pos).map(Wdl::from),
                Source::Wdl(db) => db.wdl(pos),
            })
        })
    }

    /// [`Tablebase::wdl`] of each of `positions`, in order: the same
    /// answers (each from the first source with its table, else the first
    /// source's [`ProbeError::MissingTable`]), read in batches through a
    /// prober per source ([`crate::TableProber::values`]): faster per
    /// position than a call each, most when the tables are larger than the
    /// processor's caches.
    pub fn wdl_many(&self, positions: &[Position]) -> Vec<Result<Wdl, ProbeError>> {
        // Per position its answer, or the first missing-table error so far.
        let mut out: Vec<Result<Wdl, Option<ProbeError>>> = positions.iter().map(|_| Err(None)).collect();
        let mut left: Vec<usize> = (0..positions.len()).collect();
        for source in &self.sources {
            if left.is_empty() {
                break;
            }
            let batch: Vec<Position> = left.iter().map(|&k| positions[k]).collect();
            let answers: Vec<Result<Wdl, ProbeError>> = match source {
                Source::Dtm(db) => wdl_of(db.prober().values(&batch)),
                Source::Malom(db) => wdl_of(db.tables().prober().values(&batch)),
                Source::Wdl(db) => db.prober().values(&batch),
            };
            let mut still = Vec::new();
            for (k, answer) in left.into_iter().zip(answers) {
                match answer {
                    Err(e @ ProbeError::MissingTable { .. }) => {
                        if let Err(first @ None) = &mut out[k] {
                            *first = Some(e);
                        }
                        still.push(k);
                    }
                    other => out[k] = other.map_err(Some),
                }
            }
            left = still;
        }
        out.into_iter().map(|v| v.map_err(|e| e.unwrap_or_else(wdl_only))).collect()
    }

    /// [`Tablebase::wdl_many`] of a list whose positions may fail to be
    /// made (parsed, say): the values of all of them, or the first failure
    /// in the list's order, either a position of `items` that is an error
    /// (the list is read no further) or `probe_error(k, e)` for position
    /// `k` that the tables cannot answer.
    ///
    /// # Errors
    /// That first failure.
    pub fn wdl_of_list<F>(
        &self,
        items: impl IntoIterator<Item = Result<Position, F>>,
        probe_error: impl Fn(usize, ProbeError) -> F,
    ) -> Result<Vec<Wdl>, F> {
        let mut positions = Vec::new();
        let mut bad = None;
        for item in items {
            match item {
                Ok(p) => positions.push(p),
                Err(e) => {
                    bad = Some(e);
                    break;
                }
            }
        }
        let values = self
            .wdl_many(&positions)
            .into_iter()
            .enumerate()
            .map(|(k, v)| v.map_err(|e| probe_error(k, e)))
            .collect::<Result<Vec<Wdl>, F>>()?;
        bad.map_or(Ok(values), Err)
    }

    /// Every legal move with its value for the mover, best first (shortest
    /// win, draws, longest loss; ties in notation order), as `morris
    /// analyze` lists them. Empty when the game is over.
    ///
    /// # Errors
    /// As [`Tablebase::value`], for the position or any position a move
    /// leads to.
    pub fn analyze(&self, pos: &Position) -> Result<Vec<(Move, Value)>, ProbeError> {
        self.first(|s| match s {
            Source::Dtm(db) => Some(db.analyze(pos)),
            Source::Malom(db) => Some(db.analyze(pos)),
            Source::Wdl(_) => None,
        })
    }

    /// A best move and its value for the mover (the first of
    /// [`Tablebase::analyze`], as `morris bestmove` prints); `None` when
    /// the game is over.
    ///
    /// # Errors
    /// As [`Tablebase::analyze`].
    pub fn best_move(&self, pos: &Position) -> Result<Option<(Move, Value)>, ProbeError> {
        Ok(self.analyze(pos)?.into_iter().next())
    }

    /// Every best move (as good as the first of [`Tablebase::analyze`]).
    ///
    /// # Errors
    /// As [`Tablebase::analyze`].
    pub fn best_moves(&self, pos: &Position) -> Result<Vec<(Move, Value)>, ProbeError> {
        let mut all = self.analyze(pos)?;
        if let Some(&(_, first)) = all.first() {
            all.retain(|(_, v)| *v == first);
        }
        Ok(all)
    }

    /// `n` positions of `sector` with their values, drawn as
    /// [`crate::sample`] draws them (uniform, reproducible for `seed`),
    /// from the first DTM source with the sector's table.
    ///
    /// # Errors
    /// As [`crate::sample`].
    pub fn sample(&self, sector: Sector, n: usize, seed: u64) -> Result<Vec<Sample<Value>>, ProbeError> {
        self.first(|s| match s {
            Source::Dtm(db) => Some(crate::sample(db, sector, n, seed)),
            Source::Malom(db) => Some(
                crate::sample(db.tables(), sector, n, seed)
                    .map(|v| v.into_iter().map(|s| Sample { position: s.position, value: s.value.value }).collect()),
            ),
            Source::Wdl(_) => None,
        })
    }
}

/// The one rule set whose files `dir` holds.
fn infer_rules(dir: &Path) -> Result<String, ProbeError> {
    if !dir.is_dir() {
        let why = if dir.exists() { "not a directory" } else { "does not exist" };
        return Err(ProbeError::no_database(dir, why));
    }
    let names = rule_sets_in(dir).map_err(|e| ProbeError::no_database(dir, e.to_string()))?;
    match names.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(ProbeError::no_database(dir, "holds no table of any rule set (name the rule set, or solve one)")),
        several => Err(ProbeError::no_database(
            dir,
            format!("holds tables of several rule sets ({}): name the one to open", several.join(", ")),
        )),
    }
}

/// The error of [`Tablebase::first`] when no source could answer: only WDL
/// sources were asked for a distance.
fn wdl_only() -> ProbeError {
    ProbeError::Unsupported(
        "distances to the end of the game: these directories hold WDL files only (win, draw or loss)".to_string(),
    )
}

/// Values with distance (or Malom's) as win, draw or loss.
fn wdl_of<A: Answer>(answers: Vec<Result<A, ProbeError>>) -> Vec<Result<Wdl, ProbeError>> {
    answers.into_iter().map(|a| a.map(Answer::wdl)).collect()
}
