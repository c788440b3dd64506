//! The project's layout rules (docs/architecture.md), checked on the sources.

use std::path::{Path, PathBuf};

use crate::layout_support::modules::{ModPath, ModuleGraph};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn show(module: &ModPath) -> String {
    if module.is_empty() {
        "crate".to_string()
    } else {
        module.join("::")
    }
}

fn cycles_of(src: &Path) -> Vec<String> {
    let graph = ModuleGraph::read(src);
    let edges = graph.edges();
    graph
        .cycles()
        .iter()
        .map(|cycle| {
            let mut lines = vec![cycle.iter().map(show).collect::<Vec<_>>().join(" <-> ")];
            for ((from, to), path) in &edges {
                if cycle.contains(from) && cycle.contains(to) {
                    lines.push(format!(
                        "    {} -> {} (via {})",
                        show(from),
                        show(to),
                        path.join("::")
                    ));
                }
            }
            lines.join("\n")
        })
        .collect()
}

#[test]
fn print_cycles_everywhere() {
    let only = std::env::var("LAYOUT_CRATES").unwrap_or_default();
    for krate in [
        "sim",
        "ptx-emit",
        "analysis",
        "kernel-ir",
        "runtime",
        "wgsl-emit",
        "kernel-macros",
        ".",
    ] {
        if !only.is_empty() && !only.split(',').any(|c| c == krate) {
            continue;
        }
        let cycles = cycles_of(&root().join(krate).join("src"));
        println!("== {krate}: {} cycles", cycles.len());
        for c in cycles {
            println!("{c}");
        }
    }
}
