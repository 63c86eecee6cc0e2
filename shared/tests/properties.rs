//! Property tests: no input makes the parsers, validators or the gate panic.
//! (The render properties, to_html's allowed tags and hrefs, live beside the renderer.)

use laika_shared::packet;
use laika_shared::parse::{parse_model_output, parse_planner_lenient};
use laika_shared::policy::{PolicyContext, decide};
use laika_shared::tools::RawToolCall;
use proptest::prelude::*;
use serde_json::{Map, Value};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        ".{0,20}".prop_map(Value::String),
        prop_oneof![Just("laika.llmcp"), Just("request"), Just("response"), Just("doc"), Just("browser.click")]
            .prop_map(|s| Value::String(s.to_string())),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        Just("protocol".to_string()),
                        Just("type".to_string()),
                        Just("name".to_string()),
                        Just("arguments".to_string()),
                        Just("children".to_string()),
                        Just("text".to_string()),
                        Just("handleId".to_string()),
                        Just("url".to_string()),
                        "[a-z_]{1,8}".prop_map(String::from),
                    ],
                    inner,
                ),
                0..6
            )
            .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn model_output_parsing_never_panics(raw in any::<String>()) {
        let _ = parse_model_output(&raw);
        let _ = parse_planner_lenient(&raw);
    }

    #[test]
    fn json_shaped_noise_never_panics(raw in r#"[ {}\[\]":,a-z0-9<>/`\\ \n]{0,300}"#) {
        let _ = parse_model_output(&raw);
        let _ = parse_model_output(&format!("```json\n{raw}\n```"));
        let _ = parse_model_output(&format!("<think>{raw}</think>{raw}"));
        let _ = packet::parse_packet(&raw);
    }

    #[test]
    fn validating_any_json_never_panics(value in json_value()) {
        let _ = packet::validate(&value);
        let _ = packet::packet_from_value(&value);
        let _ = parse_model_output(&value.to_string());
    }

    #[test]
    fn tool_arguments_of_any_shape_are_checked_not_trusted(
        name in prop_oneof![Just("browser.click"), Just("browser.type"), Just("browser.navigate"), Just("app.calculate"),
                            Just("collection.add_sources"), Just("artifact.save"), Just("app.money_calculate")],
        arguments in json_value(),
    ) {
        let raw = RawToolCall { name: name.to_string(), arguments: arguments.as_object().cloned().unwrap_or_default() };
        if let Ok(call) = raw.to_typed() {
            // Whatever got through is decided, never executed blindly.
            let _ = decide(&call, &PolicyContext::default());
        }
    }
}
