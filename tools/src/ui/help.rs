//! `morris -h`: the subcommands grouped by task, one short line each, in
//! an order a reader can use (clap lists them in one flat list).

use clap::Command;

/// The groups of subcommands, by task, in the order `morris -h` shows
/// them. Every subcommand is in exactly one group (tested).
pub const GROUPS: &[(&str, &[&str])] = &[
    ("Build a database", &["solve", "value", "compress", "export-wdl", "chart"]),
    (
        "Ask it about a position",
        &["probe", "analyze", "bestmove", "line", "show", "play", "replay", "review", "sample"],
    ),
    ("Check it", &["verify", "stats", "reach", "compare", "prove", "perft"]),
    ("Serve it", &["serve"]),
    ("Run on a cluster", &["plan"]),
    ("Measure speed", &["bench", "bench-probe", "bench-serve"]),
];

/// `cmd` with a help text that lists its subcommands by [`GROUPS`], each
/// with the first line of its own help.
pub fn grouped(cmd: Command) -> Command {
    let width = GROUPS.iter().flat_map(|(_, names)| names.iter()).map(|n| n.len()).max().unwrap_or(0);
    let mut list = String::new();
    for (title, names) in GROUPS {
        list.push_str(&format!("{title}:\n"));
        for name in *names {
            let about =
                cmd.find_subcommand(name).and_then(|s| s.get_about()).map(|a| a.to_string()).unwrap_or_default();
            list.push_str(&format!("  {name:<width$}  {about}\n"));
        }
        list.push('\n');
    }
    cmd.help_template(format!(
        "{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\n{list}Options:\n{{options}}\n\n\
         `morris help COMMAND` or `morris COMMAND -h` tells more of each command.{{after-help}}"
    ))
}

#[cfg(test)]
mod tests {
    use super::GROUPS;

    /// Every subcommand of `morris` is in exactly one group, and every
    /// group's names are subcommands.
    #[test]
    fn every_subcommand_in_one_group() {
        use clap::CommandFactory;
        let cmd = crate::Cli::command();
        let grouped: Vec<&str> = GROUPS.iter().flat_map(|(_, names)| names.iter().copied()).collect();
        for sub in cmd.get_subcommands() {
            let n = grouped.iter().filter(|&&g| g == sub.get_name()).count();
            assert_eq!(n, 1, "subcommand {} is in {n} groups", sub.get_name());
        }
        for name in grouped {
            assert!(cmd.find_subcommand(name).is_some(), "{name} is grouped but is no subcommand");
        }
    }
}
