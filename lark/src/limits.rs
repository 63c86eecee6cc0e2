//! Every limit and timeout of the hub, in one table, with where it came from. The defaults are
//! the spec's (`shared/spec/lark-websocket-v1.md`, "Implementation Notes"); tests shorten the
//! timeouts through [`Limits`] rather than waiting half a minute.

use std::time::Duration;

/// Channel subscriptions one connection may hold (spec: "Max 200 channel subscriptions").
pub const MAX_SUBSCRIPTIONS: usize = 200;

/// Characters in one message's content (spec: "Max 10,000 characters per message").
pub const MAX_CONTENT_CHARS: usize = 10_000;

/// Bytes in one WebSocket frame or message read (spec: "Read limit: 65,536 bytes").
pub const MAX_FRAME_BYTES: usize = 65_536;

/// The socket's read and write buffers, per connection. Not in the spec: tungstenite's default
/// is 128 KiB each, which made an idle connection cost the daemon 146 KB (`cargo xtask bench
/// hub`); frames are small (a chat message, a wake), and a larger one is read in several reads.
pub const SOCKET_BUFFER_BYTES: usize = 4 * 1024;

/// Frames queued for one connection before the hub drops new ones with a warning (spec: "Send
/// buffer: 256 messages per connection").
pub const SEND_BUFFER: usize = 256;

/// Messages the server bundles into an agent's wake (spec: "the 20 most recent messages").
pub const WAKE_CONTEXT_MESSAGES: usize = 20;

/// How long a JWT the hub issues stays valid. Not in the spec; a month, so a local client signed
/// in once keeps working, while `auth.logout` revokes a token at once (its `jti` is blacklisted).
pub const JWT_LIFETIME: Duration = Duration::from_secs(30 * 24 * 3600);

/// Requests a connection may make in a burst, and refilled per second after it. Not in the spec
/// (the issue asks for a per-connection rate limit): well above a person typing or an agent
/// streaming its answer line by line, well below a client flooding the hub.
pub const RATE_BURST: u32 = 100;
pub const RATE_PER_SECOND: u32 = 50;

/// The timeouts of one connection.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// A connection that has not sent `auth.login` by then gets `auth.fail` and is closed (spec:
    /// "Auth timeout: 30 seconds").
    pub auth_timeout: Duration,
    /// How often the server pings (spec: "Ping interval: 30 seconds").
    pub ping_interval: Duration,
    /// A connection with no pong for this long is closed (spec: "Pong timeout: 60 seconds").
    pub pong_timeout: Duration,
    /// A frame the peer does not take within this is a dead connection (spec: "Write deadline:
    /// 10 seconds").
    pub write_deadline: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            auth_timeout: Duration::from_secs(30),
            ping_interval: Duration::from_secs(30),
            pong_timeout: Duration::from_secs(60),
            write_deadline: Duration::from_secs(10),
        }
    }
}
