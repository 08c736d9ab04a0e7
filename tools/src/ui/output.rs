//! Where every subcommand writes: standard output and standard error
//! through writers that treat a closed reader (`morris verify | head -1`)
//! as the end of the output, not as an error and not as a panic.
//!
//! Rust ignores SIGPIPE, so a write to a pipe whose reader has gone fails
//! with `BrokenPipe`; `println!` then panics (exit 101) and `?` would turn
//! the write into the command's result. Here the first such failure marks
//! the stream closed and every later write to it is dropped, so the
//! command finishes its work and exits with the code its work earned: a
//! broken pipe ends the output, it never turns a failure into success.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);
static STDERR_CLOSED: AtomicBool = AtomicBool::new(false);

/// A writer that drops its output once the reader has gone.
pub struct Quiet<W: Write + 'static> {
    inner: W,
    closed: &'static AtomicBool,
}

/// Standard output, locked, for a subcommand's results.
pub fn stdout() -> Quiet<io::StdoutLock<'static>> {
    Quiet { inner: io::stdout().lock(), closed: &STDOUT_CLOSED }
}

/// Standard error, locked, for errors and notes.
pub fn stderr() -> Quiet<io::StderrLock<'static>> {
    Quiet { inner: io::stderr().lock(), closed: &STDERR_CLOSED }
}

impl<W: Write> Quiet<W> {
    /// Runs a write; a broken pipe closes the stream and counts as written.
    fn guard<T>(&mut self, done: T, op: impl FnOnce(&mut W) -> io::Result<T>) -> io::Result<T> {
        if self.closed.load(Ordering::Relaxed) {
            return Ok(done);
        }
        match op(&mut self.inner) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed.store(true, Ordering::Relaxed);
                Ok(done)
            }
            other => other,
        }
    }
}

impl<W: Write> Write for Quiet<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.guard(buf.len(), |w| w.write(buf))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.guard((), |w| w.write_all(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.guard((), |w| w.flush())
    }
}

/// `eprintln!` through [`stderr`]: a line on standard error that is dropped,
/// not a panic, when standard error is closed.
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!($crate::ui::output::stderr(), $($arg)*);
    }};
}
pub(crate) use errln;

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that went away after `room` bytes.
    struct Pipe {
        room: usize,
        got: Vec<u8>,
    }

    impl Write for Pipe {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.got.len() + buf.len() > self.room {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            self.got.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_broken_pipe_ends_the_output_and_is_no_error() {
        static CLOSED: AtomicBool = AtomicBool::new(false);
        let mut w = Quiet { inner: Pipe { room: 6, got: Vec::new() }, closed: &CLOSED };
        writeln!(w, "first").unwrap();
        writeln!(w, "second").unwrap();
        writeln!(w, "x").unwrap();
        assert_eq!(w.inner.got, b"first\n");
        assert!(CLOSED.load(Ordering::Relaxed));
    }

    #[test]
    fn other_errors_stay_errors() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::other("disk full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        static CLOSED: AtomicBool = AtomicBool::new(false);
        let mut w = Quiet { inner: Full, closed: &CLOSED };
        assert!(writeln!(w, "x").is_err());
        assert!(!CLOSED.load(Ordering::Relaxed));
    }
}
