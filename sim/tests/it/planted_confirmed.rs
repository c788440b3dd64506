//! Every planted bug of the linter's corpus (`analysis/tests/corpus`: kernels written with one
//! hazard each, compiled by nvcc 13) that the linter reports as an error is confirmed by the
//! simulator: launched as the table below says, the sanitizer reports the same hazard at the
//! instruction the linter's error names (for a race: at either of its two statements). The launch
//! is the witness the error stands for; the linter's error and the simulator's finding are two
//! readings of one PTX ISA.

use std::collections::BTreeMap;

use warpforge_analysis::{lint_ptx_assuming, program::Location, PtxAssumptions, Rule, Severity};
use warpforge_sim::ptx::{self, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::{BufferArg, FindingKind, ProfileSite, SimOptions};

/// A parameter of a witness launch.
#[derive(Clone, Copy)]
enum Arg {
    /// A buffer of this many bytes (filled with `f32` values -10, -9, …, so that data-dependent
    /// branches go both ways).
    Buffer(usize),
    /// A 32-bit scalar.
    U32(u32),
}
use Arg::{Buffer, U32};

/// A planted bug, its rule, the block size the corpus lints it with (`launches.tsv`, else none),
/// and its witness launch: threads per block, dynamic shared bytes, parameters, and the finding.
struct Witness {
    kernel: &'static str,
    rule: Rule,
    lint_block: Option<u32>,
    threads: u32,
    shared: u32,
    args: &'static [Arg],
    kind: FindingKind,
}

const WITNESSES: &[Witness] = &[
    Witness {
        kernel: "bug_a001_misaligned_int",
        rule: Rule::A001,
        lint_block: None,
        threads: 128,
        shared: 0,
        args: &[Buffer(512), Buffer(512)],
        kind: FindingKind::Misaligned,
    },
    Witness {
        kernel: "bug_a001_v4_offset8",
        rule: Rule::A001,
        lint_block: None,
        threads: 128,
        shared: 0,
        args: &[Buffer(2048), Buffer(2048)],
        kind: FindingKind::Misaligned,
    },
    Witness {
        kernel: "bug_b001_partial_barrier",
        rule: Rule::B001,
        lint_block: None,
        threads: 64,
        shared: 256,
        args: &[Buffer(1024), Buffer(64), U32(64)],
        kind: FindingKind::PartialBarrier,
    },
    Witness {
        kernel: "bug_r001_reduce_no_barrier",
        rule: Rule::R001,
        lint_block: Some(256),
        threads: 256,
        shared: 1024,
        args: &[Buffer(2048), Buffer(64), U32(512)],
        kind: FindingKind::SharedRace,
    },
    Witness {
        kernel: "bug_r001_xor32",
        rule: Rule::R001,
        lint_block: None,
        threads: 256,
        shared: 0,
        args: &[Buffer(1024), Buffer(1024)],
        kind: FindingKind::SharedRace,
    },
    Witness {
        kernel: "bug_s001_off_by_one",
        rule: Rule::S001,
        lint_block: None,
        threads: 256,
        shared: 0,
        args: &[Buffer(1024), Buffer(1024)],
        kind: FindingKind::OutOfBounds,
    },
    Witness {
        kernel: "bug_s001_past_end",
        rule: Rule::S001,
        lint_block: None,
        threads: 128,
        shared: 0,
        args: &[Buffer(512), Buffer(512)],
        kind: FindingKind::OutOfBounds,
    },
    Witness {
        kernel: "bug_w001_data_ballot",
        rule: Rule::W001,
        lint_block: None,
        threads: 32,
        shared: 0,
        args: &[Buffer(128), Buffer(128), U32(20)],
        kind: FindingKind::CollectiveMask,
    },
    Witness {
        kernel: "bug_w001_early_return_shfl",
        rule: Rule::W001,
        lint_block: None,
        threads: 32,
        shared: 0,
        args: &[Buffer(128), Buffer(128), U32(20)],
        kind: FindingKind::CollectiveMask,
    },
    Witness {
        kernel: "bug_w001_lane_branch_shfl",
        rule: Rule::W001,
        lint_block: None,
        threads: 32,
        shared: 0,
        args: &[Buffer(128), Buffer(128), U32(32)],
        kind: FindingKind::CollectiveMask,
    },
    Witness {
        kernel: "bug_w001_lane_syncwarp",
        rule: Rule::W001,
        lint_block: None,
        threads: 256,
        shared: 0,
        args: &[Buffer(1024), Buffer(1024)],
        kind: FindingKind::CollectiveMask,
    },
    Witness {
        kernel: "bug_w002_partial_mask",
        rule: Rule::W002,
        lint_block: Some(256),
        threads: 32,
        shared: 0,
        args: &[Buffer(128), Buffer(128), U32(32)],
        kind: FindingKind::CollectiveMask,
    },
];

fn corpus_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../analysis/tests/corpus")
}

