//! A service's `lavs.json`: checked against the manifest format (`manifest.schema.json`, the
//! spec's section 4 as JSON Schema) before anything else reads it, so an error names the field
//! (`/endpoints/1/handler/command: …`); then read into types, and each endpoint's schemas
//! compiled with the manifest's `types` beside them, so `{"$ref": "#/types/Todo"}` resolves.
//! A service with `mcp` handlers has its `mcp-config.json` read and checked with it
//! ([`crate::mcp_config`]): a server an endpoint names and the file lacks is an error naming the
//! endpoint's field.

use crate::error::{self, LavsError};
use crate::mcp_config::{self, McpServer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub const MANIFEST_FILE: &str = "lavs.json";

#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Manifest {
    pub lavs: String,
    pub name: String,
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub endpoints: Vec<Endpoint>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<Value>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub types: Map<String, Value>,
    #[serde(default)]
    pub permissions: Permissions,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    Query,
    Mutation,
    Subscription,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Endpoint {
    pub id: String,
    pub method: Method,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub handler: Handler,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Schemas>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Permissions>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct Schemas {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum InputMode {
    /// `{{field}}` templates in the arguments.
    #[default]
    Args,
    /// The input as JSON on standard input.
    Stdin,
    /// Each top-level field as an environment variable.
    Env,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Handler {
    Script {
        command: String,
        #[serde(default)]
        args: Vec<String>,
        #[serde(default)]
        input: InputMode,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
        /// Milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
        #[serde(default, skip_serializing_if = "Map::is_empty")]
        env: Map<String, Value>,
    },
    Function {
        module: String,
        function: String,
    },
    Http {
        url: String,
        method: String,
        #[serde(default, skip_serializing_if = "Map::is_empty")]
        headers: Map<String, Value>,
    },
    Mcp {
        server: String,
        tool: String,
    },
    /// Answered inside the program hosting the runtime ([`crate::runtime::BuiltIn`]).
    Builtin {},
}

/// `networkAccess`: `false`, `true`, or the hosts allowed.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum NetworkAccess {
    All(bool),
    Hosts(Vec<String>),
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Permissions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_access: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network_access: Option<NetworkAccess>,
    /// Milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_execution_time: Option<u64>,
    /// Bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_memory: Option<u64>,
}

impl Permissions {
    /// The endpoint's permissions over the service's: each one the endpoint sets replaces the
    /// service's.
    pub fn merged(&self, endpoint: Option<&Permissions>) -> Permissions {
        let Some(e) = endpoint else { return self.clone() };
        Permissions {
            file_access: e.file_access.clone().or_else(|| self.file_access.clone()),
            network_access: e.network_access.clone().or_else(|| self.network_access.clone()),
            max_execution_time: e.max_execution_time.or(self.max_execution_time),
            max_memory: e.max_memory.or(self.max_memory),
        }
    }
}

/// A compiled schema with the manifest's `types` it may refer to.
pub struct CompiledSchema {
    /// The schema as written, with `types` added at its root (for `$ref` and defaults).
    pub root: Value,
    validator: jsonschema::Validator,
}

impl CompiledSchema {
    fn compile(schema: &Value, types: &Map<String, Value>) -> Result<CompiledSchema, String> {
        let mut root = schema.clone();
        if let Value::Object(object) = &mut root
            && !types.is_empty()
        {
            object.insert("types".into(), Value::Object(types.clone()));
        }
        let validator = jsonschema::validator_for(&root).map_err(|e| e.to_string())?;
        Ok(CompiledSchema { root, validator })
    }

    /// The first error, as `/field/path: what is wrong` (the whole value is `/`).
    pub fn check(&self, value: &Value) -> Result<(), (String, String)> {
        match self.validator.iter_errors(value).next() {
            None => Ok(()),
            Some(error) => {
                let path = error.instance_path().to_string();
                let path = if path.is_empty() { "/".to_string() } else { path };
                Err((path, error.to_string()))
            }
        }
    }

    /// Fills in the `default`s of missing object properties, following `$ref`s into `types`.
    pub fn apply_defaults(&self, value: &mut Value) {
        apply_defaults(&self.root, &self.root, value, 0);
    }
}

fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')) {
        Some(pointer) => root.pointer(pointer).unwrap_or(schema),
        None => schema,
    }
}

fn apply_defaults(root: &Value, schema: &Value, value: &mut Value, depth: usize) {
    // Recursive types would recurse without end; defaults live near the top in practice.
    if depth > 16 {
        return;
    }
    let schema = resolve(root, schema);
    if let (Some(properties), Value::Object(object)) = (schema.get("properties").and_then(Value::as_object), value) {
        for (name, property) in properties {
            let property = resolve(root, property);
            match object.get_mut(name) {
                Some(present) => apply_defaults(root, property, present, depth + 1),
                None => {
                    if let Some(default) = property.get("default") {
                        object.insert(name.clone(), default.clone());
                    }
                }
            }
        }
    }
}

/// An endpoint with its schemas compiled.
pub struct CompiledEndpoint {
    pub endpoint: Endpoint,
    pub input: Option<CompiledSchema>,
    pub output: Option<CompiledSchema>,
    /// Its `fileAccess` (the service's folder resolved, the patterns compiled), made at its first
    /// call and kept with the loaded service: a changed manifest is loaded again, and this with
    /// it. The paths a call uses are still resolved at each call.
    pub file_access: std::sync::OnceLock<std::sync::Arc<crate::permissions::FileAccess>>,
}

/// A service as installed: its folder and its checked manifest.
pub struct Service {
    pub dir: PathBuf,
    pub manifest: Manifest,
    /// The manifest as written (what `getManifest` returns).
    pub raw: Value,
    pub endpoints: Vec<CompiledEndpoint>,
    /// The stdio MCP servers of its `mcp-config.json` (none without one), by name.
    pub mcp_servers: std::collections::BTreeMap<String, McpServer>,
    /// When `lavs.json` or `mcp-config.json` was last changed, as loaded (a changed file is
    /// loaded again).
    pub modified: Option<std::time::SystemTime>,
}

impl Service {
    pub fn endpoint(&self, id: &str) -> Option<&CompiledEndpoint> {
        self.endpoints.iter().find(|e| e.endpoint.id == id)
    }

    /// Reads and checks `DIR/lavs.json`. The error says which field is wrong.
    pub fn load(dir: &Path) -> Result<Service, LavsError> {
        let path = dir.join(MANIFEST_FILE);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| LavsError::titled(error::INVALID_REQUEST, format!("cannot read {}: {e}", path.display())))?;
        let raw: Value = serde_json::from_str(&text)
            .map_err(|e| LavsError::titled(error::PARSE_ERROR, format!("{} is not JSON: {e}", path.display())))?;
        let mut service = Service::from_value(dir, raw)?;
        service.modified = manifest_modified(dir);
        Ok(service)
    }

    pub fn from_value(dir: &Path, raw: Value) -> Result<Service, LavsError> {
        let invalid = |field: &str, what: &str| {
            LavsError::titled(error::INVALID_REQUEST, format!("lavs.json {field}: {what}"))
                .with_data(serde_json::json!({ "field": field }))
        };
        if let Some(error) = format_validator().iter_errors(&raw).next() {
            let field = error.instance_path().to_string();
            return Err(invalid(if field.is_empty() { "/" } else { &field }, &error.to_string()));
        }
        let manifest: Manifest = serde_json::from_value(raw.clone()).map_err(|e| invalid("/", &e.to_string()))?;
        let mut endpoints = Vec::new();
        for (i, endpoint) in manifest.endpoints.iter().enumerate() {
            if manifest.endpoints[..i].iter().any(|e| e.id == endpoint.id) {
                return Err(invalid(&format!("/endpoints/{i}/id"), &format!("{:?} is declared twice", endpoint.id)));
            }
            let compile = |which: &str, schema: Option<&Value>| {
                schema
                    .map(|s| CompiledSchema::compile(s, &manifest.types))
                    .transpose()
                    .map_err(|e| invalid(&format!("/endpoints/{i}/schema/{which}"), &e))
            };
            let schemas = endpoint.schema.clone().unwrap_or_default();
            endpoints.push(CompiledEndpoint {
                endpoint: endpoint.clone(),
                input: compile("input", schemas.input.as_ref())?,
                output: compile("output", schemas.output.as_ref())?,
                file_access: std::sync::OnceLock::new(),
            });
        }
        let mcp_servers = mcp_config::load(dir)?;
        for (i, endpoint) in manifest.endpoints.iter().enumerate() {
            if let Handler::Mcp { server, .. } = &endpoint.handler
                && !mcp_servers.contains_key(server)
            {
                let why = if dir.join(mcp_config::MCP_CONFIG_FILE).is_file() {
                    format!("{server:?} is not a server of {}", mcp_config::MCP_CONFIG_FILE)
                } else {
                    format!(
                        "{server:?} names an MCP server, and there is no {} beside lavs.json",
                        mcp_config::MCP_CONFIG_FILE
                    )
                };
                return Err(invalid(&format!("/endpoints/{i}/handler/server"), &why));
            }
        }
        Ok(Service { dir: dir.to_path_buf(), manifest, raw, endpoints, mcp_servers, modified: None })
    }
}

