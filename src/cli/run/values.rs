//! `--arg` and `--out` matched with a kernel's parameters: buffers from files or lists, scalars
//! parsed for their type.

use std::path::PathBuf;

use warpforge::ir::{Access, Kernel, Literal, ParamKind, ScalarType};

use super::buffer::Buffer;
use super::failure::Failure;

/// A parameter's value as given: a buffer's bytes or a scalar's bits.
#[derive(Clone)]
enum Given {
    Bytes(Vec<u8>),
    Bits(u64),
    /// Given, but wrong (already reported).
    Bad,
}

type Parsed = (Vec<Buffer>, Vec<(String, u64)>, Vec<(usize, PathBuf)>);

/// Matches `--arg` and `--out` with the kernel's parameters: the buffers and the scalars (name, bits)
/// in parameter order, and each `--out` as (index in the buffers, file). Every bad argument is one
/// line of the error.
pub(super) fn parse_arguments(
    kernel: &Kernel,
    args: &[String],
    outs: &[String],
) -> Result<Parsed, Failure> {
    let params: Vec<_> = kernel.params.iter().map(|(_, p)| p).collect();
    let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    let (kernel_name, list) = (&kernel.name, names.join(", "));
    let unknown = |flag: &str, name: &str| {
        format!("{flag} `{name}`: unknown parameter; kernel `{kernel_name}` has {list}")
    };
    let mut errors = Vec::new();
    let mut given: Vec<Option<Given>> = vec![None; params.len()];
    for arg in args {
        let Some((name, value)) = arg.split_once('=') else {
            let expected = "expected NAME=@FILE.bin, NAME=zeros:COUNT or NAME=VALUE";
            errors.push(format!("--arg `{arg}`: {expected}"));
            continue;
        };
        let Some(i) = names.iter().position(|n| *n == name) else {
            errors.push(unknown("--arg", name));
            continue;
        };
        if given[i].is_some() {
            errors.push(format!("--arg `{name}`: parameter `{name}` is given twice"));
            continue;
        }
        let value = match params[i].kind {
            ParamKind::Buffer { elem, access } => {
                buffer_value(name, elem, access, value).map(Given::Bytes)
            }
            ParamKind::Scalar(ty) => scalar_value(name, ty, value).map(Given::Bits),
        };
        given[i] = Some(value.unwrap_or_else(|e| {
            errors.push(e);
            Given::Bad
        }));
    }
    let (mut buffers, mut scalars) = (Vec::new(), Vec::new());
    for (param, value) in params.iter().zip(given) {
        let name = param.name.clone();
        match (param.kind, value) {
            (ParamKind::Buffer { elem, access }, value) => {
                let bytes = match value {
                    Some(Given::Bytes(bytes)) => bytes,
                    Some(_) => Vec::new(),
                    None => {
                        errors.push(format!(
                            "missing buffer `{name}` ({elem} {}): --arg {name}=@FILE.bin or \
                             --arg {name}=zeros:COUNT",
                            access.name()
                        ));
                        Vec::new()
                    }
                };
                buffers.push(Buffer {
                    name,
                    elem,
                    access,
                    bytes,
                });
            }
            (ParamKind::Scalar(ty), None) => {
                errors.push(format!(
                    "missing scalar `{name}` ({ty}): --arg {name}=VALUE"
                ));
            }
            (ParamKind::Scalar(_), Some(Given::Bits(bits))) => scalars.push((name, bits)),
            (ParamKind::Scalar(_), Some(_)) => {}
        }
    }
    let mut files: Vec<(usize, PathBuf)> = Vec::new();
    for out in outs {
        let Some((name, file)) = out.split_once('=').filter(|(_, f)| !f.is_empty()) else {
            errors.push(format!("--out `{out}`: expected NAME=FILE.bin"));
            continue;
        };
        let path = PathBuf::from(file);
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty() && !d.is_dir());
        let at = |m: &str| format!("--out `{name}`: {m}");
        match buffers.iter().position(|b| b.name == name) {
            None if names.contains(&name) => errors.push(at("a scalar parameter, not a buffer")),
            None => errors.push(unknown("--out", name)),
            Some(i) if buffers[i].access == Access::ReadOnly => {
                errors.push(at("a read-only buffer: the kernel cannot change it"))
            }
            Some(i) if files.iter().any(|(j, _)| *j == i) => errors.push(at("given twice")),
            Some(_) if dir.is_some() => errors.push(at(&format!(
                "cannot write {}: no directory {}",
                path.display(),
                dir.map(|d| d.display().to_string()).unwrap_or_default()
            ))),
            Some(i) => files.push((i, path)),
        }
    }
    match errors.is_empty() {
        true => Ok((buffers, scalars, files)),
        false => Err(Failure(2, errors)),
    }
}

