//! Differential testing of the emitters and backends against the simulator: random verified kernels
//! (`warpforge_ir::random`) with random inputs run on `sim` and, through the runtime's launch API, on
//! WebGPU (the WGSL emitter and lavapipe, in CI) and on CUDA (the PTX emitter and the driver, on a GPU
//! machine; skipped loudly elsewhere), and every read-write buffer must come back bit-identical. A kernel whose result the IR leaves undefined is not compared:
//! the simulator's sanitizer says which (out-of-bounds access, race, partial barrier, collective mask,
//! an endless loop), and kernels the WGSL emitter refuses (a barrier or collective in divergent control
//! flow) are counted apart, as are kernels whose f32 operations meet a NaN, an infinity or a negative
//! zero (WGSL lets an implementation assume no NaN or infinity and ignore the sign of a zero; lavapipe
//! answers `x != x` with false for a NaN and `-3.3e-5 * 0.0` with +0.0), and kernels that chain f32
//! arithmetic (Vulkan lets the compiler reassociate and contract it: lavapipe computed `a - (a - b)`
//! as `b`). The test fails when too few kernels were compared to mean anything, or
//! when the compared kernels miss a statement form.
//!
//! The same kernels run as their emitted PTX on the PTX simulator (`ptx-sim`) for sm_70, sm_80 and
//! sm_90 — the PTX half checked without a GPU, in every CI run. There only undefined kernels are
//! skipped: PTX's `f32` is IEEE as the IR's is, so neither chained arithmetic nor NaN, infinity and
//! −0.0 are skipped; a kernel that meets one is compared too, and only when its buffers differ is it
//! counted apart (the IR leaves a NaN's payload and the sign of `min`/`max` of two zeros open; PTX
//! gives the canonical NaN 0x7fffffff and orders −0 below +0). The PTX simulator must also find
//! nothing where the IR simulator found nothing.
//!
//! `WARPFORGE_DIFF_CASES` sets how many kernels to generate (default 400; 1000 per target on
//! `ptx-sim`), `WARPFORGE_DIFF_SEED` the first seed. Without an adapter the WebGPU test skips loudly;
//! with `WARPFORGE_REQUIRE_WEBGPU=1` (CI) it fails.

use crate::common::{self, Rng};

use std::collections::BTreeMap;

use warpforge::ir::random::{
    finite_bits, random_defined_kernel, random_defined_kernel_without, statement_forms,
};
use warpforge::ir::{verify, Access, Kernel, ParamKind, ScalarType};
use warpforge::ptx::Sm;
use warpforge::runtime::sim::{self, SimOptions};
use warpforge::runtime::webgpu::{WebGpuDevice, WebGpuError};
use warpforge::runtime::{Backend, BufferArg, LaunchError, Launcher};
use warpforge::wgsl::Requirements;

/// Elements per buffer: the generator's indices stay below it.
const BUFFER_ELEMENTS: usize = 1024;

/// One kernel's inputs: buffer bytes in parameter order, scalars' bits, blocks.
struct Inputs {
    buffers: Vec<Vec<u8>>,
    scalars: Vec<u64>,
    blocks: u32,
}

fn inputs(kernel: &Kernel, rng: &mut Rng) -> Inputs {
    let mut buffers = Vec::new();
    let mut scalars = Vec::new();
    for (_, p) in kernel.params.iter() {
        match p.kind {
            ParamKind::Buffer { elem, .. } => {
                let size = elem.size_bytes().unwrap_or(4) as usize;
                // Small values half the time, so comparisons and selects go both ways.
                let mut bytes = rng.bytes(BUFFER_ELEMENTS * size);
                if rng.next() % 2 == 0 {
                    for chunk in bytes.chunks_mut(size) {
                        let v = rng.next() % 64;
                        chunk.fill(0);
                        chunk[0] = v as u8;
                    }
                }
                // Finite floats only: WGSL lets an implementation assume no NaN or infinity occurs.
                if elem.is_float() {
                    for chunk in bytes.chunks_mut(size) {
                        let mut word = [0u8; 8];
                        word[..size].copy_from_slice(chunk);
                        let bits = finite_bits(elem, u64::from_le_bytes(word));
                        chunk.copy_from_slice(&bits.to_le_bytes()[..size]);
                    }
                }
                buffers.push(bytes);
            }
            ParamKind::Scalar(t) => {
                let bits = rng.next();
                let bits = if rng.next() % 2 == 0 { bits % 64 } else { bits };
                let bits = finite_bits(t, bits);
                scalars.push(warpforge::ir::Literal::from_bits(t, bits).to_bits());
            }
        }
    }
    Inputs {
        buffers,
        scalars,
        blocks: 1 + (rng.next() % 3) as u32,
    }
}

