//! `app.money_calculate`: exact arithmetic on amounts of money.
//!
//! Binary floating point cannot represent most decimal amounts (`0.1 + 0.2` is
//! `0.30000000000000004` in `f64`), and the rounding rule for money is a business choice, not an
//! accident of formatting. So this tool never touches floating point: literals are parsed
//! straight into [`Decimal`], arithmetic runs at `Decimal`'s full precision (28 significant
//! digits) with every overflow checked, and only the final result is rounded, once, to the
//! currency's minor units under an explicit [`Rounding`].
//!
//! The expression is untrusted text from the model, so, as in [`crate::calc`], it is read by a
//! hand-written recursive-descent parser with hard limits on length and nesting, and every
//! failure carries a stable code ([`MoneyError::code`]). The grammar is `calc`'s arithmetic
//! subset, from loosest to tightest binding:
//!
//! ```text
//! expression := term (('+' | '-') term)*
//! term       := unary (('*' | '×' | '/' | '÷') unary)*
//! unary      := ('+' | '-') unary | postfix
//! postfix    := primary '%'*
//! primary    := amount | '(' expression ')'
//! amount     := ['$' | '€' | '£' | '¥'] digits ['.' digits]      e.g. 12, 12.5, .5, $19.99
//! ```
//!
//! A currency symbol directly before a number is ignored: the currency is the `currency`
//! argument. Thousands separators and exponents are not accepted. `%` simply divides by 100, so
//! adding 8.25% tax is `19.99 * 108.25%` (or `19.99 * (1 + 8.25%)`); note that
//! `19.99 * 3 + 8.25%` adds 0.0825, not 8.25% of the subtotal.
//!
//! This module shares no code with `calc`: the two grammars differ in their numbers (`Decimal`
//! without exponents and with currency symbols, against `f64` with names and functions), and
//! keeping each parser whole keeps each independently checkable.

use rust_decimal::{Decimal, RoundingStrategy};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Longest accepted expression, in characters.
pub const MAX_EXPRESSION_CHARS: usize = 1_000;

/// Deepest accepted nesting. Each parenthesised group and each unary sign is one level; the
/// limit bounds the parser's recursion and so its stack use.
pub const MAX_DEPTH: usize = 64;

/// Longest caller-supplied text (a currency code or rounding name) echoed back in an error, in
/// characters; anything longer is cut, so a hostile argument cannot bloat the error.
const MAX_ECHOED_CHARS: usize = 16;

/// Why a money expression could not be calculated. [`MoneyError::code`] gives the stable code.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MoneyError {
    #[error("the expression is empty")]
    Empty,
    #[error("the expression is longer than {max} characters")]
    TooLong { max: usize },
    #[error("the expression nests deeper than {max} levels")]
    TooDeep { max: usize },
    /// `offset` counts characters (not bytes) from the start of the expression.
    #[error("{message} at {offset}")]
    Syntax { offset: usize, message: String },
    #[error("unknown currency '{currency}': expected a three-letter ISO 4217 code such as USD")]
    UnknownCurrency { currency: String },
    #[error("unknown rounding '{rounding}': expected bankers, up or down")]
    BadRounding { rounding: String },
    #[error("division by zero")]
    DivideByZero,
    #[error("an amount does not fit in exact decimal arithmetic (too large, or too many decimals)")]
    Overflow,
}

impl MoneyError {
    /// The stable, machine-readable code of the error, e.g. `MONEY_SYNTAX`.
    pub fn code(&self) -> &'static str {
        match self {
            MoneyError::Empty => "MONEY_EMPTY",
            MoneyError::TooLong { .. } => "MONEY_TOO_LONG",
            MoneyError::TooDeep { .. } => "MONEY_TOO_DEEP",
            MoneyError::Syntax { .. } => "MONEY_SYNTAX",
            MoneyError::UnknownCurrency { .. } => "MONEY_UNKNOWN_CURRENCY",
            MoneyError::BadRounding { .. } => "MONEY_BAD_ROUNDING",
            MoneyError::DivideByZero => "MONEY_DIVIDE_BY_ZERO",
            MoneyError::Overflow => "MONEY_OVERFLOW",
        }
    }
}

