//! `warpforge run FILE.ptx`: one entry of a PTX module (nvcc's, NVRTC's, Triton's or warpforge's) on
//! the PTX simulator, or on a GPU (`--backend cuda`, `--check sim` comparing it with the simulator:
//! `ptx_cuda.rs`). PTX parameters are untyped bytes: a 64-bit parameter given a buffer
//! (`@FILE.bin`, `zeros:BYTES`) gets the buffer's address, any other value is a scalar of the
//! parameter's declared type. Every buffer may be written to a file afterwards (the PTX does not say
//! which ones the kernel writes). Findings name the PTX line.

use std::path::{Path, PathBuf};

use warpforge::ir::{Access, ScalarType};
use warpforge::runtime::cuda::{PtxShape, PtxValue};
use warpforge::runtime::sim::ptx::{self, PtxArg, PtxError, PtxKernel, PtxLaunch, PtxParam};
use warpforge::runtime::sim::{SimOptions, SimReport};
use warpforge::runtime::{Backend, BufferArg};

use super::args::RunArgs;
use super::buffer::Buffer;
use super::failure::{fault, usage, Failure};
use super::finish::finish;
use super::report::{millis, Outcome, Ran};
use super::values::{parse_unsigned, scalar_value};

/// A PTX parameter's value as given: the launch's next buffer, a scalar's bits, a pointer into
/// another parameter's buffer, or a struct's bytes.
enum Value {
    Buffer,
    Scalar(u64),
    /// A pointer into the buffer (by its index among the buffers) at a byte offset.
    Into {
        buffer: u32,
        offset: u64,
    },
    /// A by-value parameter's bytes (a struct).
    Bytes(Vec<u8>),
}

/// Runs `warpforge run FILE.ptx …`; the exit status.
pub(super) fn execute(args: &RunArgs, path: &Path) -> Result<i32, Failure> {
    let file = path.display().to_string();
    let mut errors = Vec::new();
    let on_cuda = args.backend == Backend::Cuda;
    if !matches!(args.backend, Backend::Sim | Backend::PtxSim | Backend::Cuda) {
        errors.push(format!(
            "--backend {}: a PTX file runs on the PTX simulator (--backend sim or ptx-sim) or on a \
             GPU (--backend cuda)",
            args.backend
        ));
    } else if args.check.is_some() && !on_cuda {
        errors.push(
            "--check sim compares --backend cuda with the PTX simulator; on sim the run is the \
             simulator's already"
                .into(),
        );
    }
    if on_cuda && args.profile && args.check.is_none() {
        errors.push(
            "--profile shows the simulator's counters: add --check sim to get those of its run"
                .into(),
        );
    }
    if args.sm.is_some() {
        errors.push(
            "--sm chooses the PTX emitted for a .wfir kernel; a PTX file's target is its own"
                .into(),
        );
    }
    if !errors.is_empty() {
        return Err(Failure(2, errors));
    }
    let text =
        std::fs::read_to_string(path).map_err(|e| usage(format!("cannot read {file}: {e}")))?;
    let module = warpforge::ptx::parse::parse(&text)
        .map_err(|e| usage(format!("{file}: not valid PTX: {e}")))?;
    let entries: Vec<String> = module.entries().map(|f| f.name.clone()).collect();
    let entry = match (&args.entry, entries.as_slice()) {
        (Some(e), _) => e.clone(),
        (None, [only]) => only.clone(),
        (None, []) => return Err(usage(format!("{file}: the module has no .entry"))),
        (None, many) => {
            return Err(usage(format!(
                "{file} has {} entries ({}): choose one with --entry NAME",
                many.len(),
                many.join(", ")
            )))
        }
    };
    let kernel = match PtxKernel::from_module(&module, &entry) {
        Ok(k) => k,
        Err(e @ PtxError::NoEntry { .. }) => return Err(usage(format!("{file}: {e}"))),
        Err(e) => return Err(fault(format!("{file}: {e}"))),
    };
    let block = kernel
        .block_shape(args.block.map(|d| d.0))
        .map_err(|e| usage(format!("{file}: {e}")))?;
    let (mut buffers, values, outs, variables) = parse_arguments(&kernel, &args.args, &args.outs)?;
    if on_cuda && !variables.is_empty() {
        return Err(usage(
            "setting module variables (--arg on a `.global` or `.const` variable) is for the \
             simulator (--backend sim)"
                .into(),
        ));
    }
    let mut kernel = kernel;
    for (name, bytes) in &variables {
        kernel
            .set_variable(name, bytes)
            .map_err(|e| usage(format!("--arg `{name}`: {e}")))?;
    }
    let launch = PtxLaunch {
        grid: args.grid.0,
        block,
        dynamic_shared: args.dynamic_shared.unwrap_or(0),
    };
    let options = SimOptions {
        sanitize: !args.no_sanitize,
        stats: args.stats || args.profile,
        profile: args.profile,
        ..SimOptions::default()
    };
    if on_cuda
        && values
            .iter()
            .any(|v| matches!(v, Value::Into { .. } | Value::Bytes(_)))
    {
        return Err(usage(
            "a pointer into another parameter's buffer (buf:P+OFFSET) and a struct's bytes \
             (@FILE on a by-value parameter) are for the simulator (--backend sim)"
                .into(),
        ));
    }
    if on_cuda {
        let shape = PtxShape {
            grid: launch.grid,
            block,
            dynamic_shared: launch.dynamic_shared,
        };
        let cuda_values: Vec<PtxValue> = values
            .iter()
            .zip(kernel.params())
            .map(|(v, p)| match v {
                Value::Buffer | Value::Into { .. } | Value::Bytes(_) => PtxValue::Buffer,
                Value::Scalar(bits) => PtxValue::Scalar {
                    bits: *bits,
                    bytes: p.size,
                },
            })
            .collect();
        let run = super::ptx_cuda::CudaRun {
            file: &file,
            text: &text,
            kernel: &kernel,
            shape,
            values: &cuda_values,
            sim_args: &ptx_sim_args(&values),
            options: &options,
        };
        let (outcome, clean) = run.execute(args, &mut buffers)?;
        let ran = Ran {
            name: &entry,
            block_size: block.iter().product(),
        };
        return finish(args, &ran, outcome, &buffers, outs, clean);
    }
    let ptx_args = ptx_sim_args(&values);
    let mut buffer_args: Vec<BufferArg<'_>> = buffers.iter_mut().map(Buffer::arg).collect();
    let report = ptx::run(&kernel, &launch, &ptx_args, &mut buffer_args, &options)
        .map_err(|e| usage(e.to_string()))?;
    drop(buffer_args);
    let target = module.target.names.first().cloned().unwrap_or_default();
    let outcome = Outcome {
        backend: format!("{} (the PTX simulator, {target})", args.backend),
        time: format!("{} (host clock)", millis(report.elapsed_ns)),
        report: Some(report),
        report_of_check: false,
        check: None,
        written: Vec::new(),
        profile: args
            .profile
            .then(|| super::profile::Source::Ptx(text.clone())),
    };
    let mut outcome = outcome;
    if let Some(path) = &args.accept {
        super::accept::apply(path, &entry, &mut outcome)?;
    }
    let clean = outcome.report.as_ref().is_some_and(SimReport::is_clean);
    let ran = Ran {
        name: &entry,
        block_size: block.iter().product(),
    };
    finish(args, &ran, outcome, &buffers, outs, clean)
}

