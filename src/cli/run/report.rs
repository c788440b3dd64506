//! What `warpforge run` prints: the findings, a summary line, the `--check` comparison, the counters
//! and the files written, as text or as one JSON object.

use std::path::PathBuf;

use serde::Serialize;
use warpforge::ir::{Access, Literal};
use warpforge::runtime::sim::{Counters, Finding, Severity, SimReport};

use super::buffer::Buffer;
use super::profile::ProfileJson;

/// The first byte where a backend's read_write buffer differs from the simulator's.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Difference {
    pub(super) buffer: String,
    pub(super) offset: usize,
    pub(super) element: usize,
    /// The element on the backend and on the simulator: `1.5 (0x3fc00000)`.
    pub(super) values: (String, String),
    /// Elements of that buffer that differ.
    pub(super) differing: usize,
}

/// What ran: the kernel's (or PTX entry's) name and its threads per block.
pub(super) struct Ran<'a> {
    pub(super) name: &'a str,
    pub(super) block_size: u32,
}

/// What a launch gave.
pub(super) struct Outcome {
    /// `sim` or `webgpu (ADAPTER)`.
    pub(super) backend: String,
    /// The simulator's report: the run's own on `sim` and `ptx-sim`, the check's run on webgpu and
    /// cuda; `None` on webgpu and cuda without `--check`.
    pub(super) report: Option<SimReport>,
    /// Whether `report` is the `--check` run's (not the backend's own).
    pub(super) report_of_check: bool,
    /// The times, each with its clock.
    pub(super) time: String,
    /// With `--check`: the first difference, if any.
    pub(super) check: Option<Option<Difference>>,
    /// Each `--out` written: parameter, file, bytes.
    pub(super) written: Vec<(String, PathBuf, usize)>,
    /// With `--profile`: the source the report's profile is shown against.
    pub(super) profile: Option<super::profile::Source>,
}

/// The first byte where a read_write buffer of `ran` differs from the same buffer of `sim`.
pub(super) fn first_difference(ran: &[Buffer], sim: &[Buffer]) -> Option<Difference> {
    let rw = |b: &&Buffer| b.access == Access::ReadWrite;
    ran.iter()
        .filter(rw)
        .zip(sim.iter().filter(rw))
        .find_map(|(a, b)| {
            let offset = a.bytes.iter().zip(&b.bytes).position(|(x, y)| x != y)?;
            let size = a.elem.size_bytes().unwrap_or(4) as usize;
            let (ours, theirs) = (a.bytes.chunks(size), b.bytes.chunks(size));
            let element = offset / size;
            let value = |bytes: &[u8]| {
                let mut le = [0u8; 8];
                let chunk = &bytes[element * size..((element + 1) * size).min(bytes.len())];
                le[..chunk.len()].copy_from_slice(chunk);
                let bits = u64::from_le_bytes(le);
                let width = 2 + 2 * size;
                format!("{} ({bits:#0width$x})", Literal::from_bits(a.elem, bits))
            };
            Some(Difference {
                buffer: a.name.clone(),
                offset,
                element,
                values: (value(&a.bytes), value(&b.bytes)),
                differing: ours.zip(theirs).filter(|(x, y)| x != y).count(),
            })
        })
}

pub(super) fn millis(ns: u64) -> String {
    let ms = ns as f64 / 1e6;
    let decimals = if ms >= 1.0 { 1 } else { 3 };
    format!("{ms:.decimals$} ms")
}

