//! A database directory: the one place that knows how table files are
//! named, which files a directory holds, which of two twin files of a
//! sector is read, what a custom rule set's name says, and in which order
//! sectors are listed.
//!
//! File names are `<rule set>_<w>_<b>_<wh>_<bh>.<ext>`, where the rule set
//! is a preset's name or a custom rule set's `<short preset>-<8 hex
//! digits>` ([`crate::RuleSet::with_overrides`]) and the extension says the
//! encoding ([`FileKind`]). A sector may have two DTM files, its `.mtb`
//! table and the compressed `.mtz` made from it (`morris compress` without
//! `--remove-originals`); they are *twins*, and every reader takes the
//! `.mtb` one, which is never older than the `.mtz` made from it.
//!
//! Sectors are listed in one order everywhere ([`sector_order`]): fewer
//! stones in hand first (the sliding phase before placement), then fewer
//! stones on the board, then the side to move's stones on the board and in
//! hand. That is a solving order: every move leaves a sector for one listed
//! before it or stays in it (or its mirror, listed beside it).

use std::io;
use std::path::{Path, PathBuf};

use crate::rules::RuleSet;
use crate::sector::Sector;

/// The extension of DTM table files.
pub const TABLE_EXTENSION: &str = "mtb";
/// The extension of compressed DTM table files.
pub const COMPRESSED_EXTENSION: &str = "mtz";
/// The extension of single-sided stubs ([`crate::derived`]).
pub const DERIVED_EXTENSION: &str = "mtd";
/// The extension of WDL files.
pub const WDL_EXTENSION: &str = "mwdl";
/// The extension of reachability bitmaps ([`crate::reach`]): beside the
/// tables, one per sector, not a table (no [`FileKind`]: no listing of
/// tables sees them).
pub const REACH_EXTENSION: &str = "reach";
/// The suffix of files being written (removed when a run is interrupted).
pub const TEMPORARY_SUFFIX: &str = "tmp";

/// The encodings a database directory can hold, by file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FileKind {
    /// A DTM table, 16 bits per slot ([`crate::table`]), `.mtb`.
    Dtm,
    /// A compressed DTM table ([`crate::compressed`]), `.mtz`.
    Compressed,
    /// A WDL file ([`crate::wdl`]), `.mwdl`.
    Wdl,
    /// A single-sided stub ([`crate::derived`]), `.mtd`: the sector's DTM
    /// values are derived by search, not stored.
    Derived,
}

impl FileKind {
    /// Every kind, in the order twins are preferred (`.mtb` before `.mtz`).
    pub const ALL: [FileKind; 4] = [FileKind::Dtm, FileKind::Compressed, FileKind::Wdl, FileKind::Derived];

    /// The file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            FileKind::Dtm => TABLE_EXTENSION,
            FileKind::Compressed => COMPRESSED_EXTENSION,
            FileKind::Wdl => WDL_EXTENSION,
            FileKind::Derived => DERIVED_EXTENSION,
        }
    }

    /// Whether files of this kind hold DTM values (a `.mtb` or `.mtz`).
    pub fn is_dtm(self) -> bool {
        matches!(self, FileKind::Dtm | FileKind::Compressed)
    }
}

/// The key that orders sectors everywhere: stones in hand, stones on the
/// board, then the side to move's stones on the board and in hand (see the
/// module documentation). For two different sectors the keys differ.
pub fn sector_order(s: &Sector) -> (u8, u8, u8, u8) {
    (s.wh + s.bh, s.w + s.b, s.w, s.wh)
}

/// Sorts sectors by [`sector_order`] and removes repeats.
pub fn sort_sectors(sectors: &mut Vec<Sector>) {
    sectors.sort_by_key(sector_order);
    sectors.dedup();
}

/// One table file's name, parsed: rule-set name, sector and encoding.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TableFile {
    /// The rule set's name as written in the file name.
    pub rules_name: String,
    /// The sector.
    pub sector: Sector,
    /// The encoding, from the extension.
    pub kind: FileKind,
}

