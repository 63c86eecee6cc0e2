//! A value as people write it, turned into the form a date or time field takes (issue #56:
//! "date and time inputs in their own formats"). A goal says "Enter 1:49 PM as the time" or
//! "Select 11/03/2016 as the date"; an `<input type="time">` only takes `13:49`, and
//! `<input type="date">` only `2016-11-03` (the HTML standard's value formats). Other fields take
//! the text as it is. Pure: the content script calls it before setting the value, and the tests
//! call it natively.

use crate::observation::FieldKind;

/// Month names, in order, for dates written out ("March 3, 2016"); a prefix of three letters or
/// more names one too ("Mar").
pub const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The text to type into a field of `kind` as the planner proposes it: a date, time, month or
/// date-and-time field (the reader's [`FieldKind::Date`] for all of them) gets the form its input
/// takes, chosen by what the text is ("1:49 PM" → "13:49", "11/03/2016" → "2016-11-03"); any
/// other field the text as written. Done in the host, so the card shows exactly what is typed
/// and the content script's WASM carries no date parser.
pub fn for_field(kind: Option<FieldKind>, text: &str) -> String {
    if kind != Some(FieldKind::Date) {
        return text.to_string();
    }
    ["time", "date", "datetime-local", "month"]
        .iter()
        .find_map(|input_type| for_input(input_type, text))
        .unwrap_or_else(|| text.to_string())
}

/// The value to set on an `<input type=…>` for `text`, or `None` when the text is no value of
/// that kind. Types that take free text give the text back unchanged.
pub fn for_input(input_type: &str, text: &str) -> Option<String> {
    let text = text.trim();
    if text.is_empty() {
        // Typing nothing clears a field of any kind.
        return Some(String::new());
    }
    match input_type.to_ascii_lowercase().as_str() {
        "time" => time(text),
        "date" => date(text),
        "month" => {
            // "March 2016", "11/2016", "2016-03": a date on the month's first day.
            let words: Vec<&str> = text.split(['/', '-', ' ', ',']).filter(|w| !w.is_empty()).collect();
            let first = match words.as_slice() {
                [year, month] if year.len() == 4 => format!("{year}-{month}-1"),
                [month, year] => format!("{month} 1 {year}"),
                _ => return None,
            };
            date(&first).map(|d| d[..7].to_string())
        }
        "datetime-local" => {
            // "11/03/2016 1:49 PM", "2016-11-03T13:49"
            let (day, clock) = text.split_once('T').or_else(|| split_date_time(text))?;
            Some(format!("{}T{}", date(day)?, time(clock)?))
        }
        "number" | "range" => {
            let number = text.replace(',', "");
            is_number(&number).then_some(number)
        }
        _ => Some(text.to_string()),
    }
}

/// A decimal number as a number field takes it: a sign, digits, a point, an exponent. Checked
/// by hand: a float parser would add kilobytes to the content script's WASM for a yes or no.
pub fn is_number(text: &str) -> bool {
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (text, None),
    };
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    let unsigned = mantissa.strip_prefix(['-', '+']).unwrap_or(mantissa);
    let mantissa_ok = match unsigned.split_once('.') {
        Some((whole, fraction)) => {
            (digits(whole) || whole.is_empty()) && (digits(fraction) || (fraction.is_empty() && digits(whole)))
        }
        None => digits(unsigned),
    };
    mantissa_ok && exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)))
}

/// Splits "11/03/2016 1:49 PM" before the clock's hour.
fn split_date_time(text: &str) -> Option<(&str, &str)> {
    let at = text.find(':')?;
    let start = text[..at].rfind(' ')?;
    Some((text[..start].trim(), text[start..].trim()))
}

/// "1:49 PM" → "13:49", "13:49:05" → "13:49:05", "9 am" → "09:00".
fn time(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase().replace('.', "");
    let (clock, half) = if let Some(rest) = lower.strip_suffix("pm") {
        (rest.trim(), Some(true))
    } else if let Some(rest) = lower.strip_suffix("am") {
        (rest.trim(), Some(false))
    } else {
        (lower.trim(), None)
    };
    let parts: Vec<&str> = clock.split(':').collect();
    if parts.is_empty()
        || parts.len() > 3
        || parts.iter().any(|p| p.is_empty() || !p.chars().all(|c| c.is_ascii_digit()))
    {
        return None;
    }
    let mut hour: u32 = parts[0].parse().ok()?;
    let minute: u32 = parts.get(1).map_or(Some(0), |m| m.parse().ok())?;
    let second: Option<u32> = match parts.get(2) {
        Some(s) => Some(s.parse().ok()?),
        None => None,
    };
    if let Some(pm) = half {
        if !(1..=12).contains(&hour) {
            return None;
        }
        hour = match (pm, hour) {
            (false, 12) => 0,
            (true, 12) => 12,
            (true, h) => h + 12,
            (false, h) => h,
        };
    }
    if hour > 23 || minute > 59 || second.is_some_and(|s| s > 59) {
        return None;
    }
    Some(match second {
        Some(s) => format!("{hour:02}:{minute:02}:{s:02}"),
        None => format!("{hour:02}:{minute:02}"),
    })
}