fn plural(n: impl Into<u64>, word: &str) -> String {
    let n = n.into();
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

pub(super) fn print_text(
    kernel: &Ran<'_>,
    grid: u32,
    outcome: &Outcome,
    stats: Option<&SimReport>,
    clean: bool,
) {
    let Outcome {
        backend,
        report,
        report_of_check,
        time,
        check,
        written,
        ..
    } = outcome;
    // What the kernel printed (device printf), as the CUDA runtime writes it to stdout.
    for r in report.iter() {
        for text in &r.printed {
            print!("{text}");
        }
        if r.printed_dropped > 0 {
            println!(
                "(printf: {} more printed, not kept: the simulator keeps {})",
                r.printed_dropped,
                warpforge::runtime::sim::MAX_PRINTED
            );
        }
    }
    for finding in report.iter().flat_map(|r| &r.findings) {
        println!("{finding}");
    }
    let verdict = match report {
        None => format!(
            "ran ({} has no sanitizer: add --check sim)",
            backend_word(backend)
        ),
        Some(r) => format!(
            "{} ({}{}){}",
            if clean { "clean" } else { "failed" },
            plural(r.findings.len() as u64, "finding"),
            if *report_of_check { " on sim" } else { "" },
            match r.stopped_blocks {
                0 => String::new(),
                n => format!(", {} stopped", plural(n, "block")),
            }
        ),
    };
    let (name, size, blocks) = (kernel.name, kernel.block_size, plural(grid, "block"));
    println!("run: kernel `{name}` on {backend}, {blocks} of {size} threads: {verdict}, {time}");
    match check {
        Some(None) => println!("check: every read_write buffer is identical on sim"),
        Some(Some(Difference {
            buffer,
            offset,
            element,
            values: (ours, sim),
            differing,
        })) => {
            let differing = plural(*differing as u64, "element");
            let word = backend_word(backend);
            println!(
                "check: mismatch: buffer `{buffer}` differs from sim at byte {offset} (element \
                 {element}): {word} {ours}, sim {sim} ({differing} differ)"
            )
        }
        None => {}
    }
    if let Some(report) = stats {
        println!("sim counters:\n{}", report.counters);
    }
    for (name, path, bytes) in written {
        println!("wrote `{name}` ({bytes} bytes) to {}", path.display());
    }
}

/// The backend's name without its device (`webgpu` of `webgpu (llvmpipe …)`).
fn backend_word(backend: &str) -> &str {
    backend.split(' ').next().unwrap_or(backend)
}

/// `--format json`: one object for the whole run.
#[derive(Serialize)]
struct RunJson<'a> {
    kernel: &'a str,
    backend: &'a str,
    grid: u32,
    block_size: u32,
    clean: bool,
    findings: Vec<FindingJson<'a>>,
    /// The counters with `--stats`.
    stats: Option<&'a Counters>,
    /// The comparison with `--check`.
    check: Option<CheckJson<'a>>,
    time: &'a str,
    outputs: Vec<OutputJson<'a>>,
    /// The source view with `--profile`.
    profile: Option<ProfileJson>,
    /// What device `printf` printed (PTX on the simulator), one entry per call and thread.
    printed: Vec<&'a str>,
    /// `printf` entries past the simulator's limit, not kept.
    printed_dropped: u64,
}

/// One finding of the sanitizer.
#[derive(Serialize)]
struct FindingJson<'a> {
    kind: &'static str,
    check: &'static str,
    /// `error` or `warning`.
    severity: &'static str,
    statement: &'a str,
    block: u32,
    warp: u32,
    /// The lanes involved, ascending.
    lanes: Vec<u32>,
    address: Option<AddressJson<'a>>,
    detail: &'a str,
    other_blocks: u64,
}

/// The array a finding is about and the byte offset in it.
#[derive(Serialize)]
struct AddressJson<'a> {
    array: &'a str,
    offset: u64,
}

/// The `--check` verdict.
#[derive(Serialize)]
struct CheckJson<'a> {
    identical: bool,
    first_difference: Option<DifferenceJson<'a>>,
}

/// The first byte where the backend's read_write buffer differs from the simulator's.
#[derive(Serialize)]
struct DifferenceJson<'a> {
    buffer: &'a str,
    offset: usize,
    element: usize,
    /// The element on the backend: `1.5 (0x3fc00000)`.
    value: &'a str,
    /// The element on the simulator.
    sim_value: &'a str,
    differing_elements: usize,
}

/// One `--out` written.
#[derive(Serialize)]
struct OutputJson<'a> {
    name: &'a str,
    file: String,
    bytes: usize,
}

impl<'a> FindingJson<'a> {
    fn of(f: &'a Finding) -> Self {
        FindingJson {
            kind: f.kind.name(),
            check: f.kind.check().name(),
            severity: match f.severity() {
                Severity::Error => "error",
                Severity::Warning => "warning",
            },
            statement: &f.statement,
            block: f.block,
            warp: f.warp,
            lanes: (0..32u32).filter(|l| f.lanes >> l & 1 == 1).collect(),
            address: (f.address.as_ref()).map(|(array, offset)| AddressJson {
                array,
                offset: *offset,
            }),
            detail: &f.detail,
            other_blocks: f.other_blocks,
        }
    }
}