/// The simulator's arguments for `values`.
fn ptx_sim_args(values: &[Value]) -> Vec<PtxArg> {
    values
        .iter()
        .map(|v| match v {
            Value::Buffer => PtxArg::Buffer,
            Value::Scalar(bits) => PtxArg::Scalar(*bits),
            &Value::Into { buffer, offset } => PtxArg::BufferAt { buffer, offset },
            Value::Bytes(bytes) => PtxArg::Bytes(bytes.clone()),
        })
        .collect()
}

/// The IR scalar type a PTX parameter's value is read as, and its width in bits.
fn scalar_type(p: &PtxParam) -> Option<(ScalarType, u32)> {
    Some(match p.ty.as_str() {
        "u8" | "b8" | "s8" if p.size == 1 => (ScalarType::I32, 8),
        "u16" | "b16" | "s16" if p.size == 2 => (ScalarType::I32, 16),
        "u32" | "b32" if p.size == 4 => (ScalarType::U32, 32),
        "s32" if p.size == 4 => (ScalarType::I32, 32),
        "u64" | "b64" if p.size == 8 => (ScalarType::U64, 64),
        "s64" if p.size == 8 => (ScalarType::I64, 64),
        "f32" if p.size == 4 => (ScalarType::F32, 32),
        _ => return None,
    })
}

/// A scalar parameter's bits from its text.
fn scalar(p: &PtxParam, text: &str) -> Result<u64, String> {
    let Some((ty, bits)) = scalar_type(p) else {
        return Err(format!(
            "--arg `{}`: a parameter of type .{} ({} bytes) is given its bytes: --arg {0}=@FILE.bin \
             (a struct passed by value: a file of exactly {2} bytes)",
            p.name, p.ty, p.size
        ));
    };
    if bits >= 32 {
        return scalar_value(&p.name, ty, text);
    }
    // 8- and 16-bit parameters: a value of the width, signed or not.
    let value = scalar_value(&p.name, ScalarType::I64, text)
        .ok()
        .map(|b| b as i64)
        .or_else(|| parse_unsigned(text).and_then(|v| i64::try_from(v).ok()));
    let fits = |v: i64| v >= -(1 << (bits - 1)) && v < 1 << bits;
    match value.filter(|&v| fits(v)) {
        Some(v) => Ok(v as u64 & ((1 << bits) - 1)),
        None => Err(format!(
            "--arg `{}`: `{text}` is not a {bits}-bit integer",
            p.name
        )),
    }
}

