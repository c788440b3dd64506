//! The module graph of a crate, read from its sources with syn: which file module refers to which.
//!
//! An edge `a -> b` means code in module `a`'s file names an item that lives in module `b`'s file,
//! through a `use` or a path (`crate::x::Y`, `super::Y`, `child::f()`, a name imported earlier). A
//! name is followed through re-exports (`pub use inner::Y;` and `pub use inner::*;`) to the module that
//! defines it, so a `mod.rs` that only re-exports does not count as a dependency of its children.
//! `mod x;` declarations are ownership, not dependencies, and are not edges.
//!
//! This is what "import cycle" means in docs/architecture.md; `tests/it/layout.rs` holds the checks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The first segment of a path into another crate (recorded so that re-exports of it resolve).
const EXTERN: &str = "<extern>";

/// A module path from the crate root (`[]` is the root, `["ptx", "cfg"]` is `crate::ptx::cfg`).
pub type ModPath = Vec<String>;

#[derive(Default)]
struct Scope {
    /// Items defined here (types, functions, constants, traits, macros).
    items: BTreeSet<String>,
    /// `use` imports: local name -> absolute path.
    uses: BTreeMap<String, ModPath>,
    /// `use x::*` imports: absolute module paths.
    globs: Vec<ModPath>,
    /// Child modules, inline or in files.
    children: BTreeSet<String>,
}

/// A crate's modules and the references between its file modules.
pub struct ModuleGraph {
    scopes: BTreeMap<ModPath, Scope>,
    /// File modules (each `.rs` file), with the file.
    pub files: BTreeMap<ModPath, PathBuf>,
    /// Raw references: (file module of the site, absolute path named there).
    refs: Vec<(ModPath, ModPath)>,
    /// Modules declared under `#[cfg(test)]` (their files are left out).
    test_modules: Vec<ModPath>,
}

impl ModuleGraph {
    /// Reads every `.rs` file under `src` (a crate's `src/`, whose root is `lib.rs` or `main.rs`).
    pub fn read(src: &Path) -> ModuleGraph {
        let mut graph = ModuleGraph {
            scopes: BTreeMap::new(),
            files: BTreeMap::new(),
            refs: Vec::new(),
            test_modules: Vec::new(),
        };
        let mut files = Vec::new();
        collect_rs(src, &mut files);
        for file in files {
            let Some(module) = file_module(src, &file) else {
                continue;
            };
            let text = std::fs::read_to_string(&file).unwrap();
            let parsed = syn::parse_file(&text)
                .unwrap_or_else(|e| panic!("{}: not Rust syn reads: {e}", file.display()));
            graph.files.insert(module.clone(), file.clone());
            let mut reader = Reader {
                graph: &mut graph,
                file_module: module.clone(),
                lexical: module,
            };
            reader.items(&parsed.items);
        }
        let tests = std::mem::take(&mut graph.test_modules);
        let in_tests = |m: &ModPath| tests.iter().any(|t| m.starts_with(t));
        graph.files.retain(|m, _| !in_tests(m));
        graph.refs.retain(|(from, _)| !in_tests(from));
        graph
    }

    /// The file-module edges, each with one example path that makes it.
    pub fn edges(&self) -> BTreeMap<(ModPath, ModPath), ModPath> {
        let mut edges = BTreeMap::new();
        for (from, path) in &self.refs {
            let Some(target) = self.resolve(path, 0) else {
                continue;
            };
            let target = self.file_of(&target);
            if &target != from {
                edges
                    .entry((from.clone(), target))
                    .or_insert_with(|| path.clone());
            }
        }
        edges
    }

    /// Strongly connected components of more than one file module: the import cycles.
    pub fn cycles(&self) -> Vec<Vec<ModPath>> {
        let mut graph = petgraph::graph::DiGraph::<ModPath, ()>::new();
        let mut index = BTreeMap::new();
        for module in self.files.keys() {
            index.insert(module.clone(), graph.add_node(module.clone()));
        }
        for (from, to) in self.edges().keys() {
            graph.add_edge(index[from], index[to], ());
        }
        let mut cycles: Vec<Vec<ModPath>> = petgraph::algo::tarjan_scc(&graph)
            .into_iter()
            .filter(|scc| scc.len() > 1)
            .map(|scc| {
                let mut modules: Vec<ModPath> = scc.iter().map(|n| graph[*n].clone()).collect();
                modules.sort();
                modules
            })
            .collect();
        cycles.sort();
        cycles
    }

