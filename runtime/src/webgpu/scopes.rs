//! Error scopes around each stage of a launch, so that wgpu's errors come back as [`WebGpuError`]s
//! instead of going to the uncaptured-error handler.

use super::WebGpuError;

/// Validation, internal and out-of-memory error scopes pushed on the current thread (wgpu's scopes are
/// thread-local). Field order matters: if the value is dropped without [`ErrorScopes::pop`], the guards
/// pop their scopes in declaration order, which must be the reverse of the order they were pushed in.
pub(crate) struct ErrorScopes {
    validation: wgpu::ErrorScopeGuard,
    internal: wgpu::ErrorScopeGuard,
    out_of_memory: wgpu::ErrorScopeGuard,
}

impl ErrorScopes {
    /// Pushes the three scopes (out-of-memory outermost, validation innermost).
    pub(crate) fn push(device: &wgpu::Device) -> ErrorScopes {
        let out_of_memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        ErrorScopes {
            validation,
            internal,
            out_of_memory,
        }
    }

    /// Pops the scopes and returns the first error they caught, attributed to `stage`.
    pub(crate) fn pop(self, stage: &'static str) -> Result<(), WebGpuError> {
        let ErrorScopes {
            validation,
            internal,
            out_of_memory,
        } = self;
        let errors = [
            pollster::block_on(validation.pop()),
            pollster::block_on(internal.pop()),
            pollster::block_on(out_of_memory.pop()),
        ];
        match errors.into_iter().flatten().next() {
            None => Ok(()),
            Some(error) => Err(from_wgpu(error, stage)),
        }
    }
}

/// Converts a wgpu error caught during `stage`.
pub(crate) fn from_wgpu(error: wgpu::Error, stage: &'static str) -> WebGpuError {
    match error {
        wgpu::Error::OutOfMemory { .. } => WebGpuError::OutOfMemory { stage },
        wgpu::Error::Validation { description, .. } => WebGpuError::Validation {
            stage,
            message: description,
        },
        wgpu::Error::Internal { description, .. } => WebGpuError::Internal {
            stage,
            message: description,
        },
    }
}
