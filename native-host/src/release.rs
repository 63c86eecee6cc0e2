//! Page and tab actions the host releases (issue #56: the host enforces every approval).
//!
//! How a browser action flows:
//! 1. a planning step gates every proposed call ([`crate::agent::plan`]); each call the browser
//!    runs (the content script's clicks, typing and choices; the background's navigation, tabs
//!    and history) is kept here by call id, exactly as the Policy Gate decided it, with the id of
//!    the approval record when the gate asked ([`BrowserCalls::remember`]);
//! 2. to run it, the router (the sidecar's own, or the background's) asks `tool.release
//!    {call_id}` and runs the call the host answers with, never one a page of the extension
//!    wrote: its arguments are the ones the card showed;
//! 3. [`BrowserCalls::release`] answers once per call, and only when the gate allowed it or the
//!    approval record says approved (in the sidecar, `laika-host approvals`, or the Lark bus);
//! 4. the content script refuses a page action that comes without the release.
//!
//! So a sidecar that was tampered with, or a bug in its flow, cannot run an action the user did
//! not approve: the record is the host's.

use crate::history::History;
use crate::transport::HostError;
use laika_shared::policy::{Decision, Verdict, Warning};
use laika_shared::tools::{Executor, RawToolCall, ToolCall};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::Mutex;

/// Browser calls kept for release; the oldest are forgotten past this (a card that old is
/// proposed again rather than run).
const CALLS_KEPT: usize = 512;

#[derive(Clone, Debug)]
struct Kept {
    call: ToolCall,
    decision: Decision,
    approval_id: Option<String>,
    released: bool,
}

/// The browser calls of recent planning steps, by call id.
#[derive(Default)]
pub struct BrowserCalls {
    calls: Mutex<VecDeque<(String, Kept)>>,
}

impl BrowserCalls {
    /// Keeps the browser calls of a planning step (its gated calls as they run, each with its
    /// id, its gate decision and, when the gate asked, its approval id:
    /// [`crate::agent::PlanOutcome::calls`]). Host-run calls are kept by
    /// [`crate::host_tools::HostCalls`].
    pub fn remember(&self, gated: &[Value]) {
        let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        for entry in gated {
            let raw = RawToolCall {
                name: entry["name"].as_str().unwrap_or_default().to_string(),
                arguments: entry["arguments"].as_object().cloned().unwrap_or_default(),
            };
            let (Ok(call), Some(id), Ok(decision)) =
                (raw.to_typed(), entry["id"].as_str(), serde_json::from_value::<Decision>(entry["decision"].clone()))
            else {
                continue;
            };
            // Host-run calls are kept elsewhere; a call shown as what comes next runs only once
            // it is proposed, and asked about, at its own step.
            if call.spec().executor == Executor::Host || entry["later"] == true {
                continue;
            }
            let approval_id = entry["approval_id"].as_str().map(str::to_string);
            calls.push_back((id.to_string(), Kept { call, decision, approval_id, released: false }));
        }
        while calls.len() > CALLS_KEPT {
            calls.pop_front();
        }
    }