/// The initial bytes of buffer `name` from `@FILE` or `zeros:COUNT`.
fn buffer_value(
    name: &str,
    elem: ScalarType,
    access: Access,
    value: &str,
) -> Result<Vec<u8>, String> {
    let size = elem.size_bytes().unwrap_or(4) as usize;
    if let Some(file) = value.strip_prefix('@') {
        let bytes =
            std::fs::read(file).map_err(|e| format!("--arg `{name}`: cannot read {file}: {e}"))?;
        if bytes.len() % size != 0 {
            return Err(format!(
                "--arg `{name}`: {file} has {} bytes, not a whole number of {elem} elements \
                 ({size} bytes each)",
                bytes.len()
            ));
        }
        return Ok(bytes);
    }
    if let Some(count) = value.strip_prefix("zeros:") {
        let bytes = parse_unsigned(count)
            .and_then(|n| usize::try_from(n).ok()?.checked_mul(size))
            .filter(|&n| n <= isize::MAX as usize)
            .ok_or_else(|| format!("--arg `{name}`: `{count}` is not an element count"))?;
        let mut zeros = Vec::new();
        zeros
            .try_reserve_exact(bytes)
            .map_err(|_| format!("--arg `{name}`: cannot allocate {bytes} bytes"))?;
        zeros.resize(bytes, 0);
        return Ok(zeros);
    }
    Err(format!(
        "--arg `{name}`: `{name}` is a buffer (global {elem} {}): give it @FILE.bin or zeros:COUNT, \
         not the value `{value}`",
        access.name()
    ))
}

/// A decimal or `0x` hexadecimal unsigned integer (`u128::MAX` when too long for any type, so that the
/// range check reports it).
pub(super) fn parse_unsigned(text: &str) -> Option<u128> {
    let (digits, radix) = match text.strip_prefix("0x") {
        Some(hex) => (hex, 16),
        None => (text, 10),
    };
    let ok = !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix));
    ok.then(|| u128::from_str_radix(digits, radix).unwrap_or(u128::MAX))
}

/// Whether a float literal is finite.
fn finite(literal: Literal) -> bool {
    match literal {
        Literal::F32Bits(b) => f32::from_bits(b).is_finite(),
        Literal::F64Bits(b) => f64::from_bits(b).is_finite(),
        Literal::F16Bits(b) => b & 0x7c00 != 0x7c00,
        Literal::BF16Bits(b) => b & 0x7f80 != 0x7f80,
        _ => true,
    }
}

/// The bits of scalar `name` of type `ty` (zero-extended, two's complement for signed types).
pub(super) fn scalar_value(name: &str, ty: ScalarType, text: &str) -> Result<u64, String> {
    let bad = |why: &str| format!("--arg `{name}`: `{text}` {why}");
    if text.starts_with('@') || text.starts_with("zeros:") {
        return Err(bad(&format!(
            "is a buffer's value, but `{name}` is a scalar {ty}"
        )));
    }
    let literal = match ty {
        ScalarType::Bool => match text {
            "true" | "1" => Literal::Bool(true),
            "false" | "0" => Literal::Bool(false),
            _ => return Err(bad("is not a bool (true or false)")),
        },
        t if t.is_float() && text.starts_with("0x") => {
            let bits = parse_unsigned(text).filter(|b| *b >> t.bits() == 0);
            let bits =
                bits.ok_or_else(|| bad(&format!("is not the {} bits of an {t} in hex", t.bits())))?;
            Literal::from_bits(t, bits as u64)
        }
        t if t.is_float() => match text.parse::<f64>() {
            // `inf` and `nan` are asked for; a finite decimal that rounds to infinity does not fit.
            Ok(v) => {
                let literal = match t {
                    // f32 parsed directly (a decimal rounded twice, via f64, could differ).
                    ScalarType::F32 => Literal::f32(text.parse::<f32>().unwrap_or(v as f32)),
                    ScalarType::F16 => Literal::f16(v),
                    ScalarType::BF16 => Literal::bf16(v),
                    _ => Literal::f64(v),
                };
                let asked = !text.bytes().any(|b| b.is_ascii_digit());
                if !asked && !finite(literal) {
                    return Err(bad(&format!("does not fit in {t}")));
                }
                literal
            }
            Err(_) => return Err(bad("is not a decimal number")),
        },
        _ => {
            let (negative, digits) = text.strip_prefix('-').map_or((false, text), |d| (true, d));
            let magnitude = parse_unsigned(digits)
                .ok_or_else(|| bad("is not a decimal or 0x hexadecimal integer"))?;
            let width = ty.bits();
            let max = u128::MAX >> (128 - width);
            let fits = match (negative, ty.is_signed(), digits.starts_with("0x")) {
                (true, false, _) => return Err(bad(&format!("is negative, but {ty} is unsigned"))),
                (true, true, _) => magnitude <= 1 << (width - 1),
                (false, true, false) => magnitude < 1 << (width - 1),
                (false, _, _) => magnitude <= max,
            };
            if !fits {
                return Err(bad(&format!("does not fit in {ty}")));
            }
            let bits = if negative {
                magnitude.wrapping_neg()
            } else {
                magnitude
            };
            Literal::from_bits(ty, (bits & max) as u64)
        }
    };
    Ok(literal.to_bits())
}
