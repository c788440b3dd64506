//! A random kernel's declarations: its parameters, shared arrays, locals and block shape.

use super::{Gen, LOOP_COUNTERS};
use crate::kernel::{LocalVar, Param, ParamKind, SharedArray};
use crate::types::{Access, ScalarType};

impl Gen<'_> {
    pub(super) fn declarations(&mut self) {
        let k = &mut self.kernel;
        k.name = "random".into();
        let params = [
            (
                "out",
                ParamKind::Buffer {
                    elem: ScalarType::U32,
                    access: Access::ReadWrite,
                },
            ),
            (
                "data",
                ParamKind::Buffer {
                    elem: ScalarType::U32,
                    access: Access::ReadOnly,
                },
            ),
            ("n", ParamKind::Scalar(ScalarType::U32)),
        ];
        for (name, kind) in params {
            k.params.append(Param {
                name: name.into(),
                kind,
            });
        }
        k.shared.append(SharedArray {
            name: "tile".into(),
            elem: ScalarType::U32,
            len: 64,
            align: 16,
        });
        k.locals.append(LocalVar {
            name: "acc".into(),
            ty: ScalarType::U32,
        });
        let most_warps = if self.defined.is_some() { 8 } else { 32 };
        self.kernel.block_size = 32 * (1 + self.below(most_warps) as u32);
        // A 2-D or 3-D block for two thirds of the warp counts, chosen from the count alone (no
        // random draw, so every seed's kernel body is what it was before blocks had shapes):
        // 16 × 2w (a warp spans two rows) or 8 × 4 × w.
        let warps = self.kernel.block_size / 32;
        self.kernel.block_shape = match warps % 3 {
            2 => Some([16, 2 * warps, 1]),
            0 => Some([8, 4, warps]),
            _ => None,
        };
        if self.defined.is_some() {
            for name in LOOP_COUNTERS {
                self.kernel.locals.append(LocalVar {
                    name: name.into(),
                    ty: ScalarType::U32,
                });
            }
        }
        for i in 0..self.below(4) {
            let kind = if self.below(2) == 0 {
                let access = if self.below(2) == 0 {
                    Access::ReadOnly
                } else {
                    Access::ReadWrite
                };
                ParamKind::Buffer {
                    elem: self.pick(&self.storable.clone()),
                    access,
                }
            } else {
                ParamKind::Scalar(self.pick(&self.types.clone()))
            };
            self.kernel.params.append(Param {
                name: format!("p{i}"),
                kind,
            });
        }
        for i in 0..self.below(3) {
            let elem = self.pick(&self.storable.clone());
            let size = elem.size_bytes().unwrap_or(4);
            let align = size << self.below(3);
            let len = 1 + self.below(256) as u32;
            self.kernel.shared.append(SharedArray {
                name: format!("s{i}"),
                elem,
                len,
                align,
            });
        }
        for i in 0..self.below(4) {
            let ty = self.pick(&self.types.clone());
            self.kernel.locals.append(LocalVar {
                name: format!("l{i}"),
                ty,
            });
        }
    }
}
