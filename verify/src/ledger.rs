//! The ledger of verified tables: a CSV file with one row per table that
//! the verifier re-derived without fault, so that a later `morris verify`
//! skips a table whose values, and the values of every table its moves
//! lead to, are the same as when it was verified (docs/ledger.md).
//!
//! | column | holds |
//! |---|---|
//! | `rules` | the rule set's name ([`RuleSet::name`]) |
//! | `fingerprint` | the rule set's fingerprint, 16 hex digits ([`RuleSet::fingerprint`]) |
//! | `sector` | the sector, `w-b` or `w-b-wh-bh` |
//! | `checksum` | the table's values checksum, 16 hex digits ([`morris_db::Table::values_checksum`]: the XXH3-64 of the `.mtb` payload, the same for the `.mtz` form) |
//! | `successors` | each table its moves lead to (as the verifier reads them), `sector=checksum`, or `sector=missing` for one that was not there, separated by spaces |
//! | `positions` | canonical positions re-derived (the header's count) |
//! | `verifier` | the verifier's crate version and format, `0.1.0/1` ([`VERIFIER_FORMAT`]) |
//! | `date` | the day it was verified, UTC, `YYYY-MM-DD` (RFC 3339 full-date) |
//!
//! A row matches a table when the rule set (name and fingerprint), sector,
//! checksum, positions and verifier format are the table's and every
//! successor's checksum is its current one. Rows are only ever appended,
//! a whole line in one write under an exclusive lock, then synced. A crash
//! can leave at most a last line without its end of line: it is ignored
//! with a warning (it never counts), and cut off before the next row is
//! appended. Any other line that is not a valid row is an error naming the
//! file and line, so a ledger edited by hand is refused, never half-read.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use fs4::fs_std::FileExt;
use morris_db::{RuleSet, Sector};

/// The verifier's format: raised whenever what the verifier checks changes
/// (a check added or corrected), so that rows written by an earlier
/// verifier no longer match and their tables are verified again. The crate
/// version is recorded too but not matched (it changes with every release).
pub const VERIFIER_FORMAT: u32 = 1;

/// The default ledger's file name, in the database directory.
pub const DEFAULT_NAME: &str = "verified.csv";

/// The columns, in order; the ledger's first line names them.
pub const COLUMNS: [&str; 8] =
    ["rules", "fingerprint", "sector", "checksum", "successors", "positions", "verifier", "date"];

/// The `verifier` column of rows this verifier writes: its crate version
/// and [`VERIFIER_FORMAT`], `0.1.0/1`.
pub fn verifier_version() -> String {
    format!("{}/{VERIFIER_FORMAT}", env!("CARGO_PKG_VERSION"))
}

/// Today's date in UTC, `YYYY-MM-DD`.
pub fn today() -> String {
    format_date(time::OffsetDateTime::now_utc().date())
}

const DATE_FORMAT: &[time::format_description::BorrowedFormatItem<'static>] =
    time::macros::format_description!("[year]-[month]-[day]");

fn format_date(date: time::Date) -> String {
    date.format(DATE_FORMAT).unwrap_or_else(|_| date.to_string())
}

/// One verified table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The rule set's name.
    pub rules: String,
    /// The rule set's fingerprint.
    pub fingerprint: u64,
    /// The sector.
    pub sector: Sector,
    /// The table's values checksum ([`morris_db::Table::values_checksum`]).
    pub checksum: u64,
    /// Each table the sector's moves lead to, with its values checksum
    /// (`None`: it was not there; no move needed it then).
    pub successors: Vec<(Sector, Option<u64>)>,
    /// Canonical positions re-derived.
    pub positions: u64,
    /// The verifier's version and format, `0.1.0/1` ([`verifier_version`]).
    pub verifier: String,
    /// The day, UTC, `YYYY-MM-DD`.
    pub date: String,
}