/// The buffers, the parameters' values, the `--out` files, and the module variables to set.
type Parsed = (
    Vec<Buffer>,
    Vec<Value>,
    Vec<(usize, PathBuf)>,
    Vec<(String, Vec<u8>)>,
);

/// Matches `--arg` and `--out` with the entry's parameters; every bad argument is one line.
fn parse_arguments(
    kernel: &PtxKernel,
    args: &[String],
    outs: &[String],
) -> Result<Parsed, Failure> {
    let params = kernel.params();
    let list: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{i}: {} (.{})", p.name, p.ty))
        .collect();
    let entry = kernel.name();
    let variables_list: Vec<&str> = kernel.variables().iter().map(|v| v.name.as_str()).collect();
    let unknown = |flag: &str, name: &str| {
        let also = match (flag, variables_list.is_empty()) {
            ("--arg", false) => format!("; module variables: {}", variables_list.join(", ")),
            _ => String::new(),
        };
        format!(
            "{flag} `{name}`: unknown parameter; entry `{entry}` has {}{also}",
            list.join(", ")
        )
    };
    let mut errors = Vec::new();
    let mut given: Vec<Option<&str>> = vec![None; params.len()];
    let mut variables: Vec<(String, Vec<u8>)> = Vec::new();
    for arg in args {
        let Some((name, value)) = arg.split_once('=') else {
            errors.push(format!(
                "--arg `{arg}`: expected NAME=@FILE.bin, NAME=zeros:BYTES or NAME=VALUE"
            ));
            continue;
        };
        let variable = kernel.variables().iter().find(|v| v.name == name);
        match param_index(params, name) {
            None if variable.is_some() => {
                // A module variable (`__constant__`, `__device__`): its bytes before the launch.
                if variables.iter().any(|(n, _)| n == name) {
                    errors.push(format!("--arg `{name}`: module variable given twice"));
                } else if !value.starts_with('@') {
                    errors.push(format!(
                        "--arg `{name}`: a module variable is set from a file of its bytes: \
                         {name}=@FILE.bin"
                    ));
                } else {
                    match buffer_bytes(name, value) {
                        Ok(bytes) => variables.push((name.to_owned(), bytes)),
                        Err(e) => errors.push(e),
                    }
                }
            }
            None => errors.push(unknown("--arg", name)),
            Some(i) if given[i].is_some() => errors.push(format!(
                "--arg `{name}`: parameter `{}` is given twice",
                params[i].name
            )),
            Some(i) => given[i] = Some(value),
        }
    }
    let (mut buffers, mut values) = (Vec::new(), Vec::new());
    for (i, (p, value)) in params.iter().zip(given).enumerate() {
        let buffer_like = value.is_some_and(|v| v.starts_with('@') || v.starts_with("zeros:"));
        let result = match value {
            None if p.pointer => Err(format!(
                "missing parameter {i}, `{}` (.{}): --arg {i}=@FILE.bin, --arg {i}=zeros:BYTES or \
                 a value",
                p.name, p.ty
            )),
            None => Err(format!(
                "missing parameter {i}, `{}` (.{}): --arg {i}=VALUE",
                p.name, p.ty
            )),
            Some(v) if v.starts_with('@') && !p.pointer && p.size > 8 => {
                // A struct passed by value: its bytes, exactly the parameter's size.
                buffer_bytes(&p.name, v).and_then(|bytes| match bytes.len() == p.size as usize {
                    true => Ok(Value::Bytes(bytes)),
                    false => Err(format!(
                        "--arg `{}`: the parameter is a {}-byte value; {} given",
                        p.name,
                        p.size,
                        bytes.len()
                    )),
                })
            }
            Some(_) if buffer_like && !p.pointer => Err(format!(
                "--arg `{}`: the parameter is .{}, a scalar: give it a value",
                p.name, p.ty
            )),
            Some(v) if v.starts_with("buf:") => into_buffer(params, &values, i, v)
                .map(|(buffer, offset)| Value::Into { buffer, offset }),
            Some(v) if buffer_like => buffer_bytes(&p.name, v).map(|bytes| {
                buffers.push(Buffer {
                    name: p.name.clone(),
                    elem: ScalarType::U8,
                    access: Access::ReadWrite,
                    bytes,
                });
                Value::Buffer
            }),
            Some(v) => scalar(p, v).map(Value::Scalar),
        };
        match result {
            Ok(v) => values.push(v),
            Err(e) => errors.push(e),
        }
    }
    let mut files: Vec<(usize, PathBuf)> = Vec::new();
    for out in outs {
        let Some((name, file)) = out.split_once('=').filter(|(_, f)| !f.is_empty()) else {
            errors.push(format!("--out `{out}`: expected NAME=FILE.bin"));
            continue;
        };
        let path = PathBuf::from(file);
        let missing_dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty() && !d.is_dir());
        let param = param_index(params, name).map(|i| params[i].name.as_str());
        match buffers.iter().position(|b| Some(b.name.as_str()) == param) {
            None if param.is_some() => errors.push(format!("--out `{name}`: not given a buffer")),
            None => errors.push(unknown("--out", name)),
            Some(i) if files.iter().any(|(j, _)| *j == i) => {
                errors.push(format!("--out `{name}`: given twice"))
            }
            Some(_) if missing_dir.is_some() => errors.push(format!(
                "--out `{name}`: cannot write {}: no directory {}",
                path.display(),
                missing_dir
                    .map(|d| d.display().to_string())
                    .unwrap_or_default()
            )),
            Some(i) => files.push((i, path)),
        }
    }
    match errors.is_empty() {
        true => Ok((buffers, values, files, variables)),
        false => Err(Failure(2, errors)),
    }
}

