//! LAVS v1 (`shared/spec/lavs-v1.md`): local services a user installs, each a folder with a
//! `lavs.json` manifest that declares its endpoints, their handlers, schemas and permissions.
//! Its own crate because it is a trust boundary of its own: it runs programs the user installed,
//! with inputs that come from clients (the sidecar, the model through the Policy Gate, other
//! local tools), so everything it does is checked against what the manifest declared.
//!
//! A call flows through the stages in order:
//! 1. [`manifest`]: the service's manifest, validated against the manifest format when it is
//!    installed and loaded (errors name the field), `$ref`s into its `types` resolved;
//! 2. [`runtime`]: the endpoint is found, its input validated against its schema (defaults
//!    applied; -32602 names the field);
//! 3. [`permissions`]: the working directory, the command and every path-typed input must fall
//!    inside `fileAccess` (traversal and symlinks resolved first; -32001);
//! 4. [`script`]: the handler runs in a clean environment under `maxExecutionTime` (-32002) and
//!    `maxMemory`, without network when `networkAccess` is false and the OS allows it; a failure
//!    is -32003 with its stderr. An `mcp` handler's server ([`mcp`], named in the service's
//!    [`mcp_config`]) is started the same way, once, and kept for the calls that follow;
//! 5. the output is validated against the schema (-32603), and the call is written to the
//!    [`audit`] log (service, endpoint, caller, duration, outcome; never input values).
//!
//! [`http`] serves it all on the daemon's loopback port: JSON-RPC 2.0 as the spec writes it
//! (`POST /lavs/<service>`) and the REST form the published `lavs-sdk` client speaks
//! (`/api/agents/<service>/lavs/…`, subscriptions as Server-Sent Events).

pub mod audit;
pub mod error;
pub mod http;
pub mod manifest;
pub mod mcp;
pub mod mcp_config;
pub mod permissions;
pub mod remote;
pub mod runtime;
pub mod script;

pub use error::LavsError;
pub use runtime::Runtime;
