//! `app.calculate`: a small scientific calculator for arithmetic the model asks trusted code to do.
//!
//! Language models are good at deciding *what* to compute and unreliable at computing it, so the
//! model hands the expression to this tool. The expression is untrusted text: it is read by a
//! hand-written recursive-descent parser (nothing is ever `eval`ed), its length and nesting are
//! capped before they can cost time or stack, and every failure carries a stable code
//! ([`CalcError::code`]). The module is pure computation over `f64`: no I/O, threads or clock, so
//! it builds for `wasm32-unknown-unknown` as well as natively.
//!
//! Grammar, from loosest to tightest binding:
//!
//! ```text
//! expression := term (('+' | '-') term)*
//! term       := unary (('*' | '×' | '/' | '÷' | 'mod') unary)*
//! unary      := ('+' | '-') unary | power
//! power      := postfix ('^' unary)?          right-associative: 2^3^2 = 2^9
//! postfix    := primary '%'*                  percent: 50% = 0.5, so 200 * 15% = 30
//! primary    := number | constant | function '(' expression (',' expression)* ')'
//!             | '(' expression ')'
//! ```
//!
//! Because `^` binds tighter than unary minus, `-2^2` is `-4`; its exponent may carry a sign
//! (`2^-1` is `0.5`). Numbers are decimal (`3`, `.5`, `2.`) with an optional exponent (`1e3`,
//! `2.5E-4`); thousands separators are not accepted, since `1,000` would be ambiguous with an
//! argument list. Names are case-insensitive: the constants `pi` and `e`, and the functions `sqrt
//! abs round floor ceil ln log10 log2 exp sin cos tan asin acos atan` (one argument; angles in
//! radians; `round` rounds half away from zero) and `min max` (one or more). `a mod b` is the
//! remainder of truncating division, whose sign follows `a` (as JavaScript's `%`): `-7 mod 3` is
//! `-1`.

use std::str::FromStr;

use rust_decimal::{Decimal, RoundingStrategy};
use serde::Serialize;
use thiserror::Error;

/// Longest accepted expression, in characters.
pub const MAX_EXPRESSION_CHARS: usize = 1_000;

/// Deepest accepted nesting. Each parenthesised group, function call, unary sign and `^`
/// exponent is one level; the limit bounds the parser's recursion and so its stack use.
pub const MAX_DEPTH: usize = 64;

/// Most decimals `calculate` will round to.
pub const MAX_PRECISION: u32 = 6;

/// Why an expression could not be calculated. [`CalcError::code`] gives the stable code.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum CalcError {
    #[error("the expression is empty")]
    Empty,
    #[error("the expression is longer than {max} characters")]
    TooLong { max: usize },
    #[error("the expression nests deeper than {max} levels")]
    TooDeep { max: usize },
    /// `offset` counts characters (not bytes) from the start of the expression.
    #[error("{message} at {offset}")]
    Syntax { offset: usize, message: String },
    #[error("unknown name '{name}' at {offset}")]
    UnknownName { name: String, offset: usize },
    #[error("{function}() takes {expected} argument(s), got {found}")]
    Arity { function: &'static str, expected: &'static str, found: usize },
    #[error("division by zero")]
    DivideByZero,
    #[error("{function} is undefined for {argument}")]
    Domain { function: &'static str, argument: f64 },
    #[error("the result is not a finite number (it overflowed)")]
    NotFinite,
    #[error("precision {precision} is outside 0..={max}")]
    BadPrecision { precision: u32, max: u32 },
}

impl CalcError {
    /// The stable, machine-readable code of the error, e.g. `CALC_SYNTAX`.
    pub fn code(&self) -> &'static str {
        match self {
            CalcError::Empty => "CALC_EMPTY",
            CalcError::TooLong { .. } => "CALC_TOO_LONG",
            CalcError::TooDeep { .. } => "CALC_TOO_DEEP",
            CalcError::Syntax { .. } => "CALC_SYNTAX",
            CalcError::UnknownName { .. } => "CALC_UNKNOWN_NAME",
            CalcError::Arity { .. } => "CALC_ARITY",
            CalcError::DivideByZero => "CALC_DIVIDE_BY_ZERO",
            CalcError::Domain { .. } => "CALC_DOMAIN",
            CalcError::NotFinite => "CALC_NOT_FINITE",
            CalcError::BadPrecision { .. } => "CALC_BAD_PRECISION",
        }
    }
}

/// The result of `app.calculate`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Calculation {
    /// The value, rounded half away from zero when a precision was asked for.
    pub result: f64,
    /// With a precision: the rounded value with exactly that many decimals (`"3.10"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub formatted: Option<String>,
}

