//! What `compress`, `decompress` and `demo` share: `--backend` (with `auto`), `--level`, opening the
//! codec, and running a file through it with a progress bar.

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use warpforge::codec::{Backend, PageCodec};
use warpforge::kernels::lz4::Lz4Level;
use warpforge::pipeline::Summary;

/// `--backend`: a [`Backend`], or `None` for `auto`.
#[derive(Clone, Copy, Debug)]
pub struct BackendChoice(Option<Backend>);

/// The `--backend` values with their help, parsed into a [`BackendChoice`].
pub fn backend_choice() -> impl clap::builder::TypedValueParser<Value = BackendChoice> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let help = |backend: Backend| match backend {
        Backend::Cpu => "lz4_flex on all cores",
        Backend::Reference => {
            "the CPU reference of the warp kernels (byte-identical to the kernels)"
        }
        Backend::Sim => "the LZ4 warp kernels on the CPU simulator, sanitizer on",
        Backend::PtxSim => {
            "the CUDA engine's host pipeline with the PTX simulator running the kernels' sm_80 PTX \
             (slow; a failed batch is an error, not a CPU fallback)"
        }
        Backend::WebGpu => {
            "the LZ4 warp kernels on a WebGPU adapter (the batch API's ring, CPU fallback per \
             failed batch)"
        }
        Backend::Cuda => {
            "the LZ4 warp kernels on CUDA device 0 (async-DMA ring, CPU fallback per failed batch)"
        }
    };
    let auto = PossibleValue::new("auto").help(
        "cuda on a supported CUDA GPU, else webgpu on a hardware adapter that runs the kernels, else \
         the CPU reference (software adapters only when named: --backend webgpu)",
    );
    let values = std::iter::once(auto)
        .chain(Backend::ALL.map(|b| PossibleValue::new(b.name()).help(help(b))));
    PossibleValuesParser::new(values)
        .map(|name: String| BackendChoice(name.parse::<Backend>().ok()))
}

/// Opens the codec for `--backend`; for `auto`, also the line that says what ran and why.
pub fn open_codec(
    backend: BackendChoice,
    level: Lz4Level,
) -> Result<(Box<dyn PageCodec>, Option<String>)> {
    match backend.0 {
        Some(backend) => Ok((warpforge::codec::open_at(backend, level)?, None)),
        None => {
            let (codec, choice) = warpforge::codec::open_auto_at(level);
            Ok((codec, Some(choice.explain())))
        }
    }
}

/// A progress bar of pages.
pub fn progress_bar() -> ProgressBar {
    let bar = ProgressBar::new(0);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {pos}/{len} pages {per_sec} eta {eta}")
    {
        bar.set_style(style);
    }
    bar
}

pub type Pipeline =
    fn(&std::path::Path, &std::path::Path, &mut dyn PageCodec, &ProgressBar) -> Result<Summary>;

/// Runs `compress` or `decompress` with a progress bar and prints the summary.
pub fn run_pipeline(
    verb: &str,
    (backend, level): (BackendChoice, Option<Lz4Level>),
    input: &std::path::Path,
    output: &std::path::Path,
    run: Pipeline,
) -> Result<()> {
    let (mut codec, auto) = open_codec(backend, level.unwrap_or_default())?;
    if let Some(line) = auto {
        eprintln!("{line}");
    }
    let bar = progress_bar();
    let summary = run(input, output, codec.as_mut(), &bar)?;
    bar.finish_and_clear();
    let with = match (codec.backend(), level) {
        (Backend::Cpu, _) | (_, None) => codec.backend().to_string(),
        (backend, Some(level)) => format!("{backend} at level {}", level.number()),
    };
    report(verb, &with, &summary);
    let fell_back = codec.cpu_fallback_pages();
    if fell_back > 0 {
        eprintln!(
            "{fell_back} of these pages were redone on the CPU after GPU failures (each said above); \
             the output is the same either way"
        );
    }
    Ok(())
}

/// The summary line of a compress or decompress.
fn report(verb: &str, with: &str, s: &Summary) {
    eprintln!(
        "{verb} {} pages ({} lz4, {} raw, {} same-filled) with {with}: {} page bytes, {} archive bytes, ratio {:.3}x, {:.1} MB/s",
        s.pages, s.kinds[0], s.kinds[1], s.kinds[2], s.page_bytes, s.archive_bytes, s.ratio(), s.megabytes_per_second()
    );
}

/// `--level`: 0 to 3.
pub fn parse_level(text: &str) -> Result<Lz4Level, String> {
    let number: u8 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a level: the levels are 0, 1, 2 and 3"))?;
    Lz4Level::from_number(number).map_err(|e| e.to_string())
}