/// "11/03/2016" (month first, as the US writes it and as date pickers print it), "2016-11-03",
/// "March 3, 2016", "3 March 2016" → "2016-11-03" and so on.
fn date(text: &str) -> Option<String> {
    let words: Vec<String> = text
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '/' | '-' | '.'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
        .collect();
    let number = |w: &str| w.trim_end_matches(['s', 't', 'n', 'd', 'r', 'h']).parse::<u32>().ok();
    let month_named = |w: &str| MONTHS.iter().position(|m| w.len() >= 3 && m.starts_with(w)).map(|i| i as u32 + 1);
    let (year, month, day) = match words.as_slice() {
        [a, b, c] if a.len() == 4 => (a.parse().ok()?, number(b)?, number(c)?),
        [a, b, c] if c.len() == 4 => match (month_named(a), month_named(b)) {
            (Some(m), _) => (c.parse().ok()?, m, number(b)?),
            (_, Some(m)) => (c.parse().ok()?, m, number(a)?),
            _ => (c.parse().ok()?, number(a)?, number(b)?),
        },
        _ => return None,
    };
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        _ => return None,
    };
    let year: u32 = year;
    ((1..=days).contains(&day) && (1..=9999).contains(&year)).then(|| format!("{year:04}-{month:02}-{day:02}"))
}

#[cfg(test)]
mod tests {
    use super::for_input;

    #[test]
    fn times_take_the_twenty_four_hour_form() {
        assert_eq!(for_input("time", "1:49 PM").as_deref(), Some("13:49"));
        assert_eq!(for_input("time", "12:05 AM").as_deref(), Some("00:05"));
        assert_eq!(for_input("time", "12:30 pm").as_deref(), Some("12:30"));
        assert_eq!(for_input("time", "9 a.m.").as_deref(), Some("09:00"));
        assert_eq!(for_input("time", "23:59:01").as_deref(), Some("23:59:01"));
        assert_eq!(for_input("time", "13:49 PM"), None);
        assert_eq!(for_input("time", "noonish"), None);
    }

    #[test]
    fn dates_take_the_iso_form() {
        assert_eq!(for_input("date", "11/03/2016").as_deref(), Some("2016-11-03"));
        assert_eq!(for_input("date", "2016-11-03").as_deref(), Some("2016-11-03"));
        assert_eq!(for_input("date", "March 3, 2016").as_deref(), Some("2016-03-03"));
        assert_eq!(for_input("date", "3rd Mar 2016").as_deref(), Some("2016-03-03"));
        assert_eq!(for_input("date", "02/30/2016"), None);
        assert_eq!(for_input("date", "02/29/2016").as_deref(), Some("2016-02-29"));
        assert_eq!(for_input("month", "March 2016").as_deref(), Some("2016-03"));
        assert_eq!(for_input("datetime-local", "11/03/2016 1:49 PM").as_deref(), Some("2016-11-03T13:49"));
    }

    #[test]
    fn a_date_field_takes_the_form_of_what_the_text_is() {
        use super::{FieldKind, for_field};
        assert_eq!(for_field(Some(FieldKind::Date), "1:54 AM"), "01:54");
        assert_eq!(for_field(Some(FieldKind::Date), "12/26/2016"), "2016-12-26");
        assert_eq!(for_field(Some(FieldKind::Date), "March 2016"), "2016-03");
        assert_eq!(for_field(Some(FieldKind::Text), "12/26/2016"), "12/26/2016");
        assert_eq!(for_field(Some(FieldKind::Date), "soon"), "soon");
    }

    #[test]
    fn other_fields_take_the_text() {
        assert_eq!(for_input("text", " Ada ").as_deref(), Some("Ada"));
        assert_eq!(for_input("number", "1,250").as_deref(), Some("1250"));
        assert_eq!(for_input("number", "many"), None);
        for number in ["-3", "+2.5", ".5", "4.", "1e3", "2.5E-2"] {
            assert_eq!(for_input("number", number).as_deref(), Some(number));
        }
        for not in ["1.2.3", "-", "e3", "1e", "4-"] {
            assert_eq!(for_input("number", not), None, "{not}");
        }
        assert_eq!(for_input("time", " ").as_deref(), Some(""));
    }
}
