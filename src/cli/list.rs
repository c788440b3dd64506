//! `warpforge list`: the kernels of the repository.

use warpforge::catalog;

/// Prints each kernel's name and description, the descriptions in one column.
pub fn run() {
    let entries = catalog::entries();
    let width = entries.iter().map(|e| e.name.len()).max().unwrap_or(0);
    for entry in entries {
        println!("{:<width$} {}", entry.name, entry.description);
    }
}
