//! Where `warpforge emit` puts what it wrote: a file (`-o FILE`) or stdout, never a binary module on a
//! terminal.

use std::io::{IsTerminal, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};
use warpforge_wgsl::{emit_target, ShaderTarget};

use warpforge::ir::{verify, Kernel};

/// `kernel` written for `target` from its naga module (the form of [`warpforge::catalog::Entry::webgpu_build`]
/// for catalog kernels), checked as [`warpforge_wgsl::targets`] describes: the bytes of the file and
/// whether they are binary (SPIR-V).
pub fn shader_bytes(kernel: &Kernel, target: ShaderTarget) -> Result<(Vec<u8>, bool)> {
    let shader = emit_target(&verify(kernel)?, target)?;
    Ok((shader.bytes().into_owned(), shader.words().is_some()))
}

/// Writes `bytes` to `output`, or to stdout without one. Binary bytes are refused when stdout is a
/// terminal: they would garble it, and a module copied from a terminal is not the module.
pub fn write(bytes: &[u8], binary: bool, output: Option<&Path>) -> Result<()> {
    if let Some(path) = output {
        return std::fs::write(path, bytes)
            .with_context(|| format!("cannot write {}", path.display()));
    }
    let mut stdout = std::io::stdout().lock();
    if binary && stdout.is_terminal() {
        bail!(
            "not writing a binary SPIR-V module to a terminal: redirect stdout to a file \
             (`> kernel.spv`), pipe it to `spirv-dis`, or use `-o kernel.spv`"
        );
    }
    stdout.write_all(bytes).context("cannot write to stdout")?;
    stdout.flush().context("cannot write to stdout")
}