/// When a service folder's `lavs.json` or `mcp-config.json`, whichever is later, was last changed
/// (`None`: there is no `lavs.json`).
pub fn manifest_modified(dir: &Path) -> Option<std::time::SystemTime> {
    let modified = |file: &str| std::fs::metadata(dir.join(file)).and_then(|m| m.modified()).ok();
    let manifest = modified(MANIFEST_FILE)?;
    Some(modified(mcp_config::MCP_CONFIG_FILE).map_or(manifest, |config| config.max(manifest)))
}

fn format_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let schema: Value = serde_json::from_str(include_str!("manifest.schema.json")).expect("the format is JSON");
        jsonschema::validator_for(&schema).expect("the format is a valid schema")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn todo() -> Value {
        json!({
            "lavs": "1.0", "name": "todo-manager", "version": "1.0.0",
            "endpoints": [
                { "id": "listTodos", "method": "query",
                  "handler": { "type": "script", "command": "node", "args": ["todo.js", "list"], "input": "args", "timeout": 5000 },
                  "schema": { "output": { "type": "array", "items": { "$ref": "#/types/Todo" } } } },
                { "id": "addTodo", "method": "mutation",
                  "handler": { "type": "script", "command": "node", "args": ["todo.js", "add"], "input": "stdin" },
                  "schema": { "input": { "type": "object", "properties": { "text": { "type": "string" }, "priority": { "type": "number", "default": 0 } }, "required": ["text"] },
                              "output": { "$ref": "#/types/Todo" } } }
            ],
            "types": { "Todo": { "type": "object", "properties": { "id": { "type": "number" }, "text": { "type": "string" }, "done": { "type": "boolean" } }, "required": ["id", "text", "done"] } },
            "permissions": { "fileAccess": ["./data/**/*.json"], "networkAccess": false, "maxExecutionTime": 30000, "maxMemory": 104857600 }
        })
    }

    #[test]
    fn the_specs_example_loads_and_refs_into_types_resolve() {
        let service = Service::from_value(Path::new("/srv/todo"), todo()).unwrap();
        let list = service.endpoint("listTodos").unwrap();
        let output = list.output.as_ref().unwrap();
        assert!(output.check(&json!([{ "id": 1, "text": "milk", "done": false }])).is_ok());
        let (field, _) = output.check(&json!([{ "id": 1, "done": false }])).unwrap_err();
        assert_eq!(field, "/0");
        let add = service.endpoint("addTodo").unwrap();
        let mut input = json!({ "text": "milk" });
        add.input.as_ref().unwrap().apply_defaults(&mut input);
        assert_eq!(input, json!({ "text": "milk", "priority": 0 }));
        assert_eq!(service.manifest.permissions.network_access, Some(NetworkAccess::All(false)));
    }

    #[test]
    fn errors_name_the_field() {
        let mut bad = todo();
        bad["endpoints"][1]["handler"].as_object_mut().unwrap().remove("command");
        let error = Service::from_value(Path::new("/x"), bad).err().unwrap();
        assert_eq!(error.code, error::INVALID_REQUEST);
        assert!(error.message.contains("/endpoints/1/handler"), "{}", error.message);

        let mut bad = todo();
        bad["endpoints"][0]["method"] = json!("delete");
        let error = Service::from_value(Path::new("/x"), bad).err().unwrap();
        assert!(error.message.contains("/endpoints/0/method"), "{}", error.message);

        let mut bad = todo();
        bad["endpoints"][0]["schema"]["output"]["items"]["$ref"] = json!("#/types/Missing");
        let error = Service::from_value(Path::new("/x"), bad).err().unwrap();
        assert!(error.message.contains("/endpoints/0/schema/output"), "{}", error.message);

        let mut bad = todo();
        bad["endpoints"][1]["id"] = json!("listTodos");
        let error = Service::from_value(Path::new("/x"), bad).err().unwrap();
        assert!(error.message.contains("declared twice"), "{}", error.message);

        let mut bad = todo();
        bad["endpoints"][0]["handler"] = json!({ "type": "mcp", "server": "github", "tool": "list_issues" });
        let error = Service::from_value(Path::new("/nonexistent"), bad).err().unwrap();
        assert!(error.message.contains("/endpoints/0/handler/server"), "{}", error.message);
        assert!(error.message.contains("no mcp-config.json"), "{}", error.message);

        let mut bad = todo();
        bad["permissions"]["fileAcess"] = json!(["x"]);
        let error = Service::from_value(Path::new("/x"), bad).err().unwrap();
        assert!(error.message.contains("/permissions"), "{}", error.message);
    }
}