/// How the exact result is rounded to the currency's minor units.
///
/// | name      | `rust_decimal` strategy                  | rule                                              | 2.345 | 2.341 | -2.341 |
/// |-----------|------------------------------------------|---------------------------------------------------|-------|-------|--------|
/// | `bankers` | [`RoundingStrategy::MidpointNearestEven`] | nearest; an exact half goes to the even digit     | 2.34  | 2.34  | -2.34  |
/// | `up`      | [`RoundingStrategy::AwayFromZero`]        | any nonzero remainder rounds away from zero       | 2.35  | 2.35  | -2.35  |
/// | `down`    | [`RoundingStrategy::ToZero`]              | any remainder is dropped (truncation toward zero) | 2.34  | 2.34  | -2.34  |
///
/// `up` and `down` are about magnitude, not direction: for negative amounts `up` goes further
/// below zero (it is not a ceiling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rounding {
    #[default]
    Bankers,
    Up,
    Down,
}

impl Rounding {
    /// Parses `bankers`, `up` or `down`, ignoring ASCII case.
    pub fn parse(s: &str) -> Result<Rounding, MoneyError> {
        [Rounding::Bankers, Rounding::Up, Rounding::Down]
            .into_iter()
            .find(|rounding| rounding.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| MoneyError::BadRounding { rounding: echoed(s) })
    }

    fn name(self) -> &'static str {
        match self {
            Rounding::Bankers => "bankers",
            Rounding::Up => "up",
            Rounding::Down => "down",
        }
    }

    fn strategy(self) -> RoundingStrategy {
        match self {
            Rounding::Bankers => RoundingStrategy::MidpointNearestEven,
            Rounding::Up => RoundingStrategy::AwayFromZero,
            Rounding::Down => RoundingStrategy::ToZero,
        }
    }
}

/// ISO 4217 codes and their minor units (decimals after the point).
const MINOR_UNITS: &[(&str, u32)] = &[
    // Two decimals.
    ("USD", 2),
    ("EUR", 2),
    ("GBP", 2),
    ("CAD", 2),
    ("AUD", 2),
    ("NZD", 2),
    ("CHF", 2),
    ("CNY", 2),
    ("HKD", 2),
    ("SGD", 2),
    ("TWD", 2),
    ("SEK", 2),
    ("NOK", 2),
    ("DKK", 2),
    ("PLN", 2),
    ("CZK", 2),
    ("HUF", 2),
    ("RON", 2),
    ("UAH", 2),
    ("INR", 2),
    ("PKR", 2),
    ("BDT", 2),
    ("MXN", 2),
    ("BRL", 2),
    ("ARS", 2),
    ("COP", 2),
    ("PEN", 2),
    ("ZAR", 2),
    ("NGN", 2),
    ("KES", 2),
    ("EGP", 2),
    ("TRY", 2),
    ("ILS", 2),
    ("AED", 2),
    ("SAR", 2),
    ("QAR", 2),
    ("THB", 2),
    ("MYR", 2),
    ("PHP", 2),
    ("IDR", 2),
    // No minor unit.
    ("JPY", 0),
    ("KRW", 0),
    ("VND", 0),
    ("CLP", 0),
    ("ISK", 0),
    ("PYG", 0),
    ("UGX", 0),
    ("XAF", 0),
    ("XOF", 0),
    // Three decimals.
    ("BHD", 3),
    ("KWD", 3),
    ("OMR", 3),
    ("JOD", 3),
    ("TND", 3),
    ("IQD", 3),
    ("LYD", 3),
];

/// The number of minor-unit decimals of an ISO 4217 currency code (case-insensitive), or `None`
/// when the code is not three ASCII letters or is not in the table.
pub fn minor_units(currency: &str) -> Option<u32> {
    if currency.len() != 3 || !currency.bytes().all(|byte| byte.is_ascii_alphabetic()) {
        return None;
    }
    MINOR_UNITS.iter().find(|(code, _)| code.eq_ignore_ascii_case(currency)).map(|&(_, units)| units)
}

/// The result of `app.money_calculate`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MoneyResult {
    /// The rounded amount with exactly the currency's minor-unit decimals, e.g. `"12.35"`.
    pub amount: String,
    /// The same amount in minor units, e.g. `1235` cents.
    pub amount_minor: i64,
    /// The ISO 4217 code, upper-case.
    pub currency: String,
    /// The rounding that was applied.
    pub rounding: Rounding,
}

