//! `mcp-config.json` beside `lavs.json` (spec section 9.3): the stdio MCP servers a service's
//! `mcp` handlers name, in the form Claude Desktop and most MCP hosts use,
//! `{"mcpServers": {"<name>": {"command", "args", "env", "cwd"}}}`, so a server's entry can be
//! copied from such a host as it is. Checked when the service loads, as the manifest is: against
//! `mcp-config.schema.json` first, so an error names the field
//! (`mcp-config.json /mcpServers/notes/args: …`); [`crate::manifest`] then checks that every
//! server an endpoint names is here.

use crate::error::{self, LavsError};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

pub const MCP_CONFIG_FILE: &str = "mcp-config.json";

/// One stdio server: the program the runtime starts for it (see [`crate::mcp`]).
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct McpServer {
    /// A name looked up on `PATH`, or a path relative to `cwd` (then checked against
    /// `fileAccess`, as a script handler's command is).
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    /// Added to the clean environment every handler program gets (strings only: the format says
    /// so).
    #[serde(default)]
    pub env: Map<String, Value>,
    /// Relative to the service's folder; the folder itself when absent.
    #[serde(default)]
    pub cwd: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct McpConfig {
    mcp_servers: BTreeMap<String, McpServer>,
}

/// The servers `dir/mcp-config.json` declares; none when the service has no such file.
pub fn load(dir: &Path) -> Result<BTreeMap<String, McpServer>, LavsError> {
    let path = dir.join(MCP_CONFIG_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => {
            return Err(LavsError::titled(error::INVALID_REQUEST, format!("cannot read {}: {e}", path.display())));
        }
    };
    let raw: Value = serde_json::from_str(&text)
        .map_err(|e| LavsError::titled(error::PARSE_ERROR, format!("{} is not JSON: {e}", path.display())))?;
    parse(raw)
}

fn parse(raw: Value) -> Result<BTreeMap<String, McpServer>, LavsError> {
    let invalid = |field: &str, what: &str| {
        LavsError::titled(error::INVALID_REQUEST, format!("{MCP_CONFIG_FILE} {field}: {what}"))
            .with_data(serde_json::json!({ "file": MCP_CONFIG_FILE, "field": field }))
    };
    // The deepest error names the field best, and picking it keeps the answer the same whatever
    // order the validator meets the schema's keywords in (serde_json's key order differs between
    // builds).
    let deepest = format_validator().iter_errors(&raw).max_by_key(|e| {
        let path = e.instance_path().to_string();
        (path.matches('/').count(), std::cmp::Reverse(path))
    });
    if let Some(error) = deepest {
        let field = error.instance_path().to_string();
        return Err(invalid(if field.is_empty() { "/" } else { &field }, &error.to_string()));
    }
    let config: McpConfig = serde_json::from_value(raw).map_err(|e| invalid("/", &e.to_string()))?;
    Ok(config.mcp_servers)
}

fn format_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let schema: Value = serde_json::from_str(include_str!("mcp-config.schema.json")).expect("the format is JSON");
        jsonschema::validator_for(&schema).expect("the format is a valid schema")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_claude_desktop_style_config_reads() {
        let servers = parse(json!({
            "mcpServers": {
                "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": { "GITHUB_TOKEN": "t" } },
                "notes": { "type": "stdio", "command": "python3", "args": ["server.py"], "cwd": "server" }
            },
            "globalShortcut": "Ctrl+Space"
        }))
        .unwrap();
        assert_eq!(servers["github"].args, ["-y", "@modelcontextprotocol/server-github"]);
        assert_eq!(servers["github"].env["GITHUB_TOKEN"], "t");
        assert_eq!(servers["notes"].cwd.as_deref(), Some("server"));
    }

    #[test]
    fn errors_name_the_field() {
        for (config, field) in [
            (json!({}), "/"),
            (json!({ "mcpServers": { "x": { "args": [] } } }), "/mcpServers/x"),
            (json!({ "mcpServers": { "x": { "command": "a", "args": "b" } } }), "/mcpServers/x/args"),
            (json!({ "mcpServers": { "x": { "command": "a", "env": { "N": 1 } } } }), "/mcpServers/x/env/N"),
            (json!({ "mcpServers": { "x": { "command": "a", "arg": [] } } }), "/mcpServers/x"),
            (
                json!({ "mcpServers": { "x": { "type": "http", "url": "https://e.example/mcp" } } }),
                "/mcpServers/x/type",
            ),
        ] {
            let error = parse(config.clone()).unwrap_err();
            assert_eq!(error.code, error::INVALID_REQUEST);
            assert_eq!(error.data.as_ref().unwrap()["field"], field, "{config}: {error}");
        }
    }
}
