//! The fallback rendering of a LAVS result (`view.fallback`: `list`, `table` or `json`), for a
//! service without a view component of its own, or one this browser cannot frame.
//!
//! Platform-free: [`layout`] turns a result into rows and cells of plain text, which the sidecar
//! draws with `textContent` only ([`crate::sidecar`]); nothing from a service is ever HTML.

use serde_json::Value;

/// Rows shown at most; the rest is counted, not hidden silently.
pub const MAX_ROWS: usize = 200;
/// Columns of a table at most (the first keys seen, in order).
pub const MAX_COLUMNS: usize = 8;
/// Characters of a cell or list item at most.
pub const MAX_CELL_CHARS: usize = 160;
/// Characters of a JSON rendering at most.
pub const MAX_JSON_CHARS: usize = 20_000;

#[derive(Debug, Clone, PartialEq)]
pub enum Layout {
    /// Nothing to show (null, an empty array or object).
    Empty,
    Table {
        columns: Vec<String>,
        rows: Vec<Vec<String>>,
        more: usize,
    },
    List {
        items: Vec<String>,
        more: usize,
    },
    /// JSON, compact (pretty printing would ship a second serializer in the WASM).
    Json(String),
    /// One scalar, as text.
    Text(String),
}

/// How `value` is shown under the manifest's `fallback` mode (`auto` or absent: a table for an
/// array of objects, a list for an array of scalars, JSON otherwise). A mode that does not fit the
/// value (a table of scalars) falls back to the one that does.
pub fn layout(value: &Value, mode: Option<&str>) -> Layout {
    match value {
        Value::Null => return Layout::Empty,
        Value::Array(items) if items.is_empty() => return Layout::Empty,
        Value::Object(map) if map.is_empty() => return Layout::Empty,
        Value::String(s) => return Layout::Text(clip(s, MAX_JSON_CHARS)),
        Value::Bool(_) | Value::Number(_) => return Layout::Text(value.to_string()),
        _ => {}
    }
    if mode == Some("json") {
        return json(value);
    }
    // A single object (e.g. a mutation's result) reads as a one-row table.
    let rows: Vec<&Value> = match value {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    let all_objects = rows.iter().all(|r| r.is_object());
    let all_scalars = rows.iter().all(|r| !r.is_object() && !r.is_array());
    let more = rows.len().saturating_sub(MAX_ROWS);
    let shown = &rows[..rows.len().min(MAX_ROWS)];
    if all_objects && mode != Some("list") {
        let mut columns: Vec<String> = Vec::new();
        for row in shown {
            for key in row.as_object().into_iter().flat_map(|m| m.keys()) {
                if columns.len() < MAX_COLUMNS && !columns.contains(key) {
                    columns.push(key.clone());
                }
            }
        }
        let rows = shown
            .iter()
            .map(|row| columns.iter().map(|c| cell(row.get(c).unwrap_or(&Value::Null))).collect())
            .collect();
        return Layout::Table { columns, rows, more };
    }
    if all_scalars || (all_objects && mode == Some("list")) {
        let items = shown.iter().map(|v| cell(v)).collect();
        return Layout::List { items, more };
    }
    json(value)
}

fn json(value: &Value) -> Layout {
    Layout::Json(clip(&value.to_string(), MAX_JSON_CHARS))
}

/// A value as one line of text: strings as they are, other scalars as JSON, structures as
/// compact JSON; clipped.
/// An endpoint's heading, from its id: words split at capitals and underscores, the first
/// capitalised ("listNotes" → "List notes", "run_transform" → "Run transform"). The id itself is
/// shown beside it, small, for whoever calls it by name.
pub fn endpoint_title(id: &str) -> String {
    // ASCII only: ids are identifiers, and Unicode case tables would cost the WASM budget.
    let mut words: Vec<String> = vec![];
    for piece in id.split(['_', '-', ' ']).filter(|p| !p.is_empty()) {
        let mut word = String::new();
        for c in piece.chars() {
            if c.is_ascii_uppercase() && !word.is_empty() && !word.ends_with(|l: char| l.is_ascii_uppercase()) {
                words.push(std::mem::take(&mut word));
            }
            word.push(c);
        }
        words.push(word);
    }
    let mut title = words
        .iter()
        .map(|w| {
            if w.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()) {
                w.clone()
            } else {
                w.to_ascii_lowercase()
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(first) = title.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    title
}

pub fn cell(value: &Value) -> String {
    let text = match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => if *b { "yes" } else { "no" }.to_string(),
        other => other.to_string(),
    };
    clip(&text, MAX_CELL_CHARS)
}

fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    format!("{}…", text.chars().take(max - 1).collect::<String>())
}

/// The fields of a simple form for an endpoint's input schema: its top-level properties with a
/// control kind each (`text`, `number`, `checkbox`, or `select` with the enum's options), whether
/// it is required, and its default. A property of another shape (an object, an array) is `json`:
/// typed as JSON text.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub control: Control,
    pub required: bool,
    pub default: Option<Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Control {
    Text,
    Number { integer: bool },
    Checkbox,
    Select(Vec<String>),
    Json,
}

pub fn form_fields(schema: Option<&Value>) -> Vec<Field> {
    let Some(schema) = schema else { return vec![] };
    let required: Vec<&str> = schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let Some(properties) = schema["properties"].as_object() else { return vec![] };
    properties
        .iter()
        .map(|(name, property)| {
            let control = if let Some(options) = property["enum"].as_array() {
                Control::Select(options.iter().map(cell).collect())
            } else {
                match property["type"].as_str() {
                    Some("string") => Control::Text,
                    Some("integer") => Control::Number { integer: true },
                    Some("number") => Control::Number { integer: false },
                    Some("boolean") => Control::Checkbox,
                    _ => Control::Json,
                }
            };
            Field {
                name: name.clone(),
                control,
                required: required.contains(&name.as_str()),
                default: property.get("default").cloned(),
            }
        })
        .collect()
}

/// The input a form's values make: empty optional fields left out; a number that does not parse
/// or JSON that does not parse is an error naming the field.
pub fn form_input(fields: &[Field], values: &[(String, String)]) -> Result<Value, String> {
    let mut input = serde_json::Map::new();
    for field in fields {
        let raw = values.iter().find(|(n, _)| n == &field.name).map(|(_, v)| v.as_str()).unwrap_or("");
        let value = match &field.control {
            Control::Checkbox => Value::Bool(raw == "true"),
            _ if raw.trim().is_empty() => {
                if field.required {
                    return Err(format!("{} is required", field.name));
                }
                continue;
            }
            Control::Text | Control::Select(_) => Value::String(raw.to_string()),
            // Numbers are read by serde_json's parser, which the module carries anyway (core's
            // float parser would add its own tables to the shipped WASM).
            Control::Number { integer } => match serde_json::from_str::<serde_json::Number>(raw.trim()) {
                Ok(n) if !*integer || n.is_i64() || n.is_u64() => Value::Number(n),
                Ok(_) => return Err(format!("{} must be a whole number", field.name)),
                Err(_) => return Err(format!("{} must be a number", field.name)),
            },
            Control::Json => serde_json::from_str(raw).map_err(|e| format!("{} is not JSON: {e}", field.name))?,
        };
        input.insert(field.name.clone(), value);
    }
    Ok(Value::Object(input))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn endpoint_ids_read_as_titles() {
        assert_eq!(endpoint_title("listNotes"), "List notes");
        assert_eq!(endpoint_title("askCollection"), "Ask collection");
        assert_eq!(endpoint_title("run_transform"), "Run transform");
        assert_eq!(endpoint_title("getHTML"), "Get HTML");
        assert_eq!(endpoint_title(""), "");
    }

    #[test]
    fn arrays_of_objects_are_tables_of_text_and_scalars_are_lists() {
        let todos = json!([{ "id": 1, "text": "Buy milk", "done": false }, { "id": 2, "text": "<b>Walk</b>", "done": true, "tag": "x" }]);
        let Layout::Table { columns, rows, more } = layout(&todos, None) else { panic!("a table") };
        // Keys come in the map's order (sorted, or as written where a build of serde_json keeps
        // the order): a row is read through its column names.
        let cell = |row: usize, column: &str| rows[row][columns.iter().position(|c| c == column).unwrap()].clone();
        assert_eq!(columns.len(), 4, "{columns:?}");
        assert_eq!([cell(0, "id"), cell(0, "text"), cell(0, "done"), cell(0, "tag")], ["1", "Buy milk", "no", ""]);
        assert_eq!([cell(1, "text"), cell(1, "done"), cell(1, "tag")], ["<b>Walk</b>", "yes", "x"]);
        assert_eq!(more, 0);
        assert_eq!(
            layout(&json!(["a", 2]), Some("table")),
            Layout::List { items: vec!["a".into(), "2".into()], more: 0 }
        );
        assert!(matches!(layout(&todos, Some("json")), Layout::Json(text) if text.contains("\"Buy milk\"")));
        assert!(matches!(layout(&todos, Some("list")), Layout::List { items, .. } if items.len() == 2));
        assert_eq!(layout(&json!([]), None), Layout::Empty);
        assert_eq!(layout(&Value::Null, Some("table")), Layout::Empty);
        assert_eq!(layout(&json!("Meeting moved\n"), None), Layout::Text("Meeting moved\n".into()));
        assert!(
            matches!(layout(&json!({ "id": 3, "text": "x" }), None), Layout::Table { rows, .. } if rows.len() == 1)
        );
        assert!(matches!(layout(&json!([[1], { "a": 1 }]), None), Layout::Json(_)));
    }

    #[test]
    fn long_results_are_bounded_and_say_how_much_is_left() {
        let many: Vec<Value> = (0..MAX_ROWS + 5).map(|i| json!({ "n": i, "long": "x".repeat(500) })).collect();
        let Layout::Table { columns, rows, more } = layout(&Value::Array(many), None) else { panic!("a table") };
        assert_eq!((rows.len(), more), (MAX_ROWS, 5));
        let long = columns.iter().position(|c| c == "long").unwrap();
        assert_eq!(rows[0][long].chars().count(), MAX_CELL_CHARS, "{:?}", &rows[0]);
        let wide = json!([(0..20).map(|i| (format!("k{i}"), json!(i))).collect::<serde_json::Map<_, _>>()]);
        let Layout::Table { columns, .. } = layout(&wide, None) else { panic!("a table") };
        assert_eq!(columns.len(), MAX_COLUMNS);
    }

    #[test]
    fn a_form_follows_the_input_schema_and_names_the_field_it_cannot_read() {
        let schema = json!({ "type": "object", "required": ["text"], "properties": {
            "text": { "type": "string" }, "priority": { "type": "number", "default": 0 },
            "count": { "type": "integer" }, "urgent": { "type": "boolean" },
            "list": { "enum": ["home", "work"] }, "tags": { "type": "array" } } });
        let fields = form_fields(Some(&schema));
        let control = |name: &str| fields.iter().find(|f| f.name == name).unwrap().control.clone();
        assert_eq!(control("text"), Control::Text);
        assert_eq!(control("priority"), Control::Number { integer: false });
        assert_eq!(control("count"), Control::Number { integer: true });
        assert_eq!(control("urgent"), Control::Checkbox);
        assert_eq!(control("list"), Control::Select(vec!["home".into(), "work".into()]));
        assert_eq!(control("tags"), Control::Json);
        assert!(fields.iter().find(|f| f.name == "text").unwrap().required);

        let values =
            |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>();
        let input = form_input(
            &fields,
            &values(&[("text", "Buy milk"), ("priority", "2.5"), ("urgent", "true"), ("tags", "[\"a\"]")]),
        )
        .unwrap();
        assert_eq!(input, json!({ "text": "Buy milk", "priority": 2.5, "urgent": true, "tags": ["a"] }));
        assert_eq!(form_input(&fields, &values(&[("text", " ")])).unwrap_err(), "text is required");
        assert_eq!(
            form_input(&fields, &values(&[("text", "a"), ("count", "1.5")])).unwrap_err(),
            "count must be a whole number"
        );
        assert!(
            form_input(&fields, &values(&[("text", "a"), ("tags", "[")])).unwrap_err().starts_with("tags is not JSON")
        );
        assert!(form_fields(None).is_empty());
    }
}
