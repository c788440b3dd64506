//! naga validation of the lowered module, WGSL writing, and a second check of the written text.
//!
//! The module is validated first (with the capabilities the kernel needs and nothing more). The WGSL
//! text is then parsed back with naga's WGSL front end and validated again: that is what a WebGPU
//! implementation will do with it, and its errors point at lines of the generated source.

use naga::valid::{Capabilities, ValidationFlags, Validator};

use crate::error::WgslError;

pub(crate) fn capabilities(int64: bool) -> Capabilities {
    if int64 {
        Capabilities::SHADER_INT64
    } else {
        Capabilities::empty()
    }
}

/// Validates `module` with the capabilities the kernel needs and nothing more; a rejection carries the
/// WGSL written from the module with validation relaxed, so the error points at lines.
pub(crate) fn validate(
    kernel: &str,
    module: &naga::Module,
    int64: bool,
) -> Result<naga::valid::ModuleInfo, WgslError> {
    let strict = Validator::new(ValidationFlags::all(), capabilities(int64)).validate(module);
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
            let reparsed = check_text(&source, int64).err().unwrap_or_default();
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
) -> Result<String, WgslError> {
    let info = validate(kernel, module, int64)?;
    let source =
        naga::back::wgsl::write_string(module, &info, naga::back::wgsl::WriterFlags::empty())
            .map_err(|e| WgslError::Writer {
                kernel: kernel.to_owned(),
                message: e.to_string(),
            })?;
    check_text(&source, int64).map_err(|message| WgslError::Validation {
        kernel: kernel.to_owned(),
        message,
        source: source.clone(),
    })?;
    Ok(source)
}

/// Parses and validates WGSL text; the error names lines of `source`.
pub fn check_text(source: &str, int64: bool) -> Result<(), String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    Validator::new(ValidationFlags::all(), capabilities(int64))
        .validate(&module)
        .map(|_| ())
        .map_err(|e| e.emit_to_string(source))
}
