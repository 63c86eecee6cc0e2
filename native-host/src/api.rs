//! The request API the host serves over native messaging.
//!
//! Requests are `{"id", "method", "params"}`; replies `{"id", "result"}` or
//! `{"id", "error": {"code", "message"}}`. Methods so far:
//! - `host.info` → `{name, version, protocol: {name, version}, methods}`
//! - `packet.validate` `{packet}` → `{valid, violations}` (laika.llmcp v1 rules)
//! - `render.sanitize` `{render}` → `{doc, html, dropped}` (the render AST made safe)
//!
//! The agent methods (`plan`, `summary.*`, `tool.result`, `approval.decide`, `history.*`,
//! `model.status`, `config.*`) arrive with the agent core.

use crate::transport::{Handler, HostError, Request};
use laika_shared::packet::{self, PROTOCOL_NAME, PROTOCOL_VERSION};
use laika_shared::render::{sanitize, to_html};
use serde_json::{Value, json};

pub const METHODS: &[&str] = &["host.info", "packet.validate", "render.sanitize"];

pub struct HostApi;

impl Handler for HostApi {
    fn handle(&mut self, request: &Request) -> Result<Value, HostError> {
        let param = |name: &str| {
            request
                .params
                .get(name)
                .ok_or_else(|| HostError::new("HOST_INVALID_PARAMS", format!("{} needs params.{name}", request.method)))
        };
        match request.method.as_str() {
            "host.info" => Ok(json!({
                "name": "laika-host",
                "version": env!("CARGO_PKG_VERSION"),
                "protocol": { "name": PROTOCOL_NAME, "version": PROTOCOL_VERSION },
                "methods": METHODS,
            })),
            "packet.validate" => {
                let violations = packet::validate(param("packet")?);
                Ok(json!({ "valid": violations.is_empty(), "violations": violations }))
            }
            "render.sanitize" => {
                let sanitized = sanitize(param("render")?);
                Ok(json!({ "doc": sanitized.doc, "html": to_html(&sanitized.doc), "dropped": sanitized.dropped }))
            }
            other => Err(HostError::new("HOST_UNKNOWN_METHOD", format!("no method {other:?}; see host.info"))),
        }
    }
}
