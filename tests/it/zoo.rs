//! The zoo of float kernels (`zoo/`, crate `warpforge-zoo`) on every backend that runs here against
//! its Rust references, within each kernel's stated bounds: the IR simulator and the PTX simulator
//! (sm_70, sm_80, sm_90) within the simulators' tolerance, WebGPU (lavapipe in CI) within WGSL's;
//! each kernel lints without a finding and assembles with ptxas without spills. Inputs are random
//! (a fixed seed) with sizes that are not multiples of the block or the warp.

use crate::backends_support::mix;
use crate::zoo_support::{
    bytes, bytes_u32, f, lint_and_assemble, on_cuda, on_simulators, on_webgpu, Case, Expect, Launch,
};

use warpforge_zoo::{
    activations, adamw, attention, gemm, grid2d, layernorm, reduce, softmax, ROWS_PER_BLOCK,
};

/// `n` values uniform in `[lo, hi)` from `seed`.
fn uniform(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let r = mix(seed.wrapping_mul(1_000_003).wrapping_add(i as u64));
            lo + (hi - lo) * ((r >> 40) as f32 / (1u64 << 24) as f32)
        })
        .collect()
}

fn row_blocks(rows: usize) -> u32 {
    (rows as u32).div_ceil(ROWS_PER_BLOCK)
}

fn elem_blocks(n: usize) -> u32 {
    (n as u32).div_ceil(128)
}

fn softmax_case() -> Case {
    let (rows, cols) = (37, 333);
    let x = uniform(rows * cols, 1, -8.0, 8.0);
    Case {
        name: "softmax",
        pool: vec![bytes(&x), vec![0; rows * cols * 4]],
        launches: vec![Launch {
            kernel: softmax::softmax(),
            grid: [row_blocks(rows), 1, 1],
            buffers: vec![0, 1],
            scalars: vec![rows as u64, cols as u64],
        }],
        expect: vec![Expect {
            name: "y",
            buffer: 1,
            want: softmax::softmax_reference(&x, rows, cols),
        }],
        bounds: softmax::SOFTMAX_BOUNDS,
    }
}

fn cross_entropy_case() -> Case {
    let (rows, cols) = (45, 1000);
    let logits = uniform(rows * cols, 2, -6.0, 6.0);
    let targets: Vec<u32> = (0..rows)
        .map(|r| (mix(r as u64 + 5) % cols as u64) as u32)
        .collect();
    Case {
        name: "cross_entropy",
        pool: vec![bytes(&logits), bytes_u32(&targets), vec![0; rows * 4]],
        launches: vec![Launch {
            kernel: softmax::cross_entropy(),
            grid: [row_blocks(rows), 1, 1],
            buffers: vec![0, 1, 2],
            scalars: vec![rows as u64, cols as u64],
        }],
        expect: vec![Expect {
            name: "loss",
            buffer: 2,
            want: softmax::cross_entropy_reference(&logits, &targets, rows, cols),
        }],
        bounds: softmax::CROSS_ENTROPY_BOUNDS,
    }
}

fn layernorm_forward_case() -> Case {
    let (rows, cols) = (29, 300);
    let x = uniform(rows * cols, 3, -3.0, 5.0);
    let w = uniform(cols, 4, 0.5, 1.5);
    let b = uniform(cols, 5, -0.5, 0.5);
    let (y, mean, rstd) = layernorm::forward_reference(&x, &w, &b, rows, cols);
    Case {
        name: "layernorm_forward",
        pool: vec![
            bytes(&x),
            bytes(&w),
            bytes(&b),
            vec![0; rows * cols * 4],
            vec![0; rows * 4],
            vec![0; rows * 4],
        ],
        launches: vec![Launch {
            kernel: layernorm::layernorm_forward(),
            grid: [row_blocks(rows), 1, 1],
            buffers: vec![0, 1, 2, 3, 4, 5],
            scalars: vec![rows as u64, cols as u64],
        }],
        expect: vec![
            Expect {
                name: "y",
                buffer: 3,
                want: y,
            },
            Expect {
                name: "mean",
                buffer: 4,
                want: mean,
            },
            Expect {
                name: "rstd",
                buffer: 5,
                want: rstd,
            },
        ],
        bounds: layernorm::BOUNDS,
    }
}

