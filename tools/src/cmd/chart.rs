//! `morris chart`: one SVG picture per rule set of the per-sector results
//! CSVs (`results/<rules>-sliding.csv`, `results/<rules>-placement.csv`, as
//! `morris stats --format csv` writes them): the share of wins, draws and
//! losses for the side to move, by stone counts, for the results page.
//!
//! The sliding phase is a grid, one cell per sector (rows: the side to
//! move's stones on the board, columns: the opponent's), each cell a bar
//! split green (wins), grey (draws), red (losses) in proportion to its
//! canonical positions. The placement phase is one such bar per number of
//! stones still in hand (both players together), from the start down, over
//! every placement sector with that many. Counts are canonical positions
//! (one per symmetry class), as the CSVs hold them.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;
use morris_db::Sector;
use serde::Deserialize;

use crate::ui::plural;

/// Draw the per-sector results CSVs as SVG pictures.
///
/// Draw the per-sector results CSVs of each rule set as an SVG picture:
/// the share of wins, draws and losses by stone counts.
///
/// Reads `DIR/<rules>-sliding.csv` (and `-placement.csv` when there) for
/// every rule set in DIR, or for those named, and writes
/// `OUT/<rules>.svg`.
#[derive(Args)]
pub struct ChartArgs {
    /// The directory of the results CSVs.
    #[arg(long, value_name = "DIR", default_value = "results")]
    results: PathBuf,
    /// Where the pictures go, one `<rules>.svg` each.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The rule sets to draw, as the CSVs are named (`nine`, `lasker-5`);
    /// default: every one with a `-sliding.csv`.
    #[arg(value_name = "RULES")]
    rules: Vec<String>,
}

/// One row of a per-sector CSV (the columns the picture uses).
#[derive(Deserialize)]
struct Row {
    sector: String,
    wins: u64,
    losses: u64,
    draws: u64,
}

/// Wins, draws and losses of a set of positions.
#[derive(Clone, Copy, Default)]
struct Shares {
    wins: u64,
    draws: u64,
    losses: u64,
}

impl Shares {
    fn add(&mut self, row: &Row) {
        self.wins += row.wins;
        self.draws += row.draws;
        self.losses += row.losses;
    }

