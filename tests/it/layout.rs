//! The project's layout rules (docs/architecture.md, "Rules the tests check"), checked on the sources:
//! no import cycle between the modules of the simulator, the PTX, LZ4 and runtime crates or the
//! root package, every other crate's
//! cycles listed in docs/architecture.md, and no `super::super` under `sim/`. What an import cycle
//! is: `layout_support/modules.rs`.

use std::path::{Path, PathBuf};

use crate::layout_support::modules::{ModPath, ModuleGraph};
use crate::layout_support::ptx_literals;

/// Crates whose modules must form no cycle.
const ACYCLIC: &[&str] = &["sim", "ptx-emit", "lz4", "runtime", "."];

/// The other crates: their cycles must each be listed (and explained) in docs/architecture.md.
const LISTED: &[&str] = &["kernel-ir", "analysis", "wgsl-emit", "kernel-macros"];

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

/// Each cycle of the crate in `dir` as one line (`a <-> b <-> c`), with the edges that make it.
fn cycles_of(dir: &str) -> Vec<(String, String)> {
    let graph = ModuleGraph::read(&root().join(dir).join("src"));
    let edges = graph.edges();
    graph
        .cycles()
        .iter()
        .map(|cycle| {
            let line = cycle.iter().map(show).collect::<Vec<_>>().join(" <-> ");
            let why = edges
                .iter()
                .filter(|((from, to), _)| cycle.contains(from) && cycle.contains(to))
                .map(|((from, to), path)| {
                    format!(
                        "    {} -> {} (names {})",
                        show(from),
                        show(to),
                        path.join("::")
                    )
                })
                .collect::<Vec<_>>()
                .join("\n");
            (line, why)
        })
        .collect()
}

#[test]
fn the_simulator_ptx_lz4_runtime_and_root_crates_have_no_import_cycle() {
    for dir in ACYCLIC {
        let cycles = cycles_of(dir);
        let shown: Vec<String> = cycles
            .iter()
            .map(|(c, why)| format!("{c}\n{why}"))
            .collect();
        assert!(
            cycles.is_empty(),
            "import cycles in {dir}/src:\n{}",
            shown.join("\n")
        );
    }
}

#[test]
fn every_other_import_cycle_is_listed_in_the_architecture_doc() {
    let doc_path = root().join("docs/architecture.md");
    let doc = std::fs::read_to_string(&doc_path).expect("docs/architecture.md");
    let mut missing = Vec::new();
    let mut present = Vec::new();
    for dir in LISTED {
        for (cycle, why) in cycles_of(dir) {
            let listed = format!("`{dir}`: `{cycle}`");
            if !doc.contains(&listed) {
                missing.push(format!("{listed}\n{why}"));
            }
            present.push(listed);
        }
    }
    assert!(
        missing.is_empty(),
        "import cycles not listed in docs/architecture.md (list each, with why it stays):\n{}",
        missing.join("\n")
    );
    // A listed cycle that no longer exists is stale: the list says what is true today.
    let stale: Vec<&str> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .filter(|l| l.contains("` <-> ") || l.contains(" <-> "))
        .filter(|l| !present.iter().any(|p| l.starts_with(p.as_str())))
        .collect();
    assert!(
        stale.is_empty(),
        "docs/architecture.md lists import cycles that no longer exist (remove them): {stale:#?}"
    );
}