fn layernorm_backward_case() -> Case {
    let (rows, cols) = (29, 300);
    let x = uniform(rows * cols, 6, -3.0, 5.0);
    let w = uniform(cols, 7, 0.5, 1.5);
    let dy = uniform(rows * cols, 8, -1.0, 1.0);
    // The forward pass's statistics, rounded to f32 as the kernels store them.
    let (_, mean, rstd) = layernorm::forward_reference(&x, &w, &w, rows, cols);
    let mean: Vec<f32> = mean.iter().map(|&v| v as f32).collect();
    let rstd: Vec<f32> = rstd.iter().map(|&v| v as f32).collect();
    let (dx, dw, db) = layernorm::backward_reference(&dy, &x, &w, &mean, &rstd, rows, cols);
    let sizes = [rows as u64, cols as u64];
    Case {
        name: "layernorm_backward",
        pool: vec![
            bytes(&dy),
            bytes(&x),
            bytes(&w),
            bytes(&mean),
            bytes(&rstd),
            vec![0; rows * cols * 4],
            vec![0; cols * 4],
            vec![0; cols * 4],
        ],
        launches: vec![
            Launch {
                kernel: layernorm::layernorm_backward_input(),
                grid: [row_blocks(rows), 1, 1],
                buffers: vec![0, 1, 2, 3, 4, 5],
                scalars: sizes.to_vec(),
            },
            Launch {
                kernel: layernorm::layernorm_backward_params(),
                grid: [elem_blocks(cols), 1, 1],
                buffers: vec![0, 1, 3, 4, 6, 7],
                scalars: sizes.to_vec(),
            },
        ],
        expect: vec![
            Expect {
                name: "dx",
                buffer: 5,
                want: dx,
            },
            Expect {
                name: "dweight",
                buffer: 6,
                want: dw,
            },
            Expect {
                name: "dbias",
                buffer: 7,
                want: db,
            },
        ],
        bounds: layernorm::BOUNDS,
    }
}

fn gelu_forward_case() -> Case {
    let n = 3001;
    let x = uniform(n, 9, -8.0, 8.0);
    Case {
        name: "gelu_forward",
        pool: vec![bytes(&x), vec![0; n * 4]],
        launches: vec![Launch {
            kernel: activations::gelu_forward(),
            grid: [elem_blocks(n), 1, 1],
            buffers: vec![0, 1],
            scalars: vec![n as u64],
        }],
        expect: vec![Expect {
            name: "y",
            buffer: 1,
            want: activations::forward_reference(&x),
        }],
        bounds: activations::BOUNDS,
    }
}

fn gelu_backward_case() -> Case {
    let n = 3001;
    let x = uniform(n, 10, -8.0, 8.0);
    let dy = uniform(n, 11, -1.0, 1.0);
    Case {
        name: "gelu_backward",
        pool: vec![bytes(&x), bytes(&dy), vec![0; n * 4]],
        launches: vec![Launch {
            kernel: activations::gelu_backward(),
            grid: [elem_blocks(n), 1, 1],
            buffers: vec![0, 1, 2],
            scalars: vec![n as u64],
        }],
        expect: vec![Expect {
            name: "dx",
            buffer: 2,
            want: activations::backward_reference(&x, &dy),
        }],
        bounds: activations::BOUNDS,
    }
}

fn adamw_case() -> Case {
    let n = 2500;
    let p = uniform(n, 12, -1.0, 1.0);
    let g = uniform(n, 13, -0.1, 0.1);
    let m = uniform(n, 14, -0.01, 0.01);
    let v = uniform(n, 15, 0.0, 1e-4);
    let h = adamw::Hyper {
        lr: 1e-3,
        beta1: 0.9,
        beta2: 0.999,
        eps: 1e-8,
        weight_decay: 0.01,
        step: 7,
    };
    let (p1, m1, v1) = adamw::reference(&p, &g, &m, &v, h);
    Case {
        name: "adamw_step",
        pool: vec![bytes(&p), bytes(&g), bytes(&m), bytes(&v)],
        launches: vec![Launch {
            kernel: adamw::adamw_step(),
            grid: [elem_blocks(n), 1, 1],
            buffers: vec![0, 1, 2, 3],
            scalars: vec![
                f(h.lr),
                f(h.beta1),
                f(h.beta2),
                f(h.eps),
                f(h.weight_decay),
                u64::from(h.step),
                n as u64,
            ],
        }],
        expect: vec![
            Expect {
                name: "param",
                buffer: 0,
                want: p1,
            },
            Expect {
                name: "m",
                buffer: 2,
                want: m1,
            },
            Expect {
                name: "v",
                buffer: 3,
                want: v1,
            },
        ],
        bounds: adamw::BOUNDS,
    }
}