    fn total(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
}

/// Runs `morris chart`.
pub fn run(args: ChartArgs) -> anyhow::Result<ExitCode> {
    let names = if args.rules.is_empty() { rule_sets(&args.results)? } else { args.rules.clone() };
    if names.is_empty() {
        bail!("{} holds no `<rules>-sliding.csv`", args.results.display());
    }
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot write to {}", args.out.display()))?;
    let mut out = crate::ui::output::stdout();
    for name in &names {
        let sliding = read_rows(&args.results.join(format!("{name}-sliding.csv")))?;
        let placement_file = args.results.join(format!("{name}-placement.csv"));
        let placement = if placement_file.exists() { read_rows(&placement_file)? } else { Vec::new() };
        let svg = draw(name, &sliding, &placement)?;
        let file = args.out.join(format!("{name}.svg"));
        crate::ui::write_atomically(&file, &svg, false)?;
        writeln!(
            out,
            "{}: {} and {}",
            file.display(),
            plural(sliding.len() as u64, "sliding sector", "sliding sectors"),
            plural(placement.len() as u64, "placement sector", "placement sectors")
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The rule sets with a `-sliding.csv` in `dir`, sorted.
fn rule_sets(dir: &Path) -> anyhow::Result<Vec<String>> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot read {}", dir.display()))?;
        if let Some(name) = entry.file_name().to_str().and_then(|n| n.strip_suffix("-sliding.csv")) {
            names.push(name.to_string());
        }
    }
    names.sort();
    Ok(names)
}

/// The rows of a per-sector CSV, each sector checked.
fn read_rows(file: &Path) -> anyhow::Result<Vec<Row>> {
    let mut reader = csv::Reader::from_path(file).with_context(|| format!("cannot read {}", file.display()))?;
    let mut rows = Vec::new();
    for (i, row) in reader.deserialize::<Row>().enumerate() {
        let line = i + 2;
        let row =
            row.with_context(|| format!("{}:{line}: not a row of `morris stats --format csv`", file.display()))?;
        if Sector::parse(&row.sector).is_none() {
            bail!("{}:{line}: `{}` is not a sector", file.display(), crate::ui::quoted(&row.sector));
        }
        rows.push(row);
    }
    Ok(rows)
}

const GREEN: &str = "#2e9d4a";
const GREY: &str = "#a0a0a0";
const RED: &str = "#d33b3b";
const CELL: f64 = 54.0;
const BAR_WIDTH: f64 = 420.0;
const BAR_HEIGHT: f64 = 16.0;

/// The picture of one rule set.
fn draw(name: &str, sliding: &[Row], placement: &[Row]) -> anyhow::Result<String> {
    let sectors: Vec<(Sector, &Row)> = sliding.iter().filter_map(|r| Some((Sector::parse(&r.sector)?, r))).collect();
    let (Some(lo), Some(hi)) =
        (sectors.iter().map(|(s, _)| s.w.min(s.b)).min(), sectors.iter().map(|(s, _)| s.w.max(s.b)).max())
    else {
        bail!("{name}: no sliding sector to draw");
    };
    let span = (hi - lo + 1) as f64;
    let grid_left = 70.0;
    let grid_top = 90.0;
    let mut by_hand: BTreeMap<u32, Shares> = BTreeMap::new();
    for row in placement {
        if let Some(s) = Sector::parse(&row.sector) {
            by_hand.entry(s.wh as u32 + s.bh as u32).or_default().add(row);
        }
    }
    let place_top = grid_top + span * CELL + 70.0;
    let height = if by_hand.is_empty() {
        place_top
    } else {
        place_top + 30.0 + by_hand.len() as f64 * (BAR_HEIGHT + 4.0) + 20.0
    };
    let width = (grid_left + span * CELL + 40.0).max(BAR_WIDTH + 160.0);
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(svg, r#"<text x="10" y="22" font-size="15" font-weight="bold">{}</text>"#, escape(name));
    let _ = writeln!(
        svg,
        r#"<text x="10" y="40">Wins (green), draws (grey) and losses (red) for the side to move, share of canonical positions</text>"#
    );
    legend(&mut svg, 10.0, 52.0);
    let _ = writeln!(
        svg,
        r#"<text x="{grid_left}" y="{:.0}">sliding phase: columns the opponent's stones, rows the side to move's</text>"#,
        grid_top - 8.0
    );
    for k in lo..=hi {
        let i = (k - lo) as f64;
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{k}</text>"#,
            grid_left + i * CELL + CELL / 2.0,
            grid_top + span * CELL + 16.0
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{k}</text>"#,
            grid_left - 8.0,
            grid_top + i * CELL + CELL / 2.0 + 4.0
        );
    }
    for (s, row) in &sectors {
        let mut shares = Shares::default();
        shares.add(row);
        let x = grid_left + (s.b - lo) as f64 * CELL;
        let y = grid_top + (s.w - lo) as f64 * CELL;
        bar(&mut svg, x + 2.0, y + 2.0, CELL - 4.0, CELL - 4.0, &shares, &format!("sector {}", s));
    }
    if !by_hand.is_empty() {
        let _ = writeln!(
            svg,
            r#"<text x="10" y="{:.0}">placement phase: stones in hand (both players), from the start down</text>"#,
            place_top
        );
        for (i, (hand, shares)) in by_hand.iter().rev().enumerate() {
            let y = place_top + 12.0 + i as f64 * (BAR_HEIGHT + 4.0);
            let _ = writeln!(svg, r#"<text x="110" y="{:.1}" text-anchor="end">{hand} in hand</text>"#, y + 12.0);
            bar(&mut svg, 120.0, y, BAR_WIDTH, BAR_HEIGHT, shares, &format!("{hand} stones in hand"));
        }
    }
    svg.push_str("</svg>\n");
    Ok(svg)
}

/// A bar at (`x`, `y`) of `w` by `h`, split left to right into wins,
/// draws and losses, with a tooltip naming `what` and the counts.
fn bar(svg: &mut String, x: f64, y: f64, w: f64, h: f64, shares: &Shares, what: &str) {
    let total = shares.total().max(1) as f64;
    let _ = writeln!(
        svg,
        "<g><title>{what}: {} positions, {} wins, {} draws, {} losses</title>",
        shares.total(),
        shares.wins,
        shares.draws,
        shares.losses
    );
    let mut left = x;
    for (count, colour) in [(shares.wins, GREEN), (shares.draws, GREY), (shares.losses, RED)] {
        let part = w * count as f64 / total;
        if part > 0.0 {
            let _ =
                writeln!(svg, r#"<rect x="{left:.2}" y="{y:.2}" width="{part:.2}" height="{h:.2}" fill="{colour}"/>"#);
        }
        left += part;
    }
    let _ = writeln!(
        svg,
        r##"<rect x="{x:.2}" y="{y:.2}" width="{w:.2}" height="{h:.2}" fill="none" stroke="#444"/></g>"##
    );
}

fn legend(svg: &mut String, x: f64, y: f64) {
    for (i, (label, colour)) in [("win", GREEN), ("draw", GREY), ("loss", RED)].iter().enumerate() {
        let lx = x + i as f64 * 70.0;
        let _ = writeln!(svg, r#"<rect x="{lx}" y="{y}" width="12" height="12" fill="{colour}"/>"#);
        let _ = writeln!(svg, r#"<text x="{}" y="{}">{label}</text>"#, lx + 16.0, y + 10.0);
    }
}

/// `text` with the characters XML gives a meaning escaped.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(sector: &str, wins: u64, draws: u64, losses: u64) -> Row {
        Row { sector: sector.into(), wins, draws, losses }
    }

    /// Each bar's parts are in proportion to its counts: 3 wins, 1 draw,
    /// 0 losses of a 40-wide bar are 30 and 10 wide, and no loss part.
    #[test]
    fn bar_parts_in_proportion() {
        let mut svg = String::new();
        let mut s = Shares::default();
        s.add(&row("3-3", 3, 1, 0));
        bar(&mut svg, 0.0, 0.0, 40.0, 10.0, &s, "x");
        assert!(svg.contains(r##"width="30.00" height="10.00" fill="#2e9d4a""##), "{svg}");
        assert!(svg.contains(r##"x="30.00" y="0.00" width="10.00" height="10.00" fill="#a0a0a0""##), "{svg}");
        assert!(!svg.contains(RED), "{svg}");
    }

    /// Placement sectors are summed by stones in hand: two sectors with 3
    /// in hand make one bar of their summed counts.
    #[test]
    fn placement_summed_by_stones_in_hand() {
        let sliding = [row("3-3", 1, 1, 1)];
        let placement = [row("2-3-1-0", 5, 0, 0), row("3-2-0-1", 0, 0, 5), row("2-2-1-1", 1, 0, 0)];
        let svg = draw("t", &sliding, &placement).unwrap();
        assert!(svg.contains("1 stones in hand: 10 positions, 5 wins, 0 draws, 5 losses"), "{svg}");
        assert!(svg.contains("2 stones in hand: 1 positions"), "{svg}");
    }
}