/// Evaluates `expression` exactly and rounds the result to `currency`'s minor units.
pub fn money_calculate(expression: &str, currency: &str, rounding: Rounding) -> Result<MoneyResult, MoneyError> {
    let decimals = minor_units(currency).ok_or_else(|| MoneyError::UnknownCurrency { currency: echoed(currency) })?;
    let exact = evaluate_exact(expression)?;
    let mut amount = exact.round_dp_with_strategy(decimals, rounding.strategy());
    amount.rescale(decimals);
    // `rescale` settles for a smaller scale when the mantissa cannot hold the one asked for.
    if amount.scale() != decimals {
        return Err(MoneyError::Overflow);
    }
    if amount.is_zero() {
        amount.set_sign_positive(true); // never report "-0.00"
    }
    // With the scale equal to the minor units, the mantissa is the amount in minor units.
    let amount_minor = i64::try_from(amount.mantissa()).map_err(|_| MoneyError::Overflow)?;
    Ok(MoneyResult { amount: amount.to_string(), amount_minor, currency: currency.to_ascii_uppercase(), rounding })
}

/// Evaluates `expression` at full `Decimal` precision, without rounding to a currency.
fn evaluate_exact(expression: &str) -> Result<Decimal, MoneyError> {
    // Length first, counting no further than the limit, so a huge input costs almost nothing.
    if expression.chars().nth(MAX_EXPRESSION_CHARS).is_some() {
        return Err(MoneyError::TooLong { max: MAX_EXPRESSION_CHARS });
    }
    if expression.trim().is_empty() {
        return Err(MoneyError::Empty);
    }
    let (tokens, end) = tokenize(expression)?;
    let mut parser = Parser { tokens, end, position: 0, depth: 0 };
    let value = parser.parse_expression()?;
    let trailing = parser.peek();
    if trailing.kind != TokenKind::End {
        return Err(unexpected(trailing));
    }
    value
}

fn echoed(text: &str) -> String {
    text.chars().take(MAX_ECHOED_CHARS).collect()
}

// ---------------------------------------------------------------------------------------------
// Tokens

#[derive(Debug, Clone, Copy, PartialEq)]
enum TokenKind {
    /// `None` when `Decimal` cannot hold the literal exactly: an overflow, reported as such.
    Amount(Option<Decimal>),
    Plus,
    Minus,
    Times,
    Divide,
    Percent,
    OpenParen,
    CloseParen,
    End,
}

#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    kind: TokenKind,
    /// The token's source text, for error messages.
    text: &'a str,
    /// Character offset of the token's first character.
    offset: usize,
}

const CURRENCY_SYMBOLS: [char; 4] = ['$', '€', '£', '¥'];

/// Splits `expression` into tokens, and returns the end-of-input token separately.
fn tokenize(expression: &str) -> Result<(Vec<Token<'_>>, Token<'_>), MoneyError> {
    let chars: Vec<(usize, char)> = expression.char_indices().collect();
    let byte_index = |offset: usize| byte_index(expression, &chars, offset);
    let starts_number = |offset: usize| chars.get(offset).is_some_and(|&(_, c)| c.is_ascii_digit() || c == '.');
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
            '%' => (TokenKind::Percent, offset + 1),
            '(' => (TokenKind::OpenParen, offset + 1),
            ')' => (TokenKind::CloseParen, offset + 1),
            '0'..='9' | '.' => scan_amount(expression, &chars, offset)?,
            // A currency symbol is part of the amount it prefixes, and otherwise ignored.
            c if CURRENCY_SYMBOLS.contains(&c) && starts_number(offset + 1) => {
                scan_amount(expression, &chars, offset + 1)?
            }
            other => {
                return Err(MoneyError::Syntax { offset, message: format!("unexpected character '{other}'") });
            }
        };
        tokens.push(Token { kind, text: &expression[byte_index(offset)..byte_index(end)], offset });
        offset = end;
    }
    let end = Token { kind: TokenKind::End, text: "", offset: chars.len() };
    Ok((tokens, end))
}

/// The byte index in `expression` of the character at `offset` (its length past the end).
fn byte_index(expression: &str, chars: &[(usize, char)], offset: usize) -> usize {
    chars.get(offset).map_or(expression.len(), |&(byte, _)| byte)
}

/// Reads the amount whose digits start at character `start`: its token kind and the offset
/// just past it.
fn scan_amount(expression: &str, chars: &[(usize, char)], start: usize) -> Result<(TokenKind, usize), MoneyError> {
    let end = scan_decimal(chars, start);
    let digits = &expression[byte_index(expression, chars, start)..byte_index(expression, chars, end)];
    if !digits.bytes().any(|byte| byte.is_ascii_digit()) {
        return Err(MoneyError::Syntax { offset: start, message: format!("malformed number '{digits}'") });
    }
    Ok((TokenKind::Amount(parse_decimal(digits)), end))
}

