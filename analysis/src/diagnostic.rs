//! One finding of the linter ([`Diagnostic`]): its rule, severity, place and explanation.

use warpforge_ir::SourceLoc;

use crate::program::Location;
use crate::rule::{Rule, Severity};

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The rule (its code and name: [`Rule::code`], [`Rule::name`]).
    pub rule: Rule,
    /// Severity.
    pub severity: Severity,
    /// The kernel.
    pub kernel: String,
    /// Where.
    pub location: Location,
    /// Where in the kernel's source (Rust through `#[warpforge::kernel]`, or what a PTX `.loc` names),
    /// when known: messages print it beside [`Diagnostic::location`].
    pub source: Option<SourceLoc>,
    /// What.
    pub message: String,
    /// Why, outermost first ("divergent because …").
    pub causes: Vec<String>,
    /// Other places with the same finding, reported once here: the "cannot prove" warnings (A001,
    /// S001) of one kernel, rule and array are one finding (see `grouping`). Empty for the rest.
    pub also: Vec<Location>,
}