impl TableFile {
    /// The file name: `<rules_name>_<w>_<b>_<wh>_<bh>.<ext>`.
    pub fn file_name(&self) -> String {
        let s = self.sector;
        format!("{}_{}_{}_{}_{}.{}", self.rules_name, s.w, s.b, s.wh, s.bh, self.kind.extension())
    }

    /// Parses a name made by [`TableFile::file_name`]; `None` for any other
    /// name (a temporary file, Malom's files, a stray file).
    pub fn parse(name: &str) -> Option<TableFile> {
        let (stem, ext) = name.rsplit_once('.')?;
        let kind = FileKind::ALL.into_iter().find(|k| k.extension() == ext)?;
        let mut parts = stem.rsplitn(5, '_');
        let bh = parts.next()?.parse().ok()?;
        let wh = parts.next()?.parse().ok()?;
        let b = parts.next()?.parse().ok()?;
        let w = parts.next()?.parse().ok()?;
        let rules_name = parts.next()?.to_string();
        Some(TableFile { rules_name, sector: Sector { w, b, wh, bh }, kind })
    }
}

/// One sector's DTM table in a directory: the file every reader opens and,
/// when both exist, its twin that is not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredTable {
    /// The rule set's name as written in the file name.
    pub rules_name: String,
    /// The sector.
    pub sector: Sector,
    /// The file read: the `.mtb` table when there is one, else the `.mtz`.
    pub path: PathBuf,
    /// The compressed `.mtz` twin of a `.mtb` table, when both exist.
    pub twin: Option<PathBuf>,
}

/// What a rule-set name in a file name says: the preset whose board the
/// tables use, and for a custom rule set the first 8 hex digits of its
/// fingerprint ([`crate::RuleSet::with_overrides`]).
#[derive(Debug, Clone)]
pub struct NamedRules {
    /// The name read.
    pub name: String,
    /// The preset (for a custom rule set, the one it was made from: its
    /// board gives the sectors' sizes).
    pub preset: RuleSet,
    /// For a custom rule set, the top 32 bits of its fingerprint.
    pub fingerprint_prefix: Option<u32>,
}

impl NamedRules {
    /// Reads a rule-set name: a preset's (`nine`), or a custom one's
    /// (`nine-dg-9a6d4236`: short preset name, `-`, 8 hex digits).
    ///
    /// # Errors
    /// [`crate::UnknownPreset`] when the name is neither.
    pub fn parse(name: &str) -> Result<NamedRules, crate::UnknownPreset> {
        if let Ok(preset) = RuleSet::preset(name) {
            return Ok(NamedRules { name: name.to_string(), preset, fingerprint_prefix: None });
        }
        let custom = name
            .rsplit_once('-')
            .filter(|(_, hex)| hex.len() == 8 && hex.bytes().all(|c| c.is_ascii_hexdigit()))
            .and_then(|(short, hex)| {
                Some((crate::rules::preset_of_short_name(short)?, u32::from_str_radix(hex, 16).ok()?))
            });
        match custom {
            Some((preset, prefix)) => Ok(NamedRules {
                name: name.to_string(),
                preset: RuleSet::preset(preset)?,
                fingerprint_prefix: Some(prefix),
            }),
            None => Err(crate::UnknownPreset(name.to_string())),
        }
    }

    /// The rule set itself: the preset, or the custom rule set made from
    /// it whose name this is ([`RuleSet::custom_with_prefix`]); `None` when
    /// no combination of overrides gives that name.
    pub fn rule_set(&self) -> Option<RuleSet> {
        match self.fingerprint_prefix {
            None => Some(self.preset.clone()),
            Some(prefix) => self.preset.custom_with_prefix(prefix).filter(|r| r.name() == self.name),
        }
    }

    /// Whether a rule set of this `name` and `fingerprint` (a table
    /// header's) is the one this name stands for.
    pub fn matches(&self, name: &str, fingerprint: u64) -> bool {
        name == self.name
            && match self.fingerprint_prefix {
                None => fingerprint == self.preset.fingerprint(),
                Some(prefix) => (fingerprint >> 32) as u32 == prefix,
            }
    }
}

