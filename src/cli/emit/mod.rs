//! `warpforge emit`: a kernel printed in a target language (`output.rs`: where it goes).

mod output;

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use warpforge::catalog;
use warpforge::ir::{parse_kernel, verify, Kernel};
use warpforge::ptx::occupancy::Occupancy;
use warpforge::ptx::ptxas::Ptxas;
use warpforge::ptx::{emit as emit_ptx, Sm};

use output::shader_bytes;

/// `warpforge emit`'s arguments.
#[derive(Args, Debug)]
pub struct EmitArgs {
    /// A kernel of the repository, by name (see `warpforge list`).
    #[arg(long, required_unless_present = "file", conflicts_with = "file")]
    kernel: Option<String>,
    /// A kernel in the `.wfir` text form, instead of `--kernel`.
    #[arg(long, value_name = "FILE.wfir")]
    file: Option<PathBuf>,
    /// What to emit.
    #[arg(long, value_enum, default_value_t = Target::Ir)]
    target: Target,
    /// PTX target architecture (70, 80 or 90).
    #[arg(long, default_value_t = 70, value_parser = parse_sm)]
    sm: u32,
    /// With `--target ptx`: assemble with ptxas and print its resource report on stderr, with the
    /// blocks and warps per SM those resources allow (CUDA occupancy rules).
    #[arg(long)]
    report: bool,
    /// With `--target wgsl`: how warp collectives are lowered: `emulated` (workgroup memory and
    /// barriers, right on every adapter), or native subgroups of 32 or 64 lanes (what the WebGPU
    /// runtime picks on a device whose subgroups it measured that wide).
    #[arg(long, value_enum, default_value_t = Warps::Emulated)]
    warps: Warps,
    /// Write to FILE instead of stdout (SPIR-V, being binary, is not written to a terminal).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// `--warps`: the WGSL lowering of warp collectives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Warps {
    /// Through workgroup memory and barriers.
    Emulated,
    /// Native subgroups of 32 lanes (a warp each).
    #[value(name = "subgroups-32")]
    Subgroups32,
    /// Native subgroups of 64 lanes (two warps each).
    #[value(name = "subgroups-64")]
    Subgroups64,
}

impl Warps {
    fn lowering(self) -> warpforge::wgsl::WarpLowering {
        use warpforge::wgsl::WarpLowering;
        match self {
            Warps::Emulated => WarpLowering::Emulated,
            Warps::Subgroups32 => WarpLowering::Subgroups { width: 32 },
            Warps::Subgroups64 => WarpLowering::Subgroups { width: 64 },
        }
    }
}

/// Emits the kernel.
pub fn run(args: EmitArgs) -> Result<()> {
    let from_naga = matches!(
        args.target,
        Target::Wgsl | Target::Spirv | Target::Msl | Target::Hlsl
    );
    let kernel = load_kernel(args.kernel.as_deref(), args.file.as_ref(), from_naga)?;
    if args.report && !matches!(args.target, Target::Ptx) {
        bail!("--report needs --target ptx");
    }
    if args.warps != Warps::Emulated && !matches!(args.target, Target::Wgsl) {
        bail!("--warps needs --target wgsl (SPIR-V, MSL and HLSL emulate warps)");
    }
    use warpforge::wgsl::ShaderTarget;
    let (bytes, binary) = match args.target {
        Target::Ir => (kernel.to_string().into_bytes(), false),
        Target::Wgsl => {
            let wgsl = warpforge::wgsl::emit_with(&verify(&kernel)?, args.warps.lowering())?;
            (wgsl.source.into_bytes(), false)
        }
        Target::Spirv => shader_bytes(&kernel, ShaderTarget::SpirV)?,
        Target::Msl => shader_bytes(&kernel, ShaderTarget::Msl)?,
        Target::Hlsl => shader_bytes(&kernel, ShaderTarget::Hlsl)?,
        Target::Ptx => {
            let sm = Sm::from_number(args.sm).expect("validated by the argument parser");
            let ptx = emit_ptx(&verify(&kernel)?, sm)?;
            if args.report {
                let ptxas = Ptxas::find().context(
                    "--report needs NVIDIA's ptxas: put it on PATH or name it in WARPFORGE_PTXAS",
                )?;
                let resources = ptxas.assemble(&ptx.text, sm)?;
                eprintln!("{resources}");
                let block = ptx.launch.block_size;
                let dynamic = ptx.launch.dynamic_shared_bytes;
                match Occupancy::from_report(sm, &resources, block, dynamic) {
                        Some(o) => eprintln!("{o}"),
                        None => eprintln!(
                            "occupancy on {}: a block of {block} threads with these resources does not fit on one SM",
                            sm.name()
                        ),
                    }
            }
            (ptx.text.into_bytes(), false)
        }
    };
    output::write(&bytes, binary, args.output.as_deref())
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Target {
    /// The verified IR in its `.wfir` text form.
    Ir,
    /// NVIDIA PTX for `--sm`.
    Ptx,
    /// WGSL (WebGPU), validated by naga.
    Wgsl,
    /// A SPIR-V 1.3 binary module (Vulkan), from the same naga module as the WGSL.
    Spirv,
    /// Metal Shading Language 2.3 source, from the same naga module as the WGSL.
    Msl,
    /// HLSL for shader model 6.0 (Direct3D 12), from the same naga module as the WGSL.
    Hlsl,
}

/// The kernel named by `--kernel` or read from `--file`, verified.
fn load_kernel(name: Option<&str>, file: Option<&PathBuf>, webgpu: bool) -> Result<Kernel> {
    let kernel = match (name, file) {
        (Some(name), _) => {
            let entry = catalog::find(name).map_err(anyhow::Error::msg)?;
            if webgpu {
                entry.webgpu_build()
            } else {
                entry.build()
            }
        }
        (None, Some(path)) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            parse_kernel(&text)
                .with_context(|| format!("{}: not a valid .wfir kernel", path.display()))?
        }
        (None, None) => bail!("name a kernel with --kernel NAME or --file FILE.wfir"),
    };
    if let Err(e) = verify(&kernel) {
        bail!("{e}");
    }
    Ok(kernel)
}

/// `--sm`: 70, 80 or 90 (`sm_90` also reads).
fn parse_sm(text: &str) -> Result<u32, String> {
    let n: u32 = text
        .trim_start_matches("sm_")
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    Sm::from_number(n)
        .map(|_| n)
        .ok_or_else(|| format!("unsupported target sm_{n}; supported: 70, 80, 90"))
}
