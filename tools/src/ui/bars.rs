//! Progress bars on standard error. The library crates draw nothing: the
//! solver reports to a [`morris_solver::Progress`], the prover counts in
//! atomics, and the commands turn those into indicatif bars here and where
//! they run.

use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};
use morris_solver::{Progress, SolveEvent};

/// A solve's progress as bars: one bar per stage (the sliding pairs, then
/// the placement sectors), `solve <rules> [=====] 3/15 pairs, 4s pair 3-4`,
/// hidden when `quiet`; events go to a handler, with the bar hidden while
/// it writes.
pub struct SolveBars<'a> {
    quiet: bool,
    bar: Mutex<Option<ProgressBar>>,
    on_event: Box<dyn Fn(&SolveEvent) + Sync + 'a>,
}

impl<'a> SolveBars<'a> {
    /// Bars (none with `quiet`), and `on_event` for what happens.
    pub fn new(quiet: bool, on_event: impl Fn(&SolveEvent) + Sync + 'a) -> SolveBars<'a> {
        SolveBars { quiet, bar: Mutex::new(None), on_event: Box::new(on_event) }
    }

    /// Runs `f` (which writes to the terminal) with the bar hidden.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match self.bar.lock().ok().and_then(|bar| bar.clone()) {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    fn with(&self, f: impl FnOnce(&ProgressBar)) {
        if let Ok(bar) = self.bar.lock() {
            if let Some(bar) = bar.as_ref() {
                f(bar);
            }
        }
    }
}

impl Progress for SolveBars<'_> {
    fn begin(&self, rules: &str, what: &str, units: u64) {
        let bar = if self.quiet {
            ProgressBar::hidden()
        } else {
            let bar = ProgressBar::new(units);
            bar.set_style(
                ProgressStyle::with_template(&format!(
                    "{{prefix}} [{{bar:30}}] {{pos}}/{{len}} {what}, {{elapsed}} {{msg}}"
                ))
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.set_prefix(format!("solve {rules}"));
            bar
        };
        if let Ok(mut slot) = self.bar.lock() {
            *slot = Some(bar);
        }
    }

    fn message(&self, text: &str) {
        let text = text.to_string();
        self.with(|bar| bar.set_message(text));
    }

    fn advance(&self) {
        self.with(|bar| bar.inc(1));
    }

    fn event(&self, event: &SolveEvent) {
        match self.bar.lock().ok().and_then(|bar| bar.clone()) {
            Some(bar) => bar.suspend(|| (self.on_event)(event)),
            None => (self.on_event)(event),
        }
    }

    fn finish(&self) {
        if let Ok(mut slot) = self.bar.lock() {
            if let Some(bar) = slot.take() {
                bar.finish_and_clear();
            }
        }
    }
}