    /// `tool.release {call_id}`: the call to run, `{name, arguments, release}`, once, when the
    /// gate allowed it or its approval is recorded as approved; else a stable error and nothing
    /// is released.
    pub fn release(&self, history: &History, call_id: &str) -> Result<Value, HostError> {
        let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        let Some((_, kept)) = calls.iter_mut().find(|(id, _)| id == call_id) else {
            return Err(HostError::new(
                "TOOL_CALL_UNKNOWN",
                format!("no call {call_id:?} was proposed here, or the host restarted since: ask again"),
            ));
        };
        if kept.released {
            return Err(HostError::new("TOOL_ALREADY_RUN", format!("{} was released once already", kept.call.name())));
        }
        match kept.decision.verdict {
            Verdict::Deny => return Err(HostError::new(kept.decision.code.as_str(), kept.decision.reason.clone())),
            Verdict::Ask => {
                let approval = match kept.approval_id.as_deref() {
                    Some(id) => history.approval(id).map_err(|e| HostError::new(e.code, e.message))?,
                    None => None,
                };
                let answer = approval.as_ref().and_then(|a| a.decision.as_deref());
                if !matches!(answer, Some("approve" | "always_on_site")) {
                    let said =
                        answer.map(|a| format!("was answered {a:?}")).unwrap_or_else(|| "has no answer yet".into());
                    return Err(HostError::new(
                        "TOOL_NOT_APPROVED",
                        format!("{} is not approved: its approval {said}", kept.call.name()),
                    ));
                }
            }
            Verdict::Allow => {}
        }
        kept.released = true;
        let mut released = json!({ "name": kept.call.name(), "arguments": kept.call.arguments(), "release": call_id });
        // The one password a page action may type: the user's own, on a card the user approved.
        if kept.decision.warnings.contains(&Warning::Password) {
            released["password"] = json!(true);
        }
        Ok(released)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{ApprovalRecord, StoragePolicy};

    fn gated(verdict: &str, approval: Option<&str>) -> Vec<Value> {
        let mut call = json!({
            "id": "call-1",
            "name": "browser.click",
            "arguments": { "handleId": "laika-4" },
            "decision": { "verdict": verdict, "code": if verdict == "deny" { "POLICY_SENSITIVE_FIELD" } else { "POLICY_NEEDS_APPROVAL" }, "reason": "click \"Buy now\"" },
        });
        if let Some(id) = approval {
            call["approval_id"] = json!(id);
        }
        vec![call]
    }

    fn record(history: &History, id: &str) {
        history
            .record_approval(&ApprovalRecord {
                id: id.into(),
                conversation_id: None,
                created_at: crate::prompt::now_utc(),
                origin: Some("https://shop.example.com".into()),
                tool_name: "browser.click".into(),
                arguments: json!({ "handleId": "laika-4" }),
                verdict: "ask".into(),
                code: "POLICY_NEEDS_APPROVAL".into(),
                grantable: None,
                decision: None,
                decided_at: None,
                reason: None,
            })
            .unwrap();
    }

    #[test]
    fn nothing_is_released_without_a_recorded_approval() {
        let history = History::open_in_memory(StoragePolicy::Redacted).unwrap();
        let calls = BrowserCalls::default();
        // Never proposed.
        assert_eq!(calls.release(&history, "call-1").unwrap_err().code, "TOOL_CALL_UNKNOWN");
        // Asked, not answered; then denied.
        record(&history, "call-1");
        calls.remember(&gated("ask", Some("call-1")));
        assert_eq!(calls.release(&history, "call-1").unwrap_err().code, "TOOL_NOT_APPROVED");
        history.decide_approval("call-1", "deny").unwrap();
        assert_eq!(calls.release(&history, "call-1").unwrap_err().code, "TOOL_NOT_APPROVED");
    }

    #[test]
    fn an_approved_call_is_released_once_with_the_arguments_the_card_showed() {
        let history = History::open_in_memory(StoragePolicy::Redacted).unwrap();
        let calls = BrowserCalls::default();
        record(&history, "call-1");
        calls.remember(&gated("ask", Some("call-1")));
        history.decide_approval("call-1", "approve").unwrap();
        let released = calls.release(&history, "call-1").unwrap();
        assert_eq!(
            released,
            json!({ "name": "browser.click", "arguments": { "handleId": "laika-4" }, "release": "call-1" })
        );
        assert_eq!(calls.release(&history, "call-1").unwrap_err().code, "TOOL_ALREADY_RUN");
    }

    #[test]
    fn a_denied_call_is_never_released_and_an_allowed_one_needs_no_approval() {
        let history = History::open_in_memory(StoragePolicy::Redacted).unwrap();
        let calls = BrowserCalls::default();
        calls.remember(&gated("deny", None));
        assert_eq!(calls.release(&history, "call-1").unwrap_err().code, "POLICY_SENSITIVE_FIELD");
        let calls = BrowserCalls::default();
        calls.remember(&gated("allow", None));
        assert_eq!(calls.release(&history, "call-1").unwrap()["name"], "browser.click");
    }
}
