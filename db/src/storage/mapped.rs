//! The one place that maps files into memory; every reader of table files
//! (ours and Malom's) maps through [`map_file`].

use std::fs::File;
use std::io;
use std::path::Path;

use memmap2::Mmap;

/// Maps a whole file read-only.
///
/// # Safety
/// The caller must make sure that no one truncates or rewrites the file
/// while the mapping lives (as `memmap2::Mmap::map` requires). Table files are written under a temporary name and renamed
/// into place when complete (see `table::write_table`); a finished table is
/// never modified again, and replacing one is a rename, which leaves the
/// mapped inode intact. Users must not edit table files in place while a
/// program has them open; every field read from the mapping is checked, so
/// even then the worst outcome is a wrong value or an error, not memory
/// unsafety beyond what the operating system does to a process whose mapped
/// file shrinks (SIGBUS).
pub unsafe fn map_file(file: &File) -> io::Result<Mmap> {
    // SAFETY: the caller upholds the contract above.
    unsafe { Mmap::map(file) }
}

/// Opens a file to be mapped, read-only: a table, a WDL file, a Malom file.
///
/// # Errors
/// The operating system's error when it cannot be opened, and an error of
/// kind [`io::ErrorKind::InvalidInput`] saying so when the path is a
/// directory or another non-regular file (mapping one fails with an
/// unhelpful "No such device").
pub fn open_file(path: &Path) -> io::Result<File> {
    let file = File::open(path)?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        let what = if kind.is_dir() { "a directory" } else { "not a regular file" };
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("is {what}, not a table file")));
    }
    Ok(file)
}
