//! Tokens of the text form, with their line and column.

use super::ParseError;

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// An identifier or keyword.
    Ident(String),
    /// `%N`: a value.
    Value(u32),
    /// A number as written (sign, digits, hex, fraction, exponent), checked later against its type.
    Number(String),
    /// One punctuation character: `{ } [ ] ( ) : , = . @`
    Punct(char),
    /// A double-quoted string, unescaped (only source positions use them: `@ "src/k.rs":3:5`).
    Str(String),
    /// End of input.
    Eof,
}

impl Tok {
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Value(n) => format!("`%{n}`"),
            Tok::Number(s) => format!("number `{s}`"),
            Tok::Punct(c) => format!("`{c}`"),
            Tok::Str(s) => format!("string {s:?}"),
            Tok::Eof => "end of input".into(),
        }
    }
}

/// A token and where it starts (1-based line and column).
#[derive(Clone, Debug)]
pub(crate) struct Spanned {
    pub tok: Tok,
    pub line: usize,
    pub col: usize,
}

/// Splits `src` into tokens. `//` starts a comment that runs to the end of the line.
pub(crate) fn tokenize(src: &str) -> Result<Vec<Spanned>, ParseError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1usize, 1usize);
    while i < chars.len() {
        let c = chars[i];
        let (start_line, start_col) = (line, col);
        let advance = |n: usize, i: &mut usize, col: &mut usize| {
            *i += n;
            *col += n;
        };
        if c == '\n' {
            i += 1;
            line += 1;
            col = 1;
            continue;
        }
        if c.is_whitespace() {
            advance(1, &mut i, &mut col);
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        let tok = if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            col += i - start;
            Tok::Ident(chars[start..i].iter().collect())
        } else if c == '%' {
            let start = i + 1;
            let mut end = start;
            while end < chars.len() && chars[end].is_ascii_digit() {
                end += 1;
            }
            let digits: String = chars[start..end].iter().collect();
            let n = digits.parse::<u32>().map_err(|_| ParseError {
                line,
                col,
                message: format!("expected a value number after `%`, found `%{digits}`"),
            })?;
            advance(end - i, &mut i, &mut col);
            Tok::Value(n)
        } else if c.is_ascii_digit()
            || (c == '-' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
        {
            let start = i;
            i += 1;
            while i < chars.len() {
                let d = chars[i];
                let exp_sign = (d == '-' || d == '+')
                    && matches!(chars[i - 1], 'e' | 'E')
                    && !is_hex(&chars[start..i]);
                if d.is_ascii_alphanumeric() || d == '.' || exp_sign {
                    i += 1;
                } else {
                    break;
                }
            }
            col += i - start;
            Tok::Number(chars[start..i].iter().collect())
        } else if c == '"' {
            let (text, len) =
                string(&chars[i..]).map_err(|message| ParseError { line, col, message })?;
            advance(len, &mut i, &mut col);
            Tok::Str(text)
        } else if "{}[]():,=.@".contains(c) {
            advance(1, &mut i, &mut col);
            Tok::Punct(c)
        } else {
            return Err(ParseError {
                line,
                col,
                message: format!("unexpected character {c:?}"),
            });
        };
        out.push(Spanned {
            tok,
            line: start_line,
            col: start_col,
        });
    }
    out.push(Spanned {
        tok: Tok::Eof,
        line,
        col,
    });
    Ok(out)
}

/// The string starting at the `"` that opens `chars`, and how many characters it spans (quotes
/// included). Escapes: `\\`, `\"`, `\n`, `\r`, `\t` and `\u{HEX}`; a raw control character (a line
/// break included) or a missing closing quote is an error.
fn string(chars: &[char]) -> Result<(String, usize), String> {
    let mut text = String::new();
    let mut i = 1;
    loop {
        let Some(&c) = chars.get(i) else {
            return Err("unterminated string: expected a closing `\"`".into());
        };
        i += 1;
        match c {
            '"' => return Ok((text, i)),
            '\\' => {
                let Some(&e) = chars.get(i) else {
                    return Err("unterminated string: expected a closing `\"`".into());
                };
                i += 1;
                match e {
                    '\\' | '"' => text.push(e),
                    'n' => text.push('\n'),
                    'r' => text.push('\r'),
                    't' => text.push('\t'),
                    'u' => {
                        let close = chars[i..].iter().take(9).position(|&d| d == '}');
                        let (Some('{'), Some(close)) = (chars.get(i), close) else {
                            return Err("expected `\\u{HEX}` in a string".into());
                        };
                        let hex: String = chars[i + 1..i + close].iter().collect();
                        let decoded = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
                        let Some(d) = decoded.filter(|_| !hex.is_empty() && hex.len() <= 6) else {
                            return Err(format!("`\\u{{{hex}}}` is not a character"));
                        };
                        text.push(d);
                        i += close + 1;
                    }
                    other => return Err(format!("unknown escape `\\{other}` in a string")),
                }
            }
            c if c.is_control() => {
                return Err(format!(
                    "control character {c:?} in a string (write it as an escape)"
                ))
            }
            c => text.push(c),
        }
    }
}

/// `text` as a string token the lexer reads back: quoted, with `\\`, `\"` and control characters
/// escaped.
pub(crate) fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn is_hex(prefix: &[char]) -> bool {
    let s: String = prefix.iter().collect();
    s.trim_start_matches('-').starts_with("0x")
}