/// Evaluates `expression`. Never returns a non-finite number, nor `-0`.
pub fn evaluate(expression: &str) -> Result<f64, CalcError> {
    // Length first, counting no further than the limit, so a huge input costs almost nothing.
    if expression.chars().nth(MAX_EXPRESSION_CHARS).is_some() {
        return Err(CalcError::TooLong { max: MAX_EXPRESSION_CHARS });
    }
    if expression.trim().is_empty() {
        return Err(CalcError::Empty);
    }
    let (tokens, end) = tokenize(expression)?;
    let mut parser = Parser { tokens, end, position: 0, depth: 0 };
    let value = parser.parse_expression()?;
    let trailing = parser.peek();
    if trailing.kind != TokenKind::End {
        return Err(unexpected(trailing));
    }
    let value = value?;
    Ok(if value == 0.0 { 0.0 } else { value })
}

/// Evaluates `expression` and, when `precision` is given, rounds the result to that many
/// decimals (half away from zero) and formats it with exactly that many.
pub fn calculate(expression: &str, precision: Option<u32>) -> Result<Calculation, CalcError> {
    if let Some(precision) = precision.filter(|&precision| precision > MAX_PRECISION) {
        return Err(CalcError::BadPrecision { precision, max: MAX_PRECISION });
    }
    let value = evaluate(expression)?;
    match precision {
        None => Ok(Calculation { result: value, formatted: None }),
        Some(decimals) => {
            let formatted = format_rounded(value, decimals);
            let result = formatted.parse::<f64>().map_err(|_| CalcError::NotFinite)?;
            Ok(Calculation { result, formatted: Some(formatted) })
        }
    }
}

/// Formats `value` rounded half away from zero to exactly `decimals` decimals.
///
/// Rounding is done on the shortest decimal string that round-trips to `value` — the number a
/// person reads — not on its binary approximation: `1.005` is stored as 1.00499999999999989…,
/// so scaling by 100 and rounding in `f64` gives `1.00`, whereas the decimal `1.005` gives
/// `1.01`.
fn format_rounded(value: f64, decimals: u32) -> String {
    let shortest = value.to_string(); // `Display` for f64 never uses an exponent
    let rounded = Decimal::from_str(&shortest).ok().and_then(|exact| {
        let mut rounded = exact.round_dp_with_strategy(decimals, RoundingStrategy::MidpointAwayFromZero);
        rounded.rescale(decimals);
        // `rescale` settles for a smaller scale when the mantissa cannot hold the one asked for.
        (rounded.scale() == decimals).then(|| rounded.to_string())
    });
    // Beyond `Decimal`'s 28 digits, an f64's shortest form is either an integer (at least 2^53,
    // so nothing to round: pad it) or a tiny fraction, which f64's own exact fixed-point
    // formatting rounds correctly since no midpoint lies that close to zero.
    let text = rounded.unwrap_or_else(|| match shortest.contains('.') {
        true => format!("{value:.prec$}", prec = decimals as usize),
        false if decimals == 0 => shortest,
        false => format!("{shortest}.{}", "0".repeat(decimals as usize)),
    });
    match text.strip_prefix('-') {
        Some(magnitude) if magnitude.chars().all(|c| c == '0' || c == '.') => magnitude.to_string(),
        _ => text,
    }
}

// ---------------------------------------------------------------------------------------------
// Tokens

#[derive(Debug, Clone, Copy, PartialEq)]
enum TokenKind {
    Number(f64),
    Name,
    Plus,
    Minus,
    Times,
    Divide,
    Power,
    Percent,
    OpenParen,
    CloseParen,
    Comma,
    End,
}

#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    kind: TokenKind,
    /// The token's source text, for error messages and name lookup.
    text: &'a str,
    /// Character offset of the token's first character.
    offset: usize,
}

/// Splits `expression` into tokens, and returns the end-of-input token separately.
fn tokenize(expression: &str) -> Result<(Vec<Token<'_>>, Token<'_>), CalcError> {
    let chars: Vec<(usize, char)> = expression.char_indices().collect();
    let byte_index = |offset: usize| chars.get(offset).map_or(expression.len(), |&(byte, _)| byte);
    let mut tokens = Vec::new();
    let mut offset = 0;
    while let Some(&(_, c)) = chars.get(offset) {
        if c.is_whitespace() {
            offset += 1;
            continue;
        }
        let (kind, end) = match c {
            '+' => (TokenKind::Plus, offset + 1),
            '-' => (TokenKind::Minus, offset + 1),
            '*' | '×' => (TokenKind::Times, offset + 1),
            '/' | '÷' => (TokenKind::Divide, offset + 1),
            '^' => (TokenKind::Power, offset + 1),
            '%' => (TokenKind::Percent, offset + 1),
            '(' => (TokenKind::OpenParen, offset + 1),
            ')' => (TokenKind::CloseParen, offset + 1),
            ',' => (TokenKind::Comma, offset + 1),
            '0'..='9' | '.' => {
                let end = scan_number(&chars, offset);
                let text = &expression[byte_index(offset)..byte_index(end)];
                let value = text
                    .parse::<f64>()
                    .map_err(|_| CalcError::Syntax { offset, message: format!("malformed number '{text}'") })?;
                (TokenKind::Number(value), end)
            }
            c if c.is_ascii_alphabetic() => {
                let mut end = offset + 1;
                while chars.get(end).is_some_and(|&(_, c)| c.is_ascii_alphanumeric() || c == '_') {
                    end += 1;
                }
                (TokenKind::Name, end)
            }
            other => {
                return Err(CalcError::Syntax { offset, message: format!("unexpected character '{other}'") });
            }
        };
        tokens.push(Token { kind, text: &expression[byte_index(offset)..byte_index(end)], offset });
        offset = end;
    }
    let end = Token { kind: TokenKind::End, text: "", offset: chars.len() };
    Ok((tokens, end))
}

