//! Every relative link in the documentation points to something that
//! exists: README.md, CONTRIBUTING.md, CHANGELOG.md and docs/*.md are read
//! from the workspace root, every markdown link `[text](target)` (images
//! included) that is not `http(s):` or `mailto:` is resolved relative to
//! the linking file, and the file must exist; a `#anchor` (alone, or after
//! a markdown file) must be the slug of a heading of that file, as GitHub
//! makes them (lowercase, punctuation other than `-` and `_` dropped,
//! spaces to `-`, `-1`, `-2`, ... after repeats). Links inside code blocks
//! and code spans are not links and are skipped.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The workspace root (this crate's manifest directory is `tests/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The markdown files whose links are checked.
fn documents() -> Vec<PathBuf> {
    let root = root();
    let mut files: Vec<PathBuf> =
        ["README.md", "CONTRIBUTING.md", "CHANGELOG.md"].iter().map(|f| root.join(f)).collect();
    let docs = root.join("docs");
    let mut in_docs: Vec<PathBuf> = fs::read_dir(&docs)
        .unwrap_or_else(|e| panic!("{}: {e}", docs.display()))
        .map(|entry| entry.expect("a directory entry of docs/").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    in_docs.sort();
    files.extend(in_docs);
    files
}

/// Whether a trimmed line opens or closes a fenced code block; the fence
/// (its character and length) when it does.
fn fence(line: &str) -> Option<(char, usize)> {
    let t = line.trim_start();
    let c = t.chars().next()?;
    if c != '`' && c != '~' {
        return None;
    }
    let n = t.chars().take_while(|&x| x == c).count();
    (n >= 3).then_some((c, n))
}

/// The text with fenced code blocks and inline code spans blanked out
/// (newlines kept, so that nothing inside them reads as a link).
fn without_code(text: &str) -> String {
    without_fences(text).split_inclusive('\n').map(without_code_spans).collect()
}

/// The text with fenced code blocks blanked out (newlines kept, so that
/// nothing inside them reads as a heading).
fn without_fences(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut open: Option<(char, usize)> = None;
    for line in text.split_inclusive('\n') {
        match (open, fence(line)) {
            (None, Some(f)) => {
                open = Some(f);
                out.push('\n');
                continue;
            }
            (Some((c, n)), Some((c2, n2))) if c == c2 && n2 >= n && line.trim().chars().all(|x| x == c) => {
                open = None;
                out.push('\n');
                continue;
            }
            (Some(_), _) => {
                out.push('\n');
                continue;
            }
            (None, None) => {}
        }
        out.push_str(line);
    }
    out
}

/// One line with its code spans (`` `...` ``, any number of backticks)
/// replaced by spaces.
fn without_code_spans(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|&&c| c == '`').count();
        // Find the closing run of exactly the same length.
        let mut j = i + run;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let k = chars[j..].iter().take_while(|&&c| c == '`').count();
                if k == run {
                    close = Some(j);
                    break;
                }
                j += k;
            } else {
                j += 1;
            }
        }
        match close {
            Some(j) => {
                out.extend(std::iter::repeat_n(' ', j + run - i));
                i = j + run;
            }
            None => {
                out.extend(&chars[i..i + run]);
                i += run;
            }
        }
    }
    out
}