    /// The module an absolute path names (a module, or the module that defines its item); `None`
    /// for another crate's.
    fn resolve(&self, path: &[String], depth: u32) -> Option<ModPath> {
        if path.first().is_some_and(|s| s == EXTERN) {
            return None;
        }
        let mut current: ModPath = Vec::new();
        for (i, segment) in path.iter().enumerate() {
            let Some(scope) = self.scopes.get(&current) else {
                return Some(current);
            };
            if scope.children.contains(segment) {
                current.push(segment.clone());
                continue;
            }
            if scope.items.contains(segment) || depth > 16 {
                return Some(current);
            }
            if let Some(target) = scope.uses.get(segment) {
                let mut next = target.clone();
                next.extend_from_slice(&path[i + 1..]);
                return self.resolve(&next, depth + 1);
            }
            for glob in &scope.globs {
                let defines = self.scopes.get(glob).is_some_and(|g| {
                    g.items.contains(segment)
                        || g.children.contains(segment)
                        || g.uses.contains_key(segment)
                });
                if defines {
                    let mut next = glob.clone();
                    next.extend_from_slice(&path[i..]);
                    return self.resolve(&next, depth + 1);
                }
            }
            return Some(current);
        }
        Some(current)
    }

    /// The file module a module lives in (itself, or the file of an inline module).
    fn file_of(&self, module: &[String]) -> ModPath {
        let mut m = module.to_vec();
        while !self.files.contains_key(&m) && !m.is_empty() {
            m.pop();
        }
        m
    }
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/lib.rs` -> `[]`, `src/a/mod.rs` -> `[a]`, `src/a/b.rs` -> `[a, b]`; `src/bin/*` -> none.
fn file_module(src: &Path, file: &Path) -> Option<ModPath> {
    let rel = file.strip_prefix(src).ok()?;
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.first().is_some_and(|p| p == "bin") {
        return None;
    }
    let last = parts.pop()?;
    let stem = last.strip_suffix(".rs")?;
    if !(parts.is_empty() && (stem == "lib" || stem == "main")) && stem != "mod" {
        parts.push(stem.to_string());
    }
    Some(parts)
}

struct Reader<'g> {
    graph: &'g mut ModuleGraph,
    file_module: ModPath,
    /// The module the code being read is in (inline modules included).
    lexical: ModPath,
}

impl Reader<'_> {
    fn scope(&mut self) -> &mut Scope {
        self.graph.scopes.entry(self.lexical.clone()).or_default()
    }

    fn items(&mut self, items: &[syn::Item]) {
        self.scope();
        for item in items.iter().filter(|i| is_test_only(i)) {
            if let syn::Item::Mod(m) = item {
                let mut module = self.lexical.clone();
                module.push(m.ident.to_string());
                self.graph.test_modules.push(module);
            }
        }
        let items: Vec<&syn::Item> = items.iter().filter(|i| !is_test_only(i)).collect();
        let items = &items[..];
        for item in items {
            self.declare(item);
        }
        for item in items {
            if let syn::Item::Use(u) = item {
                self.import(u, true);
            }
        }
        for item in items {
            match item {
                syn::Item::Use(_) => {}
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        let saved = self.lexical.clone();
                        self.lexical.push(m.ident.to_string());
                        self.items(inner);
                        self.lexical = saved;
                    }
                }
                other => self.visit_item(other),
            }
        }
    }

    /// Records a `use` as references, and (at module level) its names in the scope.
    fn import(&mut self, u: &syn::ItemUse, in_scope: bool) {
        let mut leaves = Vec::new();
        use_leaves(&u.tree, Vec::new(), &mut leaves);
        for (path, alias) in leaves {
            let Some(absolute) = self.absolute(&path) else {
                continue;
            };
            self.graph
                .refs
                .push((self.file_module.clone(), absolute.clone()));
            if !in_scope {
                continue;
            }
            match alias {
                Some(name) => {
                    self.scope().uses.insert(name, absolute);
                }
                None => self.scope().globs.push(absolute),
            }
        }
    }

    fn declare(&mut self, item: &syn::Item) {
        let name = match item {
            syn::Item::Const(i) => i.ident.to_string(),
            syn::Item::Enum(i) => i.ident.to_string(),
            syn::Item::Fn(i) => i.sig.ident.to_string(),
            syn::Item::Static(i) => i.ident.to_string(),
            syn::Item::Struct(i) => i.ident.to_string(),
            syn::Item::Trait(i) => i.ident.to_string(),
            syn::Item::Type(i) => i.ident.to_string(),
            syn::Item::Union(i) => i.ident.to_string(),
            syn::Item::Macro(i) => match &i.ident {
                Some(ident) => ident.to_string(),
                None => return,
            },
            syn::Item::Mod(m) => {
                let name = m.ident.to_string();
                self.scope().children.insert(name);
                return;
            }
            _ => return,
        };
        self.scope().items.insert(name);
    }

    /// An absolute path for a path written in the current module; `None` for another crate's (a
    /// leading name that is neither a child module nor imported here).
    fn absolute(&mut self, path: &[String]) -> Option<ModPath> {
        let first = path.first()?;
        let mut base = match first.as_str() {
            "crate" => Vec::new(),
            "self" => self.lexical.clone(),
            "super" => {
                let mut base = self.lexical.clone();
                let mut rest = path;
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
                base.extend_from_slice(rest);
                return Some(base);
            }
            name => {
                let scope = self.scope();
                if scope.children.contains(name) {
                    self.lexical.clone()
                } else if let Some(target) = scope.uses.get(name) {
                    let mut absolute = target.clone();
                    absolute.extend_from_slice(&path[1..]);
                    return Some(absolute);
                } else {
                    let mut absolute = vec![EXTERN.to_string()];
                    absolute.extend_from_slice(path);
                    return Some(absolute);
                }
            }
        };
        let skip = usize::from(first == "crate" || first == "self");
        base.extend_from_slice(&path[skip..]);
        Some(base)
    }
}

impl<'ast> Visit<'ast> for Reader<'_> {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.len() > 1 || self.scope().uses.contains_key(&segments[0]) {
            if let Some(absolute) = self.absolute(&segments) {
                self.graph.refs.push((self.file_module.clone(), absolute));
            }
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        // Modules nested in functions or impls: read with their own scope.
        if let Some((_, inner)) = &m.content {
            let saved = self.lexical.clone();
            self.lexical.push(m.ident.to_string());
            self.items(inner);
            self.lexical = saved;
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        // A `use` inside a function body: recorded as references only.
        self.import(u, false);
    }
}

/// The leaves of a use tree: (path, Some(local name)) or (module path, None) for a glob.
fn use_leaves(tree: &syn::UseTree, prefix: Vec<String>, out: &mut Vec<(ModPath, Option<String>)>) {
    match tree {
        syn::UseTree::Path(p) => {
            let mut next = prefix;
            next.push(p.ident.to_string());
            use_leaves(&p.tree, next, out);
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                let local = prefix.last().cloned();
                out.push((prefix, local));
            } else {
                let mut path = prefix;
                path.push(name.clone());
                out.push((path, Some(name)));
            }
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix;
            path.push(r.ident.to_string());
            out.push((path, Some(r.rename.to_string())));
        }
        syn::UseTree::Glob(_) => out.push((prefix, None)),
        syn::UseTree::Group(g) => {
            for tree in &g.items {
                use_leaves(tree, prefix.clone(), out);
            }
        }
    }
}

/// Items under `#[cfg(test)]`: test code may reach anywhere; it is not part of the module structure.
pub fn is_test_only(item: &syn::Item) -> bool {
    let attrs = match item {
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Const(i) => &i.attrs,
        _ => return false,
    };
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}