/// The planted bugs the manifest expects as errors (`RULE`, not `RULE:warning`), by kernel.
fn planted_errors() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(corpus_dir().join("manifest.tsv")).expect("manifest.tsv");
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            let (expect, kernel) = (cols.get(1)?, cols.get(2)?);
            (kernel.starts_with("bug_") && !expect.contains(':') && *expect != "clean")
                .then(|| (kernel.to_string(), expect.to_string()))
        })
        .collect()
}

#[test]
fn every_planted_error_has_a_witness_here() {
    let planted = planted_errors();
    let witnessed: Vec<&str> = WITNESSES.iter().map(|w| w.kernel).collect();
    for (kernel, rule) in &planted {
        assert!(
            witnessed.contains(&kernel.as_str()),
            "{kernel} ({rule}): a planted error without a witness launch in this table"
        );
    }
    assert_eq!(
        planted.len(),
        WITNESSES.len(),
        "the table lists only planted errors"
    );
}

#[test]
fn the_simulator_confirms_every_planted_error_where_the_linter_puts_it() {
    for w in WITNESSES {
        let path = corpus_dir()
            .join("ptx")
            .join(format!("{}.nvcc13.sm80.ptx", w.kernel));
        let text = std::fs::read_to_string(&path).expect("the corpus PTX");
        let mut assume = PtxAssumptions {
            warp_aligned: true,
            ..PtxAssumptions::default()
        };
        if let Some(x) = w.lint_block {
            assume.entry_blocks.insert(w.kernel.to_owned(), x);
        }
        let errors: Vec<usize> = lint_ptx_assuming(&text, &assume)
            .expect("lints")
            .into_iter()
            .filter(|d| d.rule == w.rule && d.severity == Severity::Error)
            .filter_map(|d| match d.location {
                Location::Ptx { line, .. } => Some(line),
                Location::Ir(_) => None,
            })
            .collect();
        assert!(!errors.is_empty(), "{}: no {:?} error", w.kernel, w.rule);

        let kernel = PtxKernel::load(&text, w.kernel).expect("decodes");
        let mut bytes: Vec<Vec<u8>> = w
            .args
            .iter()
            .filter_map(|a| match *a {
                Buffer(n) => Some(
                    (0..n / 4)
                        .flat_map(|i| (i as f32 - 10.0).to_le_bytes())
                        .collect(),
                ),
                U32(_) => None,
            })
            .collect();
        let args: Vec<PtxArg> = w
            .args
            .iter()
            .map(|a| match *a {
                Buffer(_) => PtxArg::Buffer,
                U32(v) => PtxArg::Scalar(u64::from(v)),
            })
            .collect();
        let mut buffers: Vec<BufferArg<'_>> =
            bytes.iter_mut().map(|b| BufferArg::ReadWrite(b)).collect();
        let launch = PtxLaunch {
            grid: [1, 1, 1],
            block: [w.threads, 1, 1],
            dynamic_shared: w.shared,
        };
        let report = ptx::run(
            &kernel,
            &launch,
            &args,
            &mut buffers,
            &SimOptions::default(),
        )
        .expect("launches");
        let confirmed = report.findings.iter().any(|f| {
            let ProfileSite::Line(line) = f.site else {
                return false;
            };
            f.kind == w.kind
                && (errors.contains(&(line as usize))
                    || errors
                        .iter()
                        .any(|e| f.detail.contains(&format!("line {e}"))))
        });
        assert!(
            confirmed,
            "{}: the linter's {:?} errors at PTX lines {errors:?}, the simulator's findings: {:#?}",
            w.kernel, w.rule, report.findings
        );
    }
}
