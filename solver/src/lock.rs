//! Locks on a database directory, so that two solves never see each
//! other's half-made files. Advisory file locks (`flock`, through `fs4`)
//! on two kinds of lock file in the directory:
//!
//! - `.morris.lock`: a whole solve (`morris solve`, `morris value`) holds
//!   it exclusively; a one-unit solve (`morris solve --only UNIT`) holds it
//!   shared. So a whole solve runs alone, and one-unit solves (the Slurm
//!   jobs of `morris plan --slurm`) run side by side.
//! - `.morris-locks/<rule set>_<unit>.lock`: a one-unit solve holds its
//!   unit's exclusively, so two solves of the same unit never write the
//!   same files.
//!
//! Locks are tried, never waited for (but for 0.2 s, in case the holder
//! is releasing it): the second solve is refused with a message naming
//! the lock. A released lock file is removed when no one
//! else holds it; the kernel drops a lock when its holder exits, killed or
//! not, so a lock file left behind by a killed solve is harmless. On a shared file
//! system the locks reach across machines where it supports `flock` (NFS
//! v4; Lustre mounted with `flock`).

use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};

use fs4::fs_std::FileExt;
use morris_db::RuleSet;

use crate::unit::Unit;
use crate::SolveError;

/// The name of the directory-wide lock file.
pub const DIR_LOCK: &str = ".morris.lock";

/// The directory of per-unit lock files.
pub const UNIT_LOCKS: &str = ".morris-locks";

/// Locks held on a database directory; released when dropped (or when the
/// process ends).
#[derive(Debug)]
pub struct DirLock {
    /// Innermost (the unit's) last.
    held: Vec<Held>,
}

/// One lock file, locked.
#[derive(Debug)]
struct Held {
    file: File,
    path: PathBuf,
}

impl Drop for DirLock {
    /// Releases the locks, innermost first. A lock file that no one else
    /// holds (an exclusive lock on it succeeds) is removed, so a finished
    /// solve leaves no file behind; one removed under a process that
    /// opened it meanwhile is noticed there (`acquire` checks that the
    /// file it locked is still the one at the path).
    fn drop(&mut self) {
        while let Some(held) = self.held.pop() {
            if FileExt::try_lock_exclusive(&held.file).unwrap_or(false) {
                let _ = fs::remove_file(&held.path);
                if let Some(parent) = held.path.parent().filter(|p| p.ends_with(UNIT_LOCKS)) {
                    // Only when empty: other units may be locked there.
                    let _ = fs::remove_dir(parent);
                }
            }
        }
    }
}

/// Whether `file` is still the file at `path` (not removed, or removed and
/// made again, by another process's release).
fn is_current(file: &File, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (file, path);
        true
    }
}

/// How long a refused lock is tried again before the solve is refused. A
/// solve releasing its locks holds the directory's exclusively for an
/// instant (to remove the file when no one else holds it, [`DirLock`]'s
/// `Drop`); a one-unit solve starting in that instant must not take it for
/// a whole solve. Before this grace, two Slurm jobs, one starting as
/// another ended, failed so.
const RELEASE_GRACE: std::time::Duration = std::time::Duration::from_millis(200);

/// Takes the lock of `path` (created, with its directory, if missing),
/// exclusive or shared, waiting at most [`RELEASE_GRACE`].
fn acquire(path: &Path, exclusive: bool, holder: &str) -> Result<Held, SolveError> {
    let io = |error| SolveError::Io { path: path.to_path_buf(), error };
    let start = std::time::Instant::now();
    for _ in 0..1000 {
        if let Some(parent) = path.parent() {
            match fs::create_dir_all(parent) {
                Ok(()) => {}
                // Made, then removed by a release, as we looked: again.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io(e)),
            }
        }
        let file = match OpenOptions::new().create(true).truncate(false).read(true).write(true).open(path) {
            Ok(f) => f,
            // Its directory was removed by a release meanwhile: again.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(io(e)),
        };
        let taken = if exclusive { FileExt::try_lock_exclusive(&file) } else { FileExt::try_lock_shared(&file) };
        match taken {
            Ok(true) if is_current(&file, path) => return Ok(Held { file, path: path.to_path_buf() }),
            // Removed by a release between our open and our lock: again.
            Ok(true) => continue,
            // Perhaps a solve releasing its locks: again, for a moment.
            Ok(false) if start.elapsed() < RELEASE_GRACE => std::thread::sleep(std::time::Duration::from_millis(1)),
            Ok(false) => return Err(SolveError::Busy { lock: path.to_path_buf(), holder: holder.to_string() }),
            Err(e) => return Err(io(e)),
        }
    }
    Err(io(std::io::Error::other("the lock file kept disappearing")))
}