impl<'a> CheckJson<'a> {
    fn of(difference: &'a Option<Difference>) -> Self {
        CheckJson {
            identical: difference.is_none(),
            first_difference: difference.as_ref().map(|d| DifferenceJson {
                buffer: &d.buffer,
                offset: d.offset,
                element: d.element,
                value: &d.values.0,
                sim_value: &d.values.1,
                differing_elements: d.differing,
            }),
        }
    }
}

/// The run as one line of JSON.
pub(super) fn json(
    kernel: &Ran<'_>,
    grid: u32,
    outcome: &Outcome,
    stats: Option<&SimReport>,
    profile: Option<ProfileJson>,
    clean: bool,
) -> String {
    let run = RunJson {
        kernel: kernel.name,
        backend: &outcome.backend,
        grid,
        block_size: kernel.block_size,
        clean,
        findings: (outcome.report.iter())
            .flat_map(|r| &r.findings)
            .map(FindingJson::of)
            .collect(),
        stats: stats.map(|r| &r.counters),
        check: outcome.check.as_ref().map(CheckJson::of),
        time: &outcome.time,
        outputs: (outcome.written.iter())
            .map(|(name, path, bytes)| OutputJson {
                name,
                file: path.display().to_string(),
                bytes: *bytes,
            })
            .collect(),
        profile,
        printed: (outcome.report.iter())
            .flat_map(|r| &r.printed)
            .map(String::as_str)
            .collect(),
        printed_dropped: outcome.report.iter().map(|r| r.printed_dropped).sum(),
    };
    serde_json::to_string(&run).expect("plain data serializes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpforge::ir::ScalarType;

    #[test]
    fn first_difference_names_buffer_byte_element_and_both_values() {
        let buffer = |access, bytes: &[u8]| Buffer {
            name: "out".into(),
            elem: ScalarType::U32,
            access,
            bytes: bytes.to_vec(),
        };
        let same = buffer(Access::ReadWrite, &[5, 0, 0, 0]);
        let sim = [
            buffer(Access::ReadOnly, &[1, 0, 0, 0]),
            same.clone(),
            buffer(Access::ReadWrite, &[1, 0, 0, 0, 2, 0, 0, 0]),
        ];
        let ran = [
            buffer(Access::ReadOnly, &[9, 0, 0, 0]),
            same,
            buffer(Access::ReadWrite, &[1, 0, 0, 0, 2, 0, 7, 0]),
        ];
        let d = first_difference(&ran, &sim).expect("differs");
        assert_eq!((d.offset, d.element, d.differing), (6, 1, 1));
        assert_eq!(d.values.0, "458754 (0x00070002)");
        assert_eq!(d.values.1, "2 (0x00000002)");
        assert_eq!(first_difference(&sim, &sim), None);
    }

    #[test]
    fn check_and_finding_json_keep_their_keys_and_escape_strings() {
        let difference = Some(Difference {
            buffer: "out \"b\"".into(),
            offset: 6,
            element: 1,
            values: ("458754 (0x00070002)".into(), "2 (0x00000002)".into()),
            differing: 3,
        });
        let json = serde_json::to_string(&CheckJson::of(&difference)).expect("serializes");
        assert_eq!(
            json,
            r#"{"identical":false,"first_difference":{"buffer":"out \"b\"","offset":6,"element":1,"value":"458754 (0x00070002)","sim_value":"2 (0x00000002)","differing_elements":3}}"#
        );
        let json = serde_json::to_string(&CheckJson::of(&None)).expect("serializes");
        assert_eq!(json, r#"{"identical":true,"first_difference":null}"#);

        let finding = Finding {
            kind: warpforge::runtime::sim::FindingKind::PartialBarrier,
            statement: "body[2]\n\u{1}".into(),
            site: warpforge::runtime::sim::ProfileSite::Statement("body[2]".into()),
            block: 3,
            warp: 1,
            lanes: 0b1001,
            address: None,
            detail: "lanes 0, 3".into(),
            other_blocks: 2,
        };
        let json = serde_json::to_string(&FindingJson::of(&finding)).expect("serializes");
        assert_eq!(
            json,
            r#"{"kind":"partial-barrier","check":"synccheck","severity":"error","statement":"body[2]\n\u0001","block":3,"warp":1,"lanes":[0,3],"address":null,"detail":"lanes 0, 3","other_blocks":2}"#
        );
    }
}