fn sum_case() -> Case {
    let n = 40_000;
    let x = uniform(n, 16, -1.0, 1.0);
    let blocks = (n as u32).div_ceil(reduce::BLOCK);
    Case {
        name: "block_sum",
        pool: vec![bytes(&x), vec![0; blocks as usize * 4]],
        launches: vec![Launch {
            kernel: reduce::block_sum(),
            grid: [blocks, 1, 1],
            buffers: vec![0, 1],
            scalars: vec![n as u64],
        }],
        expect: vec![Expect {
            name: "partial",
            buffer: 1,
            want: reduce::block_sum_reference(&x),
        }],
        bounds: reduce::SUM_BOUNDS,
    }
}

fn scan_case() -> Case {
    let n = 40_000;
    let x = uniform(n, 17, -1.0, 1.0);
    let blocks = (n as u32).div_ceil(reduce::BLOCK);
    let b = blocks as u64;
    Case {
        name: "scan",
        // x, y, the blocks' totals, their scan, and the scan's own (unused) total.
        pool: vec![
            bytes(&x),
            vec![0; n * 4],
            vec![0; blocks as usize * 4],
            vec![0; blocks as usize * 4],
            vec![0; 4],
        ],
        launches: vec![
            Launch {
                kernel: reduce::block_scan(),
                grid: [blocks, 1, 1],
                buffers: vec![0, 1, 2],
                scalars: vec![n as u64],
            },
            Launch {
                kernel: reduce::block_scan(),
                grid: [1, 1, 1],
                buffers: vec![2, 3, 4],
                scalars: vec![b],
            },
            Launch {
                kernel: reduce::add_offsets(),
                grid: [blocks, 1, 1],
                buffers: vec![1, 3],
                scalars: vec![n as u64],
            },
        ],
        expect: vec![Expect {
            name: "y",
            buffer: 1,
            want: reduce::scan_reference(&x),
        }],
        bounds: reduce::SCAN_BOUNDS,
    }
}

fn attention_case() -> Case {
    let len = 150;
    let d = attention::HEAD_DIM as usize;
    let q = uniform(len * d, 18, -1.0, 1.0);
    let k = uniform(len * d, 19, -1.0, 1.0);
    let v = uniform(len * d, 20, -1.0, 1.0);
    Case {
        name: "attention_forward",
        pool: vec![bytes(&q), bytes(&k), bytes(&v), vec![0; len * d * 4]],
        launches: vec![Launch {
            kernel: attention::attention_forward(),
            grid: [row_blocks(len), 1, 1],
            buffers: vec![0, 1, 2, 3],
            scalars: vec![len as u64],
        }],
        expect: vec![Expect {
            name: "out",
            buffer: 3,
            want: attention::reference(&q, &k, &v, len),
        }],
        bounds: attention::BOUNDS,
    }
}

fn transpose_case() -> Case {
    let (rows, cols) = (70, 45);
    let x = uniform(rows * cols, 21, -1.0, 1.0);
    let t = grid2d::TILE as usize;
    Case {
        name: "transpose",
        pool: vec![bytes(&x), vec![0; rows * cols * 4]],
        launches: vec![Launch {
            kernel: grid2d::transpose(),
            grid: [cols.div_ceil(t) as u32, rows.div_ceil(t) as u32, 1],
            buffers: vec![0, 1],
            scalars: vec![rows as u64, cols as u64],
        }],
        expect: vec![Expect {
            name: "output",
            buffer: 1,
            want: grid2d::transpose_reference(&x, rows, cols),
        }],
        bounds: grid2d::TRANSPOSE_BOUNDS,
    }
}

