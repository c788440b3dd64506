//! Text → tokens. Every token and comment carries its [`Pos`] and byte range; byte ranges tell the
//! parser which tokens touch (`ld.global` is one opcode with a modifier, `%tid.x` one register with a
//! component). Comments are set aside, with whether they stand alone on their line, for the parser to
//! keep or drop.

use super::error::{ParseError, Pos};
use super::literals::{FloatImm, IntImm, Radix};

/// What a token is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// `.name`: a directive, a type, a state space or an instruction modifier, without the dot
    /// (`shared::cta` stays one name).
    Dot(String),
    /// A name: `foo`, `$L__BB0_1`, `_`.
    Ident(String),
    /// A `%` name, the `%` included: `%r1`, `%tid`.
    Reg(String),
    /// An unsigned integer literal.
    Int(IntImm),
    /// A float literal.
    Float(FloatImm),
    /// A string literal's contents, escapes kept as written.
    Str(String),
    /// One of `, ; : { } [ ] ( ) < > + - @ ! | =`.
    Punct(char),
    /// The end of the text.
    Eof,
}

/// A token, where it starts, and its byte range.
#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub tok: Tok,
    pub pos: Pos,
    pub start: usize,
    pub end: usize,
}

/// A `//` comment: its text after the `//`, and whether nothing but whitespace precedes it on its line.
#[derive(Clone, Debug)]
pub(crate) struct RawComment {
    pub pos: Pos,
    pub start: usize,
    pub text: String,
    pub own_line: bool,
}

/// The tokens (ending with [`Tok::Eof`]) and the `//` comments of `src`.
pub(crate) fn lex(src: &str) -> Result<(Vec<Token>, Vec<RawComment>), ParseError> {
    let mut lx = Lexer {
        src,
        bytes: src.as_bytes(),
        i: 0,
        line: 1,
        column: 1,
        last_token_line: 0,
        end_of_last: Pos::new(1, 1),
        tokens: Vec::new(),
        comments: Vec::new(),
    };
    lx.run()?;
    let eof = Token {
        tok: Tok::Eof,
        pos: lx.end_of_last,
        start: src.len(),
        end: src.len(),
    };
    lx.tokens.push(eof);
    Ok((lx.tokens, lx.comments))
}

struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    i: usize,
    line: u32,
    column: u32,
    last_token_line: u32,
    end_of_last: Pos,
    tokens: Vec<Token>,
    comments: Vec<RawComment>,
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$'
}

fn is_name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

