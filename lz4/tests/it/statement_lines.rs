//! `warpforge_ir::text::statement_lines` on the sample kernels and on the largest kernels there are, the
//! LZ4 ones: one entry per printed line, statement paths at their nesting depth.

use warpforge_ir::samples::{vector_add, warp_collectives, warp_reduce};
use warpforge_ir::text::statement_lines;
use warpforge_lz4::kernels::lz4::{lz4_compress_kernel, lz4_decompress_kernel};

/// The count of lines agrees with the printer's, a line with a path is indented by its nesting
/// depth, and the others are declarations or braces, on the sample and LZ4 kernels.
#[test]
fn lines_follow_the_printer() {
    let kernels = [
        vector_add(),
        warp_collectives(),
        warp_reduce(),
        lz4_compress_kernel(1),
        lz4_decompress_kernel(1),
    ];
    for kernel in kernels {
        let text = kernel.to_string();
        let printed: Vec<&str> = text.lines().collect();
        let paths = statement_lines(&kernel);
        assert_eq!(printed.len(), paths.len(), "{}", kernel.name);
        for (line, path) in printed.iter().zip(&paths) {
            let t = line.trim();
            match path {
                Some(p) => {
                    let depth = (line.len() - line.trim_start().len()) / 4;
                    assert_eq!(depth, p.matches('[').count(), "{p}: `{line}`");
                    assert!(t != "}", "{p}");
                }
                None => assert!(
                    t == "}"
                        || t.starts_with("kernel ")
                        || t.starts_with("block_size")
                        || t.starts_with("param ")
                        || t.starts_with("shared ")
                        || t.starts_with("local "),
                    "{}: `{t}` has no statement",
                    kernel.name
                ),
            }
        }
    }
}
