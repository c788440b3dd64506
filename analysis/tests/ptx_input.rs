//! The PTX front end on input as compilers write it and as users mistype it: `.loc`/`.file` line
//! directives (every `-lineinfo` and Triton module) do not hide the statement after them; text that is
//! not PTX, or a module cut short, is an error naming the line rather than a clean bill of health.

use warpforge_analysis::lint_ptx;

const DIVERGENT_BARRIER: &str = include_str!("fixtures/divergent_barrier.ptx");

fn rules(source: &str) -> Vec<&'static str> {
    lint_ptx(source)
        .expect("PTX")
        .iter()
        .map(|d| d.rule)
        .collect()
}

#[test]
fn line_directives_do_not_hide_the_next_statement() {
    // As nvcc -lineinfo writes it: a `.file` table and a `.loc` line (no `;`) before each statement.
    let with_loc = DIVERGENT_BARRIER
        .replace(
            ".address_size 64\n",
            ".address_size 64\n\t.file\t1 \"/tmp/k.cu\"\n",
        )
        .replace("    bar.sync 0;", "\t.loc\t1 7 5\n    bar.sync 0;")
        .replace("    setp.lt", "\t.loc\t1 6 3\n    setp.lt");
    assert_ne!(with_loc, DIVERGENT_BARRIER);
    assert_eq!(rules(DIVERGENT_BARRIER), vec!["B001"]);
    assert_eq!(
        rules(&with_loc),
        vec!["B001"],
        "a `.loc` line must not swallow the barrier after it"
    );
}

#[test]
fn text_that_is_not_ptx_is_an_error_naming_the_line() {
    let e = lint_ptx("int main() { return 0; }\n").expect_err("C is not PTX");
    assert_eq!(e.line, 1);
    assert!(e.message.contains("not PTX"), "{e}");
    let e = lint_ptx("\n\n").expect_err("nothing is not PTX");
    assert!(e.message.contains("empty"), "{e}");
    let e = lint_ptx("// a comment\n\nhello world\n").expect_err("prose is not PTX");
    assert_eq!(e.line, 3, "{e}");
}

#[test]
fn a_module_cut_short_is_an_error_naming_the_line() {
    // Cut inside the body, after a whole statement: the entry's body never closes.
    let cut = &DIVERGENT_BARRIER[..DIVERGENT_BARRIER.find("DONE:").expect("label")];
    let e = lint_ptx(cut).expect_err("cut short");
    assert!(
        e.message.contains("`.entry divergent_barrier`") && e.message.contains("closing"),
        "{e}"
    );
    // Cut in the middle of a statement.
    let cut = &DIVERGENT_BARRIER[..DIVERGENT_BARRIER.find("%r1, 5").expect("operand")];
    let e = lint_ptx(cut).expect_err("cut short");
    assert_eq!(e.line, 11, "{e}");
    assert!(e.message.contains("cut short"), "{e}");
}
