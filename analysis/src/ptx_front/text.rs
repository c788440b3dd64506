//! PTX text → statements (split at `;`, braces and line directives, comments dropped) and operands.

/// A statement of the source: its text (without `;`) and where it starts.
pub(super) struct Stmt {
    pub(super) text: String,
    pub(super) line: usize,
    pub(super) col: usize,
}

/// Directives that take no `;`: each is a statement up to the end of its line.
pub(super) const LINE_DIRECTIVES: [&str; 5] =
    [".loc", ".file", ".version", ".target", ".address_size"];

/// Whether `directive` (followed by white space) starts at `chars[i]`.
fn directive_at(chars: &[char], i: usize, directive: &str) -> bool {
    let n = directive.len();
    chars.len() > i + n
        && chars[i..i + n].iter().copied().eq(directive.chars())
        && chars[i + n].is_whitespace()
}

/// Splits PTX into statements at `;`, `{` and `}` (and line directives at the end of their line),
/// dropping comments.
pub(super) fn statements(src: &str) -> Vec<Stmt> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut line, mut col) = (1usize, 1usize);
    let mut start = (1, 1);
    let chars: Vec<char> = src.chars().collect();
    let mut i = 0;
    let flush = |cur: &mut String, out: &mut Vec<Stmt>, start: (usize, usize)| {
        let text = cur.trim().to_owned();
        if !text.is_empty() {
            out.push(Stmt {
                text,
                line: start.0,
                col: start.1,
            });
        }
        cur.clear();
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                if chars[i] == '\n' {
                    line += 1;
                    col = 1;
                }
                i += 1;
            }
            i += 2;
            continue;
        }
        if cur.trim().is_empty() && !c.is_whitespace() {
            start = (line, col);
            // Directives without a `;` end at the end of their line (`.loc` lines are in every
            // `-lineinfo` and Triton module; glued to the next statement, they used to hide it).
            if c == '.' && LINE_DIRECTIVES.iter().any(|d| directive_at(&chars, i, d)) {
                while i < chars.len() && chars[i] != '\n' {
                    cur.push(chars[i]);
                    i += 1;
                    col += 1;
                }
                flush(&mut cur, &mut out, start);
                continue;
            }
        }
        match c {
            ';' => flush(&mut cur, &mut out, start),
            '{' | '}' if !cur.contains('{') || c == '}' && !cur.contains('{') => {
                // Braces of a vector operand stay inside their statement.
                if cur.trim().is_empty()
                    || c == '}' && !cur.contains('{')
                    || c == '{' && (cur.trim_end().ends_with(')') || cur.trim().starts_with('.'))
                {
                    flush(&mut cur, &mut out, start);
                    out.push(Stmt {
                        text: c.to_string(),
                        line,
                        col,
                    });
                } else {
                    cur.push(c);
                }
            }
            ':' if !cur.trim().contains(char::is_whitespace)
                && !cur.trim().is_empty()
                && !cur.contains('[')
                && chars.get(i + 1) != Some(&':')
                && !cur.ends_with(':') =>
            {
                cur.push(':');
                flush(&mut cur, &mut out, start);
            }
            _ => cur.push(c),
        }
        if c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
        i += 1;
    }
    flush(&mut cur, &mut out, start);
    out
}

/// Splits operands at top-level commas.
pub(super) fn operands(text: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0i32);
    for c in text.chars() {
        match c {
            '[' | '{' => depth += 1,
            ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_owned());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_owned());
    }
    out
}
