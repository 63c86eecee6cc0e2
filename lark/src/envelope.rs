//! The envelope every frame travels in, both ways: `{v, id, type, ts, data}`.
//!
//! Clients may leave out `v` (read as 1), `id` and `ts` (the spec's own client examples do); a
//! `v` other than 1, a frame that is not a JSON object with a string `type`, or `data` that is not
//! an object is `invalid data`. Frames the server sends carry all five fields.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::time::{SystemTime, UNIX_EPOCH};

/// The protocol version this hub speaks.
pub const VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    #[serde(default = "version")]
    pub v: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub ts: i64,
    #[serde(default)]
    pub data: Map<String, Value>,
}

fn version() -> u32 {
    VERSION
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// A fresh identifier with a readable prefix (`msg_…`, `ch_…`).
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::new_v4().simple())
}

impl Envelope {
    /// A server frame of `kind` with `data`, stamped now with a new id.
    pub fn new(kind: &str, data: Value) -> Envelope {
        let data = match data {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        Envelope { v: VERSION, id: Some(uuid::Uuid::new_v4().to_string()), kind: kind.into(), ts: now_ms(), data }
    }

    /// A reply to `request`: it carries the request's id, so the client can match the two.
    pub fn reply(request: &Envelope, kind: &str, data: Value) -> Envelope {
        let mut envelope = Envelope::new(kind, data);
        if request.id.is_some() {
            envelope.id = request.id.clone();
        }
        envelope
    }

    /// The spec's `error` frame.
    pub fn error(message: &str) -> Envelope {
        Envelope::new("error", serde_json::json!({ "error": message }))
    }

    /// Reads a client frame.
    pub fn parse(text: &str) -> Result<Envelope, &'static str> {
        let envelope: Envelope = serde_json::from_str(text).map_err(|_| crate::errors::INVALID_DATA)?;
        if envelope.v != VERSION || envelope.kind.is_empty() {
            return Err(crate::errors::INVALID_DATA);
        }
        Ok(envelope)
    }

    pub fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A string field of `data`, if present and a string.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.data.get(key).and_then(Value::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_frame_may_leave_out_version_id_and_time() {
        let envelope = Envelope::parse(r#"{"type":"auth.login","data":{"token":"t"}}"#).unwrap();
        assert_eq!((envelope.v, envelope.kind.as_str(), envelope.str("token")), (1, "auth.login", Some("t")));
    }

    #[test]
    fn malformed_frames_are_invalid_data() {
        for text in ["not json", "[]", r#"{"data":{}}"#, r#"{"v":2,"type":"x"}"#, r#"{"type":"x","data":3}"#] {
            assert_eq!(Envelope::parse(text), Err(crate::errors::INVALID_DATA), "{text}");
        }
    }

    #[test]
    fn a_reply_carries_the_request_id() {
        let request = Envelope::parse(r#"{"id":"r1","type":"message.send"}"#).unwrap();
        let reply = Envelope::reply(&request, "message.ack", serde_json::json!({"message_id": "m"}));
        assert_eq!(reply.id.as_deref(), Some("r1"));
        assert_eq!(reply.v, 1);
        assert!(reply.ts > 0);
    }
}
