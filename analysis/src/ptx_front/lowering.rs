//! A parsed module lowered entry by entry: module-scope shared arrays and device-function summaries
//! first, then each `.entry`'s statements into a [`Program`] (independently, so the linter lowers and
//! checks entries on every core).

use std::collections::{BTreeMap, HashMap};

use warpforge_ptx::parse::ModuleItem;

use super::error::{check_module, PtxError};
use super::{ast, calls, shared_decl, Entry};
use crate::program::{Location, Program, SharedDecl, Terminator};
use warpforge_ir::SourceLoc;

/// A parsed module ready to lower entry by entry (independently: the linter lowers and checks its
/// entries on every core).
pub(crate) struct Lowering {
    module: warpforge_ptx::parse::Module,
    /// Per entry: the module-scope shared arrays declared before it, and its item in the module.
    entries: Vec<(Vec<SharedDecl>, usize)>,
    /// What each device function reaches.
    funcs: std::sync::Arc<HashMap<String, calls::FuncSummary>>,
    /// The `.file` table: index → file name, for `.loc` lines.
    files: HashMap<u32, String>,
}

impl Lowering {
    /// Parses `src`; `Err` when it is not PTX or is cut short.
    pub(crate) fn of(src: &str) -> Result<Lowering, PtxError> {
        check_module(src)?;
        let module = warpforge_ptx::parse::parse(src).map_err(|e| ast::error_of(src, &e))?;
        let mut funcs = Vec::new();
        let mut entries = Vec::new();
        let mut shared = Vec::new();
        let mut files = HashMap::new();
        for (at, item) in module.items.iter().enumerate() {
            match item {
                ModuleItem::File(f) => {
                    files.insert(f.index, f.path.clone());
                }
                ModuleItem::Variable(d) => {
                    if let Some(decl) = shared_decl(d.to_string().trim_end_matches(';')) {
                        if d.space == warpforge_ptx::parse::StateSpace::Shared {
                            shared.push(decl);
                        }
                    }
                }
                ModuleItem::Function(f) if f.body.is_some() => {
                    if f.is_entry() {
                        entries.push((shared.clone(), at));
                    } else {
                        funcs.extend(ast::function_statements(f));
                    }
                }
                _ => {}
            }
        }
        Ok(Lowering {
            module,
            entries,
            funcs: std::sync::Arc::new(calls::summaries(&funcs)),
            files,
        })
    }

    /// How many entries the module has.
    pub(crate) fn entries(&self) -> usize {
        self.entries.len()
    }

    /// Entry `k` as a program, with what may be assumed about its launches.
    pub(crate) fn lower(&self, k: usize, assume: &crate::assumptions::PtxAssumptions) -> Program {
        let (module_shared, at) = &self.entries[k];
        let stmts = match &self.module.items[*at] {
            ModuleItem::Function(f) => ast::function_statements(f),
            _ => Vec::new(),
        };
        let header = stmts.first().map_or("", |s| s.text.as_str());
        let name = header
            .split_once(".entry")
            .map_or("", |(_, rest)| rest)
            .trim()
            .split(['(', ' '])
            .next()
            .unwrap_or("entry")
            .to_owned();
        let mut e = Entry {
            name,
            block_size: None,
            block_size_required: false,
            block_threads: None,
            vars: HashMap::new(),
            names: Vec::new(),
            shared: module_shared.clone(),
            shared_index: module_shared
                .iter()
                .enumerate()
                .map(|(k, d)| (d.name.clone(), k))
                .collect(),
            blocks: Vec::new(),
            labels: HashMap::new(),
            negated_branches: Default::default(),
            unknown: Vec::new(),
            funcs: self.funcs.clone(),
            reg_bits: HashMap::new(),
            bits: Vec::new(),
        };
        let mut i = 1;
        // Directives between the parameter list and the body.
        while i < stmts.len() && stmts[i].text != "{" {
            e.launch_directives(&stmts[i].text);
            i += 1;
        }
        // The launch's block, as the user gives it, stands for a `.reqntid` the PTX does not have.
        if let (false, Some(x)) = (e.block_size_required, assume.block_x(&e.name)) {
            e.block_size = Some(x);
            e.block_size_required = true;
            e.block_threads = assume.block_threads(&e.name);
        }
        let mut depth = 0;
        // The `.loc` in force and where each instruction came from.
        let mut source: Option<SourceLoc> = None;
        let mut sources = BTreeMap::new();
        while i < stmts.len() {
            let s = &stmts[i];
            let loc = Location::Ptx {
                line: s.line,
                col: s.col,
            };
            if let Some((file, line, column)) = s.loc {
                // An index without a `.file` (which ptxas refuses) is named by its number.
                let name = self.files.get(&file).cloned();
                let name = name.unwrap_or_else(|| format!("file {file}"));
                source = Some(SourceLoc::new(&name, line, column));
            } else if let (Some(src), Some(_)) = (&source, &s.inst) {
                sources.insert(loc.clone(), src.clone());
            }
            match s.text.as_str() {
                "{" => depth += 1,
                "}" => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                t if t.ends_with(':') => {
                    let label = t.trim_end_matches(':').to_owned();
                    if e.blocks.last().is_some_and(|b| !b.0.is_empty()) {
                        e.end_block(Terminator::Jump, None, true);
                    }
                    if e.blocks.is_empty() {
                        e.blocks.push((Vec::new(), Terminator::Jump, None, true));
                    }
                    let at = e.blocks.len() - 1;
                    e.labels.insert(label, at);
                }
                t if t.starts_with(".shared") => {
                    if let Some(d) = shared_decl(t) {
                        e.shared_index.insert(d.name.clone(), e.shared.len());
                        e.shared.push(d);
                    }
                }
                _ if s.inst.is_some() => {
                    if let Some(p) = &s.inst {
                        e.instruction(p, loc);
                    }
                }
                t if t.starts_with(".reg") => e.reg_decl(t),
                _ => {}
            }
            i += 1;
        }
        let mut program = e.finish(assume.warp_aligned);
        program.sources = sources;
        program
    }
}

/// Parses every `.entry` of a PTX module; `Err` when the text is not PTX or is cut short. An entry
/// without `.reqntid` is assumed to have a block x-dimension that is a multiple of 32
/// ([`programs_of_with`] turns that off).
pub fn programs_of(src: &str) -> Result<Vec<Program>, PtxError> {
    programs_of_with(src, true)
}

/// [`programs_of`], saying whether to assume warp-aligned block x-dimensions where `.reqntid` is absent.
pub fn programs_of_with(src: &str, assume_warp_aligned: bool) -> Result<Vec<Program>, PtxError> {
    let lowering = Lowering::of(src)?;
    Ok((0..lowering.entries())
        .map(|k| {
            let assume = crate::assumptions::PtxAssumptions {
                warp_aligned: assume_warp_aligned,
                ..Default::default()
            };
            lowering.lower(k, &assume)
        })
        .collect())
}
