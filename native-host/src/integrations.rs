//! The endpoints of the installed local (LAVS) services that `integration.invoke` may name, and
//! what a planner is told of them: one line each for its prompt ([`planner_lines`]) and one schema
//! alternative each for its output ([`planner_schemas`]). The gate decides on
//! [`endpoints`]; the host runs the calls ([`crate::host_tools`]).
//!
//! Laika's own built-in services (`laika`: approvals, grants, history) are never offered: an
//! approval must come from a person, never from a call the model proposed.

use laika_lavs::manifest::{Handler, Method, NetworkAccess};
use laika_shared::policy::{EndpointKind, IntegrationEndpoint};
use serde_json::{Map, Value, json};

/// The `$ref` depth inlined into a schema offered to the planner; deeper references are left as
/// plain objects (the runtime validates the input whole anyway).
const REF_DEPTH: usize = 4;

/// An endpoint the model may call, with what the planner is told about it.
#[derive(Clone, Debug)]
pub struct Integration {
    pub endpoint: IntegrationEndpoint,
    pub description: Option<String>,
    /// The endpoint's input schema with its `$ref`s into the manifest's `types` inlined.
    pub input: Option<Value>,
}

/// The endpoints of the installed services, built-in ones left out.
pub fn installed(runtime: &laika_lavs::Runtime) -> Vec<Integration> {
    let mut out = Vec::new();
    for service in runtime.services() {
        for compiled in &service.endpoints {
            let endpoint = &compiled.endpoint;
            if matches!(endpoint.handler, Handler::Builtin {}) {
                continue;
            }
            let permissions = service.manifest.permissions.merged(endpoint.permissions.as_ref());
            let network = matches!(endpoint.handler, Handler::Http { .. })
                || matches!(permissions.network_access, Some(NetworkAccess::All(true) | NetworkAccess::Hosts(_)));
            let kind = match endpoint.method {
                Method::Query => EndpointKind::Query,
                Method::Mutation => EndpointKind::Mutation,
                Method::Subscription => EndpointKind::Subscription,
            };
            out.push(Integration {
                endpoint: IntegrationEndpoint {
                    service: service.manifest.name.clone(),
                    endpoint: endpoint.id.clone(),
                    kind,
                    network,
                },
                description: endpoint.description.clone(),
                input: endpoint
                    .schema
                    .as_ref()
                    .and_then(|s| s.input.clone())
                    .map(|schema| inline_refs(&schema, &service.manifest.types, REF_DEPTH)),
            });
        }
    }
    out
}

pub fn endpoints(integrations: &[Integration]) -> Vec<IntegrationEndpoint> {
    integrations.iter().map(|i| i.endpoint.clone()).collect()
}

/// Replaces `{"$ref": "#/types/X"}` by the type itself, `depth` levels deep.
fn inline_refs(schema: &Value, types: &Map<String, Value>, depth: usize) -> Value {
    match schema {
        Value::Object(map) => {
            if let Some(name) = map.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/types/")) {
                return match types.get(name) {
                    Some(found) if depth > 0 => inline_refs(found, types, depth - 1),
                    _ => json!({ "type": "object" }),
                };
            }
            Value::Object(map.iter().map(|(k, v)| (k.clone(), inline_refs(v, types, depth))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| inline_refs(v, types, depth)).collect()),
        other => other.clone(),
    }
}

/// The planner's lines about the endpoints it may call (system prompt), one per endpoint.
pub fn planner_lines(integrations: &[Integration]) -> Vec<String> {
    integrations
        .iter()
        .filter(|i| i.endpoint.kind != EndpointKind::Subscription)
        .map(|i| {
            let kind = if i.endpoint.kind == EndpointKind::Query { "reads" } else { "changes data, asks the user" };
            let description = i.description.as_deref().map(|d| format!(": {}", d.trim())).unwrap_or_default();
            format!("{} {} ({kind}){description}", i.endpoint.service, i.endpoint.endpoint)
        })
        .collect()
}

/// One schema alternative per callable endpoint: `integration.invoke` with that service and
/// endpoint fixed and the payload under the endpoint's input schema.
pub fn planner_schemas(integrations: &[Integration]) -> Vec<Value> {
    integrations
        .iter()
        .filter(|i| i.endpoint.kind != EndpointKind::Subscription)
        .map(|i| {
            let payload = i.input.clone().unwrap_or_else(|| json!({ "type": "object" }));
            let mut properties = json!({
                "integration": { "const": i.endpoint.service },
                "operation": { "const": i.endpoint.endpoint },
                "payload": payload,
            });
            let mut required = vec!["integration", "operation", "payload"];
            if i.endpoint.kind == EndpointKind::Mutation {
                properties["idempotencyKey"] = json!({ "type": "string", "minLength": 8, "maxLength": 64 });
                required.push("idempotencyKey");
            }
            json!({
                "type": "object",
                "properties": {
                    "name": { "const": "integration.invoke" },
                    "arguments": { "type": "object", "properties": properties, "required": required, "additionalProperties": false },
                },
                "required": ["name", "arguments"],
                "additionalProperties": false,
            })
        })
        .collect()
}
