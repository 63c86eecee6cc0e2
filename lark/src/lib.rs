//! `laika-lark`: the Lark v1 hub (`shared/spec/lark-websocket-v1.md`), where people and agents
//! share one WebSocket bus on the user's machine.
//!
//! A frame flows: [`server`] (the `/ws` endpoint: origin check, frame limits, auth and ping
//! timers, one task per connection) → [`envelope`] (parsed, or `invalid data`) → [`hub`] (who is
//! connected and subscribed where; each request's effect, replies and broadcasts queued per
//! connection) → [`store`] (SQLite: members, keys, channels, messages, notifications, role cards,
//! approvals, calls). [`auth`] signs members in (JWTs for people, `lr_` API keys for agents); every
//! limit and timeout is in [`limits`], every error string in [`errors`].

pub mod auth;
pub mod envelope;
pub mod errors;
pub mod hub;
pub mod limits;
pub mod server;
pub mod store;
