//! Progress bars on standard error. The library crates draw nothing: the
//! solver reports to a [`morris_solver::Progress`], the prover counts in
//! atomics, and the commands turn those into indicatif bars here and where
//! they run.

use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};
use morris_solver::Progress;

/// A solve's progress as bars: one bar per stage (the sliding pairs, then
/// the placement sectors), `solve <rules> [=====] 3/15 pairs, 4s pair 3-4`.
/// Hidden when `quiet`.
pub struct SolveBars {
    quiet: bool,
    bar: Mutex<Option<ProgressBar>>,
}

impl SolveBars {
    /// Bars, or none with `quiet`.
    pub fn new(quiet: bool) -> SolveBars {
        SolveBars { quiet, bar: Mutex::new(None) }
    }

    fn with(&self, f: impl FnOnce(&ProgressBar)) {
        if let Ok(bar) = self.bar.lock() {
            if let Some(bar) = bar.as_ref() {
                f(bar);
            }
        }
    }
}

impl Progress for SolveBars {
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

    fn finish(&self) {
        if let Ok(mut slot) = self.bar.lock() {
            if let Some(bar) = slot.take() {
                bar.finish_and_clear();
            }
        }
    }
}
