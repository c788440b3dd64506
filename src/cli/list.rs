//! `warpforge list`: the kernels of the repository.

use warpforge::catalog;

/// Prints each kernel's name and description.
pub fn run() {
    for entry in catalog::entries() {
        println!("{:<16} {}", entry.name, entry.description);
    }
}