/// Returns the character offset just past `digits ['.' digits]` starting at `start`.
fn scan_decimal(chars: &[(usize, char)], start: usize) -> usize {
    let is_digit = |offset: usize| chars.get(offset).is_some_and(|&(_, c)| c.is_ascii_digit());
    let mut end = start;
    while is_digit(end) {
        end += 1;
    }
    if chars.get(end).is_some_and(|&(_, c)| c == '.') {
        end += 1;
        while is_digit(end) {
            end += 1;
        }
    }
    end
}

/// The exact value of a literal of ASCII digits with at most one '.', or `None` when `Decimal`
/// cannot hold it exactly (a mantissa beyond 96 bits, or more than 28 decimals). Such a literal
/// is refused rather than rounded, so no amount is silently rounded twice.
fn parse_decimal(digits: &str) -> Option<Decimal> {
    let (integer, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    // Zeros that carry no value must not count against Decimal's capacity.
    let integer = integer.trim_start_matches('0');
    let fraction = fraction.trim_end_matches('0');
    let scale = u32::try_from(fraction.len()).ok()?;
    let mantissa_digits = format!("{integer}{fraction}");
    let mantissa = match mantissa_digits.as_str() {
        "" => 0,
        nonzero => nonzero.parse::<i128>().ok()?,
    };
    Decimal::try_from_i128_with_scale(mantissa, scale).ok()
}

fn unexpected(token: Token<'_>) -> MoneyError {
    let message = match token.kind {
        TokenKind::End => "unexpected end of expression".to_string(),
        _ => format!("unexpected '{}'", token.text),
    };
    MoneyError::Syntax { offset: token.offset, message }
}

// ---------------------------------------------------------------------------------------------
// Parser and evaluator

/// The exact value of a sub-expression, or the arithmetic error met computing it.
///
/// As in `calc`, parse functions return `Result<Value, MoneyError>`: the outer error (syntax,
/// limits) stops parsing, while an arithmetic error only travels up inside the value, so a
/// malformed expression is reported as malformed even when it also divides by zero.
type Value = Result<Decimal, MoneyError>;

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

    /// Runs `parse` one nesting level deeper, refusing to go past [`MAX_DEPTH`].
    fn nested(&mut self, parse: impl FnOnce(&mut Self) -> Result<Value, MoneyError>) -> Result<Value, MoneyError> {
        if self.depth >= MAX_DEPTH {
            return Err(MoneyError::TooDeep { max: MAX_DEPTH });
        }
        self.depth += 1;
        let result = parse(self);
        self.depth -= 1;
        result
    }

    fn parse_expression(&mut self) -> Result<Value, MoneyError> {
        let mut value = self.parse_term()?;
        loop {
            let operation: fn(Decimal, Decimal) -> Value = match self.peek().kind {
                TokenKind::Plus => |a, b| a.checked_add(b).ok_or(MoneyError::Overflow),
                TokenKind::Minus => |a, b| a.checked_sub(b).ok_or(MoneyError::Overflow),
                _ => return Ok(value),
            };
            self.advance();
            let right = self.parse_term()?;
            value = apply_binary(value, right, operation);
        }
    }

    fn parse_term(&mut self) -> Result<Value, MoneyError> {
        let mut value = self.parse_unary()?;
        loop {
            let operation: fn(Decimal, Decimal) -> Value = match self.peek().kind {
                TokenKind::Times => |a, b| a.checked_mul(b).ok_or(MoneyError::Overflow),
                TokenKind::Divide => divide,
                _ => return Ok(value),
            };
            self.advance();
            let right = self.parse_unary()?;
            value = apply_binary(value, right, operation);
        }
    }

    fn parse_unary(&mut self) -> Result<Value, MoneyError> {
        let negate = match self.peek().kind {
            TokenKind::Plus => false,
            TokenKind::Minus => true,
            _ => return self.parse_postfix(),
        };
        self.advance();
        let operand = self.nested(Self::parse_unary)?;
        Ok(if negate { operand.map(|x| -x) } else { operand })
    }

    fn parse_postfix(&mut self) -> Result<Value, MoneyError> {
        let mut value = self.parse_primary()?;
        while self.peek().kind == TokenKind::Percent {
            self.advance();
            value = apply_binary(value, Ok(Decimal::ONE_HUNDRED), divide);
        }
        Ok(value)
    }

    fn parse_primary(&mut self) -> Result<Value, MoneyError> {
        let token = self.peek();
        match token.kind {
            TokenKind::Amount(amount) => {
                self.advance();
                Ok(amount.ok_or(MoneyError::Overflow))
            }
            TokenKind::OpenParen => {
                self.advance();
                self.nested(|parser| {
                    let value = parser.parse_expression()?;
                    let close = parser.peek();
                    if close.kind != TokenKind::CloseParen {
                        let message = match close.kind {
                            TokenKind::End => "expected ')' but the expression ended".to_string(),
                            _ => format!("expected ')' but found '{}'", close.text),
                        };
                        return Err(MoneyError::Syntax { offset: close.offset, message });
                    }
                    parser.advance();
                    Ok(value)
                })
            }
            _ => Err(unexpected(token)),
        }
    }
}