impl Lexer<'_> {
    fn pos(&self) -> Pos {
        Pos::new(self.line, self.column)
    }

    fn peek(&self, ahead: usize) -> u8 {
        self.bytes.get(self.i + ahead).copied().unwrap_or(0)
    }

    /// Moves past one character, counting lines and columns.
    fn bump(&mut self) {
        let Some(c) = self.src.get(self.i..).and_then(|s| s.chars().next()) else {
            self.i = self.bytes.len();
            return;
        };
        self.i += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
    }

    fn bump_while(&mut self, keep: impl Fn(u8) -> bool) {
        while self.i < self.bytes.len() && keep(self.bytes[self.i]) {
            self.bump();
        }
    }

    fn push(&mut self, tok: Tok, pos: Pos, start: usize) {
        self.tokens.push(Token {
            tok,
            pos,
            start,
            end: self.i,
        });
        self.last_token_line = pos.line;
        self.end_of_last = self.pos();
    }

    fn run(&mut self) -> Result<(), ParseError> {
        while self.i < self.bytes.len() {
            let b = self.bytes[self.i];
            let (pos, start) = (self.pos(), self.i);
            match b {
                b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c => self.bump(),
                b'/' if self.peek(1) == b'/' => self.line_comment(pos, start),
                b'/' if self.peek(1) == b'*' => self.block_comment(pos)?,
                b'.' => {
                    self.bump();
                    let name = self.dotted_name(pos)?;
                    self.push(Tok::Dot(name), pos, start);
                }
                b'%' => {
                    self.bump();
                    let from = self.i;
                    self.bump_while(is_name_char);
                    if self.i == from {
                        return Err(ParseError::new(pos, "expected a register name after `%`"));
                    }
                    let name = self.src[start..self.i].to_string();
                    self.push(Tok::Reg(name), pos, start);
                }
                b'"' => {
                    let text = self.string(pos)?;
                    self.push(Tok::Str(text), pos, start);
                }
                b'0'..=b'9' => {
                    let tok = self.number(pos)?;
                    self.push(tok, pos, start);
                }
                _ if is_name_start(b) => {
                    self.bump_while(is_name_char);
                    let name = self.src[start..self.i].to_string();
                    self.push(Tok::Ident(name), pos, start);
                }
                b',' | b';' | b':' | b'{' | b'}' | b'[' | b']' | b'(' | b')' | b'<' | b'>'
                | b'+' | b'-' | b'@' | b'!' | b'|' | b'=' => {
                    self.bump();
                    self.push(Tok::Punct(char::from(b)), pos, start);
                }
                _ => {
                    let c = self.src.get(self.i..).and_then(|s| s.chars().next());
                    let shown = c.map_or_else(|| format!("byte 0x{b:02x}"), |c| format!("{c:?}"));
                    return Err(ParseError::new(
                        pos,
                        format!("unexpected character {shown}: not part of PTX syntax"),
                    ));
                }
            }
        }
        Ok(())
    }

    fn line_comment(&mut self, pos: Pos, start: usize) {
        self.bump();
        self.bump();
        let from = self.i;
        self.bump_while(|b| b != b'\n');
        let text = self.src[from..self.i].trim_end().to_string();
        self.comments.push(RawComment {
            pos,
            start,
            text,
            own_line: self.last_token_line != pos.line,
        });
    }

    fn block_comment(&mut self, pos: Pos) -> Result<(), ParseError> {
        self.bump();
        self.bump();
        loop {
            if self.i >= self.bytes.len() {
                return Err(ParseError::new(
                    pos,
                    "unterminated `/*` comment: expected `*/`, found end of file",
                ));
            }
            if self.peek(0) == b'*' && self.peek(1) == b'/' {
                self.bump();
                self.bump();
                return Ok(());
            }
            self.bump();
        }
    }

    /// The name after a `.`: name characters, and `::`-joined parts (`shared::cta`, `L2::128B`).
    fn dotted_name(&mut self, pos: Pos) -> Result<String, ParseError> {
        let from = self.i;
        loop {
            let part = self.i;
            self.bump_while(is_name_char);
            if self.i == part {
                return Err(ParseError::new(
                    pos,
                    "expected a directive or modifier name after `.`",
                ));
            }
            if self.peek(0) == b':' && self.peek(1) == b':' && is_name_char(self.peek(2)) {
                self.bump();
                self.bump();
            } else {
                break;
            }
        }
        Ok(self.src[from..self.i].to_string())
    }

    fn string(&mut self, pos: Pos) -> Result<String, ParseError> {
        self.bump();
        let from = self.i;
        loop {
            if self.i >= self.bytes.len() || self.peek(0) == b'\n' {
                return Err(ParseError::new(
                    pos,
                    "unterminated string: expected `\"` before the end of the line",
                ));
            }
            match self.peek(0) {
                b'"' => break,
                b'\\' => {
                    self.bump();
                    if self.i < self.bytes.len() && self.peek(0) != b'\n' {
                        self.bump();
                    }
                }
                _ => self.bump(),
            }
        }
        let text = self.src[from..self.i].to_string();
        self.bump();
        Ok(text)
    }

    fn number(&mut self, pos: Pos) -> Result<Tok, ParseError> {
        let start = self.i;
        let (b0, b1) = (self.peek(0), self.peek(1));
        let tok = if b0 == b'0' && matches!(b1, b'f' | b'F' | b'd' | b'D') {
            self.bump();
            self.bump();
            let from = self.i;
            self.bump_while(|b| b.is_ascii_hexdigit());
            let digits = &self.src[from..self.i];
            let wide = matches!(b1, b'd' | b'D');
            let want = if wide { 16 } else { 8 };
            let bits = u64::from_str_radix(digits, 16)
                .ok()
                .filter(|_| digits.len() == want);
            match (bits, wide) {
                (Some(bits), true) => Tok::Float(FloatImm::F64Bits(bits)),
                (Some(bits), false) => Tok::Float(FloatImm::F32Bits(bits as u32)),
                (None, _) => {
                    return Err(ParseError::new(
                        pos,
                        format!(
                            "malformed float literal `{}`: `0{}` takes exactly {want} hex digits",
                            &self.src[start..self.i],
                            char::from(b1)
                        ),
                    ))
                }
            }
        } else if b0 == b'0' && matches!(b1, b'x' | b'X' | b'b' | b'B') {
            self.bump();
            self.bump();
            let (radix, base) = if matches!(b1, b'x' | b'X') {
                (Radix::Hex, 16)
            } else {
                (Radix::Binary, 2)
            };
            let from = self.i;
            self.bump_while(|b| b.is_ascii_hexdigit());
            self.int(pos, start, &self.src[from..self.i], radix, base)?
        } else {
            self.bump_while(|b| b.is_ascii_digit());
            let is_float = (self.peek(0) == b'.' && self.peek(1).is_ascii_digit())
                || matches!(self.peek(0), b'e' | b'E');
            if is_float {
                self.decimal_float(pos, start)?
            } else {
                let digits = &self.src[start..self.i];
                let (radix, base) = if digits.len() > 1 && digits.starts_with('0') {
                    (Radix::Octal, 8)
                } else {
                    (Radix::Decimal, 10)
                };
                let digits = if radix == Radix::Octal {
                    &digits[1..]
                } else {
                    digits
                };
                self.int(pos, start, digits, radix, base)?
            }
        };
        if is_name_char(self.peek(0)) {
            self.bump_while(is_name_char);
            return Err(ParseError::new(
                pos,
                format!("malformed number `{}`", &self.src[start..self.i]),
            ));
        }
        Ok(tok)
    }

    fn int(
        &mut self,
        pos: Pos,
        start: usize,
        digits: &str,
        radix: Radix,
        base: u32,
    ) -> Result<Tok, ParseError> {
        let value = u64::from_str_radix(digits, base).map_err(|_| {
            ParseError::new(
                pos,
                format!(
                    "malformed integer `{}`: expected {} digits that fit in 64 bits",
                    &self.src[start..self.i],
                    radix.name()
                ),
            )
        })?;
        let unsigned = self.peek(0) == b'U';
        if unsigned {
            self.bump();
        }
        Ok(Tok::Int(IntImm {
            negative: false,
            magnitude: value,
            radix,
            unsigned,
        }))
    }

    fn decimal_float(&mut self, pos: Pos, start: usize) -> Result<Tok, ParseError> {
        if self.peek(0) == b'.' {
            self.bump();
            self.bump_while(|b| b.is_ascii_digit());
        }
        if matches!(self.peek(0), b'e' | b'E') {
            self.bump();
            if matches!(self.peek(0), b'+' | b'-') {
                self.bump();
            }
            let from = self.i;
            self.bump_while(|b| b.is_ascii_digit());
            if self.i == from {
                return Err(ParseError::new(
                    pos,
                    format!(
                        "malformed float literal `{}`: expected exponent digits",
                        &self.src[start..self.i]
                    ),
                ));
            }
        }
        Ok(Tok::Float(FloatImm::Decimal(
            self.src[start..self.i].to_string(),
        )))
    }
}