/// Returns the character offset just past the number starting at `start`: digits, an optional
/// fraction and an optional exponent. Whether the digits form a valid number (`.` alone does
/// not) is left to `f64`'s parser.
fn scan_number(chars: &[(usize, char)], start: usize) -> usize {
    let is_digit = |offset: usize| chars.get(offset).is_some_and(|&(_, c)| c.is_ascii_digit());
    let is_one_of = |offset: usize, set: &[char]| chars.get(offset).is_some_and(|(_, c)| set.contains(c));
    let mut end = start;
    while is_digit(end) {
        end += 1;
    }
    if is_one_of(end, &['.']) {
        end += 1;
        while is_digit(end) {
            end += 1;
        }
    }
    // An exponent only when digits follow, so that in `2e` the `e` stays a name (and `2e` a
    // syntax error, there being no implicit multiplication) rather than a malformed number.
    if is_one_of(end, &['e', 'E']) {
        let mut exponent = end + 1;
        if is_one_of(exponent, &['+', '-']) {
            exponent += 1;
        }
        if is_digit(exponent) {
            end = exponent;
            while is_digit(end) {
                end += 1;
            }
        }
    }
    end
}

fn unexpected(token: Token<'_>) -> CalcError {
    let message = match token.kind {
        TokenKind::End => "unexpected end of expression".to_string(),
        _ => format!("unexpected '{}'", token.text),
    };
    CalcError::Syntax { offset: token.offset, message }
}

fn expected(what: &str, found: Token<'_>) -> CalcError {
    let message = match found.kind {
        TokenKind::End => format!("expected {what} but the expression ended"),
        _ => format!("expected {what} but found '{}'", found.text),
    };
    CalcError::Syntax { offset: found.offset, message }
}

// ---------------------------------------------------------------------------------------------
// Parser and evaluator

/// The value of a sub-expression, or the arithmetic error met computing it.
///
/// The parser computes values as it goes but keeps these errors apart from its own: parse
/// functions return `Result<Value, CalcError>`, whose outer error (syntax, names, arity, limits)
/// stops parsing, while an arithmetic error only travels up inside the value. So a malformed
/// expression is reported as malformed even when it also divides by zero (`1/0 + )`).
type Value = Result<f64, CalcError>;

