//! No Rust file the repository tracks is over 600 lines: the rule `.ci/run` enforces before it builds,
//! checked by the test command too, so that a file grown past it fails here and not only in CI.

use std::path::Path;
use std::process::Command;

const MAX_LINES: usize = 600;

#[test]
fn no_tracked_rust_file_is_over_600_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let listed = Command::new("git")
        .args(["ls-files", "-z", "*.rs"])
        .current_dir(root)
        .output();
    let files = match listed {
        Ok(out) if out.status.success() => out.stdout,
        // Not a git checkout (a source archive) or no git: the rule is about tracked files.
        other => {
            eprintln!(
                "\n*** SKIPPED no_tracked_rust_file_is_over_600_lines: `git ls-files` did not run in {} \
                 ({other:?}): not a git checkout ***\n",
                root.display()
            );
            return;
        }
    };
    let mut too_long = Vec::new();
    let mut seen = 0;
    for name in files.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name);
        let path = root.join(name.as_ref());
        // A file deleted in the work tree but still tracked is not there to count.
        let Ok(text) = std::fs::read(&path) else {
            continue;
        };
        seen += 1;
        // As `wc -l` counts: newlines.
        let lines = text.iter().filter(|&&b| b == b'\n').count();
        if lines > MAX_LINES {
            too_long.push(format!("{lines} {name}"));
        }
    }
    assert!(seen > 100, "only {seen} tracked Rust files found");
    assert!(
        too_long.is_empty(),
        "tracked Rust files over {MAX_LINES} lines (split them by what they own):\n{}",
        too_long.join("\n")
    );
}
