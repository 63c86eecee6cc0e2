//! Tool-argument validation: arbitrary JSON (raw bytes, or values built from the catalogue's own
//! argument names) as the arguments of every tool name, and of names outside the catalogue.
//!
//! Checked: nothing panics. A rejection carries at least one violation, each with a tool code
//! (`TOOL_UNKNOWN` exactly when the name is not in the catalogue). An accepted call names its
//! catalogue entry, survives the trip back to the model's spelling unchanged, invents no
//! argument keys, and holds the ranges the catalogue states (handles non-blank and short, URLs
//! bounded, scroll finite, currencies ISO-shaped, one artifact body, plain file names, 1 to 100
//! sources …). Its handle, if any, is unknown to an empty observation. The Policy Gate decides it
//! the same way twice, never lets typing or selecting into a secret field through, denies
//! handles outside the observation and non-http(s) navigation, and no site grant changes a deny.
#![no_main]

use laika_shared::Code;
use laika_shared::observation::{Element, FieldKind, Observation};
use laika_shared::policy::{
    Capability, EndpointKind, IntegrationEndpoint, PolicyContext, ReasonCode, SiteGrant, Verdict, decide,
};
use laika_shared::tools::{CATALOGUE, NewSource, RawToolCall, ToolCall, spec};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};

const STRINGS: &[&str] = &[
    "",
    " ",
    "laika-1",
    "laika-2",
    "laika-3",
    "laika-4",
    "laika-5",
    "laika-404",
    "https://shop.example/cart",
    "https://other.example/x.exe",
    "https://u:p@shop.example/",
    "javascript:alert(1)",
    "data:text/html,x",
    "file:///etc/passwd",
    "not a url",
    "USD",
    "usd",
    "EURO",
    "1+2*3",
    "../secret",
    "a/b",
    "report.csv",
    "url",
    "note",
    "markdown",
    "file",
    "web",
    "page",
    "bankers",
    "expedited",
    "CA",
    "94103",
    "doc",
    "paragraph",
    "text",
    "ünïcødé ✓",
];

/// Every quoted word of the catalogue's argument shapes: the keys (and enum words) tools take.
fn catalogue_words() -> &'static [String] {
    static WORDS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    WORDS.get_or_init(|| {
        let mut words: Vec<String> = Vec::new();
        for tool in CATALOGUE {
            for (i, part) in tool.arguments.split('"').enumerate() {
                if i % 2 == 1 && !part.is_empty() && !words.iter().any(|w| w == part) {
                    words.push(part.to_string());
                }
            }
        }
        words
    })
}

/// Reads bytes as choices.
struct Bytes<'a>(&'a [u8]);
impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }
}

fn string(bytes: &mut Bytes<'_>, words: &[String]) -> String {
    match bytes.byte() % 8 {
        0..=3 => STRINGS[bytes.byte() as usize % STRINGS.len()].to_string(),
        4 | 5 => words[bytes.byte() as usize % words.len()].clone(),
        // Long strings, around the catalogue's limits (256, 1000, 2048, 8192, 10000 chars).
        6 => {
            let lengths = [255, 256, 257, 999, 1_001, 2_049, 8_193, 10_001, 100_001];
            "é".repeat(lengths[bytes.byte() as usize % lengths.len()])
        }
        _ => {
            let n = bytes.byte() as usize % 12;
            (0..n).map(|_| char::from(b' ' + bytes.byte() % 95)).collect()
        }
    }
}

fn value(bytes: &mut Bytes<'_>, words: &[String], depth: usize) -> Value {
    let kind = if depth > 4 { bytes.byte() % 7 } else { bytes.byte() % 10 };
    match kind {
        0 => Value::Null,
        1 => Value::Bool(bytes.byte() & 1 == 1),
        2 => json!(bytes.u32() as i64 - (1 << 20)),
        3 => {
            let specials = [0.0, -0.0, 0.5, 1e6, 1e6 + 1.0, -1e6, 1e300, -1e300, f64::MIN_POSITIVE, 6.0, 7.0, 1.5];
            json!(specials[bytes.byte() as usize % specials.len()])
        }
        4 => json!(u64::MAX - bytes.byte() as u64),
        5 | 6 => Value::String(string(bytes, words)),
        7 | 8 => {
            let n = bytes.byte() as usize % 5;
            let mut map = Map::new();
            for _ in 0..n {
                let key = string(bytes, words);
                map.insert(key, value(bytes, words, depth + 1));
            }
            Value::Object(map)
        }
        _ => {
            let n = if bytes.byte() == 255 { 101 } else { bytes.byte() as usize % 4 };
            Value::Array((0..n).map(|_| value(bytes, words, depth + 1)).collect())
        }
    }
}

