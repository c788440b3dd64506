//! A cursor over the token stream: looking ahead, consuming what is expected or saying what was found
//! instead, telling which tokens touch or share a line, and handing out the comments that stand alone
//! on their lines.

use super::error::{ParseError, Pos};
use super::lexer::{lex, RawComment, Tok, Token};

/// A `//` comment that stands on a line of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    /// Where the `//` is.
    pub pos: Pos,
    /// The text after `//`, trailing whitespace removed.
    pub text: String,
}

/// How deep `{ … }` blocks and initializer lists may nest: hostile input must not exhaust the stack.
pub(crate) const MAX_NESTING: u32 = 64;

pub(crate) struct Cursor {
    tokens: Vec<Token>,
    i: usize,
    comments: Vec<RawComment>,
    next_comment: usize,
}

impl Cursor {
    pub fn new(src: &str) -> Result<Cursor, ParseError> {
        let (tokens, comments) = lex(src)?;
        Ok(Cursor {
            tokens,
            i: 0,
            comments,
            next_comment: 0,
        })
    }

    /// The next token (the end-of-file token once everything is consumed).
    pub fn peek(&self) -> &Token {
        self.peek_nth(0)
    }

    /// The token `n` places ahead.
    pub fn peek_nth(&self, n: usize) -> &Token {
        let last = self.tokens.len() - 1;
        &self.tokens[(self.i + n).min(last)]
    }

    /// Consumes the next token (never past the end-of-file token).
    pub fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if self.i + 1 < self.tokens.len() {
            self.i += 1;
        }
        t
    }

    pub fn at_eof(&self) -> bool {
        self.peek().tok == Tok::Eof
    }

    pub fn is_punct(&self, c: char) -> bool {
        self.peek().tok == Tok::Punct(c)
    }

    pub fn eat_punct(&mut self, c: char) -> bool {
        let hit = self.is_punct(c);
        if hit {
            self.bump();
        }
        hit
    }

    /// Consumes `c`, or says that `c` was expected (`context` says why: "to close the address").
    pub fn expect_punct(&mut self, c: char, context: &str) -> Result<Pos, ParseError> {
        if self.is_punct(c) {
            Ok(self.bump().pos)
        } else {
            let what = if context.is_empty() {
                format!("`{c}`")
            } else {
                format!("`{c}` {context}")
            };
            Err(self.error(&what))
        }
    }

    /// The next token's name if it is `.name`.
    pub fn peek_dot(&self) -> Option<&str> {
        match &self.peek().tok {
            Tok::Dot(name) => Some(name),
            _ => None,
        }
    }

    pub fn is_dot(&self, name: &str) -> bool {
        self.peek_dot() == Some(name)
    }

    pub fn eat_dot(&mut self, name: &str) -> Option<Pos> {
        self.is_dot(name).then(|| self.bump().pos)
    }

    /// Consumes a plain name.
    pub fn expect_ident(&mut self, what: &str) -> Result<(String, Pos), ParseError> {
        match &self.peek().tok {
            Tok::Ident(name) => {
                let name = name.clone();
                Ok((name, self.bump().pos))
            }
            _ => Err(self.error(what)),
        }
    }

    /// Consumes a non-negative integer literal no larger than `max`.
    pub fn expect_uint(&mut self, what: &str, max: u64) -> Result<(u64, Pos), ParseError> {
        match &self.peek().tok {
            Tok::Int(v) if v.magnitude <= max => {
                let value = v.magnitude;
                Ok((value, self.bump().pos))
            }
            Tok::Int(v) => Err(ParseError::new(
                self.peek().pos,
                format!("{what} must be at most {max}, found {}", v.magnitude),
            )),
            _ => Err(self.error(what)),
        }
    }

    /// [`Cursor::expect_uint`] for values that fit in `u32`.
    pub fn expect_u32(&mut self, what: &str) -> Result<(u32, Pos), ParseError> {
        let (v, pos) = self.expect_uint(what, u64::from(u32::MAX))?;
        Ok((v as u32, pos))
    }

    /// Whether the next token directly follows the previous one, with no space between.
    pub fn touches_previous(&self) -> bool {
        self.i > 0 && self.tokens[self.i - 1].end == self.peek().start && !self.at_eof()
    }

    /// Whether the next token is on the line where the previous one is (directives such as `.loc`
    /// end at the newline).
    pub fn on_previous_line(&self) -> bool {
        self.i > 0 && !self.at_eof() && self.tokens[self.i - 1].pos.line == self.peek().pos.line
    }

    /// "expected `what`, found …" at the next token.
    pub fn error(&self, expected: &str) -> ParseError {
        let t = self.peek();
        ParseError::new(
            t.pos,
            format!("expected {expected}, found {}", describe(&t.tok)),
        )
    }

    /// The comments between the previous token and the next one that stand alone on their lines.
    /// Comments that trail a token on its line, and comments inside a construct (before the previous
    /// token), are dropped.
    pub fn take_comments(&mut self) -> Vec<Comment> {
        let until = self.peek().start;
        let after = if self.i == 0 {
            0
        } else {
            self.tokens[self.i - 1].end
        };
        let mut out = Vec::new();
        while let Some(c) = self.comments.get(self.next_comment) {
            if c.start >= until {
                break;
            }
            if c.own_line && c.start >= after {
                out.push(Comment {
                    pos: c.pos,
                    text: c.text.clone(),
                });
            }
            self.next_comment += 1;
        }
        out
    }
}

/// A token as an error message shows it.
pub(crate) fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Dot(name) => format!("`.{name}`"),
        Tok::Ident(name) | Tok::Reg(name) => format!("`{name}`"),
        Tok::Int(v) => format!("the integer `{v}`"),
        Tok::Float(v) => format!("the number `{v}`"),
        Tok::Str(s) => format!("the string \"{s}\""),
        Tok::Punct(c) => format!("`{c}`"),
        Tok::Eof => "end of file".into(),
    }
}