fn apply_binary(left: Value, right: Value, operation: fn(Decimal, Decimal) -> Value) -> Value {
    operation(left?, right?)
}

fn divide(dividend: Decimal, divisor: Decimal) -> Value {
    if divisor.is_zero() {
        return Err(MoneyError::DivideByZero);
    }
    dividend.checked_div(divisor).ok_or(MoneyError::Overflow)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn amount(expression: &str, currency: &str, rounding: Rounding) -> String {
        match money_calculate(expression, currency, rounding) {
            Ok(result) => result.amount,
            Err(error) => panic!("{expression:?} in {currency} failed: {error}"),
        }
    }

    fn usd(expression: &str) -> String {
        amount(expression, "USD", Rounding::Bankers)
    }

    fn code(expression: &str) -> &'static str {
        match money_calculate(expression, "USD", Rounding::Bankers) {
            Ok(result) => panic!("{expression:?} gave {}, expected an error", result.amount),
            Err(error) => error.code(),
        }
    }

    #[test]
    fn decimal_arithmetic_is_exact() {
        assert_eq!(usd("0.1 + 0.2"), "0.30");
        assert_eq!(usd("0.1 + 0.2 - 0.3"), "0.00");
        assert_eq!(usd("10 / 3"), "3.33");
        assert_eq!(usd("10 / 3 * 3"), "10.00");
        assert_eq!(usd("1.10 * 3"), "3.30");
        assert_eq!(usd("100"), "100.00");
        assert_eq!(usd(".5"), "0.50");
    }

    #[test]
    fn precedence_and_grouping() {
        assert_eq!(usd("2 + 3 * 4"), "14.00");
        assert_eq!(usd("(2 + 3) * 4"), "20.00");
        assert_eq!(usd("10 - 4 - 3"), "3.00");
        assert_eq!(usd("100 / 10 / 5"), "2.00");
        assert_eq!(usd("-(2 + 3)"), "-5.00");
        assert_eq!(usd("2 * -3"), "-6.00");
        assert_eq!(usd("- -3"), "3.00");
        assert_eq!(usd("6 × 7 ÷ 2"), "21.00");
    }

    #[test]
    fn currency_symbols_are_ignored() {
        assert_eq!(usd("$19.99 * 3"), "59.97");
        assert_eq!(amount("€10 + £5 + ¥1", "EUR", Rounding::Bankers), "16.00");
        assert_eq!(usd("-$5"), "-5.00");
        assert_eq!(usd("$.50"), "0.50");
    }

    #[test]
    fn percent_divides_by_one_hundred() {
        assert_eq!(usd("50%"), "0.50");
        assert_eq!(usd("19.99 * 108.25%"), "21.64"); // 21.639175
        assert_eq!(usd("19.99 * (1 + 8.25%)"), "21.64");
        // Percent is not "of the left operand": this adds 0.0825 to 59.97.
        assert_eq!(usd("$19.99 * 3 + 8.25%"), "60.05");
        assert_eq!(usd("200 * 15%"), "30.00");
        assert_eq!(usd("50%%"), "0.00"); // 0.005: a tie, to the even 0
    }

    #[test]
    fn bankers_rounds_ties_to_even() {
        assert_eq!(usd("2.345"), "2.34");
        assert_eq!(usd("2.355"), "2.36");
        assert_eq!(usd("2.3451"), "2.35");
        assert_eq!(usd("-2.345"), "-2.34");
        assert_eq!(usd("0.005"), "0.00");
        assert_eq!(usd("0.015"), "0.02");
    }

    #[test]
    fn up_rounds_away_from_zero() {
        assert_eq!(amount("2.341", "USD", Rounding::Up), "2.35");
        assert_eq!(amount("-2.341", "USD", Rounding::Up), "-2.35");
        assert_eq!(amount("2.340", "USD", Rounding::Up), "2.34");
        assert_eq!(amount("10 / 3", "USD", Rounding::Up), "3.34");
    }

    #[test]
    fn down_rounds_toward_zero() {
        assert_eq!(amount("2.349", "USD", Rounding::Down), "2.34");
        assert_eq!(amount("-2.349", "USD", Rounding::Down), "-2.34");
        assert_eq!(amount("20 / 3", "USD", Rounding::Down), "6.66");
    }

    #[test]
    fn minor_units_follow_the_currency() {
        assert_eq!(amount("1000 / 3", "JPY", Rounding::Bankers), "333");
        assert_eq!(amount("2.5", "JPY", Rounding::Bankers), "2");
        assert_eq!(amount("1 / 3", "BHD", Rounding::Bankers), "0.333");
        assert_eq!(amount("1.0005", "KWD", Rounding::Bankers), "1.000");
        assert_eq!(amount("1.0015", "KWD", Rounding::Bankers), "1.002");
        assert_eq!(amount("2", "BHD", Rounding::Bankers), "2.000");
        assert_eq!(minor_units("usd"), Some(2));
        assert_eq!(minor_units("Jpy"), Some(0));
        assert_eq!(minor_units("tnd"), Some(3));
        assert_eq!(minor_units("HUF"), Some(2));
        assert_eq!(minor_units("IDR"), Some(2));
        assert_eq!(minor_units("XYZ"), None);
        assert_eq!(minor_units("US"), None);
        assert_eq!(minor_units("USDX"), None);
        assert_eq!(minor_units("U$D"), None);
        assert_eq!(minor_units("ÜSD"), None);
        assert_eq!(minor_units(""), None);
    }

    #[test]
    fn every_listed_currency_is_valid_and_listed_once() {
        for (index, (code, units)) in MINOR_UNITS.iter().enumerate() {
            assert!(code.len() == 3 && code.bytes().all(|byte| byte.is_ascii_uppercase()), "{code}");
            assert!(*units <= 3, "{code}");
            assert!(MINOR_UNITS[..index].iter().all(|(earlier, _)| earlier != code), "{code} twice");
        }
        let required = [
            ("USD", 2),
            ("EUR", 2),
            ("GBP", 2),
            ("CAD", 2),
            ("AUD", 2),
            ("NZD", 2),
            ("CHF", 2),
            ("CNY", 2),
            ("HKD", 2),
            ("SGD", 2),
            ("SEK", 2),
            ("NOK", 2),
            ("DKK", 2),
            ("PLN", 2),
            ("CZK", 2),
            ("HUF", 2),
            ("INR", 2),
            ("MXN", 2),
            ("BRL", 2),
            ("ZAR", 2),
            ("TRY", 2),
            ("ILS", 2),
            ("AED", 2),
            ("SAR", 2),
            ("THB", 2),
            ("MYR", 2),
            ("PHP", 2),
            ("IDR", 2),
            ("JPY", 0),
            ("KRW", 0),
            ("VND", 0),
            ("CLP", 0),
            ("ISK", 0),
            ("BHD", 3),
            ("KWD", 3),
            ("OMR", 3),
            ("JOD", 3),
            ("TND", 3),
        ];
        for (code, units) in required {
            assert_eq!(minor_units(code), Some(units), "{code}");
        }
    }

    #[test]
    fn result_fields() {
        let result = money_calculate("$19.99 * 108.25%", "usd", Rounding::Up).expect("valid");
        assert_eq!(
            result,
            MoneyResult {
                amount: "21.64".to_string(),
                amount_minor: 2164,
                currency: "USD".to_string(),
                rounding: Rounding::Up,
            }
        );
        let json = serde_json::to_value(&result).expect("serialisable");
        assert_eq!(
            json,
            serde_json::json!({ "amount": "21.64", "amount_minor": 2164, "currency": "USD", "rounding": "up" })
        );
        let negative = money_calculate("-12.345", "EUR", Rounding::Bankers).expect("valid");
        assert_eq!((negative.amount.as_str(), negative.amount_minor), ("-12.34", -1234));
        let yen = money_calculate("1000 / 3", "JPY", Rounding::Bankers).expect("valid");
        assert_eq!((yen.amount.as_str(), yen.amount_minor), ("333", 333));
    }

    #[test]
    fn negative_zero_is_normalised() {
        assert_eq!(usd("-0.001"), "0.00");
        assert_eq!(usd("-0"), "0.00");
        assert_eq!(amount("-0.4", "JPY", Rounding::Down), "0");
    }

    #[test]
    fn rounding_names() {
        assert_eq!(Rounding::parse("bankers"), Ok(Rounding::Bankers));
        assert_eq!(Rounding::parse("UP"), Ok(Rounding::Up));
        assert_eq!(Rounding::parse("Down"), Ok(Rounding::Down));
        assert_eq!(Rounding::default(), Rounding::Bankers);
        assert_eq!(Rounding::parse("half_up"), Err(MoneyError::BadRounding { rounding: "half_up".to_string() }));
        assert_eq!(Rounding::parse("").map_err(|error| error.code()), Err("MONEY_BAD_ROUNDING"));
        let long = "x".repeat(10_000);
        assert_eq!(Rounding::parse(&long), Err(MoneyError::BadRounding { rounding: "x".repeat(MAX_ECHOED_CHARS) }));
        let parsed: Rounding = serde_json::from_str("\"down\"").expect("deserialisable");
        assert_eq!(parsed, Rounding::Down);
        assert_eq!(serde_json::to_string(&Rounding::Bankers).expect("serialisable"), "\"bankers\"");
    }

    #[test]
    fn empty() {
        assert_eq!(code(""), "MONEY_EMPTY");
        assert_eq!(code("  \n"), "MONEY_EMPTY");
    }

    #[test]
    fn syntax_errors_carry_the_character_offset() {
        assert_eq!(
            money_calculate("(1 + 2))", "USD", Rounding::Bankers),
            Err(MoneyError::Syntax { offset: 7, message: "unexpected ')'".to_string() })
        );
        assert_eq!(
            money_calculate("€1 + x", "EUR", Rounding::Bankers).map_err(|error| error.to_string()),
            Err("unexpected character 'x' at 5".to_string())
        );
        for malformed in [
            "1,000", "1 000", "1e3", "1 +", "(1", "1 2", ".", "$", "$ 5", "5$", "$-5", "2 ^ 2", "sqrt(4)", "1 mod 2",
            "1.2.3", "()", "% 5",
        ] {
            assert_eq!(code(malformed), "MONEY_SYNTAX", "{malformed}");
        }
        assert_eq!(code("1 / 0 + )"), "MONEY_SYNTAX");
    }

    #[test]
    fn unknown_currency() {
        for currency in ["XYZ", "US", "dollars", "", "12A"] {
            assert_eq!(
                money_calculate("1", currency, Rounding::Bankers),
                Err(MoneyError::UnknownCurrency { currency: currency.to_string() })
            );
        }
        assert_eq!(
            money_calculate("1", "XYZ", Rounding::Bankers).map_err(|error| error.code()),
            Err("MONEY_UNKNOWN_CURRENCY")
        );
    }

    #[test]
    fn divide_by_zero() {
        assert_eq!(code("1 / 0"), "MONEY_DIVIDE_BY_ZERO");
        assert_eq!(code("1 / (0.5 - 0.50)"), "MONEY_DIVIDE_BY_ZERO");
        assert_eq!(code("5 / 0%"), "MONEY_DIVIDE_BY_ZERO");
    }

    #[test]
    fn overflow() {
        let max = "79228162514264337593543950335"; // Decimal::MAX
        assert_eq!(code(&format!("{max} + 1")), "MONEY_OVERFLOW");
        assert_eq!(code(&format!("{max} * 2")), "MONEY_OVERFLOW");
        assert_eq!(code(&format!("{max} / 0.5")), "MONEY_OVERFLOW");
        assert_eq!(code("99999999999999999999999999999999"), "MONEY_OVERFLOW");
        // Fits in Decimal, but not in i64 minor units.
        assert_eq!(code("100000000000000000"), "MONEY_OVERFLOW");
        // Fits in Decimal, but not with two decimals.
        assert_eq!(code(max), "MONEY_OVERFLOW");
        // The largest amount whose minor units fit in i64.
        let largest = money_calculate("92233720368547758.07", "USD", Rounding::Bankers).expect("fits");
        assert_eq!(largest.amount_minor, i64::MAX);
        assert_eq!(amount("9223372036854775807", "JPY", Rounding::Bankers), "9223372036854775807");
    }

    #[test]
    fn literals_are_exact_or_refused() {
        assert_eq!(usd("000000000000000000000000000000000000001.5"), "1.50");
        assert_eq!(usd("1.500000000000000000000000000000000000000"), "1.50");
        assert_eq!(usd("0.0000000000000000000000000001"), "0.00"); // 28 decimals: held exactly
        // Rounding these to Decimal first would then round 2.345 to even, giving 2.34.
        assert_eq!(code("2.34500000000000000000000000000000000001"), "MONEY_OVERFLOW");
        assert_eq!(code("0.00000000000000000000000000001"), "MONEY_OVERFLOW");
    }

    #[test]
    fn length_limit() {
        let sum = format!("1{}", " +1".repeat((MAX_EXPRESSION_CHARS - 1) / 3));
        assert_eq!(sum.chars().count(), MAX_EXPRESSION_CHARS);
        assert_eq!(usd(&sum), "334.00");
        assert_eq!(code(&format!("{sum} ")), "MONEY_TOO_LONG");
        let started = std::time::Instant::now();
        assert_eq!(code(&"(".repeat(100_000)), "MONEY_TOO_LONG");
        assert!(started.elapsed() < std::time::Duration::from_millis(100));
    }

    #[test]
    fn depth_limit() {
        let nested = |levels: usize| format!("{}1{}", "(".repeat(levels), ")".repeat(levels));
        assert_eq!(usd(&nested(MAX_DEPTH)), "1.00");
        assert_eq!(code(&nested(MAX_DEPTH + 1)), "MONEY_TOO_DEEP");
        assert_eq!(code(&"(".repeat(MAX_EXPRESSION_CHARS)), "MONEY_TOO_DEEP");
        assert_eq!(usd(&format!("{}1", "-".repeat(MAX_DEPTH))), "1.00");
        assert_eq!(code(&format!("{}1", "-".repeat(MAX_DEPTH + 1))), "MONEY_TOO_DEEP");
        assert_eq!(code(&format!("{}1", "-".repeat(MAX_EXPRESSION_CHARS - 1))), "MONEY_TOO_DEEP");
    }

    proptest! {
        #[test]
        fn never_panics_on_expression_like_text(
            expression in "[-+*/%().0-9$€ ]{0,200}",
            currency in "(USD|JPY|BHD|usd|XYZ|[A-Za-z]{0,4})",
            rounding in prop_oneof![Just(Rounding::Bankers), Just(Rounding::Up), Just(Rounding::Down)],
        ) {
            let _ = money_calculate(&expression, &currency, rounding);
        }

        #[test]
        fn never_panics_on_any_text(expression in any::<String>(), currency in any::<String>(), rounding in any::<String>()) {
            let _ = money_calculate(&expression, &currency, Rounding::Bankers);
            let _ = Rounding::parse(&rounding);
        }

        #[test]
        fn amount_and_minor_units_agree(
            expression in "[-+*/%()0-9. ]{1,40}",
            currency in "(USD|JPY|BHD)",
            rounding in prop_oneof![Just(Rounding::Bankers), Just(Rounding::Up), Just(Rounding::Down)],
        ) {
            if let Ok(result) = money_calculate(&expression, &currency, rounding) {
                let decimals = minor_units(&currency).expect("listed") as usize;
                let fraction = result.amount.split_once('.').map_or(0, |(_, fraction)| fraction.len());
                prop_assert_eq!(fraction, decimals);
                prop_assert_eq!(result.amount.replace('.', "").parse::<i64>().ok(), Some(result.amount_minor));
                prop_assert!(!(result.amount.starts_with('-') && result.amount_minor == 0));
            }
        }

        #[test]
        fn rounding_never_moves_more_than_one_minor_unit(cents in -10_000_000i64..10_000_000, extra in 0u32..1000) {
            // An amount with up to three more digits than USD keeps, e.g. 123.45678.
            let exact = Decimal::new(cents * 1000 + i64::from(extra), 5);
            for rounding in [Rounding::Bankers, Rounding::Up, Rounding::Down] {
                let result = money_calculate(&exact.abs().to_string(), "USD", rounding).expect("valid");
                let rounded = Decimal::new(result.amount_minor, 2);
                prop_assert!((rounded - exact.abs()).abs() < Decimal::new(1, 2));
                match rounding {
                    Rounding::Up => prop_assert!(rounded >= exact.abs()),
                    Rounding::Down => prop_assert!(rounded <= exact.abs()),
                    Rounding::Bankers => prop_assert!((rounded - exact.abs()).abs() <= Decimal::new(5, 3)),
                }
            }
        }
    }
}
