//! `warpforge run --profile`: the kernel's source — its `.wfir` text, or the PTX the simulator ran —
//! with the simulator's counters per line, in the spirit of Nsight Compute's source view: executed
//! warp-instructions and their share, average active lanes, shared-memory wavefronts and the extra
//! ones bank conflicts cost, global warp-accesses and the 32-byte sectors they touch. The counters are
//! the simulator's model, summed over the launch's blocks; no latency is modelled.

use std::collections::HashMap;

use serde::Serialize;
use warpforge::ir::text::statement_lines;
use warpforge::ir::{Kernel, Verified};
use warpforge::runtime::sim::{Counters, ProfileEntry, ProfileSite};
use warpforge::runtime::Launcher;

/// The source a profile is shown against.
pub(super) enum Source {
    /// A kernel's `.wfir` text: entries name statements by path.
    Ir(Kernel),
    /// PTX text: entries name its lines.
    Ptx(String),
}

impl Source {
    /// What a kernel's profile is shown against on `launcher`: the PTX that ptx-sim runs (emitted
    /// again: emission is deterministic), else the kernel's `.wfir` text.
    pub(super) fn of(
        kernel: &Kernel,
        verified: &Verified<'_>,
        launcher: &Launcher,
    ) -> Result<Source, String> {
        match launcher {
            Launcher::PtxSim(_, sm) => warpforge::ptx::emit(verified, *sm)
                .map(|ptx| Source::Ptx(ptx.text))
                .map_err(|e| e.to_string()),
            _ => Ok(Source::Ir(kernel.clone())),
        }
    }
}

/// The source's lines with the counters of each (summed over the instructions on it).
struct Lines {
    kind: &'static str,
    text: Vec<String>,
    counters: Vec<Option<Counters>>,
    /// Counters no line could be found for (none unless the source and the run disagree).
    unplaced: Counters,
}

fn lines(source: &Source, entries: &[ProfileEntry]) -> Lines {
    let (kind, text, index): (_, String, HashMap<ProfileSite, usize>) = match source {
        Source::Ir(kernel) => {
            let index = statement_lines(kernel)
                .into_iter()
                .enumerate()
                .filter_map(|(i, p)| Some((ProfileSite::Statement(p?), i)))
                .rev() // the first line of a statement wins (an `if` is also on its `else` line)
                .collect();
            ("ir", kernel.to_string(), index)
        }
        Source::Ptx(text) => {
            let n = text.lines().count();
            let index = (0..n)
                .map(|i| (ProfileSite::Line(i as u32 + 1), i))
                .collect();
            ("ptx", text.clone(), index)
        }
    };
    let text: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut counters = vec![None; text.len()];
    let mut unplaced = Counters::default();
    for e in entries {
        match index.get(&e.site) {
            Some(&i) => *counters[i].get_or_insert_with(Counters::default) += &e.counters,
            None => unplaced += &e.counters,
        }
    }
    Lines {
        kind,
        text,
        counters,
        unplaced,
    }
}

fn lanes_per_instruction(c: &Counters) -> f64 {
    match c.warp_instructions() {
        0 => 0.0,
        n => c.active_lanes as f64 / n as f64,
    }
}

/// The source view as text: every line of the source, its counters in columns before it, then the
/// ten lines that executed the most warp-instructions.
pub(super) fn text(source: &Source, entries: &[ProfileEntry], blocks: u32) -> String {
    let l = lines(source, entries);
    let total: u64 = entries.iter().map(|e| e.counters.warp_instructions()).sum();
    let mut out = format!(
        "profile ({} source; simulator counters summed over {blocks} block(s), a model, not a GPU \
         measurement)\n{:>6} {:>12} {:>6} {:>6} {:>10} {:>10} {:>9} {:>9}  source\n",
        l.kind, "line", "warp-instr", "%", "lanes", "shared wf", "conflicts", "global", "sectors"
    );
    let row = |i: usize, c: &Option<Counters>| match c {
        None => format!("{:>6} {:>75}", i + 1, ""),
        Some(c) => format!(
            "{:>6} {:>12} {:>5.1}% {:>6.1} {:>10} {:>10} {:>9} {:>9}",
            i + 1,
            c.warp_instructions(),
            100.0 * c.warp_instructions() as f64 / total.max(1) as f64,
            lanes_per_instruction(c),
            c.shared_wavefronts,
            c.bank_conflicts,
            c.global,
            c.global_sectors
        ),
    };
    for (i, (line, c)) in l.text.iter().zip(&l.counters).enumerate() {
        out.push_str(&format!("{}  {line}\n", row(i, c)));
    }
    if l.unplaced != Counters::default() {
        out.push_str(&format!(
            "(not placed on a line: {} warp-instructions)\n",
            l.unplaced.warp_instructions()
        ));
    }
    let mut hot: Vec<(usize, &Counters)> = (l.counters.iter().enumerate())
        .filter_map(|(i, c)| Some((i, c.as_ref()?)))
        .collect();
    hot.sort_by_key(|(i, c)| (std::cmp::Reverse(c.warp_instructions()), *i));
    out.push_str(&format!(
        "hottest lines ({total} warp-instructions in all):\n"
    ));
    for (i, c) in hot.iter().take(10) {
        out.push_str(&format!("{}  {}\n", row(*i, &Some(**c)), l.text[*i].trim()));
    }
    out
}

/// The source view as JSON (`profile` of `--format json`): the lines that executed anything. The keys
/// are in alphabetical order, as this object has printed them since it was first written.
#[derive(Serialize)]
pub(super) struct ProfileJson {
    lines: Vec<LineJson>,
    /// `ir` or `ptx`.
    source: &'static str,
}

/// One executed line: its number (1-based), its text and its counters.
#[derive(Serialize)]
struct LineJson {
    active_lanes: u64,
    bank_conflicts: u64,
    collective: u64,
    control: u64,
    global: u64,
    global_bytes: u64,
    global_sectors: u64,
    line: usize,
    shared: u64,
    shared_wavefronts: u64,
    text: String,
    warp_instructions: u64,
}

/// The source view as JSON: the lines that executed anything, with their text and counters.
pub(super) fn json(source: &Source, entries: &[ProfileEntry]) -> ProfileJson {
    let l = lines(source, entries);
    let rows = (l.text.iter().zip(&l.counters).enumerate())
        .filter_map(|(i, (text, c))| {
            let c = c.as_ref()?;
            Some(LineJson {
                active_lanes: c.active_lanes,
                bank_conflicts: c.bank_conflicts,
                collective: c.collective,
                control: c.control,
                global: c.global,
                global_bytes: c.global_bytes,
                global_sectors: c.global_sectors,
                line: i + 1,
                shared: c.shared,
                shared_wavefronts: c.shared_wavefronts,
                text: text.trim().to_owned(),
                warp_instructions: c.warp_instructions(),
            })
        })
        .collect();
    ProfileJson {
        lines: rows,
        source: l.kind,
    }
}
