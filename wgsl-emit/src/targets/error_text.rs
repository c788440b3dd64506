//! An error and its sources as one line, for the writers' and readers' errors.

use std::error::Error;

/// An error and its causes, on one line.
pub(super) fn chain(error: &dyn Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        text.push_str(": ");
        text.push_str(&e.to_string());
        cause = e.source();
    }
    text
}
