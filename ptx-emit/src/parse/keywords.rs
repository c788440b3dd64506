//! The keywords that classify declarations: data types, state spaces and linkage, with their
//! spellings.

/// A fundamental PTX type of a declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    /// `.b8`
    B8,
    /// `.b16`
    B16,
    /// `.b32`
    B32,
    /// `.b64`
    B64,
    /// `.b128`
    B128,
    /// `.u8`
    U8,
    /// `.u16`
    U16,
    /// `.u32`
    U32,
    /// `.u64`
    U64,
    /// `.s8`
    S8,
    /// `.s16`
    S16,
    /// `.s32`
    S32,
    /// `.s64`
    S64,
    /// `.f16`
    F16,
    /// `.f16x2`
    F16x2,
    /// `.bf16`
    Bf16,
    /// `.bf16x2`
    Bf16x2,
    /// `.f32`
    F32,
    /// `.f64`
    F64,
    /// `.pred`
    Pred,
}

impl DataType {
    /// Every type.
    pub const ALL: [DataType; 20] = [
        DataType::B8,
        DataType::B16,
        DataType::B32,
        DataType::B64,
        DataType::B128,
        DataType::U8,
        DataType::U16,
        DataType::U32,
        DataType::U64,
        DataType::S8,
        DataType::S16,
        DataType::S32,
        DataType::S64,
        DataType::F16,
        DataType::F16x2,
        DataType::Bf16,
        DataType::Bf16x2,
        DataType::F32,
        DataType::F64,
        DataType::Pred,
    ];

    /// The name without the dot (`u32`).
    pub fn name(self) -> &'static str {
        match self {
            DataType::B8 => "b8",
            DataType::B16 => "b16",
            DataType::B32 => "b32",
            DataType::B64 => "b64",
            DataType::B128 => "b128",
            DataType::U8 => "u8",
            DataType::U16 => "u16",
            DataType::U32 => "u32",
            DataType::U64 => "u64",
            DataType::S8 => "s8",
            DataType::S16 => "s16",
            DataType::S32 => "s32",
            DataType::S64 => "s64",
            DataType::F16 => "f16",
            DataType::F16x2 => "f16x2",
            DataType::Bf16 => "bf16",
            DataType::Bf16x2 => "bf16x2",
            DataType::F32 => "f32",
            DataType::F64 => "f64",
            DataType::Pred => "pred",
        }
    }

    /// The type a name (without the dot) spells.
    pub fn from_name(name: &str) -> Option<DataType> {
        DataType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Its size in bytes (`.pred`: 1 as a parameter or array element would take; `.b128`: 16).
    pub fn size_bytes(self) -> u32 {
        match self {
            DataType::B8 | DataType::U8 | DataType::S8 | DataType::Pred => 1,
            DataType::B16 | DataType::U16 | DataType::S16 | DataType::F16 | DataType::Bf16 => 2,
            DataType::B32
            | DataType::U32
            | DataType::S32
            | DataType::F32
            | DataType::F16x2
            | DataType::Bf16x2 => 4,
            DataType::B64 | DataType::U64 | DataType::S64 | DataType::F64 => 8,
            DataType::B128 => 16,
        }
    }
}

/// A state space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StateSpace {
    /// `.reg`
    Reg,
    /// `.const`
    Const,
    /// `.global`
    Global,
    /// `.local`
    Local,
    /// `.param`
    Param,
    /// `.shared`
    Shared,
}

impl StateSpace {
    /// Every space.
    pub const ALL: [StateSpace; 6] = [
        StateSpace::Reg,
        StateSpace::Const,
        StateSpace::Global,
        StateSpace::Local,
        StateSpace::Param,
        StateSpace::Shared,
    ];

    /// The name without the dot.
    pub fn name(self) -> &'static str {
        match self {
            StateSpace::Reg => "reg",
            StateSpace::Const => "const",
            StateSpace::Global => "global",
            StateSpace::Local => "local",
            StateSpace::Param => "param",
            StateSpace::Shared => "shared",
        }
    }

    /// The space a name (without the dot) spells.
    pub fn from_name(name: &str) -> Option<StateSpace> {
        StateSpace::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// Linkage of a module-scope name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Linkage {
    /// `.extern`: defined elsewhere (or, for `.shared`, the dynamic shared memory).
    Extern,
    /// `.visible`: visible outside the module.
    Visible,
    /// `.weak`
    Weak,
    /// `.common`
    Common,
}

impl Linkage {
    /// The name without the dot.
    pub fn name(self) -> &'static str {
        match self {
            Linkage::Extern => "extern",
            Linkage::Visible => "visible",
            Linkage::Weak => "weak",
            Linkage::Common => "common",
        }
    }

    /// The linkage a name (without the dot) spells.
    pub fn from_name(name: &str) -> Option<Linkage> {
        [
            Linkage::Extern,
            Linkage::Visible,
            Linkage::Weak,
            Linkage::Common,
        ]
        .into_iter()
        .find(|l| l.name() == name)
    }
}
