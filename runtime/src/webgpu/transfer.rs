//! Moving bytes between host slices and GPU buffers: padded uploads, and read-back through mappable
//! staging buffers.

use std::sync::mpsc;

use super::WebGpuError;

/// Bytes a GPU buffer needs for `len` host bytes of `element_size`-byte elements: whole 32-bit words
/// (the layout contract; `u8`/`u16` elements are words in WGSL), and never less than one element or
/// word, since WebGPU has no empty buffers and a runtime-sized array binding holds at least one element.
pub(crate) fn gpu_size(len: u64, element_size: u64) -> u64 {
    len.div_ceil(4).saturating_mul(4).max(element_size.max(4))
}

/// Creates a `size`-byte buffer with `usage` (plus `COPY_DST`) holding `bytes`, zero padded.
pub(crate) fn upload(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    label: &str,
    bytes: &[u8],
    size: u64,
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: usage | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    write_padded(queue, &buffer, bytes);
    buffer
}

/// Writes `bytes` at the start of `buffer` (at least `bytes.len()` rounded up to a word).
/// `write_buffer` takes whole words: the aligned prefix goes as is and the tail padded with zeros.
pub(crate) fn write_padded(queue: &wgpu::Queue, buffer: &wgpu::Buffer, bytes: &[u8]) {
    let aligned = bytes.len() / 4 * 4;
    if aligned > 0 {
        queue.write_buffer(buffer, 0, &bytes[..aligned]);
    }
    if aligned < bytes.len() {
        let mut tail = [0u8; 4];
        tail[..bytes.len() - aligned].copy_from_slice(&bytes[aligned..]);
        queue.write_buffer(buffer, aligned as u64, &tail);
    }
}

/// A mappable buffer for reading `size` bytes back.
pub(crate) fn staging(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Requests read mappings of whole staging buffers; each outcome arrives on the returned channel with the
/// buffer's index once the device is polled.
pub(crate) fn request_maps(
    buffers: &[wgpu::Buffer],
) -> mpsc::Receiver<(usize, Result<(), wgpu::BufferAsyncError>)> {
    let (sender, receiver) = mpsc::channel();
    for (index, buffer) in buffers.iter().enumerate() {
        let sender = sender.clone();
        buffer.map_async(wgpu::MapMode::Read, .., move |outcome| {
            // The receiver outlives the poll that runs this callback; a failed send only means the
            // launch already gave up, so there is nobody to tell.
            let _ = sender.send((index, outcome));
        });
    }
    receiver
}

/// Checks that every one of `count` mappings succeeded (after the device was polled to completion).
pub(crate) fn check_maps(
    receiver: &mpsc::Receiver<(usize, Result<(), wgpu::BufferAsyncError>)>,
    names: &[&str],
) -> Result<(), WebGpuError> {
    let mut done = vec![false; names.len()];
    for (index, outcome) in receiver.try_iter() {
        if let Err(error) = outcome {
            return Err(WebGpuError::Map(format!(
                "staging buffer for `{}`: {error}",
                names[index]
            )));
        }
        done[index] = true;
    }
    match done.iter().position(|&mapped| !mapped) {
        Some(index) => Err(WebGpuError::Map(format!(
            "staging buffer for `{}` was not mapped after waiting for the device",
            names[index]
        ))),
        None => Ok(()),
    }
}

/// Copies the first `destination.len()` bytes of a mapped staging buffer into `destination`, then unmaps
/// it.
pub(crate) fn copy_out(
    staging: &wgpu::Buffer,
    name: &str,
    destination: &mut [u8],
) -> Result<(), WebGpuError> {
    let view = staging
        .get_mapped_range(..)
        .map_err(|error| WebGpuError::Map(format!("staging buffer for `{name}`: {error}")))?;
    let Some(bytes) = view.get(..destination.len()) else {
        return Err(WebGpuError::Map(format!(
            "staging buffer for `{name}` holds {} bytes, {} expected",
            view.len(),
            destination.len()
        )));
    };
    destination.copy_from_slice(bytes);
    drop(view);
    staging.unmap();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::gpu_size;

    #[test]
    fn sizes_are_whole_words_and_never_empty() {
        assert_eq!(gpu_size(0, 1), 4);
        assert_eq!(gpu_size(0, 8), 8);
        assert_eq!(gpu_size(13, 1), 16);
        assert_eq!(gpu_size(14, 2), 16);
        assert_eq!(gpu_size(16, 4), 16);
        assert_eq!(gpu_size(24, 8), 24);
    }
}
