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
//! Locks are tried, never waited for: the second solve is refused with a
//! message naming the lock. The kernel drops a lock when its holder exits,
//! killed or not, so a lock file left behind is harmless. On a shared file
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
    _files: Vec<File>,
}

fn open_lock_file(path: &Path) -> Result<File, SolveError> {
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
        .map_err(|source| SolveError::Io { path: path.to_path_buf(), source })
}

fn try_lock(file: &File, path: &Path, exclusive: bool, holder: &str) -> Result<(), SolveError> {
    let taken = if exclusive { FileExt::try_lock_exclusive(file) } else { FileExt::try_lock_shared(file) };
    match taken {
        Ok(true) => Ok(()),
        Ok(false) => Err(SolveError::Busy { lock: path.to_path_buf(), holder: holder.to_string() }),
        Err(source) => Err(SolveError::Io { path: path.to_path_buf(), source }),
    }
}

impl DirLock {
    /// Locks `dir` (created if missing) for a whole solve: exclusively.
    ///
    /// # Errors
    /// [`SolveError::Busy`] when another solve (whole or one unit) holds
    /// the directory; [`SolveError::Io`] when the lock file cannot be made.
    pub fn whole(dir: &Path) -> Result<DirLock, SolveError> {
        fs::create_dir_all(dir).map_err(|source| SolveError::Io { path: dir.to_path_buf(), source })?;
        let path = dir.join(DIR_LOCK);
        let file = open_lock_file(&path)?;
        try_lock(
            &file,
            &path,
            true,
            "another `morris solve` (a whole solve, or `--only` jobs) is using this directory",
        )?;
        Ok(DirLock { _files: vec![file] })
    }

    /// Locks `dir` for solving `unit` of `rules` alone: the directory
    /// shared, the unit exclusively.
    ///
    /// # Errors
    /// [`SolveError::Busy`] when a whole solve holds the directory, or
    /// another solve the same unit; [`SolveError::Io`] as [`DirLock::whole`].
    pub fn unit(dir: &Path, rules: &RuleSet, unit: &Unit) -> Result<DirLock, SolveError> {
        let locks = dir.join(UNIT_LOCKS);
        fs::create_dir_all(&locks).map_err(|source| SolveError::Io { path: locks.clone(), source })?;
        let path = dir.join(DIR_LOCK);
        let dir_file = open_lock_file(&path)?;
        try_lock(&dir_file, &path, false, "a whole `morris solve` is using this directory")?;
        let unit_path: PathBuf = locks.join(format!("{}_{}.lock", rules.name(), unit.name()));
        let unit_file = open_lock_file(&unit_path)?;
        try_lock(
            &unit_file,
            &unit_path,
            true,
            &format!("another `morris solve --only` is solving unit {}", unit.name()),
        )?;
        Ok(DirLock { _files: vec![dir_file, unit_file] })
    }
}
