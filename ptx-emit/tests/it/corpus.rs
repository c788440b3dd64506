//! The PTX front end on real compiler output: the lint corpus (`analysis/tests/corpus`, nvcc 13,
//! NVRTC 12.9 and Triton 3.9 for sm_70–sm_90). Every file the manifest calls PTX parses, prints,
//! and parses back to an equal AST; the files it marks `error` are refused at the line it names.

use crate::support;

use support::{corpus_files, expected_errors};
use warpforge_ptx::parse::{parse, Module};

fn reparsed(module: &Module, name: &str) -> Module {
    let printed = module.to_string();
    match parse(&printed) {
        Ok(m) => m,
        Err(e) => panic!("{name}: printed PTX does not parse: {e}\n{printed}"),
    }
}

#[test]
fn every_corpus_file_parses_prints_and_parses_back_and_the_invalid_ones_name_their_line() {
    let errors = expected_errors();
    assert_eq!(errors.len(), 2, "the manifest marks two files invalid");
    let files = corpus_files();
    assert_eq!(files.len(), 118, "the corpus has 118 files");
    let (mut parsed, mut entries, mut funcs, mut instructions) = (0, 0, 0, 0);
    for (name, text) in &files {
        let result = parse(text);
        if let Some((_, line)) = errors.iter().find(|(f, _)| f == name) {
            let e = result.expect_err(&format!("{name} must be refused"));
            eprintln!("{name}: {e}");
            assert_eq!(e.line, *line, "{name}: {e}");
            continue;
        }
        let module = result.unwrap_or_else(|e| panic!("{name}: {e}"));
        parsed += 1;
        assert!(module.entries().count() > 0, "{name}: no entry");
        for f in module.functions() {
            if f.is_entry() {
                entries += 1;
            } else {
                funcs += 1;
            }
            instructions += f.instruction_count();
            assert!(f.instruction_count() > 0 || f.body.is_none(), "{name}");
        }
        let mut again = reparsed(&module, name);
        let mut original = module.clone();
        original.erase_positions();
        again.erase_positions();
        assert_eq!(
            original, again,
            "{name}: parse → print → parse changed the AST"
        );
    }
    eprintln!(
        "corpus: {} files, {parsed} parsed, {entries} entries, {funcs} .func, {instructions} instructions",
        files.len()
    );
    assert_eq!(parsed, 116);
    // Counted independently from the text when this test was written (`;`-terminated statements
    // outside debug sections, brace lists and `.loc` lines set aside, inline asm scopes included):
    // a change here means the parser now splits bodies differently.
    assert_eq!((entries, funcs, instructions), (144, 8, 12369));
}