fn args<'a>(kernel: &Kernel, buffers: &'a mut [Vec<u8>]) -> Vec<BufferArg<'a>> {
    kernel
        .params
        .iter()
        .filter_map(|(_, p)| match p.kind {
            ParamKind::Buffer { access, .. } => Some(access),
            ParamKind::Scalar(_) => None,
        })
        .zip(buffers.iter_mut())
        .map(|(access, bytes)| match access {
            Access::ReadOnly => BufferArg::ReadOnly(bytes),
            Access::ReadWrite => BufferArg::ReadWrite(bytes),
        })
        .collect()
}

/// Whether `block` takes a square root, a reciprocal or a fused multiply-add (exact on the
/// simulators and PTX, bounded in WGSL), one of the bounded primitives (`rsqrt`, `exp2`, `log2`,
/// `sin`, `cos`), or rounds an `f32` to an integer (whose zero results WGSL may give either sign:
/// lavapipe gave -0.0 for `floor` of a small positive constant): `float_math.rs` and
/// `math_functions.rs` check these on WebGPU against their bounds, not bit for bit here.
fn not_exact_in_wgsl(block: &warpforge::ir::Block) -> bool {
    use warpforge::ir::{Expr, Stmt, UnaryOp};
    block.iter().any(|stmt| match stmt {
        Stmt::Let {
            expr: Expr::Unary(op, _),
            ..
        } => matches!(
            op,
            UnaryOp::Sqrt
                | UnaryOp::Floor
                | UnaryOp::Ceil
                | UnaryOp::FloatTrunc
                | UnaryOp::RoundEven
                | UnaryOp::Recip
                | UnaryOp::Rsqrt
                | UnaryOp::Exp2
                | UnaryOp::Log2
                | UnaryOp::Sin
                | UnaryOp::Cos
        ),
        Stmt::Let {
            expr: Expr::MulAdd(..),
            ..
        } => true,
        Stmt::If {
            then_block,
            else_block,
            ..
        } => not_exact_in_wgsl(then_block) || not_exact_in_wgsl(else_block),
        Stmt::Loop { body } => not_exact_in_wgsl(body),
        _ => false,
    })
}

/// Whether an `f32` add / sub / mul / div / min / max / neg takes an operand another such operation
/// computed (directly, through `select`, or through a local). Vulkan lets the compiler reassociate and
/// contract such chains (lavapipe computed `a - (a - b)` as `b`, seed 8997), so their bits are not
/// comparable; a single rounded operation on values that were not computed is.
fn chained_f32_arithmetic(kernel: &Kernel) -> bool {
    use std::collections::HashSet;
    use warpforge::ir::{Block, Expr, Stmt};
    struct Walk<'k> {
        kernel: &'k Kernel,
        computed: HashSet<usize>,
        locals: HashSet<usize>,
    }
    impl Walk<'_> {
        fn float(&self, v: warpforge::ir::Value) -> bool {
            self.kernel.values[v].ty == ScalarType::F32
        }
        fn block(&mut self, block: &Block) -> bool {
            for stmt in block {
                let chained = match stmt {
                    Stmt::Let { value, expr } => {
                        let operands = match expr {
                            Expr::Binary(_, a, b) if self.float(*a) => Some(vec![*a, *b]),
                            Expr::Unary(_, a) if self.float(*a) => Some(vec![*a]),
                            _ => None,
                        };
                        if let Some(operands) = operands {
                            if operands.iter().any(|o| self.computed.contains(&o.index())) {
                                return true;
                            }
                            self.computed.insert(value.index());
                        }
                        let passes = match expr {
                            Expr::Select {
                                if_true, if_false, ..
                            } => {
                                self.computed.contains(&if_true.index())
                                    || self.computed.contains(&if_false.index())
                            }
                            Expr::Local(l) => self.locals.contains(&l.index()),
                            _ => false,
                        };
                        if passes {
                            self.computed.insert(value.index());
                        }
                        false
                    }
                    Stmt::Assign { local, value } => {
                        if self.computed.contains(&value.index()) {
                            self.locals.insert(local.index());
                        }
                        false
                    }
                    Stmt::If {
                        then_block,
                        else_block,
                        ..
                    } => self.block(then_block) || self.block(else_block),
                    // Twice: a local computed late in the body feeds the next iteration.
                    Stmt::Loop { body } => self.block(body) || self.block(body),
                    _ => false,
                };
                if chained {
                    return true;
                }
            }
            false
        }
    }
    let mut walk = Walk {
        kernel,
        computed: HashSet::new(),
        locals: HashSet::new(),
    };
    let body = &kernel.body;
    walk.block(body)
}