/// Refuses a `dir` that exists as something other than a directory
/// (creating the lock file there would say only "Not a directory").
fn check_dir(dir: &Path) -> Result<(), SolveError> {
    if dir.exists() && !dir.is_dir() {
        let error = std::io::Error::new(std::io::ErrorKind::InvalidInput, "exists and is not a directory");
        return Err(SolveError::Io { path: dir.to_path_buf(), error });
    }
    Ok(())
}

impl DirLock {
    /// Locks `dir` (created if missing) for a whole solve: exclusively.
    ///
    /// # Errors
    /// [`SolveError::Busy`] when another solve (whole or one unit) holds
    /// the directory; [`SolveError::Io`] when the lock file cannot be made.
    pub fn whole(dir: &Path) -> Result<DirLock, SolveError> {
        check_dir(dir)?;
        let held = acquire(
            &dir.join(DIR_LOCK),
            true,
            "another `morris solve` (a whole solve, or `--only` jobs) is using this directory",
        )?;
        Ok(DirLock { held: vec![held] })
    }

    /// Locks `dir` for solving `unit` of `rules` alone: the directory
    /// shared, the unit exclusively.
    ///
    /// # Errors
    /// [`SolveError::Busy`] when a whole solve holds the directory, or
    /// another solve the same unit; [`SolveError::Io`] as [`DirLock::whole`].
    pub fn unit(dir: &Path, rules: &RuleSet, unit: &Unit) -> Result<DirLock, SolveError> {
        check_dir(dir)?;
        let mut lock = DirLock { held: Vec::new() };
        lock.held.push(acquire(&dir.join(DIR_LOCK), false, "a whole `morris solve` is using this directory")?);
        let path = dir.join(UNIT_LOCKS).join(format!("{}_{}.lock", rules.name(), unit.name()));
        let holder = format!("another `morris solve --only` is solving unit {}", unit.name());
        lock.held.push(acquire(&path, true, &holder)?);
        Ok(lock)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::unit::units;

    /// Two one-unit solves of different units, each taking and releasing
    /// its locks over and over: neither is ever refused. A release takes
    /// the directory lock exclusively for an instant (to remove its file
    /// when no one else holds it); the other must not read that instant as
    /// a whole solve (as a Slurm job of `six` once did, in CI).
    #[test]
    fn one_unit_solves_side_by_side_are_never_refused() {
        let rules = RuleSet::preset("six").unwrap();
        let all = units(&rules, u32::MAX, false);
        let dir = tempfile::tempdir().unwrap();
        let refused = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for unit in &all[..2] {
                let (dir, rules, refused) = (dir.path(), &rules, &refused);
                s.spawn(move || {
                    for _ in 0..3000 {
                        match DirLock::unit(dir, rules, unit) {
                            Ok(lock) => drop(lock),
                            Err(e) => {
                                eprintln!("{e}");
                                refused.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            }
                        }
                    }
                });
            }
        });
        // (A lock file may be left behind when both release at once:
        // harmless, as the module says.)
        assert_eq!(refused.into_inner(), 0);
    }

    /// A whole solve is still refused at once while a one-unit solve
    /// holds the directory, and the other way round.
    #[test]
    fn a_whole_solve_and_a_unit_solve_exclude_each_other() {
        let rules = RuleSet::preset("six").unwrap();
        let all = units(&rules, u32::MAX, false);
        let dir = tempfile::tempdir().unwrap();
        let unit = DirLock::unit(dir.path(), &rules, &all[0]).unwrap();
        assert!(matches!(DirLock::whole(dir.path()), Err(SolveError::Busy { .. })));
        drop(unit);
        let whole = DirLock::whole(dir.path()).unwrap();
        assert!(matches!(DirLock::unit(dir.path(), &rules, &all[0]), Err(SolveError::Busy { .. })));
        drop(whole);
        assert!(DirLock::unit(dir.path(), &rules, &all[0]).is_ok());
    }
}
