//! The `http` handler: one request to the URL the manifest names, allowed only to the hosts
//! `networkAccess` lists (or any with `true`; none without it). A query's input becomes the
//! query string, any other method's the JSON body. A 2xx reply's body is the result (JSON, or
//! text); another status is -32003 with the status and the start of the body.

use crate::error::{self, LavsError};
use crate::manifest::NetworkAccess;
use serde_json::{Map, Value};
use std::time::Duration;

/// Of a failed reply's body, what is returned.
const BODY_HEAD_CHARS: usize = 2000;

fn allowed(access: Option<&NetworkAccess>, host: &str) -> bool {
    match access {
        Some(NetworkAccess::All(all)) => *all,
        Some(NetworkAccess::Hosts(hosts)) => hosts.iter().any(|h| h.eq_ignore_ascii_case(host)),
        None => false,
    }
}

pub async fn call(
    url: &str,
    method: &str,
    headers: &Map<String, Value>,
    input: &Value,
    access: Option<&NetworkAccess>,
    timeout: Duration,
) -> Result<Value, LavsError> {
    let parsed = url::Url::parse(url).map_err(|e| LavsError::titled(error::INTERNAL_ERROR, format!("{url}: {e}")))?;
    let host = parsed.host_str().unwrap_or_default();
    if !allowed(access, host) {
        return Err(LavsError::titled(error::PERMISSION_DENIED, format!("networkAccess does not allow {host}"))
            .with_data(serde_json::json!({ "host": host })));
    }
    let client = reqwest::Client::builder()
        .timeout(timeout)
        // A redirect could leave the allowed hosts.
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| LavsError::titled(error::INTERNAL_ERROR, e))?;
    let method =
        reqwest::Method::from_bytes(method.as_bytes()).map_err(|e| LavsError::titled(error::INTERNAL_ERROR, e))?;
    let mut request = client.request(method.clone(), parsed);
    for (name, value) in headers {
        request = request.header(name, value.as_str().map(str::to_string).unwrap_or_else(|| value.to_string()));
    }
    request = if method == reqwest::Method::GET {
        let pairs: Vec<(String, String)> = input
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())))
            .collect();
        request.query(&pairs)
    } else {
        request.json(input)
    };
    let response = request.send().await.map_err(|e| {
        if e.is_timeout() {
            LavsError::titled(error::TIMEOUT, format!("no reply within {} ms", timeout.as_millis()))
        } else {
            LavsError::titled(error::HANDLER_ERROR, e)
        }
    })?;
    let status = response.status();
    let body = response.text().await.map_err(|e| LavsError::titled(error::HANDLER_ERROR, e))?;
    if !status.is_success() {
        let head: String = body.chars().take(BODY_HEAD_CHARS).collect();
        return Err(LavsError::titled(error::HANDLER_ERROR, format!("the service answered HTTP {}", status.as_u16()))
            .with_data(serde_json::json!({ "status": status.as_u16(), "body": head })));
    }
    Ok(serde_json::from_str(&body).unwrap_or(Value::String(body)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_listed_hosts_are_reached() {
        let hosts = NetworkAccess::Hosts(vec!["api.example.com".into()]);
        assert!(allowed(Some(&hosts), "API.example.com"));
        assert!(!allowed(Some(&hosts), "evil.example.com"));
        assert!(!allowed(None, "api.example.com"), "no networkAccess, no network");
        assert!(!allowed(Some(&NetworkAccess::All(false)), "api.example.com"));
        assert!(allowed(Some(&NetworkAccess::All(true)), "anything.example"));
    }
}