/// What happened to one generated kernel.
enum Outcome {
    /// Compared bit for bit: the statement forms the kernel used.
    Compared(Vec<&'static str>),
    Skipped(String),
}

fn one_case(device: &Launcher, seed: u64) -> Outcome {
    let mut rng = Rng(seed);
    let choices = rng.bytes(512);
    let backend = device.backend();
    // WGSL has no f64 (its emitters refuse it): WebGPU gets kernels drawn from the other types.
    let kernel = if backend == Backend::WebGpu {
        random_defined_kernel_without(&choices, BUFFER_ELEMENTS as u32, &[ScalarType::F64])
    } else {
        random_defined_kernel(&choices, BUFFER_ELEMENTS as u32)
    };
    let verified = verify(&kernel).expect("generated kernels verify");
    let loaded = match device.load(&verified) {
        Ok(loaded) => loaded,
        Err(LaunchError::WebGpu(WebGpuError::Emit { error, .. }))
            if error.to_string().contains("divergent") =>
        {
            return Outcome::Skipped("WGSL refuses: sync in divergent flow".into());
        }
        Err(LaunchError::WebGpu(WebGpuError::Emit { error, .. }))
            if error.to_string().contains("f64 is not a WGSL type") =>
        {
            return Outcome::Skipped("WGSL refuses: f64".into());
        }
        Err(e) => panic!("seed {seed}: {backend} cannot load a verified kernel: {e}\n{kernel}"),
    };
    let ptx_sim = backend == Backend::PtxSim;
    if !ptx_sim && chained_f32_arithmetic(&kernel) {
        return Outcome::Skipped("chained f32 arithmetic (Vulkan may reassociate)".into());
    }
    if backend == Backend::WebGpu && not_exact_in_wgsl(&kernel.body) {
        return Outcome::Skipped(
            "sqrt, recip, mul_add or a math primitive (bounded in WGSL), or a rounding to an integer (a zero of either sign)".into(),
        );
    }
    let input = inputs(&kernel, &mut rng);
    let mut on_sim = input.buffers.clone();
    let options = SimOptions {
        step_limit: 200_000,
        ..SimOptions::default()
    };
    // The blocks in x, y or z by the seed (a kernel reading the grid's shape sees it).
    let grid = match seed % 3 {
        0 => [input.blocks, 1, 1],
        1 => [1, input.blocks, 1],
        _ => [1, 1, input.blocks],
    };
    let report = sim::run_grid(
        &verified,
        grid,
        &mut args(&kernel, &mut on_sim),
        &input.scalars,
        &options,
    )
    .expect("arguments match");
    if std::env::var("WARPFORGE_DIFF_DEBUG").is_ok() {
        common::say(&format!(
            "seed {seed}: {} findings: {:?}",
            report.findings.len(),
            report.findings
        ));
    }
    let f32_special = report.counters.f32_special > 0;
    if f32_special && !ptx_sim {
        return Outcome::Skipped("NaN, infinity or -0.0 met (WGSL need not honour them)".into());
    }
    // Unwritten shared memory reads as zero on the simulators and on WebGPU (WGSL zeroes workgroup
    // memory); on CUDA it holds whatever the block before left there.
    let cuda = backend == Backend::Cuda;
    if let Some(f) = report.findings.iter().find(|f| {
        f.severity() == warpforge::runtime::sim::Severity::Error
            || f.kind != warpforge::runtime::sim::FindingKind::UninitializedShared
            || cuda
    }) {
        return Outcome::Skipped(format!("undefined: {}", f.kind.name()));
    }
    let mut on_gpu = input.buffers.clone();
    let launched = device.launch_grid(
        &loaded,
        grid,
        &mut args(&kernel, &mut on_gpu),
        &input.scalars,
    );
    let launched = launched.unwrap_or_else(|e| {
        panic!("seed {seed}: {backend} failed where the simulator ran clean: {e}\n{kernel}")
    });
    let mut theirs = launched.sim.iter().flat_map(|r| r.findings.iter());
    if let Some(f) =
        theirs.find(|f| f.kind != warpforge::runtime::sim::FindingKind::UninitializedShared)
    {
        panic!(
            "seed {seed}: {backend} reports what the IR simulator did not: {f}\n{kernel}\n{}",
            loaded.ptx_text().unwrap_or_default()
        );
    }
    if ptx_sim && f32_special && on_sim != on_gpu {
        return Outcome::Skipped(
            "f32 NaN payload or sign of min/max of zeros differs (the IR leaves them open)".into(),
        );
    }
    for (i, (s, g)) in on_sim.iter().zip(&on_gpu).enumerate() {
        if let Some(at) = (0..s.len()).find(|&b| s[b] != g[b]) {
            let name = kernel
                .params
                .iter()
                .filter(|(_, p)| matches!(p.kind, ParamKind::Buffer { .. }))
                .nth(i)
                .map_or("?".to_owned(), |(_, p)| p.name.clone());
            let word = at / 4 * 4;
            panic!(
                "seed {seed}: sim and {backend} differ in buffer `{name}` at byte {at}: sim {:02x?}, \
                 {backend} {:02x?} ({} blocks, scalars {:x?})\n{kernel}",
                &s[word..(word + 4).min(s.len())],
                &g[word..(word + 4).min(g.len())],
                input.blocks,
                input.scalars
            );
        }
    }
    let mut forms = statement_forms(&kernel);
    // The float types the kernel computes with, among the forms counted.
    for (t, name) in [
        (ScalarType::F16, "values f16"),
        (ScalarType::BF16, "values bf16"),
        (ScalarType::F32, "values f32"),
        (ScalarType::F64, "values f64"),
    ] {
        if kernel.values.iter().any(|(_, v)| v.ty == t) {
            forms.push(name);
        }
    }
    Outcome::Compared(forms)
}

#[test]
fn random_kernels_give_identical_buffers_on_sim_and_webgpu() {
    let requirements = Requirements {
        workgroup_storage_bytes: 16384,
        invocations_per_workgroup: 1024,
        storage_buffers: 8,
        shader_int64: true,
    };
    if !common::webgpu_or_skip(
        "random_kernels_give_identical_buffers_on_sim_and_webgpu",
        &requirements,
    ) {
        return;
    }
    let device = WebGpuDevice::new(&requirements).expect("an adapter meets the requirements");
    let name = device.adapter().to_string();
    compare_with_sim(&Launcher::WebGpu(device), &name);
}

/// The emitted PTX for sm_70, sm_80 and sm_90 on the PTX simulator against the IR simulator, in
/// every test run (no GPU needed).
#[test]
fn random_kernels_give_identical_buffers_on_sim_and_ptx_sim() {
    for sm in Sm::ALL {
        let options = SimOptions {
            step_limit: 200_000,
            ..SimOptions::default()
        };
        compare_with_sim(&Launcher::PtxSim(options, sm), sm.name());
    }
}

/// The emitted PTX on a CUDA GPU against the simulator (runs on a GPU machine).
#[test]
fn random_kernels_give_identical_buffers_on_sim_and_cuda() {
    let test = "random_kernels_give_identical_buffers_on_sim_and_cuda";
    let Some(info) = warpforge::runtime::cuda::cuda_or_skip(test) else {
        return;
    };
    let device = warpforge::runtime::cuda::CudaDevice::new(info.index).expect("the device opens");
    compare_with_sim(&Launcher::Cuda(device), &info.label());
}

/// Runs the random kernels on `device` and on the simulator and compares them.
fn compare_with_sim(device: &Launcher, name: &str) {
    // WebGPU skips the kernels with a bounded operation (about a third): 600 keep about as many
    // compared there as 400 did before the math functions.
    let default_cases = match device.backend() {
        Backend::PtxSim => 1000,
        Backend::WebGpu => 600,
        _ => 400,
    };
    let cases: u64 = std::env::var("WARPFORGE_DIFF_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default_cases);
    let first: u64 = std::env::var("WARPFORGE_DIFF_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let mut compared = 0u64;
    let mut skipped: BTreeMap<String, u64> = BTreeMap::new();
    let mut forms: BTreeMap<&'static str, u64> = BTreeMap::new();
    for seed in first..first + cases {
        match one_case(device, seed) {
            Outcome::Compared(kernel_forms) => {
                compared += 1;
                for form in kernel_forms {
                    *forms.entry(form).or_default() += 1;
                }
            }
            Outcome::Skipped(why) => *skipped.entry(why).or_default() += 1,
        }
    }
    common::say(&format!(
        "differential sim vs {} on {name}: {cases} kernels (seeds {first}..{}), {compared} compared \
         bit for bit, skipped: {skipped:?}",
        device.backend(),
        first + cases
    ));
    common::say(&format!(
        "statement forms among compared kernels: {forms:?}"
    ));
    assert!(
        compared * 4 >= cases,
        "only {compared} of {cases} kernels were comparable: the generator makes too many undefined ones"
    );
    // WGSL's `fma` may be unfused, so no kernel with `mul_add` is compared bit for bit on WebGPU:
    // `math_functions.rs` checks it there against its bound.
    let bounded_here = |f: &str| device.backend() == Backend::WebGpu && f == "mul_add";
    let missing: Vec<&str> = warpforge::ir::random::ALL_FORMS
        .iter()
        .copied()
        .filter(|f| !forms.contains_key(f) && !bounded_here(f))
        .collect();
    assert!(
        missing.is_empty(),
        "no compared kernel had these statement forms: {missing:?}"
    );
}

/// Disagreements the random kernels found, kept as fixtures (tests/data/differential/): `zext` of a
/// run-time `u32` to `i64` (naga 30 + lavapipe sign-extended `i64(u32)`), `sext` and `mul_wide` of a
/// negative run-time `i32` (`i64(i32)` zero-extended), and a kernel whose name ends in a digit (naga's
/// WGSL writer renames the entry point). Each must give the simulator's buffers.
#[test]
fn fixed_disagreements_stay_fixed() {
    let requirements = Requirements {
        workgroup_storage_bytes: 0,
        invocations_per_workgroup: 32,
        storage_buffers: 1,
        shader_int64: true,
    };
    if !common::webgpu_or_skip("fixed_disagreements_stay_fixed", &requirements) {
        return;
    }
    let device = WebGpuDevice::new(&requirements).expect("an adapter meets the requirements");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/differential");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("the fixtures folder")
        .map(|e| e.expect("an entry").path())
        .collect();
    names.sort();
    assert!(names.len() >= 2, "fixtures in {}", dir.display());
    for path in names {
        let text = std::fs::read_to_string(&path).expect("readable");
        let kernel = warpforge::ir::parse_kernel(&text).expect("parses");
        let verified = verify(&kernel).expect("verifies");
        let wgsl = warpforge::wgsl::emit(&verified).expect("emits");
        let mut on_sim = vec![vec![0u8; 4 * 64]];
        let report = sim::run(
            &verified,
            1,
            &mut args(&kernel, &mut on_sim),
            &[],
            &SimOptions::default(),
        )
        .expect("arguments match");
        assert!(
            report.findings.is_empty(),
            "{}: {:?}",
            path.display(),
            report.findings
        );
        let mut on_gpu = vec![vec![0u8; 4 * 64]];
        device
            .run(&wgsl, 1, &mut args(&kernel, &mut on_gpu), &[])
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            on_sim[0].iter().any(|&b| b != 0),
            "{}: the kernel wrote nothing",
            path.display()
        );
        assert_eq!(on_sim, on_gpu, "{}: sim and webgpu differ", path.display());
    }
}
