//! Values a goal names for fields of their own: `Enter the username "ada" and the password
//! "hunter2" into the text fields`, `Log in with username ada and password hunter2`. Each becomes
//! a typing step into the field its words name ([`super::steps`]); a value named for a password
//! field is a secret of the user's own ([`secrets`]): the only text the Policy Gate lets Laika
//! type into a password field, and text that is kept out of the history and the logs.

use super::{Step, Verb, fold, is_stopword, read_clause, signs_in};

/// Words naming a field whose value may follow them unquoted ("password hunter2").
const CREDENTIAL_FIELDS: &[&str] = &["username", "user", "login", "email", "password", "passcode", "passphrase"];

/// Of those, the fields whose value is a secret.
const SECRET_FIELDS: &[&str] = &["password", "passcode", "passphrase"];

/// Words between a field's name and its value that are neither ("password is hunter2", "user:").
const LINKS: &[&str] = &["is", "of", "=", ":"];

/// Words around named values that name neither a field nor a value: the request's verbs and the
/// words joining the pairs.
const CONNECTORS: &[&str] = &["enter", "type", "fill", "put", "input", "and", "with", "then", "as", "into", "in"];

/// A value the goal names for a field.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Named {
    /// The words naming the field ("username").
    pub field: Vec<String>,
    /// The value as written.
    pub value: String,
    /// Whether the field is a password's.
    pub secret: bool,
}

/// The values a clause names for fields: each quoted value with the words before it naming its
/// field, and, with `unquoted` (a clause that types or signs in: "Click the password reset link"
/// names no password), each value written after a credential field's name.
pub(super) fn named_values(clause: &str, unquoted: bool) -> Vec<Named> {
    let mut out = Vec::new();
    let mut from = 0;
    let mut rest = clause;
    // Quoted values: the field is named by the words since the previous value.
    while let Some((open, value, close)) = next_quote(rest) {
        let before: Vec<String> = rest[..open]
            .split_whitespace()
            .map(|w| fold(w.trim_matches(|c: char| !c.is_alphanumeric())))
            .filter(|w| !w.is_empty() && !is_stopword(w) && !CONNECTORS.contains(&w.as_str()))
            .collect();
        let field: Vec<String> = before.iter().rev().take(3).rev().cloned().collect();
        if !field.is_empty() && !value.is_empty() {
            out.push(named(field, value));
        }
        from += close;
        rest = &clause[from..];
    }
    if !out.is_empty() || !unquoted {
        return out;
    }
    // Unquoted: a credential field's name, then its value.
    let words: Vec<&str> = clause.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        let word = fold(words[i].trim_matches(|c: char| !c.is_alphanumeric()));
        if CREDENTIAL_FIELDS.contains(&word.as_str()) {
            let mut j = i + 1;
            while j < words.len() && LINKS.contains(&fold(words[j]).as_str()) {
                j += 1;
            }
            if let Some(value) = words.get(j).map(|v| v.trim_end_matches([',', '.', ';'])) {
                let folded = fold(value);
                if !value.is_empty() && !is_stopword(&folded) && !CONNECTORS.contains(&folded.as_str()) {
                    out.push(named(vec![word], value));
                    i = j;
                }
            }
        }
        i += 1;
    }
    out
}

/// Whether a clause's step types or signs in: where a credential's value may follow its name
/// unquoted.
pub(super) fn types_or_signs_in(step: &Step) -> bool {
    step.verb == Verb::Type || signs_in(step)
}

fn named(field: Vec<String>, value: &str) -> Named {
    let secret = field.iter().any(|w| SECRET_FIELDS.contains(&w.as_str()));
    Named { field, value: value.to_string(), secret }
}

/// The first quoted span of `text`: (where it opens, its text, where it closes + 1).
fn next_quote(text: &str) -> Option<(usize, &str, usize)> {
    let open = text.find(['"', '“'])?;
    let quote = text[open..].chars().next()?;
    let close_char = if quote == '“' { '”' } else { '"' };
    let start = open + quote.len_utf8();
    let end = start + text[start..].find(close_char)?;
    Some((open, text[start..end].trim(), end + close_char.len_utf8()))
}

/// The secrets a goal gives for password fields: the only text Laika may type into one, and
/// text kept out of the history, the logs and the hub.
pub fn secrets(goal: &str) -> Vec<String> {
    let mut out: Vec<String> = super::clauses(goal)
        .iter()
        .flat_map(|c| named_values(c, read_clause(c).is_some_and(|step| types_or_signs_in(&step))))
        .filter(|n| n.secret)
        .map(|n| n.value)
        .collect();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(clause: &str) -> Vec<(String, String, bool)> {
        named_values(clause, read_clause(clause).is_some_and(|step| types_or_signs_in(&step)))
            .into_iter()
            .map(|n| (n.field.join(" "), n.value, n.secret))
            .collect()
    }

    #[test]
    fn quoted_values_are_named_by_the_words_before_them() {
        assert_eq!(
            pairs(r#"Enter the username "ada" and the password "hunter 2" into the text fields"#),
            [("username".into(), "ada".into(), false), ("password".into(), "hunter 2".into(), true)]
        );
        assert_eq!(pairs(r#"type "hello""#), []);
    }

    #[test]
    fn a_credential_field_s_value_may_follow_it_unquoted() {
        assert_eq!(
            pairs("Log in with username ada and password is hunter2."),
            [("username".into(), "ada".into(), false), ("password".into(), "hunter2".into(), true)]
        );
        assert_eq!(pairs("type the password into the field"), []);
    }

    #[test]
    fn secrets_are_the_password_values() {
        assert_eq!(secrets(r#"Log in as "ada" with password "s3cret!" then click Next"#), ["s3cret!"]);
        assert!(secrets("Click the password reset link").is_empty());
    }
}