#[test]
fn the_cycle_reader_finds_a_cycle_through_a_re_export_and_none_through_ownership() {
    let dir = std::env::temp_dir().join(format!("warpforge-layout-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("m")).unwrap();
    // `m/mod.rs` owns `a` and `b` and re-exports `B`; `a` names `B` through the re-export, `b`
    // names `a::f`: a cycle a -> b -> a only if `m::B` is followed to `b`.
    std::fs::write(src.join("lib.rs"), "mod m;\npub use m::B;\n").unwrap();
    std::fs::write(src.join("m/mod.rs"), "mod a;\nmod b;\npub use b::B;\n").unwrap();
    std::fs::write(src.join("m/a.rs"), "pub fn f(_: super::B) {}\n").unwrap();
    std::fs::write(
        src.join("m/b.rs"),
        "pub struct B;\nfn g() { super::a::f(B) }\n",
    )
    .unwrap();
    let cycles = ModuleGraph::read(&src).cycles();
    std::fs::write(src.join("m/b.rs"), "pub struct B;\n").unwrap();
    let none = ModuleGraph::read(&src).cycles();
    std::fs::remove_dir_all(&dir).ok();
    let names: Vec<Vec<String>> = cycles
        .iter()
        .map(|c| c.iter().map(show).collect())
        .collect();
    assert_eq!(names, vec![vec!["m::a".to_string(), "m::b".to_string()]]);
    assert!(
        none.is_empty(),
        "ownership (`mod`) and re-exports are not dependencies: {none:?}"
    );
}

#[test]
fn nothing_under_sim_reaches_up_with_super_super() {
    let mut files = Vec::new();
    rs_files(&root().join("sim"), &mut files);
    let offenders: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            text.lines()
                .enumerate()
                .filter(|(_, l)| l.contains("super::super"))
                .map(|(i, _)| format!("{}:{}", f.display(), i + 1))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "`super::super` under sim/ (name the module from `crate::`): {offenders:?}"
    );
}

#[test]
fn the_ir_crate_holds_the_language_only() {
    let kernels = root().join("kernel-ir/src/kernels");
    assert!(
        !kernels.exists(),
        "{} exists: kernels written in the IR belong to the crates that use them (the LZ4 kernels: lz4/)",
        kernels.display()
    );
    let mut files = Vec::new();
    rs_files(&root().join("kernel-ir/src"), &mut files);
    let lz4: Vec<String> = files
        .iter()
        .filter(|f| {
            f.file_name()
                .is_some_and(|n| n.to_string_lossy().contains("lz4"))
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(lz4.is_empty(), "LZ4 files under kernel-ir/src: {lz4:?}");
}

#[test]
fn only_the_runtime_depends_on_cudarc() {
    let mut manifests = Vec::new();
    for entry in std::fs::read_dir(root()).unwrap() {
        let manifest = entry.unwrap().path().join("Cargo.toml");
        if manifest.exists() {
            manifests.push(manifest);
        }
    }
    manifests.push(root().join("Cargo.toml"));
    manifests.push(root().join("examples/build-time-ptx/Cargo.toml"));
    manifests.push(root().join("tests/fixtures/macro-user/Cargo.toml"));
    let with_cudarc: Vec<String> = manifests
        .iter()
        .filter(|m| {
            let text = std::fs::read_to_string(m).unwrap();
            text.lines().any(|l| l.trim_start().starts_with("cudarc"))
        })
        .map(|m| m.strip_prefix(root()).unwrap().display().to_string())
        .collect();
    assert_eq!(with_cudarc, vec!["runtime/Cargo.toml".to_string()]);
    // Nor does any other crate's code call it through the runtime's re-export: streams, events,
    // memory and the launch are runtime API (`runtime/src/cuda/queue.rs`).
    let mut files = Vec::new();
    for dir in [
        "sim",
        "analysis",
        "ptx-emit",
        "lz4",
        "kernel-ir",
        "wgsl-emit",
        "kernel-macros",
    ] {
        rs_files(&root().join(dir).join("src"), &mut files);
    }
    rs_files(&root().join("src"), &mut files);
    let callers: Vec<String> = files
        .iter()
        .filter(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .any(|l| !l.trim_start().starts_with("//") && l.contains("cudarc::"))
        })
        .map(|f| f.strip_prefix(root()).unwrap().display().to_string())
        .collect();
    assert!(
        callers.is_empty(),
        "cudarc called outside runtime/: {callers:?}"
    );
    // One launch site: `Stream::launch`.
    rs_files(&root().join("runtime/src"), &mut files);
    let launchers: Vec<String> = files
        .iter()
        .filter(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .contains(".launch_builder(")
        })
        .map(|f| f.strip_prefix(root()).unwrap().display().to_string())
        .collect();
    assert_eq!(launchers, vec!["runtime/src/cuda/queue.rs".to_string()]);
}

/// Where PTX is handled: a bare opcode name (`"bra"`) there is PTX too; elsewhere words such as
/// `"add"` or `"barrier"` name other things (IR operations, finding kinds).
const PTX_MODULES: &[&str] = &["sim/src/ptx", "analysis/src/ptx_front", "ptx-emit/src"];

/// The PTX crate's own home for PTX text: the instruction set and the parser/printer.
const PTX_TEXT_HOME: &[&str] = &["ptx-emit/src/isa", "ptx-emit/src/parse"];

#[test]
fn no_ptx_opcode_is_spelled_as_a_string_outside_the_ptx_crates_parser_and_printer() {
    let mut files = Vec::new();
    for dir in [
        "sim",
        "analysis",
        "ptx-emit",
        "runtime",
        "lz4",
        "kernel-ir",
        "wgsl-emit",
        "kernel-macros",
        "src",
    ] {
        let src = if dir == "src" {
            root().join(dir)
        } else {
            root().join(dir).join("src")
        };
        rs_files(&src, &mut files);
    }
    let mut offenders = Vec::new();
    for f in &files {
        let rel = f
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if PTX_TEXT_HOME.iter().any(|home| rel.starts_with(home)) {
            continue;
        }
        let bare = PTX_MODULES.iter().any(|m| rel.starts_with(m));
        for literal in ptx_literals::literals_spelling_ptx(f, bare) {
            offenders.push(format!("{rel}: {literal}"));
        }
    }
    assert!(
        offenders.is_empty(),
        "PTX opcodes spelled as strings (build them from warpforge_ptx::isa): {offenders:#?}"
    );
    // The check itself: what it must find and what it must leave.
    assert!(ptx_literals::spells_ptx("shfl.sync.{name}.b32", false));
    assert!(ptx_literals::spells_ptx("ld.global.nc", false));
    assert!(ptx_literals::spells_ptx("bra", true) && !ptx_literals::spells_ptx("bra", false));
    assert!(!ptx_literals::spells_ptx(
        "`mbarrier.init` with count 0",
        false
    ));
    assert!(!ptx_literals::spells_ptx("frob.u32", false));
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target") {
                rs_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