impl Row {
    /// The verifier format of the row (the number after the `/` of
    /// [`Row::verifier`]).
    pub fn format(&self) -> Option<u32> {
        self.verifier.rsplit_once('/').and_then(|(_, f)| f.parse().ok())
    }

    /// The row's fields, in [`COLUMNS`] order.
    fn fields(&self) -> [String; 8] {
        let successors: Vec<String> = self
            .successors
            .iter()
            .map(|(s, c)| match c {
                Some(c) => format!("{s}={c:016x}"),
                None => format!("{s}=missing"),
            })
            .collect();
        [
            self.rules.clone(),
            format!("{:016x}", self.fingerprint),
            self.sector.to_string(),
            format!("{:016x}", self.checksum),
            successors.join(" "),
            self.positions.to_string(),
            self.verifier.clone(),
            self.date.clone(),
        ]
    }
}

/// Why a ledger cannot be used. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    /// The file cannot be read, created, locked or written.
    #[error("ledger of verified tables {}: {error} (`--ledger FILE` names another)", path.display())]
    Io {
        /// The ledger.
        path: PathBuf,
        /// What the operating system said.
        error: io::Error,
    },
    /// A line is not a valid row of this ledger (malformed, edited, or of
    /// another rule set or database): nothing of the file is used.
    #[error("{}:{line}: {detail}", path.display())]
    Line {
        /// The ledger.
        path: PathBuf,
        /// The line, counted from 1.
        line: u64,
        /// What is wrong, and what to do.
        detail: String,
    },
}

/// A ledger read into memory: the rows of one rule set, ready to be
/// looked up, and appended to on disk as tables are verified.
#[derive(Debug)]
pub struct Ledger {
    path: PathBuf,
    rows: Vec<Row>,
    /// Rows by (sector, checksum).
    by_key: HashMap<(Sector, u64), Vec<usize>>,
    warnings: Vec<String>,
    /// Rows of this rule set written by a verifier of another format.
    other_format: usize,
}

fn hex16(text: &str) -> Option<u64> {
    if text.len() == 16 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        u64::from_str_radix(text, 16).ok()
    } else {
        None
    }
}

