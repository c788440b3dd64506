//! The linter on hostile PTX text, through the entry point `warpforge lint FILE.ptx` uses
//! (`lint_ptx_with`): a diagnostic list or an error naming the line, never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpforge_analysis::lint_ptx_with;

fuzz_target!(|data: &[u8]| {
    // `warpforge lint` reads the file as UTF-8 text and refuses anything else before linting.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Both settings of `--assume-warp-aligned` (which one is decided by the input).
    let assume = data.len() % 2 == 0;
    let _findings = lint_ptx_with(text, assume);
});