/// An object whose keys come mostly from the catalogue: the shape tools expect.
fn arguments(bytes: &mut Bytes<'_>, words: &[String]) -> Value {
    let n = bytes.byte() as usize % 6;
    let mut map = Map::new();
    for _ in 0..n {
        let key = if bytes.byte().is_multiple_of(8) {
            string(bytes, words)
        } else {
            words[bytes.byte() as usize % words.len()].clone()
        };
        map.insert(key, value(bytes, words, 1));
    }
    Value::Object(map)
}

fn observation() -> Observation {
    let field = |id: &str, kind: FieldKind| Element {
        handle_id: id.into(),
        role: "textbox".into(),
        text: "field".into(),
        field_kind: Some(kind),
        ..Default::default()
    };
    Observation {
        url: "https://shop.example/checkout".into(),
        elements: vec![
            field("laika-1", FieldKind::Password),
            field("laika-2", FieldKind::Text),
            field("laika-3", FieldKind::OneTimeCode),
            field("laika-4", FieldKind::Payment),
            Element {
                handle_id: "laika-5".into(),
                role: "button".into(),
                text: "Pay now".into(),
                ..Default::default()
            },
        ],
        ..Default::default()
    }
}

fn check_accepted(raw: &RawToolCall, typed: &ToolCall) {
    let name = raw.name.as_str();
    assert!(spec(name).is_some(), "{name} was accepted but is not in the catalogue");
    assert_eq!(typed.name(), name);
    assert_eq!(typed.spec().name, name);
    let again = RawToolCall::from(typed);
    assert_eq!(again.to_typed().as_ref(), Ok(typed), "the call changed on its way back to the model's spelling");
    let Value::Object(written) = typed.arguments() else { panic!("arguments are an object") };
    for key in written.keys() {
        assert!(raw.arguments.contains_key(key), "{name}: the key {key:?} was invented");
    }
    let blank_or_long = |s: &str, max: usize| s.trim().is_empty() || s.chars().count() > max;
    if let Some(handle) = typed.handle_id() {
        assert!(!blank_or_long(handle, 256), "{name}: handle {handle:?}");
    }
    assert_eq!(typed.check_handle(&Observation::default()).is_err(), typed.handle_id().is_some());
    match typed {
        ToolCall::Scroll(a) => assert!(a.delta_y.is_finite() && a.delta_y.abs() <= 1e6, "{a:?}"),
        ToolCall::Navigate(a) | ToolCall::OpenTab(a) => assert!(!blank_or_long(&a.url, 8_192)),
        ToolCall::Type(a) => assert!(a.text.chars().count() <= 10_000),
        ToolCall::Select(a) => assert!(a.value.chars().count() <= 2_048),
        ToolCall::Search(a) => assert!(!blank_or_long(&a.query, 2_048)),
        ToolCall::Find(a) => assert!(!blank_or_long(&a.query, 2_048)),
        ToolCall::Calculate(a) => {
            assert!(!blank_or_long(&a.expression, 1_000) && a.precision.is_none_or(|p| p <= 6), "{a:?}")
        }
        ToolCall::MoneyCalculate(a) => {
            assert!(a.currency.len() == 3 && a.currency.bytes().all(|b| b.is_ascii_alphabetic()))
        }
        ToolCall::ArtifactSave(a) => {
            assert!(a.text.is_some() != a.doc.is_some(), "exactly one body");
            if let Some(doc) = &a.doc {
                assert!(laika_shared::render::check(doc).is_empty());
            }
        }
        ToolCall::ArtifactShare(a) => {
            if let Some(file) = &a.filename {
                assert!(!file.contains(['/', '\\', '\0']) && file != "." && file != "..", "{file:?}");
            }
        }
        ToolCall::CollectionAddSources(a) => {
            assert!((1..=100).contains(&a.sources.len()));
            for source in &a.sources {
                match source {
                    NewSource::Url { url, .. } => assert!(!blank_or_long(url, 8_192)),
                    NewSource::Note { text, .. } => assert!(!blank_or_long(text, 100_000)),
                }
            }
        }
        ToolCall::SourceCapture(a) => assert!(!blank_or_long(&a.url, 8_192)),
        _ => {}
    }

    // The gate on the accepted call.
    static OBSERVATION: std::sync::OnceLock<Observation> = std::sync::OnceLock::new();
    let observation = OBSERVATION.get_or_init(observation);
    // One installed service with an endpoint of each kind, so integration.invoke reaches every verdict.
    static INTEGRATIONS: std::sync::OnceLock<Vec<IntegrationEndpoint>> = std::sync::OnceLock::new();
    let integrations = INTEGRATIONS.get_or_init(|| {
        [("list", EndpointKind::Query), ("send", EndpointKind::Mutation), ("watch", EndpointKind::Subscription)]
            .into_iter()
            .map(|(endpoint, kind)| IntegrationEndpoint {
                service: "mail".into(),
                endpoint: endpoint.into(),
                kind,
                network: true,
            })
            .collect()
    });
    let plain = PolicyContext {
        page_url: Some("https://shop.example/checkout"),
        observation: Some(observation),
        grants: &[],
        integrations,
        goal_secrets: &[],
    };
    let decision = decide(typed, &plain);
    assert_eq!(decision, decide(typed, &plain), "the gate is not deterministic");
    if decision.verdict == Verdict::Allow {
        assert_ne!(decision.code, ReasonCode::PolicySiteGrant, "allowed by a grant nobody gave");
    }
    if let ToolCall::Type(a) = typed {
        check_field(observation, &a.handle_id, &decision);
    }
    if let ToolCall::Select(a) = typed {
        check_field(observation, &a.handle_id, &decision);
    }
    if let ToolCall::IntegrationInvoke(a) = typed {
        let installed = integrations.iter().find(|e| e.service == a.integration && e.endpoint == a.operation);
        let expected = match installed.map(|e| e.kind) {
            None => Verdict::Deny,
            Some(EndpointKind::Query) => Verdict::Allow,
            Some(EndpointKind::Mutation) => Verdict::Ask,
            Some(EndpointKind::Subscription) => Verdict::Deny,
        };
        assert_eq!(decision.verdict, expected, "{}.{}", a.integration, a.operation);
    }
    if let ToolCall::Navigate(a) | ToolCall::OpenTab(a) = typed
        && laika_shared::policy::origin_of(&a.url).is_none()
    {
        assert_eq!((decision.verdict, decision.code), (Verdict::Deny, ReasonCode::PolicyBadScheme), "{}", a.url);
    }
    let everything: Vec<SiteGrant> = ["https://shop.example", "https://other.example"]
        .iter()
        .flat_map(|origin| {
            [
                Capability::Click,
                Capability::Type,
                Capability::Select,
                Capability::Navigate,
                Capability::OpenTab,
                Capability::Search,
            ]
            .map(|capability| SiteGrant { origin: origin.to_string(), capability })
        })
        .collect();
    let granted = decide(typed, &PolicyContext { grants: &everything, ..plain });
    if decision.verdict == Verdict::Deny {
        assert_eq!(granted, decision, "a grant changed a deny");
    }
    if !decision.warnings.is_empty() {
        assert_ne!(granted.verdict, Verdict::Allow, "a grant covered a warned ask");
    }
}