impl Ledger {
    /// Reads the ledger at `path` for `rules` (a file that does not exist
    /// is an empty ledger; it is created at the first row). `others` are
    /// the other rule sets with tables in the database: their rows may
    /// share the file and are skipped. A last line without an end of line
    /// (a write cut off by a crash) is ignored, with a warning
    /// ([`Ledger::warnings`]).
    ///
    /// # Errors
    /// [`LedgerError::Io`] when the file cannot be read;
    /// [`LedgerError::Line`] naming the first line that is not a valid row:
    /// a first line other than [`COLUMNS`], a wrong number of fields, a
    /// checksum or fingerprint that is not 16 hex digits, a sector that
    /// does not parse or is not one of the rule set's, a bad successor
    /// list, count, verifier or date, a rule set named like `rules` but
    /// with another fingerprint, or a rule set with no tables in the
    /// database.
    pub fn open(path: &Path, rules: &RuleSet, others: &[String]) -> Result<Ledger, LedgerError> {
        let io_error = |error| LedgerError::Io { path: path.to_path_buf(), error };
        let mut ledger = Ledger {
            path: path.to_path_buf(),
            rows: Vec::new(),
            by_key: HashMap::new(),
            warnings: Vec::new(),
            other_format: 0,
        };
        let mut bytes = Vec::new();
        match File::open(path) {
            Ok(mut file) => {
                FileExt::lock_shared(&file).map_err(io_error)?;
                let read = file.read_to_end(&mut bytes);
                let _ = FileExt::unlock(&file);
                read.map_err(io_error)?;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(ledger),
            Err(e) => return Err(io_error(e)),
        }
        let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if whole < bytes.len() {
            let line = bytes[..whole].iter().filter(|&&b| b == b'\n').count() + 1;
            ledger.warnings.push(format!(
                "{}:{line}: the last line has no end of line (a write cut off, e.g. by a crash): ignored, and removed before the next row is appended",
                path.display()
            ));
            bytes.truncate(whole);
        }
        let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(bytes.as_slice());
        let mut record = csv::StringRecord::new();
        let mut first = true;
        loop {
            let more = reader.read_record(&mut record).map_err(|e| {
                let line = e.position().map_or(0, |p| p.line());
                LedgerError::Line { path: path.to_path_buf(), line, detail: format!("not a CSV row: {e}") }
            })?;
            if !more {
                break;
            }
            let line = record.position().map_or(0, |p| p.line());
            let fail = |detail: String| LedgerError::Line { path: path.to_path_buf(), line, detail };
            if first {
                first = false;
                if record.iter().ne(COLUMNS) {
                    return Err(fail(format!(
                        "not a ledger of verified tables: its first line must be `{}`",
                        COLUMNS.join(",")
                    )));
                }
                continue;
            }
            if record.len() != COLUMNS.len() {
                return Err(fail(format!(
                    "{} fields, a row has {} ({}): edited or damaged; remove the line (its table is verified again)",
                    record.len(),
                    COLUMNS.len(),
                    COLUMNS.join(",")
                )));
            }
            if let Some(row) = parse_row(&record, rules, others).map_err(fail)? {
                if row.format() == Some(VERIFIER_FORMAT) {
                    let i = ledger.rows.len();
                    ledger.by_key.entry((row.sector, row.checksum)).or_default().push(i);
                    ledger.rows.push(row);
                } else {
                    ledger.other_format += 1;
                }
            }
        }
        Ok(ledger)
    }

    /// The ledger of database directory `dir` for `rules`: the file `path`,
    /// or by default `<dir>/verified.csv` ([`DEFAULT_NAME`]); read as
    /// [`Ledger::open`] (rows of the other rule sets with tables in `dir`
    /// skipped), then created if missing and checked to be writable
    /// ([`Ledger::prepare`]).
    ///
    /// # Errors
    /// As [`Ledger::open`] and [`Ledger::prepare`].
    pub fn of_database(dir: &Path, rules: &RuleSet, path: Option<&Path>) -> Result<Ledger, LedgerError> {
        let path = path.map_or_else(|| dir.join(DEFAULT_NAME), Path::to_path_buf);
        let others = morris_db::Store::new(dir).other_rule_sets(rules.name());
        let ledger = Ledger::open(&path, rules, &others)?;
        ledger.prepare()?;
        Ok(ledger)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What reading the file found that is not an error (a cut-off last
    /// line), one message each, naming the file and line.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Rows of this rule set that a verifier of another format wrote (they
    /// match nothing: their tables are verified again).
    pub fn other_format(&self) -> usize {
        self.other_format
    }

    /// The rows of this rule set read or appended, of this verifier format.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// The row that vouches for the table of `sector` with values checksum
    /// `checksum` and `positions` canonical positions, whose successors
    /// now have the checksums `successors` (`None`: not there): one with
    /// the same checksum and positions that names each of `successors`
    /// with the same checksum (in any order). A row may name more
    /// successors than that: earlier verifiers also read the sectors two
    /// and three stones down, which no move of a rule set with one removal
    /// per move reaches, so the values checked did not depend on them.
    /// `None` when there is no such row: the table must be verified.
    pub fn find(
        &self,
        sector: Sector,
        checksum: u64,
        positions: u64,
        successors: &[(Sector, Option<u64>)],
    ) -> Option<&Row> {
        self.by_key
            .get(&(sector, checksum))?
            .iter()
            .rev()
            .map(|&i| &self.rows[i])
            .find(|row| row.positions == positions && successors.iter().all(|now| row.successors.contains(now)))
    }

    /// Creates the file with its first line if it does not exist, and
    /// checks that rows can be appended to it: so that a ledger that
    /// cannot be written is found before any table is verified.
    ///
    /// # Errors
    /// [`LedgerError::Io`] when the file cannot be created, opened for
    /// appending, locked or written.
    pub fn prepare(&self) -> Result<(), LedgerError> {
        self.write_rows(&[])
    }

    /// Appends `row` to the file (under an exclusive lock, a whole line in
    /// one write, synced to disk before it returns; the first line with the
    /// column names is written first into an empty file, and a last line
    /// without an end of line, left by a crash, is cut off first), and
    /// keeps it for [`Ledger::find`].
    ///
    /// # Errors
    /// [`LedgerError::Io`] when the file cannot be opened, locked or
    /// written (a full disk among them); the row is then not kept.
    pub fn append(&mut self, row: Row) -> Result<(), LedgerError> {
        self.write_rows(std::slice::from_ref(&row))?;
        if row.format() == Some(VERIFIER_FORMAT) {
            let i = self.rows.len();
            self.by_key.entry((row.sector, row.checksum)).or_default().push(i);
            self.rows.push(row);
        }
        Ok(())
    }

    fn write_rows(&self, rows: &[Row]) -> Result<(), LedgerError> {
        let io_error = |error| LedgerError::Io { path: self.path.clone(), error };
        let mut file = OpenOptions::new().read(true).append(true).create(true).open(&self.path).map_err(io_error)?;
        FileExt::lock_exclusive(&file).map_err(io_error)?;
        let written = (|| -> io::Result<()> {
            let mut len = file.metadata()?.len();
            if len > 0 {
                let mut last = [0u8];
                file.seek(SeekFrom::Start(len - 1))?;
                file.read_exact(&mut last)?;
                if last[0] != b'\n' {
                    // A line cut off by a crash: drop it.
                    let mut bytes = Vec::new();
                    file.seek(SeekFrom::Start(0))?;
                    file.read_to_end(&mut bytes)?;
                    len = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) as u64;
                    file.set_len(len)?;
                }
            }
            let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
            if len == 0 {
                writer.write_record(COLUMNS)?;
            }
            for row in rows {
                writer.write_record(row.fields())?;
            }
            let bytes = writer.into_inner().map_err(|e| e.into_error())?;
            if !bytes.is_empty() {
                file.write_all(&bytes)?;
                file.sync_data()?;
            }
            Ok(())
        })();
        let _ = FileExt::unlock(&file);
        written.map_err(io_error)
    }
}

/// One row of the file; `Ok(None)` for a row of another rule set of the
/// database (`others`).
fn parse_row(record: &csv::StringRecord, rules: &RuleSet, others: &[String]) -> Result<Option<Row>, String> {
    let field = |i: usize| record.get(i).unwrap_or("");
    let name = field(0);
    let fingerprint = hex16(field(1)).ok_or_else(|| format!("fingerprint `{}` is not 16 hex digits", field(1)))?;
    if name != rules.name() {
        if others.iter().any(|o| o == name) {
            return Ok(None);
        }
        return Err(format!(
            "a row of rule set `{name}`, which has no tables in this database (verifying `{}`): the ledger of another database? Name this one's with --ledger FILE",
            rules.name()
        ));
    }
    if fingerprint != rules.fingerprint() {
        return Err(format!(
            "a row of rule set `{name}` with fingerprint {fingerprint:016x}, but `{name}` here has fingerprint {:016x}: written under other rules of the same name; name this rule set's ledger with --ledger FILE",
            rules.fingerprint()
        ));
    }
    let sector = |text: &str| -> Result<Sector, String> {
        let s = Sector::parse(text).ok_or_else(|| format!("`{text}` is not a sector (`w-b` or `w-b-wh-bh`)"))?;
        rules.check_sector(s).map_err(|e| format!("sector `{text}`: {e}"))?;
        Ok(s)
    };
    let own = sector(field(2))?;
    let checksum = hex16(field(3)).ok_or_else(|| format!("checksum `{}` is not 16 hex digits", field(3)))?;
    let mut successors = Vec::new();
    for item in field(4).split_whitespace() {
        let (s, c) = item
            .split_once('=')
            .ok_or_else(|| format!("successor `{item}` is not `sector=checksum` or `sector=missing`"))?;
        let c = match c {
            "missing" => None,
            c => Some(hex16(c).ok_or_else(|| format!("successor `{item}`: `{c}` is not 16 hex digits"))?),
        };
        successors.push((sector(s)?, c));
    }
    let positions: u64 = field(5).parse().map_err(|_| format!("positions `{}` is not a whole number", field(5)))?;
    let verifier = field(6);
    let format_ok = verifier
        .rsplit_once('/')
        .is_some_and(|(v, f)| !v.is_empty() && !v.contains(char::is_whitespace) && f.parse::<u32>().is_ok());
    if !format_ok {
        return Err(format!("verifier `{verifier}` is not `version/format`, e.g. `{}`", verifier_version()));
    }
    let date = time::Date::parse(field(7), DATE_FORMAT)
        .map_err(|_| format!("date `{}` is not a date `YYYY-MM-DD`", field(7)))?;
    Ok(Some(Row {
        rules: name.to_string(),
        fingerprint,
        sector: own,
        checksum,
        successors,
        positions,
        verifier: verifier.to_string(),
        date: format_date(date),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nine() -> RuleSet {
        RuleSet::preset("nine").unwrap()
    }

    fn row(sector: Sector, checksum: u64) -> Row {
        Row {
            rules: "nine".into(),
            fingerprint: nine().fingerprint(),
            sector,
            checksum,
            successors: vec![(Sector::sliding(4, 3), Some(7)), (Sector::sliding(3, 3), None)],
            positions: 42,
            verifier: verifier_version(),
            date: today(),
        }
    }

    #[test]
    fn rows_written_are_read_back_and_match_only_what_they_describe() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("verified.csv");
        let s = Sector::sliding(3, 4);
        let mut ledger = Ledger::open(&path, &nine(), &[]).unwrap();
        ledger.prepare().unwrap();
        ledger.append(row(s, 0xabc)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("rules,fingerprint,sector,checksum,successors,positions,verifier,date\n"), "{text}");
        assert!(text.contains(",3-4,0000000000000abc,4-3=0000000000000007 3-3=missing,42,"), "{text}");
        let again = Ledger::open(&path, &nine(), &[]).unwrap();
        assert_eq!(again.rows(), &[row(s, 0xabc)]);
        let succ = [(Sector::sliding(3, 3), None), (Sector::sliding(4, 3), Some(7))];
        assert!(again.find(s, 0xabc, 42, &succ).is_some());
        assert!(again.find(s, 0xabd, 42, &succ).is_none(), "another checksum");
        assert!(again.find(s, 0xabc, 43, &succ).is_none(), "other positions");
        assert!(again.find(Sector::sliding(4, 3), 0xabc, 42, &succ).is_none(), "another sector");
        let changed = [(Sector::sliding(3, 3), None), (Sector::sliding(4, 3), Some(8))];
        assert!(again.find(s, 0xabc, 42, &changed).is_none(), "a successor changed");
        let appeared = [(Sector::sliding(3, 3), Some(1)), (Sector::sliding(4, 3), Some(7))];
        assert!(again.find(s, 0xabc, 42, &appeared).is_none(), "a missing successor appeared");
        // A row naming a successor no longer read still vouches (an earlier
        // verifier read sectors no move reaches); one lacking a successor
        // read now does not.
        assert!(again.find(s, 0xabc, 42, &succ[..1]).is_some(), "fewer successors read now");
        let more = [(Sector::sliding(3, 3), None), (Sector::sliding(4, 3), Some(7)), (Sector::sliding(2, 4), Some(9))];
        assert!(again.find(s, 0xabc, 42, &more).is_none(), "a successor the row does not name");
    }

    #[test]
    fn a_cut_off_last_line_is_ignored_then_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("verified.csv");
        let s = Sector::sliding(3, 4);
        let mut ledger = Ledger::open(&path, &nine(), &[]).unwrap();
        ledger.append(row(s, 1)).unwrap();
        let whole = std::fs::read_to_string(&path).unwrap();
        // A second row cut off halfway (even one that looks complete
        // without its end of line does not count).
        let line = whole.lines().nth(1).unwrap().replace(",0000000000000001,", ",0000000000000002,");
        std::fs::write(&path, format!("{whole}{line}")).unwrap();
        let mut ledger = Ledger::open(&path, &nine(), &[]).unwrap();
        assert_eq!(ledger.rows().len(), 1);
        assert!(
            ledger.warnings()[0].contains("verified.csv:3: the last line has no end of line"),
            "{:?}",
            ledger.warnings()
        );
        assert!(ledger.find(s, 2, 42, &row(s, 2).successors).is_none());
        ledger.append(row(s, 3)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 3, "{text}");
        assert!(!text.contains(",0000000000000002,") && text.ends_with('\n'), "{text}");
        let again = Ledger::open(&path, &nine(), &[]).unwrap();
        assert!(again.warnings().is_empty());
        assert_eq!(again.rows().len(), 2);
    }

    #[test]
    fn bad_lines_are_errors_naming_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l.csv");
        let mut ledger = Ledger::open(&path, &nine(), &[]).unwrap();
        ledger.append(row(Sector::sliding(3, 4), 1)).unwrap();
        let good = std::fs::read_to_string(&path).unwrap();
        let line = good.lines().nth(1).unwrap().to_string();
        let fp = format!("{:016x}", nine().fingerprint());
        let cases: Vec<(String, &str)> = vec![
            (line.replace(",42,", ",42,extra,"), "9 fields"),
            (line.replace(",0000000000000001,", ",00000000000000g1,"), "checksum `00000000000000g1`"),
            (line.replace(",0000000000000001,", ",1,"), "checksum `1`"),
            (line.replace(",3-4,", ",3-x,"), "`3-x` is not a sector"),
            (line.replace(",3-4,", ",3-10,"), "sector `3-10`"),
            (line.replace("4-3=0000000000000007", "4-3:7"), "successor `4-3:7`"),
            (line.replace(",42,", ",-1,"), "positions `-1`"),
            (line.replace(&verifier_version(), "1"), "verifier `1`"),
            (line.replace(&today(), "2026-13-01"), "date `2026-13-01`"),
            (line.replacen("nine,", "six,", 1), "rule set `six`, which has no tables"),
            (line.replace(&fp, "0123456789abcdef"), "written under other rules"),
        ];
        for (bad, expect) in cases {
            std::fs::write(&path, format!("{good}{bad}\n{line}\n")).unwrap();
            let err = Ledger::open(&path, &nine(), &[]).unwrap_err().to_string();
            assert!(err.contains("l.csv:3: ") && err.contains(expect), "{expect}: {err}");
        }
        // Another rule set with tables in the database: its rows are kept
        // in the file and skipped.
        std::fs::write(&path, format!("{good}{}\n", line.replacen("nine,", "six,", 1))).unwrap();
        assert_eq!(Ledger::open(&path, &nine(), &["six".to_string()]).unwrap().rows().len(), 1);
        // Not a ledger at all.
        std::fs::write(&path, "a,b\n1,2\n").unwrap();
        let err = Ledger::open(&path, &nine(), &[]).unwrap_err().to_string();
        assert!(err.contains("l.csv:1: not a ledger"), "{err}");
        // Another verifier format: read, matching nothing.
        std::fs::write(&path, format!("{good}{}\n", line.replace(&verifier_version(), "0.0.1/0"))).unwrap();
        let l = Ledger::open(&path, &nine(), &[]).unwrap();
        assert_eq!((l.rows().len(), l.other_format()), (1, 1));
    }
}