/// The targets of the markdown links `[text](target)` of a text without
/// code, with their line numbers. The text may span lines (not a blank
/// one) and hold nested brackets; a title after the target is dropped.
fn links(text: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '[' || (i > 0 && chars[i - 1] == '\\') {
            i += 1;
            continue;
        }
        // The matching `]`.
        let mut depth = 0;
        let mut j = i;
        let mut close = None;
        while j < chars.len() {
            match chars[j] {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(j);
                        break;
                    }
                }
                '\n' if chars.get(j + 1) == Some(&'\n') => break,
                _ => {}
            }
            j += 1;
        }
        let Some(close) = close else {
            i += 1;
            continue;
        };
        if chars.get(close + 1) != Some(&'(') {
            i += 1;
            continue;
        }
        // The matching `)`.
        let mut depth = 0;
        let mut k = close + 1;
        let mut end = None;
        while k < chars.len() && chars[k] != '\n' {
            match chars[k] {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(k);
                        break;
                    }
                }
                _ => {}
            }
            k += 1;
        }
        let Some(end) = end else {
            i += 1;
            continue;
        };
        let inside: String = chars[close + 2..end].iter().collect();
        let target = inside.split_whitespace().next().unwrap_or("").trim_matches(|c| c == '<' || c == '>');
        let line = 1 + chars[..close].iter().filter(|&&c| c == '\n').count();
        found.push((line, target.to_string()));
        // Links nested in the text (an image inside a link) are found by
        // going on from just after the `[`.
        i += 1;
    }
    found
}

/// GitHub's anchor of a heading's text.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|&c| c.is_alphanumeric() || c == '-' || c == '_' || c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a markdown file's headings (outside code blocks).
fn anchors(text: &str) -> HashSet<String> {
    let mut seen = HashSet::new();
    let mut counts = std::collections::HashMap::new();
    for line in without_fences(text).lines() {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let title = line[hashes..].trim().trim_end_matches('#').trim();
        let base = slug(title);
        let n = counts.entry(base.clone()).or_insert(0);
        let anchor = if *n == 0 { base.clone() } else { format!("{base}-{n}") };
        *n += 1;
        seen.insert(anchor);
    }
    seen
}

/// Reads a file of the repository, naming it on failure.
fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_relative_link_in_the_documentation_resolves() {
    let root = root();
    let mut broken = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        let text = read(&doc);
        let name = doc.strip_prefix(&root).unwrap_or(&doc).display().to_string();
        let dir = doc.parent().expect("a document has a directory");
        for (line, target) in links(&without_code(&text)) {
            let lower = target.to_ascii_lowercase();
            if target.is_empty()
                || lower.starts_with("http://")
                || lower.starts_with("https://")
                || lower.starts_with("mailto:")
            {
                continue;
            }
            checked += 1;
            let (file, anchor) = match target.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (target.as_str(), None),
            };
            let path = if file.is_empty() { doc.clone() } else { dir.join(file) };
            if !path.exists() {
                broken.push(format!("{name}:{line}: `{target}`: {} does not exist", path.display()));
                continue;
            }
            let Some(anchor) = anchor else { continue };
            if path.extension().is_some_and(|e| e == "md") && path.is_file() && !anchors(&read(&path)).contains(anchor)
            {
                broken.push(format!("{name}:{line}: `{target}`: no heading with the anchor `#{anchor}`"));
            }
        }
    }
    assert!(checked > 0, "no relative link found: is the documentation there?");
    assert!(broken.is_empty(), "{} broken link(s):\n{}", broken.len(), broken.join("\n"));
}

#[test]
fn the_link_finder_reads_what_github_renders() {
    let text = "See [a](docs/a.md) and ![pic\nof it](img/p.svg \"title\").\n\
                `[not](code.md)` [b](#x-y) [c](https://example.com)\n\
                ```\n[not](fenced.md)\n```\n";
    let found: Vec<String> = links(&without_code(text)).into_iter().map(|(_, t)| t).collect();
    assert_eq!(found, ["docs/a.md", "img/p.svg", "#x-y", "https://example.com"]);
    assert_eq!(slug("Results files (`results/`)"), "results-files-results");
    assert_eq!(slug("Nine Men's Morris, sliding phase"), "nine-mens-morris-sliding-phase");
    let heads = anchors("# A b\n## A b\n```\n# Not\n```\n### `solve` --x\n");
    assert!(heads.contains("a-b") && heads.contains("a-b-1") && heads.contains("solve---x"), "{heads:?}");
    assert!(!heads.contains("not"));
}