/// A directory whose rule set cannot be told from its file names
/// ([`Store::rule_set`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DirRulesError {
    /// Tables of several rule sets.
    #[error("{} holds tables of several rule sets ({}); name one with `--rules`{}", .dir.display(), .names.join(", "), custom_hint(.names))]
    Several {
        /// The directory.
        dir: PathBuf,
        /// The rule sets' names, sorted.
        names: Vec<String>,
    },
    /// Tables named after no rule set this library knows.
    #[error("{}: the tables' file names name rule set `{}`, which is neither a preset nor a custom rule set made from one; name it with `--rules`", .dir.display(), crate::quoted(.name))]
    Unknown {
        /// The directory.
        dir: PathBuf,
        /// The name in the file names.
        name: String,
    },
}

/// How to name a custom rule set among `names`, if there is one.
fn custom_hint(names: &[String]) -> &'static str {
    if names.iter().any(|n| RuleSet::preset(n).is_err()) {
        " (a custom one, `<preset>-<8 hex digits>`, with `--rules PRESET` and the options that made it)"
    } else {
        ""
    }
}

/// The names of the entries of `dir`, sorted (lossy UTF-8).
///
/// # Errors
/// When the directory cannot be read.
pub fn file_names(dir: &Path) -> io::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        names.push(entry?.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    Ok(names)
}