fn check_field(observation: &Observation, handle: &str, decision: &laika_shared::policy::Decision) {
    match observation.element(handle) {
        None => assert_eq!((decision.verdict, decision.code), (Verdict::Deny, ReasonCode::PolicyUnknownHandle)),
        Some(element) if element.field_kind.is_some_and(FieldKind::is_secret) => {
            assert_eq!((decision.verdict, decision.code), (Verdict::Deny, ReasonCode::PolicySensitiveField))
        }
        Some(_) => assert_ne!(decision.verdict, Verdict::Deny, "{decision:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes(data);
    let pick = bytes.byte() as usize;
    let mode = bytes.byte();
    let words = catalogue_words();
    let name = match pick % (CATALOGUE.len() + 2) {
        i if i < CATALOGUE.len() => CATALOGUE[i].name.to_string(),
        i if i == CATALOGUE.len() => string(&mut bytes, words),
        // A catalogue name with a twist: case, whitespace, a suffix.
        _ => {
            let base = CATALOGUE[bytes.byte() as usize % CATALOGUE.len()].name;
            match bytes.byte() % 3 {
                0 => base.to_uppercase(),
                1 => format!(" {base}"),
                _ => format!("{base}\0"),
            }
        }
    };
    let arguments = if mode % 2 == 0 {
        // The rest as JSON text; anything that does not parse is still a string argument.
        serde_json::from_slice::<Value>(bytes.0)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes.0).into()))
    } else {
        arguments(&mut bytes, words)
    };

    // The model's spelling: `{name, arguments}`, with arguments of any JSON type.
    let wrapped = json!({ "name": name, "arguments": arguments });
    let raw = match RawToolCall::from_value(&wrapped, "/tool_calls/0") {
        Ok(raw) => raw,
        Err(violation) => {
            assert_eq!(violation.code, Code::InvalidToolCall);
            assert!(!matches!(arguments, Value::Object(_) | Value::Null), "{violation}");
            return;
        }
    };
    match raw.to_typed() {
        Ok(typed) => check_accepted(&raw, &typed),
        Err(violations) => {
            assert!(!violations.is_empty(), "a rejection without a reason");
            let known = spec(&raw.name).is_some();
            for violation in &violations {
                if known {
                    assert!(
                        matches!(violation.code, Code::ToolArgsInvalid | Code::ToolArgOutOfRange),
                        "{}: {violation}",
                        raw.name
                    );
                } else {
                    assert_eq!(violation.code, Code::UnknownTool, "{violation}");
                }
            }
        }
    }
});