/// The parameter `name` names: its PTX name, its position (`0`, `1`, …), or the `param_N` its PTX
/// name ends with (nvcc's `_Z6reducePfS_i_param_1` is `1` or `param_1`).
fn param_index(params: &[PtxParam], name: &str) -> Option<usize> {
    if let Some(i) = params.iter().position(|p| p.name == name) {
        return Some(i);
    }
    if !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()) {
        return name.parse().ok().filter(|&i: &usize| i < params.len());
    }
    let suffix = format!("_{name}");
    let mut ends = params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.name.ends_with(&suffix));
    match (ends.next(), ends.next()) {
        (Some((i, _)), None) if name.starts_with("param_") => Some(i),
        _ => None,
    }
}

/// `buf:P+OFFSET` for parameter `i`: a pointer to byte OFFSET of the buffer that an earlier
/// parameter P (a name or position) brought; its buffer's index and the offset.
fn into_buffer(
    params: &[PtxParam],
    values: &[Value],
    i: usize,
    value: &str,
) -> Result<(u32, u64), String> {
    let name = &params[i].name;
    if !params[i].pointer {
        return Err(format!(
            "--arg `{name}`: the parameter is .{}, a scalar: give it a value",
            params[i].ty
        ));
    }
    let spec = &value["buf:".len()..];
    let (target, offset) = match spec.split_once('+') {
        Some((t, o)) => (t, o),
        None => (spec, "0"),
    };
    let offset: u64 = offset
        .parse()
        .map_err(|_| format!("--arg `{name}`: `{offset}` is not a byte offset (buf:P+OFFSET)"))?;
    let Some(j) = param_index(params, target) else {
        return Err(format!(
            "--arg `{name}`: `{target}` is not a parameter (buf:P+OFFSET names an earlier \
             buffer parameter)"
        ));
    };
    if j >= i || !matches!(values.get(j), Some(Value::Buffer)) {
        return Err(format!(
            "--arg `{name}`: parameter `{}` is not an earlier buffer parameter (given @FILE.bin \
             or zeros:BYTES)",
            params[j].name
        ));
    }
    let buffer = values[..j]
        .iter()
        .filter(|v| matches!(v, Value::Buffer))
        .count();
    Ok((buffer as u32, offset))
}

/// A buffer's bytes from `@FILE` or `zeros:BYTES`.
fn buffer_bytes(name: &str, value: &str) -> Result<Vec<u8>, String> {
    if let Some(file) = value.strip_prefix('@') {
        return std::fs::read(file).map_err(|e| format!("--arg `{name}`: cannot read {file}: {e}"));
    }
    let count = value.strip_prefix("zeros:").unwrap_or(value);
    let bytes = parse_unsigned(count)
        .and_then(|n| usize::try_from(n).ok())
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| format!("--arg `{name}`: `{count}` is not a byte count"))?;
    let mut zeros = Vec::new();
    zeros
        .try_reserve_exact(bytes)
        .map_err(|_| format!("--arg `{name}`: cannot allocate {bytes} bytes"))?;
    zeros.resize(bytes, 0);
    Ok(zeros)
}