struct Parser<'a> {
    tokens: Vec<Token<'a>>,
    end: Token<'a>,
    position: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Token<'a> {
        self.tokens.get(self.position).copied().unwrap_or(self.end)
    }

    fn advance(&mut self) {
        self.position += 1;
    }

    fn is_keyword(token: Token<'_>, keyword: &str) -> bool {
        token.kind == TokenKind::Name && token.text.eq_ignore_ascii_case(keyword)
    }

    /// Runs `parse` one nesting level deeper, refusing to go past [`MAX_DEPTH`].
    fn nested<T>(&mut self, parse: impl FnOnce(&mut Self) -> Result<T, CalcError>) -> Result<T, CalcError> {
        if self.depth >= MAX_DEPTH {
            return Err(CalcError::TooDeep { max: MAX_DEPTH });
        }
        self.depth += 1;
        let result = parse(self);
        self.depth -= 1;
        result
    }

    fn parse_expression(&mut self) -> Result<Value, CalcError> {
        let mut value = self.parse_term()?;
        loop {
            let operation: fn(f64, f64) -> Value = match self.peek().kind {
                TokenKind::Plus => |a, b| finite(a + b),
                TokenKind::Minus => |a, b| finite(a - b),
                _ => return Ok(value),
            };
            self.advance();
            let right = self.parse_term()?;
            value = apply_binary(value, right, operation);
        }
    }

    fn parse_term(&mut self) -> Result<Value, CalcError> {
        let mut value = self.parse_unary()?;
        loop {
            let token = self.peek();
            let operation: fn(f64, f64) -> Value = match token.kind {
                TokenKind::Times => |a, b| finite(a * b),
                TokenKind::Divide => divide,
                _ if Self::is_keyword(token, "mod") => remainder,
                _ => return Ok(value),
            };
            self.advance();
            let right = self.parse_unary()?;
            value = apply_binary(value, right, operation);
        }
    }

    fn parse_unary(&mut self) -> Result<Value, CalcError> {
        let negate = match self.peek().kind {
            TokenKind::Plus => false,
            TokenKind::Minus => true,
            _ => return self.parse_power(),
        };
        self.advance();
        let operand = self.nested(Self::parse_unary)?;
        Ok(if negate { operand.map(|x| -x) } else { operand })
    }

    fn parse_power(&mut self) -> Result<Value, CalcError> {
        let base = self.parse_postfix()?;
        if self.peek().kind != TokenKind::Power {
            return Ok(base);
        }
        self.advance();
        // The exponent is a whole `unary`, which may itself contain `^`: right-associativity.
        let exponent = self.nested(Self::parse_unary)?;
        Ok(apply_binary(base, exponent, power))
    }

    fn parse_postfix(&mut self) -> Result<Value, CalcError> {
        let mut value = self.parse_primary()?;
        while self.peek().kind == TokenKind::Percent {
            self.advance();
            value = value.map(|x| x / 100.0);
        }
        Ok(value)
    }

    fn parse_primary(&mut self) -> Result<Value, CalcError> {
        let token = self.peek();
        match token.kind {
            TokenKind::Number(x) => {
                self.advance();
                Ok(finite(x))
            }
            TokenKind::OpenParen => {
                self.advance();
                self.nested(|parser| {
                    let value = parser.parse_expression()?;
                    parser.expect_close_paren()?;
                    Ok(value)
                })
            }
            TokenKind::Name => self.parse_name(token),
            _ => Err(unexpected(token)),
        }
    }

    fn expect_close_paren(&mut self) -> Result<(), CalcError> {
        let token = self.peek();
        if token.kind != TokenKind::CloseParen {
            return Err(expected("')'", token));
        }
        self.advance();
        Ok(())
    }

    fn parse_name(&mut self, token: Token<'_>) -> Result<Value, CalcError> {
        let name = token.text.to_ascii_lowercase();
        if let Some(value) = constant(&name) {
            self.advance();
            return Ok(Ok(value));
        }
        if let Some(function) = Function::from_name(&name) {
            self.advance();
            return self.parse_call(function);
        }
        if name == "mod" {
            // A binary operator met where an operand should be, as in `mod 3`.
            return Err(unexpected(token));
        }
        Err(CalcError::UnknownName { name: token.text.to_string(), offset: token.offset })
    }

    fn parse_call(&mut self, function: Function) -> Result<Value, CalcError> {
        let open = self.peek();
        if open.kind != TokenKind::OpenParen {
            return Err(expected(&format!("'(' after {}", function.name()), open));
        }
        self.advance();
        let arguments = self.nested(Self::parse_arguments)?;
        if !function.accepts(arguments.len()) {
            return Err(CalcError::Arity {
                function: function.name(),
                expected: function.expected_arguments(),
                found: arguments.len(),
            });
        }
        let arguments: Result<Vec<f64>, CalcError> = arguments.into_iter().collect();
        Ok(arguments.and_then(|arguments| function.apply(&arguments)))
    }

    /// Parses `a, b, …)` after a function's opening parenthesis, consuming the closing one.
    fn parse_arguments(&mut self) -> Result<Vec<Value>, CalcError> {
        let mut arguments = Vec::new();
        if self.peek().kind == TokenKind::CloseParen {
            self.advance();
            return Ok(arguments);
        }
        loop {
            arguments.push(self.parse_expression()?);
            let token = self.peek();
            match token.kind {
                TokenKind::Comma => self.advance(),
                TokenKind::CloseParen => {
                    self.advance();
                    return Ok(arguments);
                }
                _ => return Err(expected("',' or ')'", token)),
            }
        }
    }
}

fn apply_binary(left: Value, right: Value, operation: fn(f64, f64) -> Value) -> Value {
    operation(left?, right?)
}

/// Every value is checked as it is made, so an overflow is reported where it happens rather
/// than laundered into a finite result (`1 / 1e400` would otherwise be `0`).
fn finite(x: f64) -> Value {
    if x.is_finite() { Ok(x) } else { Err(CalcError::NotFinite) }
}

fn divide(dividend: f64, divisor: f64) -> Value {
    if divisor == 0.0 {
        return Err(CalcError::DivideByZero);
    }
    finite(dividend / divisor)
}

fn remainder(dividend: f64, divisor: f64) -> Value {
    if divisor == 0.0 {
        return Err(CalcError::DivideByZero);
    }
    finite(dividend % divisor)
}

fn power(base: f64, exponent: f64) -> Value {
    let result = base.powf(exponent);
    // From finite operands, NaN only comes of a negative base under a fractional exponent.
    if result.is_nan() {
        return Err(CalcError::Domain { function: "^", argument: base });
    }
    finite(result)
}

