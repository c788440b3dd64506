//! What `warpforge run` prints: the findings, a summary line, the `--check` comparison, the counters
//! and the files written, as text or as one JSON object.

use std::path::PathBuf;

use warpforge::ir::{Access, Literal};
use warpforge::runtime::sim::{Finding, Severity, SimReport};

use super::Buffer;

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

/// `s` as a JSON string.
fn js(s: &str) -> String {
    let mut out = String::from('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => out.extend(['\\', c]),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out + "\""
}

fn finding_json(f: &Finding) -> String {
    let lanes: Vec<String> = (0..32u32)
        .filter(|l| f.lanes >> l & 1 == 1)
        .map(|l| l.to_string())
        .collect();
    let address = match &f.address {
        Some((array, offset)) => format!("{{\"array\":{},\"offset\":{offset}}}", js(array)),
        None => "null".into(),
    };
    let severity = if f.severity() == Severity::Error {
        "error"
    } else {
        "warning"
    };
    let (kind, check) = (f.kind.name(), f.kind.check().name());
    let (statement, detail, lanes) = (js(&f.statement), js(&f.detail), lanes.join(","));
    let Finding {
        block,
        warp,
        other_blocks,
        ..
    } = f;
    format!(
        "{{\"kind\":\"{kind}\",\"check\":\"{check}\",\"severity\":\"{severity}\",\
         \"statement\":{statement},\"block\":{block},\"warp\":{warp},\"lanes\":[{lanes}],\
         \"address\":{address},\"detail\":{detail},\"other_blocks\":{other_blocks}}}"
    )
}

pub(super) fn json(
    kernel: &Ran<'_>,
    grid: u32,
    outcome: &Outcome,
    stats: Option<&SimReport>,
    profile: Option<serde_json::Value>,
    clean: bool,
) -> String {
    let Outcome {
        backend,
        report,
        time,
        check,
        written,
        ..
    } = outcome;
    let findings: Vec<String> = report
        .iter()
        .flat_map(|r| &r.findings)
        .map(finding_json)
        .collect();
    let outputs: Vec<String> = (written.iter())
        .map(|(name, path, bytes)| {
            let (name, file) = (js(name), js(&path.display().to_string()));
            format!("{{\"name\":{name},\"file\":{file},\"bytes\":{bytes}}}")
        })
        .collect();
    let check = match check {
        None => "null".into(),
        Some(None) => "{\"identical\":true,\"first_difference\":null}".into(),
        Some(Some(Difference {
            buffer,
            offset,
            element,
            values: (ours, sim),
            differing,
        })) => {
            let (buffer, value, sim_value) = (js(buffer), js(ours), js(sim));
            format!(
                "{{\"identical\":false,\"first_difference\":{{\"buffer\":{buffer},\
                 \"offset\":{offset},\"element\":{element},\"value\":{value},\
                 \"sim_value\":{sim_value},\"differing_elements\":{differing}}}}}"
            )
        }
    };
    let stats = stats.map_or("null".into(), |r| r.counters.to_json());
    let profile = profile.unwrap_or(serde_json::Value::Null);
    let (name, size, backend, time) = (js(kernel.name), kernel.block_size, js(backend), js(time));
    format!(
        "{{\"kernel\":{name},\"backend\":{backend},\"grid\":{grid},\"block_size\":{size},\
         \"clean\":{clean},\"findings\":[{}],\"stats\":{stats},\"check\":{check},\"time\":{time},\
         \"outputs\":[{}],\"profile\":{profile}}}",
        findings.join(","),
        outputs.join(",")
    )
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
}