/// A database directory (see the module documentation). Making one does
/// no input or output; every listing reads the directory afresh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// The database directory `dir` (which need not exist yet).
    pub fn new(dir: impl Into<PathBuf>) -> Store {
        Store { dir: dir.into() }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Makes sure tables can be written here: creates the directory if it
    /// is missing, then creates and removes a small probe file, so that a
    /// directory nobody can write to (read-only, or a file system that
    /// refuses new files) is found before any work.
    ///
    /// # Errors
    /// The operating system's error when either step fails.
    pub fn check_writable(&self) -> io::Result<()> {
        if self.dir.exists() && !self.dir.is_dir() {
            return Err(io::Error::new(io::ErrorKind::NotADirectory, "not a directory (a file is there)"));
        }
        std::fs::create_dir_all(&self.dir)?;
        let probe = self.dir.join(format!(".morris-write-check-{}", std::process::id()));
        std::fs::OpenOptions::new().write(true).create_new(true).open(&probe)?;
        std::fs::remove_file(&probe)
    }

    /// The path of `sector`'s file of the rule set named `rules_name` in
    /// the encoding `kind`.
    pub fn path(&self, rules_name: &str, sector: Sector, kind: FileKind) -> PathBuf {
        self.dir.join(TableFile { rules_name: rules_name.to_string(), sector, kind }.file_name())
    }

    /// The path of `sector`'s `.mtb` table of `rules` (where the solver
    /// writes it).
    pub fn table_path(&self, rules: &RuleSet, sector: Sector) -> PathBuf {
        self.path(rules.name(), sector, FileKind::Dtm)
    }

    /// The path of `sector`'s reachability bitmap of `rules`
    /// (`<rule set>_<w>_<b>_<wh>_<bh>.reach`, [`crate::reach`]).
    pub fn reach_path(&self, rules: &RuleSet, sector: Sector) -> PathBuf {
        let s = sector;
        self.dir.join(format!("{}_{}_{}_{}_{}.{REACH_EXTENSION}", rules.name(), s.w, s.b, s.wh, s.bh))
    }

    /// The DTM file of `sector` that readers open: the `.mtb` table when it
    /// exists, else the `.mtz` one; `None` when neither exists.
    pub fn dtm_file(&self, rules: &RuleSet, sector: Sector) -> Option<PathBuf> {
        [FileKind::Dtm, FileKind::Compressed]
            .into_iter()
            .map(|k| self.path(rules.name(), sector, k))
            .find(|p| may_exist(p))
    }

    /// Every table file in the directory whose name parses, sorted by rule
    /// set, [`sector_order`], then kind.
    ///
    /// # Errors
    /// When the directory cannot be read.
    pub fn files(&self) -> io::Result<Vec<TableFile>> {
        let mut files: Vec<TableFile> = file_names(&self.dir)?.iter().filter_map(|n| TableFile::parse(n)).collect();
        files.sort_by(|a, b| {
            (&a.rules_name, sector_order(&a.sector), a.kind).cmp(&(&b.rules_name, sector_order(&b.sector), b.kind))
        });
        Ok(files)
    }

    /// Every DTM table in the directory, one per rule set and sector (twins
    /// merged, see [`StoredTable`]), in the order of [`Store::files`].
    ///
    /// # Errors
    /// When the directory cannot be read.
    pub fn tables(&self) -> io::Result<Vec<StoredTable>> {
        let mut out: Vec<StoredTable> = Vec::new();
        for f in self.files()?.into_iter().filter(|f| f.kind.is_dtm()) {
            let path = self.dir.join(f.file_name());
            match out.last_mut() {
                Some(last) if last.rules_name == f.rules_name && last.sector == f.sector => last.twin = Some(path),
                _ => out.push(StoredTable { rules_name: f.rules_name, sector: f.sector, path, twin: None }),
            }
        }
        Ok(out)
    }

    /// The sectors of `rules` that have a file of one of `kinds`, in
    /// [`sector_order`], each once; sectors the rule set cannot have (a
    /// stray or foreign file) are left out.
    ///
    /// # Errors
    /// When the directory cannot be read.
    pub fn sectors(&self, rules: &RuleSet, kinds: &[FileKind]) -> io::Result<Vec<Sector>> {
        let mut v: Vec<Sector> = self
            .files()?
            .into_iter()
            .filter(|f| f.rules_name == rules.name() && kinds.contains(&f.kind) && rules.sector_fits(f.sector))
            .map(|f| f.sector)
            .collect();
        sort_sectors(&mut v);
        Ok(v)
    }

    /// The sectors of `rules` with a DTM table (`.mtb` or `.mtz`).
    ///
    /// # Errors
    /// When the directory cannot be read.
    pub fn dtm_sectors(&self, rules: &RuleSet) -> io::Result<Vec<Sector>> {
        self.sectors(rules, &[FileKind::Dtm, FileKind::Compressed])
    }

    /// The names of the rule sets with DTM tables here (`.mtb` or `.mtz`),
    /// sorted, each once; empty when the directory cannot be read.
    pub fn rule_set_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.tables().unwrap_or_default().into_iter().map(|t| t.rules_name).collect();
        v.dedup();
        v
    }

    /// The names of the rule sets with WDL files here (`.mwdl`), sorted,
    /// each once; empty when the directory cannot be read.
    pub fn wdl_rule_set_names(&self) -> Vec<String> {
        let files = self.files().unwrap_or_default();
        let mut v: Vec<String> = files.into_iter().filter(|f| f.kind == FileKind::Wdl).map(|f| f.rules_name).collect();
        v.dedup();
        v
    }

    /// The rule set of the tables here, told from the file names
    /// ([`NamedRules`]): `Ok(None)` when the directory holds no table (or
    /// does not exist).
    ///
    /// # Errors
    /// [`DirRulesError::Several`] when it holds tables of several rule
    /// sets, [`DirRulesError::Unknown`] when the one it holds is no rule set
    /// this library can make.
    pub fn rule_set(&self) -> Result<Option<RuleSet>, DirRulesError> {
        match self.rule_set_names().as_slice() {
            [] => Ok(None),
            [one] => NamedRules::parse(one)
                .ok()
                .and_then(|named| named.rule_set())
                .map(Some)
                .ok_or_else(|| DirRulesError::Unknown { dir: self.dir.clone(), name: one.clone() }),
            many => Err(DirRulesError::Several { dir: self.dir.clone(), names: many.to_vec() }),
        }
    }

    /// The DTM tables here whose file name is wrong, each with what is
    /// wrong (as `morris stats` reports it): a name that names no known
    /// rule set, or a sector its rule set cannot have. Such a file is read
    /// by no command. Empty when the directory cannot be read.
    pub fn misnamed(&self) -> Vec<(StoredTable, String)> {
        let mut out = Vec::new();
        // The rule set of each name, found once (a custom one by a search).
        let mut found: std::collections::HashMap<String, Option<RuleSet>> = std::collections::HashMap::new();
        for t in self.tables().unwrap_or_default() {
            let rules = found
                .entry(t.rules_name.clone())
                .or_insert_with(|| NamedRules::parse(&t.rules_name).ok().map(|n| n.rule_set().unwrap_or(n.preset)));
            let why = match rules {
                None => "file name names no known rule set".to_string(),
                Some(rules) => match rules.check_sector(t.sector) {
                    Ok(()) => continue,
                    Err(e) => format!("the file name's sector: {e}"),
                },
            };
            out.push((t, why));
        }
        out
    }

    /// The names of the rule sets other than `ours` with table files here,
    /// sorted; empty when the directory cannot be read (for hints in error
    /// messages).
    pub fn other_rule_sets(&self, ours: &str) -> Vec<String> {
        let mut v: Vec<String> =
            self.files().unwrap_or_default().into_iter().map(|f| f.rules_name).filter(|p| p != ours).collect();
        v.sort();
        v.dedup();
        v
    }

    /// The files an interrupted write left behind (`*.tmp`), sorted.
    ///
    /// # Errors
    /// When the directory cannot be read.
    pub fn temporary_files(&self) -> io::Result<Vec<PathBuf>> {
        let suffix = format!(".{TEMPORARY_SUFFIX}");
        Ok(file_names(&self.dir)?.into_iter().filter(|n| n.ends_with(&suffix)).map(|n| self.dir.join(n)).collect())
    }
}

