//! What a server serves: one [`Served`] database per rule set, gathered in
//! a [`Catalog`] from the directories of a [`Config`].

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context};
use morris_db::{RuleSet, Sector};

use crate::limits::Limits;
use crate::source::{malom_games_in, rule_sets_in, wdl_rule_sets_in, DirArg, Source};

/// What `morris serve` was asked to serve.
#[derive(Debug, Clone)]
pub struct Config {
    /// Directories of our tables (`--db [RULES=]DIR`): DTM tables, or
    /// where a directory holds none, WDL files; the rule set is read from
    /// the file names when not given.
    pub dbs: Vec<DirArg>,
    /// Directories of Malom's files (`--malom [RULES=]DIR`); the game is
    /// read from the file names when not given.
    pub malom: Vec<DirArg>,
    /// The address to listen on (default `127.0.0.1:8080`: loopback only).
    pub bind: SocketAddr,
    /// The most table look-ups running at once (each on a blocking
    /// thread); further requests wait their turn, at most
    /// [`Limits::max_queue`] of them.
    pub max_in_flight: usize,
    /// Timeouts, caps, CORS and the access log.
    pub limits: Limits,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            dbs: Vec::new(),
            malom: Vec::new(),
            bind: SocketAddr::from(([127, 0, 0, 1], 8080)),
            max_in_flight: std::thread::available_parallelism().map_or(2, |n| n.get()) * 2,
            limits: Limits::default(),
        }
    }
}

/// One rule set's database as served.
#[derive(Debug)]
pub struct Served {
    /// Where the answers come from.
    pub source: Source,
    /// The directory (never shown to clients).
    pub dir: PathBuf,
    /// The sectors whose tables were in the directory when it was opened.
    pub sectors: Vec<Sector>,
}

impl Served {
    /// The rule set.
    pub fn rules(&self) -> &RuleSet {
        self.source.rules()
    }

    /// Whether the tables cover the sliding phase (any sliding sector).
    pub fn covers_sliding(&self) -> bool {
        self.sectors.iter().any(|s| s.is_sliding())
    }

    /// Whether the tables cover the placement phase (any sector with stones
    /// in hand).
    pub fn covers_placement(&self) -> bool {
        self.sectors.iter().any(|s| !s.is_sliding())
    }
}

/// Every database served, by rule set, and the limit on look-ups in flight.
#[derive(Debug)]
pub struct Catalog {
    served: Vec<Served>,
    max_in_flight: usize,
    /// Permits for look-ups running at once.
    pub permits: Arc<tokio::sync::Semaphore>,
}

impl Catalog {
    /// Opens every directory of `config`: cheap (lists each directory and,
    /// for Malom's files, reads the small `.secval` file; maps nothing).
    ///
    /// # Errors
    /// When a directory does not exist, its rule set cannot be told or is
    /// not a preset, two directories serve the same rule set, or nothing is
    /// given.
    pub fn open(config: &Config) -> anyhow::Result<Catalog> {
        let mut sources: Vec<(Source, PathBuf)> = Vec::new();
        for arg in &config.dbs {
            // DTM tables when the directory holds any (of the rule set
            // named, if one is); else WDL files.
            let dtm_names = rule_sets_in(&arg.dir);
            let wdl = match &arg.rules {
                Some(r) => !dtm_names.contains(r) && wdl_rule_sets_in(&arg.dir).contains(r),
                None => dtm_names.is_empty() && !wdl_rule_sets_in(&arg.dir).is_empty(),
            };
            let names = if wdl { wdl_rule_sets_in(&arg.dir) } else { dtm_names };
            let name = match &arg.rules {
                Some(r) => r.clone(),
                None => match names.as_slice() {
                    [one] => one.clone(),
                    [] if !arg.dir.is_dir() => bail!("--db {}: not a directory", arg.dir.display()),
                    [] => bail!(
                        "--db {}: no table files, DTM (`.mtb`, `.mtz`) or WDL (`.mwdl`) (solve some with `morris solve --db {}`)",
                        arg.dir.display(),
                        arg.dir.display()
                    ),
                    many => bail!(
                        "--db {}: tables of several rule sets ({}); name one: --db RULES={}",
                        arg.dir.display(),
                        many.join(", "),
                        arg.dir.display()
                    ),
                },
            };
            let rules = RuleSet::preset(&name).with_context(|| format!("--db {}", arg.dir.display()))?;
            let source = if wdl { Source::open_wdl(&arg.dir, rules)? } else { Source::open_ours(&arg.dir, rules)? };
            sources.push((source, arg.dir.clone()));
        }
        for arg in &config.malom {
            let name = match &arg.rules {
                Some(r) => r.clone(),
                None => match malom_games_in(&arg.dir).as_slice() {
                    [one] => one.to_string(),
                    [] => bail!("--malom {}: no Malom files (std_*, mora_*, lask_*)", arg.dir.display()),
                    many => bail!(
                        "--malom {}: files of several games ({}); name one: --malom RULES={}",
                        arg.dir.display(),
                        many.join(", "),
                        arg.dir.display()
                    ),
                },
            };
            let rules = RuleSet::preset(&name).with_context(|| format!("--malom {}", arg.dir.display()))?;
            sources.push((Source::open_malom(&arg.dir, rules)?, arg.dir.clone()));
        }
        if sources.is_empty() {
            bail!("nothing to serve: give --db DIR (or --malom DIR)");
        }
        Catalog::from_sources(sources, config.max_in_flight)
    }

    /// A catalog of sources opened by the caller, each with the directory
    /// it reads, at most `max_in_flight` look-ups at once: for a library
    /// user serving a rule set that `--db` cannot name, such as a custom
    /// one (`RuleSet::custom`, whose parameters the file names do not
    /// hold).
    ///
    /// # Errors
    /// When two sources serve the same rule set.
    pub fn from_sources(sources: Vec<(Source, PathBuf)>, max_in_flight: usize) -> anyhow::Result<Catalog> {
        let mut served: Vec<Served> = Vec::new();
        for (source, dir) in sources {
            push(&mut served, source, dir)?;
        }
        let max_in_flight = max_in_flight.max(1);
        Ok(Catalog { served, max_in_flight, permits: Arc::new(tokio::sync::Semaphore::new(max_in_flight)) })
    }

    /// The most look-ups running at once.
    pub fn max_in_flight(&self) -> usize {
        self.max_in_flight
    }

    /// The database of the rule set `name`, if served.
    pub fn get(&self, name: &str) -> Option<&Served> {
        self.served.iter().find(|s| s.rules().name() == name)
    }

    /// Every database served, in the order given.
    pub fn all(&self) -> &[Served] {
        &self.served
    }

    /// `nine (our tables: 546 tables), six (...)`.
    pub fn summary(&self) -> String {
        self.served
            .iter()
            .map(|s| {
                let kind = match s.source {
                    Source::Ours(_) => "our tables",
                    Source::Wdl(_) => "our WDL files",
                    Source::Malom(_) => "Malom's files",
                };
                let n = s.sectors.len();
                format!("{} ({kind}: {n} table{})", s.rules().name(), if n == 1 { "" } else { "s" })
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn push(served: &mut Vec<Served>, source: Source, dir: PathBuf) -> anyhow::Result<()> {
    let name = source.rules().name();
    if served.iter().any(|s| s.rules().name() == name) {
        bail!("rule set {name} is given twice ({})", dir.display());
    }
    let sectors = source.sectors_present();
    served.push(Served { source, dir, sectors });
    Ok(())
}
