//! Approval cards: what the sidecar shows for every call the Policy Gate answers with `ask`.
//!
//! A card names the tool in words, lists its arguments, previews the target element from the
//! observation, carries the gate's warnings, and offers "Always on this site" only when the
//! gate said a grant may cover the call. Nothing runs before the user approves the card.

use laika_shared::observation::Observation;
use laika_shared::policy::{Capability, Decision, Verdict};
use laika_shared::tools::ToolCall;
use serde::Serialize;
use serde_json::Value;

/// The element a call targets, as the observation described it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetPreview {
    pub handle_id: String,
    pub role: String,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub href: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApprovalCard {
    pub tool: &'static str,
    pub title: String,
    pub arguments: Vec<(String, String)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<TargetPreview>,
    pub warnings: Vec<&'static str>,
    /// The capability "Always on this site" would grant; `None` hides that button.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub always_on_site: Option<Capability>,
}

/// Longest argument value shown on a card; the rest is elided, never hidden silently.
const MAX_SHOWN_CHARS: usize = 200;

impl ApprovalCard {
    /// The card for a call the gate asked about; `None` for allow and deny (no card is shown).
    pub fn for_decision(
        call: &ToolCall,
        decision: &Decision,
        observation: Option<&Observation>,
    ) -> Option<ApprovalCard> {
        if decision.verdict != Verdict::Ask {
            return None;
        }
        let target = call.handle_id().and_then(|handle| {
            let element = observation?.element(handle)?;
            Some(TargetPreview {
                handle_id: element.handle_id.clone(),
                role: element.role.clone(),
                text: shorten(&element.text),
                href: element.href.clone(),
            })
        });
        let arguments = match call.arguments() {
            Value::Object(map) => map.into_iter().map(|(key, value)| (key, shorten(&display_value(&value)))).collect(),
            _ => Vec::new(),
        };
        Some(ApprovalCard {
            tool: call.name(),
            title: capitalise(&decision.reason),
            arguments,
            target,
            warnings: decision.warnings.iter().map(|w| w.message()).collect(),
            always_on_site: decision.grantable,
        })
    }
}

fn display_value(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn shorten(text: &str) -> String {
    if text.chars().count() <= MAX_SHOWN_CHARS {
        return text.to_string();
    }
    let kept: String = text.chars().take(MAX_SHOWN_CHARS - 1).collect();
    format!("{kept}…")
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use laika_shared::observation::Element;
    use laika_shared::policy::{PolicyContext, Warning, decide};
    use laika_shared::tools::RawToolCall;
    use serde_json::json;

    fn call(name: &str, arguments: Value) -> ToolCall {
        RawToolCall { name: name.into(), arguments: arguments.as_object().cloned().unwrap_or_default() }
            .to_typed()
            .unwrap()
    }

    fn page() -> Observation {
        Observation {
            url: "https://app.example/settings".into(),
            elements: vec![
                Element {
                    handle_id: "laika-1".into(),
                    role: "button".into(),
                    text: "Delete account".into(),
                    ..Default::default()
                },
                Element {
                    handle_id: "laika-2".into(),
                    role: "button".into(),
                    text: "Save".into(),
                    ..Default::default()
                },
            ],
            ..Default::default()
        }
    }

    #[test]
    fn a_warned_click_gets_a_card_with_its_target_and_no_site_grant() {
        let observation = page();
        let ctx = PolicyContext {
            page_url: Some("https://app.example/settings"),
            observation: Some(&observation),
            ..PolicyContext::default()
        };
        let click = call("browser.click", json!({ "handleId": "laika-1" }));
        let decision = decide(&click, &ctx);
        let card = ApprovalCard::for_decision(&click, &decision, Some(&observation)).expect("ask gives a card");
        assert_eq!(card.tool, "browser.click");
        assert_eq!(card.title, "Click \"Delete account\"");
        assert_eq!(card.target.as_ref().map(|t| t.text.as_str()), Some("Delete account"));
        assert_eq!(card.warnings, [Warning::Destructive.message()]);
        assert_eq!(card.always_on_site, None);
    }

    #[test]
    fn a_plain_click_offers_always_on_this_site() {
        let observation = page();
        let ctx = PolicyContext {
            page_url: Some("https://app.example/settings"),
            observation: Some(&observation),
            ..PolicyContext::default()
        };
        let click = call("browser.click", json!({ "handleId": "laika-2" }));
        let card = ApprovalCard::for_decision(&click, &decide(&click, &ctx), Some(&observation)).unwrap();
        assert_eq!(card.always_on_site, Some(Capability::Click));
        assert_eq!(card.arguments, [("handleId".to_string(), "laika-2".to_string())]);
    }

    #[test]
    fn allow_and_deny_show_no_card() {
        let observe = call("browser.observe_dom", json!({}));
        let ctx = PolicyContext::default();
        assert!(ApprovalCard::for_decision(&observe, &decide(&observe, &ctx), None).is_none());
        let js = call("browser.navigate", json!({ "url": "javascript:alert(1)" }));
        assert!(ApprovalCard::for_decision(&js, &decide(&js, &ctx), None).is_none());
    }

    #[test]
    fn long_arguments_are_elided_visibly() {
        let typing = call("browser.type", json!({ "handleId": "laika-2", "text": "x".repeat(500) }));
        let card = ApprovalCard::for_decision(&typing, &decide(&typing, &PolicyContext::default()), None).unwrap();
        let text = &card.arguments.iter().find(|(k, _)| k == "text").unwrap().1;
        assert_eq!(text.chars().count(), MAX_SHOWN_CHARS);
        assert!(text.ends_with('…'));
    }
}
