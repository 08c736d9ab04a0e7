//! The README's commands, run as a reader runs them: every `morris`
//! command of its set-up (```sh blocks) and its tour (`$ morris ...` lines
//! of the other blocks) runs in one fresh directory, in the README's order,
//! and every output line the README shows is in what the command prints
//! (lines with `...` are elisions and lines with timings vary: of those,
//! the part before the timing is checked). `morris serve` runs on a port
//! the system picks and the `curl` after it is made with an HTTP client;
//! `morris play` gets the commands its prompt lines show.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;

use crate::common::{morris, Runner};

/// One command of the README and the output it shows.
struct Shown {
    line: usize,
    command: String,
    output: Vec<String>,
}

/// The `morris` and `curl` commands of the README, in order.
fn commands(readme: &str) -> Vec<Shown> {
    let mut out: Vec<Shown> = Vec::new();
    let mut fence: Option<String> = None;
    for (i, line) in readme.lines().enumerate() {
        if let Some(lang) = line.strip_prefix("```") {
            fence = if fence.is_some() { None } else { Some(lang.to_string()) };
            continue;
        }
        let Some(lang) = &fence else { continue };
        if lang == "sh" {
            if let Some(rest) = line.strip_prefix("morris ") {
                let command = rest.split(" #").next().unwrap_or(rest).trim();
                out.push(Shown { line: i + 1, command: command.to_string(), output: Vec::new() });
            }
        } else if let Some(rest) = line.strip_prefix("$ ") {
            let command = rest.strip_prefix("morris ").map_or(rest.to_string(), |r| r.to_string());
            let command = if rest.starts_with("morris ") { command } else { format!("!{command}") };
            out.push(Shown { line: i + 1, command, output: Vec::new() });
        } else if let Some(last) = out.last_mut() {
            last.output.push(line.to_string());
        }
    }
    out
}

/// `text` with every run of white space one space.
fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether a shown line holds a figure that changes from run to run.
fn varies(line: &str) -> bool {
    line.contains("estimated")
        || line.contains("free:")
        || line
            .split_whitespace()
            .collect::<Vec<_>>()
            .windows(2)
            .any(|w| w[1].starts_with('s') && w[1].len() <= 2 && w[0].parse::<f64>().is_ok())
}

/// Checks that `actual` holds every line of `shown` that can be checked.
fn check_output(what: &Shown, actual: &str) {
    let actual = squeeze(actual);
    for line in &what.output {
        if line.trim().is_empty() || line.contains("...") {
            continue;
        }
        let expected = if varies(line) {
            let cut = [" in ", ": estimated", " (free"].iter().filter_map(|c| line.find(c)).min().unwrap_or(0);
            squeeze(&line[..cut])
        } else {
            squeeze(line)
        };
        if expected.len() < 8 {
            continue;
        }
        assert!(
            actual.contains(&expected),
            "README line {}: `morris {}` does not print\n  {expected}\nit printed:\n{actual}",
            what.line,
            what.command
        );
    }
}

#[test]
fn every_readme_command_runs_and_prints_what_the_readme_shows() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md")).unwrap();
    let shown = commands(&readme);
    assert!(shown.len() >= 10, "the README's tour has {} commands", shown.len());
    let dir = tempfile::tempdir().unwrap();
    let mut printed: HashMap<String, String> = HashMap::new();
    let mut server: Option<(std::process::Child, String)> = None;
    for what in &shown {
        let words = shlex::split(&what.command).unwrap_or_else(|| panic!("README line {}: bad quoting", what.line));
        if let Some(curl) = what.command.strip_prefix('!') {
            let (_, url) =
                server.as_ref().unwrap_or_else(|| panic!("README line {}: curl without a server", what.line));
            let target = curl.split('\'').nth(1).expect("curl 'URL'");
            let path = target.split_once('/').map_or("/", |(_, p)| p);
            let body = ureq::get(&format!("{url}{path}")).call().unwrap().body_mut().read_to_string().unwrap();
            for line in &what.output {
                for part in line.split("...").map(str::trim).filter(|p| p.len() > 3) {
                    assert!(body.contains(part), "README line {}: the answer lacks {part}:\n{body}", what.line);
                }
            }
            continue;
        }
        let args: Vec<&str> = words.iter().map(String::as_str).collect();
        match args.first() {
            Some(&"serve") => {
                let mut child = morris()
                    .current_dir(dir.path())
                    .args(&args)
                    .args(["--bind", "127.0.0.1:0", "--log-format", "none"])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap();
                let mut first = String::new();
                BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
                let url = first.split_whitespace().nth(2).expect("an address").to_string();
                let port_free = |t: &str| t.replace("http://127.0.0.1:8080/", "ADDR").replace(&url, "ADDR");
                for line in &what.output {
                    assert_eq!(port_free(line.trim()), port_free(first.trim()), "README line {}", what.line);
                }
                server = Some((child, url));
            }
            Some(&"play") => {
                let input: String = what
                    .output
                    .iter()
                    .filter_map(|l| l.split_once("> ").map(|(_, cmd)| format!("{cmd}\n")))
                    .chain(["quit\n".to_string()])
                    .collect();
                let run = Runner::default().cwd(dir.path()).stdin(&input).run(&args);
                assert_eq!(run.code, Some(0), "README line {}: {}", what.line, run.stderr);
                let shown = Shown {
                    line: what.line,
                    command: what.command.clone(),
                    output: what.output.iter().filter(|l| !l.contains("> ")).cloned().collect(),
                };
                check_output(&shown, &run.stdout);
            }
            _ => {
                let out = match printed.get(&what.command) {
                    Some(out) => out.clone(),
                    None => {
                        let run = Runner::default().cwd(dir.path()).run(&args);
                        assert_eq!(
                            run.code,
                            Some(0),
                            "README line {}: morris {}: {}",
                            what.line,
                            what.command,
                            run.stderr
                        );
                        printed.insert(what.command.clone(), run.stdout.clone());
                        run.stdout
                    }
                };
                check_output(what, &out);
            }
        }
    }
    if let Some((mut child, _)) = server {
        let _ = child.kill();
        let _ = child.wait();
    }
}
