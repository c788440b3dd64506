//! The kernels the command line knows by name (`warpforge emit --kernel NAME`).

use warpforge_ir::{samples, Kernel};

/// A named kernel of the catalog.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// Name on the command line.
    pub name: &'static str,
    /// One line on what it computes.
    pub description: &'static str,
    /// Builds (and verifies) the kernel.
    pub build: fn() -> Kernel,
}

/// Every kernel in the repository, in a fixed order.
pub fn entries() -> Vec<Entry> {
    samples::ALL
        .iter()
        .map(|s| Entry {
            name: s.name,
            description: s.description,
            build: s.build,
        })
        .collect()
}

/// The names of every kernel, comma separated, for error messages.
pub fn names() -> String {
    entries()
        .iter()
        .map(|e| e.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The kernel called `name`, or an error that lists the valid names.
pub fn find(name: &str) -> Result<Entry, String> {
    entries()
        .into_iter()
        .find(|e| e.name == name)
        .ok_or_else(|| format!("unknown kernel `{name}`; valid kernels: {}", names()))
}
