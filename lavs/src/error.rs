//! The spec's error codes (section 5.3), word for word, and the error every stage returns.

use serde::Serialize;
use serde_json::Value;

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
pub const PERMISSION_DENIED: i64 = -32001;
pub const TIMEOUT: i64 = -32002;
pub const HANDLER_ERROR: i64 = -32003;

/// A JSON-RPC error object: `{code, message, data?}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LavsError {
    pub code: i64,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl LavsError {
    pub fn new(code: i64, message: impl Into<String>) -> LavsError {
        LavsError { code, message: message.into(), data: None }
    }

    pub fn with_data(mut self, data: Value) -> LavsError {
        self.data = Some(data);
        self
    }

    /// The spec's name for the code ("Invalid params"), which each message starts with.
    pub fn title(code: i64) -> &'static str {
        match code {
            PARSE_ERROR => "Parse error",
            INVALID_REQUEST => "Invalid request",
            METHOD_NOT_FOUND => "Method not found",
            INVALID_PARAMS => "Invalid params",
            PERMISSION_DENIED => "Permission denied",
            TIMEOUT => "Timeout",
            HANDLER_ERROR => "Handler error",
            _ => "Internal error",
        }
    }

    /// `Title: detail`, the spec's message style ("Invalid params: 'text' is required").
    pub fn titled(code: i64, detail: impl std::fmt::Display) -> LavsError {
        LavsError::new(code, format!("{}: {detail}", LavsError::title(code)))
    }
}

impl std::fmt::Display for LavsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for LavsError {}