fn stencil_case() -> Case {
    let (rows, cols) = (37, 50);
    let x = uniform(rows * cols, 22, -1.0, 1.0);
    let t = grid2d::STENCIL_TILE as usize;
    let (center, side) = (0.5f32, 0.125f32);
    Case {
        name: "stencil5",
        pool: vec![bytes(&x), vec![0; rows * cols * 4]],
        launches: vec![Launch {
            kernel: grid2d::stencil5(),
            grid: [cols.div_ceil(t) as u32, rows.div_ceil(t) as u32, 1],
            buffers: vec![0, 1],
            scalars: vec![rows as u64, cols as u64, f(center), f(side)],
        }],
        expect: vec![Expect {
            name: "output",
            buffer: 1,
            want: grid2d::stencil_reference(&x, rows, cols, center, side),
        }],
        bounds: grid2d::STENCIL_BOUNDS,
    }
}

fn sgemm_case() -> Case {
    let (m, n, k) = (128, 192, 96);
    let a = uniform(m * k, 23, -1.0, 1.0);
    let b = uniform(k * n, 24, -1.0, 1.0);
    let t = gemm::TILE as usize;
    Case {
        name: "sgemm",
        pool: vec![bytes(&a), bytes(&b), vec![0; m * n * 4]],
        launches: vec![Launch {
            kernel: gemm::sgemm(),
            grid: [(n / t) as u32, (m / t) as u32, 1],
            buffers: vec![0, 1, 2],
            scalars: vec![m as u64, n as u64, k as u64],
        }],
        expect: vec![Expect {
            name: "c",
            buffer: 2,
            want: gemm::reference(&a, &b, m, n, k),
        }],
        bounds: gemm::BOUNDS,
    }
}

fn hgemm_case() -> Case {
    let (m, n, k) = (128, 128, 96);
    let half_bits = |v: Vec<f32>| -> Vec<u16> {
        v.into_iter()
            .map(|x| half::f16::from_f32(x).to_bits())
            .collect()
    };
    let a = half_bits(uniform(m * k, 25, -1.0, 1.0));
    let b = half_bits(uniform(k * n, 26, -1.0, 1.0));
    let t = gemm::TILE as usize;
    let u16_bytes = |v: &[u16]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    Case {
        name: "hgemm",
        pool: vec![u16_bytes(&a), u16_bytes(&b), vec![0; m * n * 4]],
        launches: vec![Launch {
            kernel: gemm::hgemm(),
            grid: [(n / t) as u32, (m / t) as u32, 1],
            buffers: vec![0, 1, 2],
            scalars: vec![m as u64, n as u64, k as u64],
        }],
        expect: vec![Expect {
            name: "c",
            buffer: 2,
            want: gemm::half_reference(&a, &b, m, n, k),
        }],
        bounds: gemm::HALF_BOUNDS,
    }
}

fn cases() -> Vec<Case> {
    vec![
        softmax_case(),
        cross_entropy_case(),
        layernorm_forward_case(),
        layernorm_backward_case(),
        gelu_forward_case(),
        gelu_backward_case(),
        adamw_case(),
        sum_case(),
        scan_case(),
        attention_case(),
        transpose_case(),
        stencil_case(),
        sgemm_case(),
        hgemm_case(),
    ]
}

#[test]
fn zoo_kernels_match_their_references_on_the_simulators() {
    for case in cases() {
        on_simulators(&case);
    }
}

#[test]
fn zoo_kernels_match_their_references_on_webgpu() {
    on_webgpu("zoo_kernels_match_their_references_on_webgpu", &cases());
}

#[test]
fn zoo_kernels_lint_clean_and_assemble_without_spills() {
    lint_and_assemble(
        "zoo_kernels_lint_clean_and_assemble_without_spills",
        &cases(),
    );
}

/// On a GPU machine (`scripts/gpu-check.sh`).
#[test]
fn zoo_kernels_match_their_references_on_cuda() {
    on_cuda("zoo_kernels_match_their_references_on_cuda", &cases());
}
