//! The default redaction of what the notebook stores (`artifact.save`'s `redaction: "default"`):
//! the secrets laika-llmcp.md's storage rules name, removed from a note's text before it reaches
//! the disk, while the prose a user saved stays as it is.
//!
//! - URLs lose user info and credential-like query parameters and fragments, by the same rules
//!   as the observer's ([`laika_shared::observe::redact_url`]);
//! - payment card numbers (13 to 19 digits, spaces or dashes between groups, passing the Luhn
//!   check, so ordinary long numbers are kept) become [`CARD`];
//! - `Bearer` tokens (RFC 6750's header form pasted into text) become `Bearer` [`REDACTED`].

/// What replaces a removed secret.
pub const REDACTED: &str = "[redacted]";
/// What replaces a card number.
pub const CARD: &str = "[redacted card number]";

/// Where each rule's numbers come from.
mod limits {
    /// ISO/IEC 7812: primary account numbers are 8 to 19 digits; payment cards in use have 13 or
    /// more (Visa's shortest), so shorter runs (dates, phone numbers) are never taken for one.
    pub const CARD_DIGITS: std::ops::RangeInclusive<usize> = 13..=19;
    /// A bearer token shorter than this is a word in a sentence ("Bearer bonds"), not a token.
    pub const BEARER_TOKEN_MIN: usize = 16;
}

/// `text` with the secrets above replaced.
pub fn redact_text(text: &str) -> String {
    let text = redact_urls(text);
    let text = redact_bearer(&text);
    redact_cards(&text)
}

fn redact_urls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = ["https://", "http://"].iter().filter_map(|s| rest.find(s)).min() {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        // A URL in prose ends at whitespace or at what closes it in Markdown or in a sentence.
        let end =
            tail.find(|c: char| c.is_whitespace() || matches!(c, ')' | '>' | '"' | '\'' | ']')).unwrap_or(tail.len());
        let mut url = &tail[..end];
        let trailing = url.len() - url.trim_end_matches(['.', ',', ';', ':', '!', '?']).len();
        url = &url[..url.len() - trailing];
        // Only a URL that loses something is rewritten: the parser's normalisation of the others
        // (a trailing `/` after a bare host) would otherwise change text the user wrote.
        let normalised = laika_shared::weburl::WebUrl::parse(url).map(|u| u.href());
        match laika_shared::observe::redact_url(url, "") {
            Some(clean) if Some(&clean) != normalised.as_ref() => out.push_str(&clean),
            _ => out.push_str(url),
        }
        rest = &tail[url.len()..];
    }
    out.push_str(rest);
    out
}

fn redact_bearer(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("Bearer ") {
        let after = &rest[at + "Bearer ".len()..];
        let token_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~' | '+' | '/' | '=')))
            .unwrap_or(after.len());
        out.push_str(&rest[..at + "Bearer ".len()]);
        if token_len >= limits::BEARER_TOKEN_MIN {
            out.push_str(REDACTED);
        } else {
            out.push_str(&after[..token_len]);
        }
        rest = &after[token_len..];
    }
    out.push_str(rest);
    out
}

fn redact_cards(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let starts_number = chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_ascii_alphanumeric());
        if starts_number {
            // Digits, with single spaces or dashes between them.
            let mut j = i;
            let mut digits = String::new();
            while j < chars.len() {
                if chars[j].is_ascii_digit() {
                    digits.push(chars[j]);
                    j += 1;
                } else if matches!(chars[j], ' ' | '-') && chars.get(j + 1).is_some_and(char::is_ascii_digit) {
                    j += 1;
                } else {
                    break;
                }
            }
            let ends_number = chars.get(j).is_none_or(|c| !c.is_ascii_alphanumeric());
            if ends_number && limits::CARD_DIGITS.contains(&digits.len()) && luhn(&digits) {
                out.push_str(CARD);
                i = j;
                continue;
            }
            out.extend(&chars[i..j.max(i + 1)]);
            i = j.max(i + 1);
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// The Luhn (mod 10) check every payment card number passes.
fn luhn(digits: &str) -> bool {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 1 { if d * 2 > 9 { d * 2 - 9 } else { d * 2 } } else { d }
        })
        .sum();
    sum.is_multiple_of(10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_leave_urls_and_the_rest_of_the_url_stays() {
        let text = "Reset at https://example.com/reset?token=abc123&lang=en, then [docs](https://u:p@example.com/a).";
        assert_eq!(
            redact_text(text),
            "Reset at https://example.com/reset?lang=en, then [docs](https://example.com/a)."
        );
    }

    #[test]
    fn card_numbers_go_and_other_numbers_stay() {
        // 4111 1111 1111 1111 is the well-known Visa test number (Luhn-valid).
        let text = "Paid with 4111 1111 1111 1111 on 2026-01-24; order 1234567890123 ships to 75001.";
        assert_eq!(redact_text(text), format!("Paid with {CARD} on 2026-01-24; order 1234567890123 ships to 75001."));
        assert_eq!(redact_text("card 4111-1111-1111-1111."), format!("card {CARD}."));
    }

    #[test]
    fn bearer_tokens_go_and_the_word_stays() {
        let text = "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig' and Bearer bonds";
        assert_eq!(redact_text(text), format!("curl -H 'Authorization: Bearer {REDACTED}' and Bearer bonds"));
    }

    #[test]
    fn plain_prose_is_unchanged() {
        let text = "Tomatoes need 6–8 hours of sun. See http://example.org (page 12) or http://example.org/grow?q=1.";
        assert_eq!(redact_text(text), text);
    }
}
