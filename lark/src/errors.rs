//! The strings of the `error` and `auth.fail` frames. The first five are the spec's ("Common
//! error cases"), word for word: clients match on them. The rest name the cases the spec leaves
//! open, in the same style.

pub const NOT_AUTHENTICATED: &str = "not authenticated";
pub const INVALID_DATA: &str = "invalid data";
pub const CONTENT_TOO_LONG: &str = "content too long (max 10000 characters)";
pub const NOT_A_CHANNEL_MEMBER: &str = "not a channel member";
pub const SUBSCRIPTION_LIMIT: &str = "subscription limit reached";

/// `auth.fail`: a token that is neither a valid JWT nor a known API key (spec's example).
pub const INVALID_CREDENTIALS: &str = "invalid credentials";
/// `auth.fail`: no `auth.login` within the auth timeout.
pub const AUTH_TIMEOUT: &str = "authentication timeout";

pub const ALREADY_AUTHENTICATED: &str = "already authenticated";
pub const UNKNOWN_TYPE: &str = "unknown message type";
pub const NOT_FOUND: &str = "message not found";
pub const NOT_AUTHOR: &str = "only the author may change a message";
pub const NOT_AN_AGENT: &str = "only agents may do this";
pub const NOT_A_PERSON: &str = "only people may decide approvals";
pub const APPROVAL_NOT_FOUND: &str = "approval not found";
pub const ALREADY_DECIDED: &str = "approval already decided";
pub const INVALID_STATUS: &str = "invalid status";
pub const RATE_LIMITED: &str = "rate limit exceeded";
pub const FRAME_TOO_LARGE: &str = "frame too large (max 65536 bytes)";
pub const STORE_FAILED: &str = "the server could not store this";

/// `daemon.register`: a listed agent that is not an agent member of this name and id.
pub const UNKNOWN_AGENT: &str = "no such agent";
/// A frame's `agent_id` names an agent this connection has not registered with `daemon.register`.
pub const NOT_YOUR_AGENT: &str = "agent not registered by this connection";
/// A frame carries `agent_id` but is not one a daemon sends on an agent's behalf.
pub const NOT_ON_BEHALF: &str = "this request cannot be made on an agent's behalf";

/// `call.offer` to a member id that is no member.
pub const MEMBER_NOT_FOUND: &str = "member not found";
/// `call.offer` to a member the caller shares no channel with (who shares none does not learn
/// when the other comes and goes, so may not ring them either).
pub const NO_SHARED_CHANNEL: &str = "no channel shared with this member";
/// `call.offer` to a member with no connection: the call is recorded, ended at once.
pub const CALLEE_OFFLINE: &str = "callee offline";
pub const CALL_NOT_FOUND: &str = "call not found";
pub const NOT_IN_CALL: &str = "not a party to this call";
pub const NOT_THE_CALLEE: &str = "only the callee may answer a call";
pub const CALL_NOT_RINGING: &str = "call is not ringing";
pub const CALL_ENDED: &str = "call has ended";
/// `call.ice` with a `target_id` other than the call's other party.
pub const NOT_THE_OTHER_PARTY: &str = "target is not the other party of the call";
