//! Accepted findings (`lint --accept FILE`, `run --accept FILE`): a file of findings a team has
//! looked at and accepts — a known, harmless race, say — so that CI fails on new findings only, as
//! linters' baselines do. One finding a line:
//!
//! ```text
//! # why the race in `reduce` is harmless: a discarded read of a neighbour's element
//! R001 _Z6reducePfS_j line:42
//! shared-race _Z6reducePfS_j line:42
//! W002 my_kernel *
//! ```
//!
//! A line is a rule (`R001` or its name, `shared-race`… for a lint; a sanitizer finding's kind for a
//! run), the kernel (its entry name as in the PTX, or the catalog kernel's name) and where: `line:N`
//! (a PTX line), an IR statement path (`body[3].then[1]`), or `*` (anywhere in the kernel). `#`
//! starts a comment. An accepted finding is still printed, marked accepted, and does not fail the
//! run; an entry that matches nothing is said (it can go). A malformed line is an error naming
//! the file and line.

use std::path::{Path, PathBuf};

/// The most entries a file may have (a file is read whole; a larger one is refused).
const MAX_ENTRIES: usize = 100_000;

/// One accepted finding.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    rule: String,
    kernel: String,
    site: Site,
    /// Its line in the file, for messages.
    line: usize,
}

/// Where an accepted finding is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Site {
    /// Anywhere in the kernel.
    Any,
    /// A PTX line.
    Line(u32),
    /// An IR statement path.
    Statement(String),
}

/// The accepted findings of a file, and which have matched.
#[derive(Debug)]
pub struct Accepted {
    path: PathBuf,
    entries: Vec<Entry>,
    used: Vec<bool>,
}

impl Accepted {
    /// Reads `path`; `Err` names the file and each bad line.
    pub fn load(path: &Path) -> Result<Accepted, Vec<String>> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| vec![format!("--accept {}: cannot read it: {e}", path.display())])?;
        Accepted::parse(path, &text)
    }

    fn parse(path: &Path, text: &str) -> Result<Accepted, Vec<String>> {
        let mut entries = Vec::new();
        let mut errors = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or_default().trim();
            if line.is_empty() {
                continue;
            }
            let at = format!("{}:{}", path.display(), i + 1);
            let words: Vec<&str> = line.split_whitespace().collect();
            let [rule, kernel, site] = words[..] else {
                errors.push(format!(
                    "{at}: expected `RULE KERNEL WHERE` (WHERE: line:N, a statement path or *), \
                     found `{}`",
                    line.chars().take(80).collect::<String>()
                ));
                continue;
            };
            let site = match site {
                "*" => Site::Any,
                s if s.starts_with("line:") => match s["line:".len()..].parse::<u32>() {
                    Ok(n) if n > 0 => Site::Line(n),
                    _ => {
                        errors.push(format!("{at}: `{s}`: a PTX line is line:N with N from 1"));
                        continue;
                    }
                },
                s if s.starts_with("body") => Site::Statement(s.to_owned()),
                s => {
                    errors.push(format!(
                        "{at}: `{s}`: where is line:N (a PTX line), a statement path \
                         (body[3].then[1]) or *"
                    ));
                    continue;
                }
            };
            if entries.len() == MAX_ENTRIES {
                errors.push(format!("{at}: more than {MAX_ENTRIES} accepted findings"));
                break;
            }
            entries.push(Entry {
                rule: rule.to_owned(),
                kernel: kernel.to_owned(),
                site,
                line: i + 1,
            });
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let used = vec![false; entries.len()];
        Ok(Accepted {
            path: path.to_owned(),
            entries,
            used,
        })
    }

    /// Whether the finding of `rule` (any of its names) in `kernel` at `site` is accepted; the
    /// entry that accepts it is marked used, and its file and line returned.
    pub fn accepts(&mut self, rules: &[&str], kernel: &str, site: &Site) -> Option<String> {
        let k = self.entries.iter().position(|e| {
            rules.contains(&e.rule.as_str())
                && e.kernel == kernel
                && (e.site == Site::Any || e.site == *site)
        })?;
        self.used[k] = true;
        Some(format!("{}:{}", self.path.display(), self.entries[k].line))
    }

    /// One line for each entry that accepted nothing.
    pub fn unused(&self) -> Vec<String> {
        self.entries
            .iter()
            .zip(&self.used)
            .filter(|(_, used)| !**used)
            .map(|(e, _)| {
                format!(
                    "{}:{}: accepted finding `{} {} {}` matched no finding (remove it)",
                    self.path.display(),
                    e.line,
                    e.rule,
                    e.kernel,
                    match &e.site {
                        Site::Any => "*".to_owned(),
                        Site::Line(n) => format!("line:{n}"),
                        Site::Statement(s) => s.clone(),
                    }
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{Accepted, Site};
    use proptest::prelude::*;
    use std::path::Path;

    proptest! {
        // Hostile files: any text is either accepted findings or errors naming their lines, never
        // a panic; every error names a line of the file.
        #[test]
        fn any_text_parses_or_names_its_bad_lines(text in "(?s).{0,400}") {
            match Accepted::parse(Path::new("f"), &text) {
                Ok(mut a) => {
                    let _ = a.accepts(&["R001"], "k", &Site::Line(1));
                    let _ = a.unused();
                }
                Err(errors) => {
                    let lines = text.lines().count();
                    for e in errors {
                        let n: usize = e
                            .strip_prefix("f:")
                            .and_then(|r| r.split(':').next())
                            .and_then(|n| n.parse().ok())
                            .unwrap_or(0);
                        prop_assert!(n >= 1 && n <= lines, "{e}");
                    }
                }
            }
        }
    }

    #[test]
    fn entries_match_by_rule_kernel_and_site_and_bad_lines_are_named() {
        let text =
            "# known\nR001 k line:42  # harmless\nshared-race k *\n\nW002 j body[2].then[0]\n";
        let mut a = Accepted::parse(Path::new("acc.txt"), text).expect("parses");
        assert_eq!(
            a.accepts(&["R001", "shared-race"], "k", &Site::Line(42)),
            Some("acc.txt:2".into())
        );
        assert_eq!(a.accepts(&["R001"], "k", &Site::Line(43)), None);
        assert_eq!(
            a.accepts(&["shared-race"], "k", &Site::Line(7)),
            Some("acc.txt:3".into())
        );
        assert_eq!(a.unused().len(), 1, "{:?}", a.unused());
        assert!(a.unused()[0].starts_with("acc.txt:5: accepted finding `W002 j body[2].then[0]`"));
        let bad = Accepted::parse(Path::new("b"), "R001 k\nR001 k line:0\nR001 k here\n")
            .expect_err("three bad lines");
        assert_eq!(bad.len(), 3, "{bad:?}");
        assert!(
            bad[0].starts_with("b:1: expected `RULE KERNEL WHERE`"),
            "{bad:?}"
        );
        assert!(bad[1].starts_with("b:2: `line:0`"), "{bad:?}");
        assert!(bad[2].starts_with("b:3: `here`"), "{bad:?}");
    }
}