/// Whether a file should be opened at `path`: it exists, or it cannot be
/// told (a directory we may not search). Opening it then says why it cannot
/// be read, where [`Path::exists`] would call it missing.
pub(crate) fn may_exist(path: &Path) -> bool {
    !matches!(path.try_exists(), Ok(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let s = Sector { w: 3, b: 4, wh: 5, bh: 6 };
        for kind in FileKind::ALL {
            let f = TableFile { rules_name: "nine-dg-9a6d4236".into(), sector: s, kind };
            assert_eq!(TableFile::parse(&f.file_name()), Some(f));
        }
        assert_eq!(
            TableFile { rules_name: "nine".into(), sector: s, kind: FileKind::Compressed }.file_name(),
            "nine_3_4_5_6.mtz"
        );
        assert_eq!(TableFile::parse("nine_3_4_5_6.mtb.tmp"), None);
        assert_eq!(TableFile::parse("std_3_4_5_6.sec2"), None);
    }

    #[test]
    fn custom_names_give_their_preset() {
        let custom = RuleSet::preset("nine-diagonal")
            .unwrap()
            .with_overrides(&crate::Overrides { stones: Some(8), ..Default::default() })
            .unwrap();
        assert!(custom.name().starts_with("nine-dg-"), "{}", custom.name());
        let named = NamedRules::parse(custom.name()).unwrap();
        assert_eq!(named.preset.name(), "nine-diagonal");
        assert!(named.matches(custom.name(), custom.fingerprint()));
        assert!(!named.matches(custom.name(), custom.fingerprint() ^ (1 << 40)));
        assert_eq!(NamedRules::parse("six").unwrap().preset.name(), "six");
        assert!(NamedRules::parse("nine-dg-zz").is_err());
        assert!(NamedRules::parse("ten-12345678").is_err());
        assert_eq!(named.rule_set().unwrap().fingerprint(), custom.fingerprint());
        assert!(NamedRules::parse("nine-dg-00000000").unwrap().rule_set().is_none());
    }

    #[test]
    fn order_is_total_and_places_sliding_first() {
        let mut v = vec![
            Sector { w: 0, b: 0, wh: 1, bh: 0 },
            Sector::sliding(4, 3),
            Sector::sliding(3, 4),
            Sector::sliding(3, 3),
        ];
        v.push(Sector::sliding(3, 3));
        sort_sectors(&mut v);
        assert_eq!(
            v,
            [Sector::sliding(3, 3), Sector::sliding(3, 4), Sector::sliding(4, 3), Sector { w: 0, b: 0, wh: 1, bh: 0 }]
        );
    }
}
