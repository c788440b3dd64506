//! naga validation of the lowered module, WGSL writing, and a second check of the written text.
//!
//! The module is validated first (with the capabilities the kernel needs and nothing more). The WGSL
//! text is then parsed back with naga's WGSL front end and validated again: that is what a WebGPU
//! implementation will do with it, and its errors point at lines of the generated source.

use naga::valid::{Capabilities, ShaderStages, SubgroupOperationSet, ValidationFlags, Validator};

use crate::error::WgslError;

pub(crate) fn capabilities(int64: bool) -> Capabilities {
    if int64 {
        Capabilities::SHADER_INT64
    } else {
        Capabilities::empty()
    }
}

/// The strict validator for a module with `int64` and (for the subgroup lowering) `subgroups`: the
/// capabilities the kernel needs and nothing more; subgroup operations in compute shaders only, and
/// only the ballot and shuffle the lowering uses.
pub(crate) fn validator(int64: bool, subgroups: bool) -> Validator {
    let mut caps = capabilities(int64);
    if subgroups {
        caps |= Capabilities::SUBGROUP;
    }
    let mut v = Validator::new(ValidationFlags::all(), caps);
    if subgroups {
        v.subgroup_stages(ShaderStages::COMPUTE);
        v.subgroup_operations(SubgroupOperationSet::BALLOT | SubgroupOperationSet::SHUFFLE);
    }
    v
}

/// Validates `module` with the capabilities the kernel needs and nothing more; a rejection carries the
/// WGSL written from the module with validation relaxed, so the error points at lines.
pub(crate) fn validate(
    kernel: &str,
    module: &naga::Module,
    int64: bool,
    subgroups: bool,
) -> Result<naga::valid::ModuleInfo, WgslError> {
    let strict = validator(int64, subgroups).validate(module);
    match strict {
        Ok(info) => Ok(info),
        Err(error) => {
            // Write what we have with validation relaxed, so the error carries the generated source.
            let source = Validator::new(ValidationFlags::empty(), Capabilities::all())
                .validate(module)
                .ok()
                .and_then(|info| {
                    naga::back::wgsl::write_string(
                        module,
                        &info,
                        naga::back::wgsl::WriterFlags::empty(),
                    )
                    .ok()
                })
                .unwrap_or_default();
            let reparsed = check_text_with(&source, int64, subgroups)
                .err()
                .unwrap_or_default();
            let message = format!("{}{}", error.emit_to_string(&source), reparsed);
            Err(WgslError::Validation {
                kernel: kernel.to_owned(),
                message,
                source,
            })
        }
    }
}

/// Validates `module`, writes it as WGSL and re-validates the text.
pub(crate) fn validate_and_write(
    kernel: &str,
    module: &naga::Module,
    int64: bool,
    subgroups: bool,
) -> Result<String, WgslError> {
    let info = validate(kernel, module, int64, subgroups)?;
    let source =
        naga::back::wgsl::write_string(module, &info, naga::back::wgsl::WriterFlags::empty())
            .map_err(|e| WgslError::Writer {
                kernel: kernel.to_owned(),
                message: e.to_string(),
            })?;
    check_text_with(&source, int64, subgroups).map_err(|message| WgslError::Validation {
        kernel: kernel.to_owned(),
        message,
        source: source.clone(),
    })?;
    Ok(source)
}

/// Parses and validates WGSL text; the error names lines of `source`.
pub fn check_text(source: &str, int64: bool) -> Result<(), String> {
    check_text_with(source, int64, false)
}

/// [`check_text`] for WGSL that may use subgroup ballots and shuffles (the subgroup lowering).
pub fn check_text_with(source: &str, int64: bool, subgroups: bool) -> Result<(), String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    validator(int64, subgroups)
        .validate(&module)
        .map(|_| ())
        .map_err(|e| e.emit_to_string(source))
}