fn constant(name: &str) -> Option<f64> {
    match name {
        "pi" => Some(std::f64::consts::PI),
        "e" => Some(std::f64::consts::E),
        _ => None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Function {
    Sqrt,
    Abs,
    Round,
    Floor,
    Ceil,
    Ln,
    Log10,
    Log2,
    Exp,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Min,
    Max,
}

impl Function {
    const ALL: [Function; 17] = [
        Function::Sqrt,
        Function::Abs,
        Function::Round,
        Function::Floor,
        Function::Ceil,
        Function::Ln,
        Function::Log10,
        Function::Log2,
        Function::Exp,
        Function::Sin,
        Function::Cos,
        Function::Tan,
        Function::Asin,
        Function::Acos,
        Function::Atan,
        Function::Min,
        Function::Max,
    ];

    /// Looks a function up by its lower-case name.
    fn from_name(name: &str) -> Option<Function> {
        Function::ALL.into_iter().find(|function| function.name() == name)
    }

    fn name(self) -> &'static str {
        match self {
            Function::Sqrt => "sqrt",
            Function::Abs => "abs",
            Function::Round => "round",
            Function::Floor => "floor",
            Function::Ceil => "ceil",
            Function::Ln => "ln",
            Function::Log10 => "log10",
            Function::Log2 => "log2",
            Function::Exp => "exp",
            Function::Sin => "sin",
            Function::Cos => "cos",
            Function::Tan => "tan",
            Function::Asin => "asin",
            Function::Acos => "acos",
            Function::Atan => "atan",
            Function::Min => "min",
            Function::Max => "max",
        }
    }

    fn is_variadic(self) -> bool {
        matches!(self, Function::Min | Function::Max)
    }

    fn accepts(self, count: usize) -> bool {
        if self.is_variadic() { count >= 1 } else { count == 1 }
    }

    fn expected_arguments(self) -> &'static str {
        if self.is_variadic() { "at least 1" } else { "exactly 1" }
    }

    /// Applies the function to arguments whose count [`Function::accepts`].
    fn apply(self, arguments: &[f64]) -> Value {
        match (self, arguments) {
            (Function::Min, [first, rest @ ..]) => Ok(rest.iter().fold(*first, |a, &b| a.min(b))),
            (Function::Max, [first, rest @ ..]) => Ok(rest.iter().fold(*first, |a, &b| a.max(b))),
            (_, [x]) if !self.is_variadic() => self.apply_to_one(*x),
            _ => Err(CalcError::Arity {
                function: self.name(),
                expected: self.expected_arguments(),
                found: arguments.len(),
            }),
        }
    }

    fn apply_to_one(self, x: f64) -> Value {
        let in_domain = match self {
            Function::Sqrt => x >= 0.0,
            Function::Ln | Function::Log10 | Function::Log2 => x > 0.0,
            Function::Asin | Function::Acos => (-1.0..=1.0).contains(&x),
            _ => true,
        };
        if !in_domain {
            return Err(CalcError::Domain { function: self.name(), argument: x });
        }
        finite(match self {
            Function::Sqrt => x.sqrt(),
            Function::Abs => x.abs(),
            Function::Round => x.round(),
            Function::Floor => x.floor(),
            Function::Ceil => x.ceil(),
            Function::Ln => x.ln(),
            Function::Log10 => x.log10(),
            Function::Log2 => x.log2(),
            Function::Exp => x.exp(),
            Function::Sin => x.sin(),
            Function::Cos => x.cos(),
            Function::Tan => x.tan(),
            Function::Asin => x.asin(),
            Function::Acos => x.acos(),
            Function::Atan => x.atan(),
            // Variadic: `apply` handles them and never sends them here.
            Function::Min | Function::Max => x,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn eval(expression: &str) -> f64 {
        match evaluate(expression) {
            Ok(value) => value,
            Err(error) => panic!("{expression:?} failed: {error}"),
        }
    }

    fn code(expression: &str) -> &'static str {
        match evaluate(expression) {
            Ok(value) => panic!("{expression:?} evaluated to {value}, expected an error"),
            Err(error) => error.code(),
        }
    }

    fn assert_close(actual: f64, expected: f64) {
        assert!((actual - expected).abs() <= 1e-12 * expected.abs().max(1.0), "{actual} != {expected}");
    }

    #[test]
    fn numbers() {
        assert_eq!(eval("42"), 42.0);
        assert_eq!(eval("3.25"), 3.25);
        assert_eq!(eval(".5"), 0.5);
        assert_eq!(eval("2."), 2.0);
        assert_eq!(eval("1e3"), 1000.0);
        assert_eq!(eval("2.5E-1"), 0.25);
        assert_eq!(eval("1e+2"), 100.0);
        assert_eq!(eval("  7  "), 7.0);
    }

    #[test]
    fn precedence() {
        assert_eq!(eval("1 + 2 * 3"), 7.0);
        assert_eq!(eval("(1 + 2) * 3"), 9.0);
        assert_eq!(eval("2 * 3 ^ 2"), 18.0);
        assert_eq!(eval("10 - 4 / 2"), 8.0);
        assert_eq!(eval("-2^2"), -4.0);
        assert_eq!(eval("(-2)^2"), 4.0);
        assert_eq!(eval("2^-1"), 0.5);
        assert_eq!(eval("2 * -3"), -6.0);
        assert_eq!(eval("- -3"), 3.0);
        assert_eq!(eval("+3"), 3.0);
        assert_eq!(eval("1 + 7 mod 4 * 2"), 1.0 + (7.0 % 4.0) * 2.0);
    }

    #[test]
    fn associativity() {
        assert_eq!(eval("10 - 4 - 3"), 3.0);
        assert_eq!(eval("100 / 10 / 5"), 2.0);
        assert_eq!(eval("2 ^ 3 ^ 2"), 512.0);
        assert_eq!(eval("(2 ^ 3) ^ 2"), 64.0);
        assert_eq!(eval("2 ^ -3 ^ 2"), 2f64.powi(-9));
        assert_eq!(eval("20 mod 7 mod 4"), 2.0);
    }

    #[test]
    fn percent() {
        assert_eq!(eval("50%"), 0.5);
        assert_eq!(eval("200 * 15%"), 30.0);
        assert_eq!(eval("-50%"), -0.5);
        assert_eq!(eval("(20 + 30)%"), 0.5);
        assert_eq!(eval("50%%"), 0.005);
        assert_eq!(eval("4 ^ 50%"), 2.0);
    }

    #[test]
    fn remainder_follows_the_dividend_sign() {
        assert_eq!(eval("7 mod 3"), 1.0);
        assert_eq!(eval("-7 mod 3"), -1.0);
        assert_eq!(eval("7 mod -3"), 1.0);
        assert_eq!(eval("5.5 MOD 2"), 1.5);
    }

    #[test]
    fn unicode_operators() {
        assert_eq!(eval("6 × 7"), 42.0);
        assert_eq!(eval("84÷2"), 42.0);
    }

    #[test]
    fn constants_and_case() {
        assert_eq!(eval("pi"), std::f64::consts::PI);
        assert_eq!(eval("PI"), std::f64::consts::PI);
        assert_eq!(eval("e"), std::f64::consts::E);
        assert_eq!(eval("2 * Pi"), 2.0 * std::f64::consts::PI);
        assert_eq!(eval("SQRT(16)"), 4.0);
    }

    #[test]
    fn functions() {
        assert_eq!(eval("sqrt(16)"), 4.0);
        assert_eq!(eval("abs(-3)"), 3.0);
        assert_eq!(eval("round(2.5)"), 3.0);
        assert_eq!(eval("round(-2.5)"), -3.0);
        assert_eq!(eval("floor(-2.5)"), -3.0);
        assert_eq!(eval("ceil(2.1)"), 3.0);
        assert_close(eval("ln(e)"), 1.0);
        assert_eq!(eval("log10(1000)"), 3.0);
        assert_eq!(eval("log2(8)"), 3.0);
        assert_close(eval("exp(1)"), std::f64::consts::E);
        assert_close(eval("sin(pi / 2)"), 1.0);
        assert_close(eval("cos(0)"), 1.0);
        assert_close(eval("tan(pi / 4)"), 1.0);
        assert_close(eval("asin(1)"), std::f64::consts::FRAC_PI_2);
        assert_close(eval("acos(1)"), 0.0);
        assert_close(eval("atan(1)"), std::f64::consts::FRAC_PI_4);
        assert_eq!(eval("min(3)"), 3.0);
        assert_eq!(eval("min(3, -1, 2)"), -1.0);
        assert_eq!(eval("max(3, -1, 2 * 5)"), 10.0);
        assert_eq!(eval("sqrt(max(9, 4)) + min(1, 2)"), 4.0);
    }

    #[test]
    fn negative_zero_is_normalised() {
        assert!(eval("-0").is_sign_positive());
        assert!(eval("0 * -1").is_sign_positive());
    }

    #[test]
    fn empty() {
        assert_eq!(code(""), "CALC_EMPTY");
        assert_eq!(code("   \t\n"), "CALC_EMPTY");
    }

    #[test]
    fn syntax_errors_carry_the_character_offset() {
        assert_eq!(evaluate("(1 + 2))"), Err(CalcError::Syntax { offset: 7, message: "unexpected ')'".to_string() }));
        assert_eq!(evaluate("(1 + 2))").map_err(|error| error.to_string()), Err("unexpected ')' at 7".to_string()));
        // Offsets count characters, not bytes.
        assert_eq!(evaluate("2 × × 3"), Err(CalcError::Syntax { offset: 4, message: "unexpected '×'".to_string() }));
        assert_eq!(
            evaluate("1 +"),
            Err(CalcError::Syntax { offset: 3, message: "unexpected end of expression".to_string() })
        );
        for malformed in [
            "1 + * 2", "(1 + 2", "1 2", "1,000", "sqrt 4", "2e", "1.2.3", ".", "3 $", "mod 3", "max(1,)", "()",
            "1 % 3", "pi(2)",
        ] {
            assert_eq!(code(malformed), "CALC_SYNTAX", "{malformed}");
        }
    }

    #[test]
    fn syntax_errors_win_over_arithmetic_errors() {
        assert_eq!(code("1 / 0 + )"), "CALC_SYNTAX");
        assert_eq!(code("sqrt(-1) + foo"), "CALC_UNKNOWN_NAME");
    }

    #[test]
    fn unknown_names() {
        assert_eq!(evaluate("2 * Foo"), Err(CalcError::UnknownName { name: "Foo".to_string(), offset: 4 }));
        assert_eq!(code("eval(1)"), "CALC_UNKNOWN_NAME");
        assert_eq!(code("x + 1"), "CALC_UNKNOWN_NAME");
    }

    #[test]
    fn arity() {
        assert_eq!(evaluate("sqrt(1, 2)"), Err(CalcError::Arity { function: "sqrt", expected: "exactly 1", found: 2 }));
        assert_eq!(code("sqrt()"), "CALC_ARITY");
        assert_eq!(code("min()"), "CALC_ARITY");
        assert_eq!(code("max()"), "CALC_ARITY");
    }

    #[test]
    fn divide_by_zero() {
        assert_eq!(code("1 / 0"), "CALC_DIVIDE_BY_ZERO");
        assert_eq!(code("1 / -0"), "CALC_DIVIDE_BY_ZERO");
        assert_eq!(code("1 / (2 - 2)"), "CALC_DIVIDE_BY_ZERO");
        assert_eq!(code("5 mod 0"), "CALC_DIVIDE_BY_ZERO");
        assert_eq!(eval("0 / 5"), 0.0);
    }

    #[test]
    fn domain() {
        assert_eq!(evaluate("sqrt(-4)"), Err(CalcError::Domain { function: "sqrt", argument: -4.0 }));
        for outside in ["ln(0)", "ln(-1)", "log10(0)", "log2(-8)", "asin(1.5)", "acos(-1.01)", "(-8)^(1/3)"] {
            assert_eq!(code(outside), "CALC_DOMAIN", "{outside}");
        }
    }

    #[test]
    fn not_finite() {
        for overflow in ["1e308 * 10", "exp(1000)", "10^400", "1e400", "1 / 1e400", "0 ^ -1"] {
            assert_eq!(code(overflow), "CALC_NOT_FINITE", "{overflow}");
        }
    }

    #[test]
    fn bad_precision() {
        assert_eq!(calculate("1", Some(7)), Err(CalcError::BadPrecision { precision: 7, max: MAX_PRECISION }));
        assert_eq!(calculate("1", Some(7)).map_err(|error| error.code()), Err("CALC_BAD_PRECISION"));
        assert!(calculate("1", Some(6)).is_ok());
    }

    #[test]
    fn length_limit() {
        let sum = format!("1{}", " +1".repeat((MAX_EXPRESSION_CHARS - 1) / 3));
        assert_eq!(sum.chars().count(), MAX_EXPRESSION_CHARS);
        assert_eq!(eval(&sum), 334.0);
        assert_eq!(code(&"1".repeat(MAX_EXPRESSION_CHARS)), "CALC_NOT_FINITE"); // 10^999: long is fine
        assert_eq!(code(&"1".repeat(MAX_EXPRESSION_CHARS + 1)), "CALC_TOO_LONG");
        // Characters, not bytes: 1,000 two-byte characters are within the limit.
        assert_eq!(code(&"×".repeat(MAX_EXPRESSION_CHARS)), "CALC_SYNTAX");

        let huge = "(".repeat(100_000);
        let started = std::time::Instant::now();
        assert_eq!(code(&huge), "CALC_TOO_LONG");
        assert_eq!(code(&" ".repeat(100_000)), "CALC_TOO_LONG");
        assert!(started.elapsed() < std::time::Duration::from_millis(100));
    }

    #[test]
    fn depth_limit() {
        let nested = |levels: usize| format!("{}1{}", "(".repeat(levels), ")".repeat(levels));
        assert_eq!(eval(&nested(MAX_DEPTH)), 1.0);
        assert_eq!(code(&nested(MAX_DEPTH + 1)), "CALC_TOO_DEEP");
        // Unclosed parentheses hit the depth limit before the missing ')' is noticed.
        assert_eq!(code(&"(".repeat(MAX_EXPRESSION_CHARS)), "CALC_TOO_DEEP");

        assert_eq!(eval(&format!("{}1", "-".repeat(MAX_DEPTH))), 1.0);
        assert_eq!(code(&format!("{}1", "-".repeat(MAX_DEPTH + 1))), "CALC_TOO_DEEP");
        assert_eq!(code(&format!("{}1", "-".repeat(MAX_EXPRESSION_CHARS - 1))), "CALC_TOO_DEEP");

        let calls = |levels: usize| format!("{}4{}", "abs(".repeat(levels), ")".repeat(levels));
        assert_eq!(eval(&calls(MAX_DEPTH)), 4.0);
        assert_eq!(code(&calls(MAX_DEPTH + 1)), "CALC_TOO_DEEP");

        let powers = |levels: usize| format!("1{}", "^1".repeat(levels));
        assert_eq!(eval(&powers(MAX_DEPTH)), 1.0);
        assert_eq!(code(&powers(MAX_DEPTH + 1)), "CALC_TOO_DEEP");
    }

    #[test]
    fn calculate_without_precision_leaves_formatted_out() {
        let calculation = calculate("0.1 + 0.2", None).expect("valid");
        assert_eq!(calculation, Calculation { result: 0.1 + 0.2, formatted: None });
        let json = serde_json::to_value(&calculation).expect("serialisable");
        assert_eq!(json, serde_json::json!({ "result": 0.30000000000000004 }));
    }

    #[test]
    fn calculate_rounds_half_away_from_zero_on_the_decimal_value() {
        let rounded = |expression: &str, precision: u32| {
            let calculation = calculate(expression, Some(precision)).expect("valid");
            (calculation.result, calculation.formatted.expect("formatted when precision given"))
        };
        assert_eq!(rounded("1.005", 2), (1.01, "1.01".to_string()));
        assert_eq!(rounded("2.675", 2), (2.68, "2.68".to_string()));
        assert_eq!(rounded("-2.675", 2), (-2.68, "-2.68".to_string()));
        assert_eq!(rounded("1.0049", 2), (1.0, "1.00".to_string()));
        assert_eq!(rounded("3.1", 2), (3.1, "3.10".to_string()));
        assert_eq!(rounded("0.1 + 0.2", 2), (0.3, "0.30".to_string()));
        assert_eq!(rounded("2.5", 0), (3.0, "3".to_string()));
        assert_eq!(rounded("-2.5", 0), (-3.0, "-3".to_string()));
        assert_eq!(rounded("10 / 3", 6), (3.333333, "3.333333".to_string()));
        assert_eq!(rounded("1 / 8", 2), (0.13, "0.13".to_string()));
        assert_eq!(rounded("1234567.891", 1), (1234567.9, "1234567.9".to_string()));

        let json = serde_json::to_value(calculate("22 / 7", Some(4)).expect("valid")).expect("serialisable");
        assert_eq!(json, serde_json::json!({ "result": 3.1429, "formatted": "3.1429" }));
    }

    #[test]
    fn calculate_normalises_negative_zero() {
        let calculation = calculate("-0.001", Some(2)).expect("valid");
        assert_eq!(calculation.formatted.as_deref(), Some("0.00"));
        assert!(calculation.result.is_sign_positive());
        let tiny = calculate("-1e-300", Some(3)).expect("valid");
        assert_eq!(tiny.formatted.as_deref(), Some("0.000"));
        assert!(tiny.result.is_sign_positive());
    }

    #[test]
    fn calculate_handles_magnitudes_beyond_decimal() {
        let huge = calculate("1e300", Some(2)).expect("valid");
        assert_eq!(huge.result, 1e300);
        assert_eq!(huge.formatted, Some(format!("1{}.00", "0".repeat(300))));
        assert_eq!(
            calculate("-1e29", Some(1)).expect("valid").formatted.as_deref(),
            Some("-100000000000000000000000000000.0")
        );
        assert_eq!(calculate("1e-30", Some(6)).expect("valid").formatted.as_deref(), Some("0.000000"));
        assert_eq!(calculate("1.5e-6", Some(6)).expect("valid").formatted.as_deref(), Some("0.000002"));
    }

    proptest! {
        #[test]
        fn evaluate_never_panics_on_expression_like_text(expression in "[-+*/^%().0-9a-z ]{0,200}") {
            let _ = evaluate(&expression);
        }

        #[test]
        fn evaluate_never_panics_on_any_text(expression in any::<String>()) {
            let _ = evaluate(&expression);
        }

        #[test]
        fn results_are_finite_and_never_negative_zero(expression in "[-+*/^%()0-9.e ]{0,60}") {
            if let Ok(value) = evaluate(&expression) {
                prop_assert!(value.is_finite());
                prop_assert!(value != 0.0 || value.is_sign_positive());
            }
        }

        #[test]
        fn formatted_has_exactly_the_requested_decimals(value in -1e30f64..1e30, precision in 0u32..=MAX_PRECISION) {
            let formatted = format_rounded(value, precision);
            let decimals = formatted.split_once('.').map_or(0, |(_, fraction)| fraction.len());
            prop_assert_eq!(decimals, precision as usize);
            let reparsed: f64 = formatted.parse().expect("a number");
            prop_assert!((reparsed - value).abs() <= 0.5 * 10f64.powi(-(precision as i32)) + value.abs() * 1e-15);
        }
    }
}
