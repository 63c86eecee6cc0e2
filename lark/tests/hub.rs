//! The hub over real WebSockets: a server on a loopback port, clients from tokio-tungstenite.

use futures_util::{SinkExt, StreamExt};
use laika_lark::hub::Hub;
use laika_lark::limits::Limits;
use laika_lark::server;
use laika_lark::store::{MemberKind, Store};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

type Ws = WebSocketStream<MaybeTlsStream<tokio::net::TcpStream>>;

struct Server {
    url: String,
    hub: Arc<Hub>,
}

async fn start(limits: Limits) -> Server {
    let hub = Arc::new(Hub::new(Store::open_in_memory().unwrap()).unwrap());
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/ws", listener.local_addr().unwrap());
    tokio::spawn(server::serve(listener, hub.clone(), limits));
    Server { url, hub }
}

/// Alice (a person, by JWT), Bob (a person) and bot (an agent, by API key), all in #general.
struct Team {
    alice: String,
    bob: String,
    bot: String,
    alice_id: String,
    bob_id: String,
    bot_id: String,
    general: String,
}

fn team(hub: &Hub) -> Team {
    let alice = hub.add_member("alice", MemberKind::Human).unwrap();
    let bob = hub.add_member("bob", MemberKind::Human).unwrap();
    let bot = hub.add_member("bot", MemberKind::Agent).unwrap();
    let general = hub.store().add_channel("general", &[alice.id.clone(), bob.id.clone(), bot.id.clone()]).unwrap();
    Team {
        alice: hub.auth().issue_jwt(&alice.id),
        bob: hub.auth().issue_jwt(&bob.id),
        bot: hub.auth().issue_api_key(hub.store(), &bot.id).unwrap(),
        alice_id: alice.id,
        bob_id: bob.id,
        bot_id: bot.id,
        general,
    }
}

async fn connect(url: &str) -> Ws {
    tokio_tungstenite::connect_async(url).await.unwrap().0
}

async fn send(ws: &mut Ws, frame: Value) {
    ws.send(Message::Text(frame.to_string().into())).await.unwrap();
}

/// The next text frame as JSON, or `{"type": "<closed>", "reason": …}` when the server closes.
async fn next(ws: &mut Ws) -> Value {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(5), ws.next()).await.expect("no frame within 5 s");
        match frame {
            Some(Ok(Message::Text(text))) => return serde_json::from_str(&text).unwrap(),
            Some(Ok(Message::Close(close))) => {
                return json!({ "type": "<closed>", "reason": close.map(|c| c.reason.to_string()) });
            }
            Some(Ok(_)) => continue,
            Some(Err(_)) | None => return json!({ "type": "<closed>" }),
        }
    }
}

/// The next frame of `kind`, skipping others (presence updates, broadcasts of earlier steps).
async fn next_of(ws: &mut Ws, kind: &str) -> Value {
    loop {
        let frame = next(ws).await;
        if frame["type"] == kind {
            return frame;
        }
        assert_ne!(frame["type"], "<closed>", "closed while waiting for {kind}");
    }
}

/// Waits for each of these `(member_id, status)` presence updates, in any order, skipping other
/// frames.
async fn presence(ws: &mut Ws, expected: &[(&str, &str)]) {
    let mut missing: Vec<Value> =
        expected.iter().map(|(id, status)| json!({ "member_id": id, "status": status })).collect();
    while !missing.is_empty() {
        let update = next_of(ws, "presence.update").await;
        missing.retain(|m| *m != update["data"]);
    }
}

/// The next `message.new` from `sender_id`, skipping others (one's own, broadcast back).
async fn next_from(ws: &mut Ws, sender_id: &str) -> Value {
    loop {
        let new = next_of(ws, "message.new").await;
        if new["data"]["sender_id"] == sender_id {
            return new;
        }
    }
}

/// The error the next `error` frame carries.
async fn error(ws: &mut Ws) -> String {
    next_of(ws, "error").await["data"]["error"].as_str().unwrap_or_default().to_string()
}

async fn login(url: &str, token: &str) -> Ws {
    let mut ws = connect(url).await;
    send(&mut ws, json!({ "type": "auth.login", "data": { "token": token } })).await;
    let success = next_of(&mut ws, "auth.success").await;
    assert_eq!(success["v"], 1);
    ws
}

#[tokio::test]
async fn people_and_agents_share_a_channel_and_a_mention_wakes_the_agent() {
    let server = start(Limits::default()).await;
    let t = team(&server.hub);
    let mut alice = login(&server.url, &t.alice).await;
    let mut bob = login(&server.url, &t.bob).await;
    let mut bot = connect(&server.url).await;
    send(&mut bot, json!({ "type": "auth.login", "data": { "token": t.bot } })).await;
    let success = next_of(&mut bot, "auth.success").await;
    assert_eq!(
        success["data"],
        json!({ "member_id": t.bot_id, "workspace_id": "ws_local", "name": "bot", "type": "agent" })
    );

    send(&mut bot, json!({ "type": "agent.hello", "data": { "name": "bot", "role_card": { "system_prompt": "Answer from the page." } } })).await;
    assert_eq!(next_of(&mut bot, "agent.welcome").await["data"], json!({ "agent_id": t.bot_id, "status": "awake" }));

    send(&mut alice, json!({ "id": "req-1", "type": "message.send", "data": { "channel_id": t.general, "content": "What does the page say, @bot?" } })).await;
    let ack = next_of(&mut alice, "message.ack").await;
    assert_eq!(ack["id"], "req-1");
    let id = ack["data"]["message_id"].as_str().unwrap().to_string();
    for ws in [&mut alice, &mut bob] {
        let new = next_of(ws, "message.new").await;
        assert_eq!(
            (new["data"]["id"].as_str(), new["data"]["sender_name"].as_str()),
            (Some(id.as_str()), Some("alice"))
        );
    }
    let notification = next_of(&mut bot, "notification.new").await;
    assert_eq!(
        (notification["data"]["type"].as_str(), notification["data"]["message_id"].as_str()),
        (Some("mention"), Some(id.as_str()))
    );
    let wake = next_of(&mut bot, "agent.wake").await;
    assert_eq!(wake["data"]["reason"], "mention");
    assert_eq!(wake["data"]["context"]["channel"]["id"], t.general.as_str());
    assert_eq!(wake["data"]["context"]["recent_messages"][0]["id"], id.as_str());

    // The agent thinks (everyone else sees typing), answers in a thread, and asks for approval.
    send(&mut bot, json!({ "type": "agent.thinking", "data": { "channel_id": t.general } })).await;
    let typing = next_of(&mut bob, "typing.start").await;
    assert_eq!(typing["data"]["member_id"], t.bot_id.as_str());
    send(&mut bot, json!({ "type": "thread.reply", "data": { "channel_id": t.general, "parent_id": id, "content": "It says otters are back." } })).await;
    let reply = next_of(&mut alice, "message.new").await;
    assert_eq!(reply["data"]["thread_id"], id.as_str());
    send(&mut bot, json!({ "type": "approval.request", "data": { "channel_id": t.general, "action": "browser.click", "payload": "{\"handleId\":\"laika-3\"}" } })).await;
    for ws in [&mut alice, &mut bob] {
        let request = next_of(ws, "approval.request").await;
        assert_eq!(
            (request["data"]["action"].as_str(), request["data"]["status"].as_str()),
            (Some("browser.click"), Some("pending"))
        );
    }

    // A reply to the agent's message wakes it, with the thread.
    let bot_message = next_of(&mut bot, "message.new").await; // its own reply, broadcast
    assert_eq!(bot_message["data"]["sender_id"], t.bot_id.as_str());
    let parent = bot_message["data"]["id"].clone();
    send(
        &mut alice,
        json!({ "type": "thread.reply", "data": { "channel_id": t.general, "parent_id": parent, "content": "why?" } }),
    )
    .await;
    next_of(&mut alice, "message.ack").await;
    let wake = next_of(&mut bot, "agent.wake").await;
    assert_eq!(wake["data"]["reason"], "thread_reply");
    assert_eq!(wake["data"]["context"]["thread"]["id"], parent);
    assert_eq!(wake["data"]["context"]["recent_messages"].as_array().map(Vec::len), Some(3));
}

#[tokio::test]
async fn bad_input_gets_the_specs_errors_and_the_connection_keeps_serving() {
    let server = start(Limits::default()).await;
    let t = team(&server.hub);
    let mut ws = connect(&server.url).await;
    send(&mut ws, json!({ "type": "message.send", "data": { "channel_id": t.general, "content": "hi" } })).await;
    assert_eq!(next(&mut ws).await["data"]["error"], "not authenticated");
    ws.send(Message::Text("{ not json".into())).await.unwrap();
    assert_eq!(next(&mut ws).await["data"]["error"], "invalid data");
    send(&mut ws, json!({ "type": "auth.login", "data": { "token": t.alice } })).await;
    next_of(&mut ws, "auth.success").await;

    send(
        &mut ws,
        json!({ "type": "message.send", "data": { "channel_id": t.general, "content": "x".repeat(10_001) } }),
    )
    .await;
    assert_eq!(next_of(&mut ws, "error").await["data"]["error"], "content too long (max 10000 characters)");
    let other = server.hub.store().add_channel("private", std::slice::from_ref(&t.bot_id)).unwrap();
    send(&mut ws, json!({ "type": "message.send", "data": { "channel_id": other, "content": "hi" } })).await;
    assert_eq!(next_of(&mut ws, "error").await["data"]["error"], "not a channel member");
    send(&mut ws, json!({ "type": "channel.join", "data": { "channel_id": other } })).await;
    assert_eq!(next_of(&mut ws, "error").await["data"]["error"], "not a channel member");
    send(&mut ws, json!({ "type": "no.such.type" })).await;
    assert_eq!(next_of(&mut ws, "error").await["data"]["error"], "unknown message type");
    send(&mut ws, json!({ "type": "agent.hello", "data": { "name": "alice", "role_card": { "system_prompt": "x" } } }))
        .await;
    assert_eq!(next_of(&mut ws, "error").await["data"]["error"], "only agents may do this");
    // Still serving.
    send(
        &mut ws,
        json!({ "type": "message.send", "data": { "channel_id": t.general, "content": "x".repeat(10_000) } }),
    )
    .await;
    next_of(&mut ws, "message.ack").await;

    // A bad token: auth.fail, then the socket is closed.
    let mut stranger = connect(&server.url).await;
    send(&mut stranger, json!({ "type": "auth.login", "data": { "token": "lr_nobody" } })).await;
    assert_eq!(next(&mut stranger).await["data"]["error"], "invalid credentials");
    assert_eq!(next(&mut stranger).await["type"], "<closed>");
}

#[tokio::test]
async fn only_the_author_edits_or_deletes_and_the_channel_sees_both() {
    let server = start(Limits::default()).await;
    let t = team(&server.hub);
    let mut alice = login(&server.url, &t.alice).await;
    let mut bob = login(&server.url, &t.bob).await;
    send(&mut alice, json!({ "type": "message.send", "data": { "channel_id": t.general, "content": "draft" } })).await;
    let id = next_of(&mut alice, "message.ack").await["data"]["message_id"].clone();
    send(&mut bob, json!({ "type": "message.edit", "data": { "message_id": id, "content": "mine now" } })).await;
    assert_eq!(next_of(&mut bob, "error").await["data"]["error"], "only the author may change a message");
    send(&mut bob, json!({ "type": "message.delete", "data": { "message_id": id } })).await;
    assert_eq!(next_of(&mut bob, "error").await["data"]["error"], "only the author may change a message");
    send(&mut alice, json!({ "type": "message.edit", "data": { "message_id": id, "content": "final" } })).await;
    assert_eq!(next_of(&mut bob, "message.edit").await["data"]["content"], "final");
    send(&mut alice, json!({ "type": "message.delete", "data": { "message_id": id } })).await;
    assert_eq!(next_of(&mut bob, "message.delete").await["data"]["message_id"], id);
    send(&mut alice, json!({ "type": "message.edit", "data": { "message_id": id, "content": "again" } })).await;
    assert_eq!(next_of(&mut alice, "error").await["data"]["error"], "message not found");
}

#[tokio::test]
async fn a_silent_connection_is_closed_at_the_auth_timeout() {
    let limits = Limits { auth_timeout: Duration::from_millis(300), ..Limits::default() };
    let server = start(limits).await;
    let mut ws = connect(&server.url).await;
    let fail = next(&mut ws).await;
    assert_eq!(
        (fail["type"].as_str(), fail["data"]["error"].as_str()),
        (Some("auth.fail"), Some("authentication timeout"))
    );
    assert_eq!(next(&mut ws).await["type"], "<closed>");
}

#[tokio::test]
async fn a_second_connection_of_the_same_member_replaces_the_first() {
    let server = start(Limits::default()).await;
    let t = team(&server.hub);
    let mut first = login(&server.url, &t.alice).await;
    let mut second = login(&server.url, &t.alice).await;
    let closed = next_of(&mut first, "<closed>").await;
    assert!(closed["reason"].as_str().unwrap_or("").contains("replaced"), "{closed}");
    send(&mut second, json!({ "type": "message.send", "data": { "channel_id": t.general, "content": "still here" } }))
        .await;
    next_of(&mut second, "message.ack").await;
    assert_eq!(server.hub.connections(), 1);
}

#[tokio::test]
async fn logout_revokes_the_token() {
    let server = start(Limits::default()).await;
    let t = team(&server.hub);
    let mut ws = login(&server.url, &t.alice).await;
    send(&mut ws, json!({ "type": "auth.logout" })).await;
    next_of(&mut ws, "<closed>").await;
    let mut again = connect(&server.url).await;
    send(&mut again, json!({ "type": "auth.login", "data": { "token": t.alice } })).await;
    assert_eq!(next(&mut again).await["data"]["error"], "invalid credentials");
}

#[tokio::test]
async fn a_web_page_may_not_open_the_hub() {
    let server = start(Limits::default()).await;
    let mut request = server.url.clone().into_client_request().unwrap();
    request.headers_mut().insert("origin", "https://evil.example".parse().unwrap());
    let refused = tokio_tungstenite::connect_async(request).await;
    assert!(refused.is_err(), "a web origin was let in");
    let mut request = server.url.clone().into_client_request().unwrap();
    request.headers_mut().insert("origin", "chrome-extension://aalmaaaoibklhiemdgicgkpmclfehdkb".parse().unwrap());
    assert!(tokio_tungstenite::connect_async(request).await.is_ok());
}

#[tokio::test]
async fn an_oversize_frame_ends_only_its_own_connection() {
    let server = start(Limits::default()).await;
    let t = team(&server.hub);
    let mut alice = login(&server.url, &t.alice).await;
    let mut bob = login(&server.url, &t.bob).await;
    let big = json!({ "type": "message.send", "data": { "channel_id": t.general, "content": "x".repeat(70_000) } });
    let _ = bob.send(Message::Text(big.to_string().into())).await;
    let mut last = next(&mut bob).await;
    while last["type"] != "<closed>" {
        if last["type"] == "error" {
            assert_eq!(last["data"]["error"], "frame too large (max 65536 bytes)");
        }
        last = next(&mut bob).await;
    }
    send(&mut alice, json!({ "type": "message.send", "data": { "channel_id": t.general, "content": "still on" } }))
        .await;
    next_of(&mut alice, "message.ack").await;
    assert!(server.hub.store().member(&t.alice_id).unwrap().is_some());
}

#[tokio::test]
async fn the_first_person_to_decide_an_approval_decides_it_and_everyone_sees_it_resolved() {
    let server = start(Limits::default()).await;
    let t = team(&server.hub);
    let mut alice = login(&server.url, &t.alice).await;
    let mut bob = login(&server.url, &t.bob).await;
    let mut bot = login(&server.url, &t.bot).await;
    send(&mut bot, json!({ "type": "approval.request", "data": { "channel_id": t.general, "action": "browser.type", "payload": "{}" } })).await;
    let id = next_of(&mut alice, "approval.request").await["data"]["id"].clone();
    next_of(&mut bob, "approval.request").await;

    // The agent that asked cannot answer itself.
    send(&mut bot, json!({ "type": "approval.decide", "data": { "approval_id": id, "decision": "approve" } })).await;
    assert_eq!(next_of(&mut bot, "error").await["data"]["error"], "only people may decide approvals");

    send(&mut bob, json!({ "type": "approval.decide", "data": { "approval_id": id, "decision": "deny" } })).await;
    for ws in [&mut alice, &mut bob, &mut bot] {
        let resolved = next_of(ws, "approval.resolved").await;
        assert_eq!((resolved["data"]["id"].clone(), resolved["data"]["status"].as_str()), (id.clone(), Some("denied")));
    }
    send(&mut alice, json!({ "type": "approval.decide", "data": { "approval_id": id, "decision": "approve" } })).await;
    assert_eq!(next_of(&mut alice, "error").await["data"]["error"], "approval already decided");
    send(
        &mut alice,
        json!({ "type": "approval.decide", "data": { "approval_id": "appr_none", "decision": "approve" } }),
    )
    .await;
    assert_eq!(next_of(&mut alice, "error").await["data"]["error"], "approval not found");
    send(&mut alice, json!({ "type": "approval.decide", "data": { "approval_id": id, "decision": "maybe" } })).await;
    assert_eq!(next_of(&mut alice, "error").await["data"]["error"], "invalid data");
}

#[tokio::test]
async fn presence_goes_to_those_who_share_a_channel() {
    let server = start(Limits::default()).await;
    let t = team(&server.hub);
    let loner = server.hub.add_member("loner", MemberKind::Human).unwrap();
    let loner_token = server.hub.auth().issue_jwt(&loner.id);
    let mut alice = login(&server.url, &t.alice).await;
    let mut loner_ws = login(&server.url, &loner_token).await;
    let bob = login(&server.url, &t.bob).await;
    // Alice hears her own sign-in and Bob's, then Bob leaving.
    let mut heard = Vec::new();
    drop(bob);
    while heard.last().map(|(_, status): &(String, String)| status.as_str()) != Some("offline") {
        let update = next_of(&mut alice, "presence.update").await;
        heard.push((
            update["data"]["member_id"].as_str().unwrap().to_string(),
            update["data"]["status"].as_str().unwrap().to_string(),
        ));
    }
    let bob_id = heard.last().unwrap().0.clone();
    assert_ne!(bob_id, t.alice_id);
    assert!(heard.contains(&(bob_id, "online".to_string())), "{heard:?}");
    assert!(!heard.iter().any(|(id, _)| *id == loner.id), "{heard:?}");
    // The loner shares no channel with anyone: it heard of neither, so the next frame it gets is
    // the answer to its own request.
    send(&mut loner_ws, json!({ "type": "presence.update", "data": { "status": "dnd" } })).await;
    send(&mut loner_ws, json!({ "type": "no.such.type" })).await;
    let frame = next(&mut loner_ws).await;
    assert_eq!(frame["type"], "error", "{frame}");
}

#[tokio::test]
async fn a_daemon_registers_its_agents_is_woken_for_them_speaks_for_them_and_leaves_with_them() {
    let server = start(Limits::default()).await;
    let t = team(&server.hub);
    let hub = &server.hub;
    let laptop = hub.add_member("laptop", MemberKind::Human).unwrap();
    let scout = hub.add_member("scout", MemberKind::Agent).unwrap();
    let idle = hub.add_member("idle", MemberKind::Agent).unwrap();
    let crew = hub.store().add_channel("crew", &[t.alice_id.clone(), t.bob_id.clone(), scout.id.clone()]).unwrap();
    let mut alice = login(&server.url, &t.alice).await;
    let mut daemon = login(&server.url, &hub.auth().issue_jwt(&laptop.id)).await;

    let before = laika_lark::envelope::now_ms();
    let agents = json!([{ "name": "bot", "agent_id": t.bot_id }, { "name": "Scout", "agent_id": scout.id }]);
    send(&mut daemon, json!({ "id": "reg-1", "type": "daemon.register", "data": { "agents": agents } })).await;
    let registered = next_of(&mut daemon, "daemon.registered").await;
    assert_eq!(registered["id"], "reg-1");
    assert_eq!(
        registered["data"]["agents"],
        json!([{ "name": "bot", "agent_id": t.bot_id }, { "name": "scout", "agent_id": scout.id }])
    );
    let daemon_id = registered["data"]["daemon_id"].as_str().unwrap();
    let stamp: i64 = daemon_id.strip_prefix(&format!("daemon_{}_", laptop.id)).unwrap().parse().unwrap();
    assert!(stamp >= before && stamp <= laika_lark::envelope::now_ms(), "{daemon_id}");
    assert_eq!(hub.daemon_agents(), 2);
    // Alice shares a channel with each agent: both come online.
    presence(&mut alice, &[(&t.bot_id, "online"), (&scout.id, "online")]).await;

    // A mention of an agent with no connection of its own goes to its daemon, naming the agent.
    send(
        &mut alice,
        json!({ "type": "message.send", "data": { "channel_id": crew, "content": "@scout, look at this" } }),
    )
    .await;
    let asked = next_of(&mut alice, "message.ack").await["data"]["message_id"].clone();
    let notification = next_of(&mut daemon, "notification.new").await;
    assert_eq!(notification["data"]["member_id"], scout.id.as_str());
    let wake = next_of(&mut daemon, "agent.wake").await;
    assert_eq!(
        (wake["data"]["agent_id"].as_str(), wake["data"]["reason"].as_str()),
        (Some(scout.id.as_str()), Some("mention"))
    );
    assert_eq!(wake["data"]["context"]["channel"]["id"], crew.as_str());
    assert_eq!(wake["data"]["context"]["recent_messages"][0]["id"], asked);
    send(
        &mut alice,
        json!({ "type": "message.send", "data": { "channel_id": t.general, "content": "and you, @bot" } }),
    )
    .await;
    let asked_bot = next_of(&mut alice, "message.ack").await["data"]["message_id"].clone();
    let wake = next_of(&mut daemon, "agent.wake").await;
    assert_eq!(wake["data"]["agent_id"], t.bot_id.as_str());
    assert_eq!(wake["data"]["context"]["channel"]["id"], t.general.as_str());

    // The daemon speaks as its agents: the channel sees the agent as the author.
    send(
        &mut daemon,
        json!({ "id": "s-1", "type": "message.send", "data": { "channel_id": crew, "content": "On it.", "agent_id": scout.id } }),
    )
    .await;
    let ack = next_of(&mut daemon, "message.ack").await;
    assert_eq!((ack["id"].as_str(), ack["data"]["channel_id"].as_str()), (Some("s-1"), Some(crew.as_str())));
    let said = next_from(&mut alice, &scout.id).await;
    assert_eq!(
        (said["data"]["sender_id"].as_str(), said["data"]["sender_name"].as_str(), said["data"]["content"].as_str()),
        (Some(scout.id.as_str()), Some("scout"), Some("On it."))
    );
    assert_eq!(hub.store().message(said["data"]["id"].as_str().unwrap()).unwrap().unwrap().sender_id, scout.id);
    send(
        &mut daemon,
        json!({ "type": "thread.reply", "data": { "channel_id": t.general, "parent_id": asked_bot, "content": "Here.", "agent_id": t.bot_id } }),
    )
    .await;
    let reply = next_from(&mut alice, &t.bot_id).await;
    assert_eq!(
        (reply["data"]["sender_id"].as_str(), reply["data"]["thread_id"].clone()),
        (Some(t.bot_id.as_str()), asked_bot)
    );
    send(&mut daemon, json!({ "type": "agent.thinking", "data": { "channel_id": crew, "agent_id": scout.id } })).await;
    let typing = next_of(&mut alice, "typing.start").await;
    assert_eq!(
        (typing["data"]["member_id"].as_str(), typing["data"]["name"].as_str()),
        (Some(scout.id.as_str()), Some("scout"))
    );
    send(&mut daemon, json!({ "type": "agent.sleep", "data": { "agent_id": scout.id } })).await;
    presence(&mut alice, &[(&scout.id, "sleeping")]).await;

    // Only for its own agents, and only the frames an agent sends.
    send(
        &mut daemon,
        json!({ "type": "message.send", "data": { "channel_id": t.general, "content": "x", "agent_id": idle.id } }),
    )
    .await;
    assert_eq!(error(&mut daemon).await, "agent not registered by this connection");
    send(
        &mut alice,
        json!({ "type": "message.send", "data": { "channel_id": t.general, "content": "x", "agent_id": t.bot_id } }),
    )
    .await;
    assert_eq!(error(&mut alice).await, "agent not registered by this connection");
    send(&mut daemon, json!({ "type": "approval.request", "data": { "action": "x", "agent_id": t.bot_id } })).await;
    assert_eq!(error(&mut daemon).await, "this request cannot be made on an agent's behalf");

    // The daemon gone, its agents are unregistered and offline.
    drop(daemon);
    presence(&mut alice, &[(&t.bot_id, "offline"), (&scout.id, "offline")]).await;
    assert_eq!(hub.daemon_agents(), 0);
    // A new daemon connection of the same member speaks for no one until it registers.
    let mut again = login(&server.url, &hub.auth().issue_jwt(&laptop.id)).await;
    send(&mut again, json!({ "type": "agent.sleep", "data": { "agent_id": scout.id } })).await;
    assert_eq!(error(&mut again).await, "agent not registered by this connection");
}

#[tokio::test]
async fn a_call_is_offered_rung_answered_relayed_and_ended_and_its_record_follows() {
    let server = start(Limits::default()).await;
    let t = team(&server.hub);
    let store = server.hub.store();
    let mut alice = login(&server.url, &t.alice).await;
    let mut bob = login(&server.url, &t.bob).await;

    send(&mut alice, json!({ "id": "c-1", "type": "call.offer", "data": { "callee_id": t.bob_id, "type": "video", "sdp": "v=0 offer" } }))
        .await;
    let offered = next_of(&mut alice, "call.offer").await;
    assert_eq!((offered["id"].as_str(), offered["data"]["status"].as_str()), (Some("c-1"), Some("ringing")));
    let call_id = offered["data"]["call_id"].as_str().unwrap().to_string();
    let ring = next_of(&mut bob, "call.ring").await;
    assert_eq!(
        ring["data"],
        json!({ "call_id": call_id, "caller_id": t.alice_id, "caller_name": "alice", "type": "video" })
    );
    let offer = next_of(&mut bob, "call.offer").await;
    assert_eq!(
        offer["data"],
        json!({ "call_id": call_id, "caller_id": t.alice_id, "type": "video", "sdp": "v=0 offer" })
    );
    let call = store.call(&call_id).unwrap().unwrap();
    assert_eq!(
        (call.caller_id.as_str(), call.callee_id.as_str(), call.kind.as_str(), call.status.as_str()),
        (t.alice_id.as_str(), t.bob_id.as_str(), "video", "ringing")
    );

    send(&mut bob, json!({ "type": "call.answer", "data": { "call_id": call_id, "sdp": "v=0 answer" } })).await;
    let answer = next_of(&mut alice, "call.answer").await;
    assert_eq!(answer["data"], json!({ "call_id": call_id, "callee_id": t.bob_id, "sdp": "v=0 answer" }));
    let call = store.call(&call_id).unwrap().unwrap();
    assert_eq!(call.status, "answered");
    assert!(call.answered_at.is_some_and(|at| at >= call.created_at));

    let line = "candidate:842163049 1 udp 1677729535 192.0.2.1 3478 typ srflx";
    send(
        &mut alice,
        json!({ "type": "call.ice", "data": { "call_id": call_id, "target_id": t.bob_id, "candidate": line } }),
    )
    .await;
    let ice = next_of(&mut bob, "call.ice").await;
    assert_eq!(
        (ice["data"]["candidate"].as_str(), ice["data"]["from_id"].as_str()),
        (Some(line), Some(t.alice_id.as_str()))
    );
    let init = json!({ "candidate": line, "sdpMid": "0", "sdpMLineIndex": 0 });
    send(
        &mut bob,
        json!({ "type": "call.ice", "data": { "call_id": call_id, "target_id": t.alice_id, "candidate": init } }),
    )
    .await;
    assert_eq!(next_of(&mut alice, "call.ice").await["data"]["candidate"], init);

    send(&mut bob, json!({ "type": "call.end", "data": { "call_id": call_id } })).await;
    let end = next_of(&mut alice, "call.end").await;
    assert_eq!(end["data"], json!({ "call_id": call_id, "ended_by": t.bob_id }));
    let call = store.call(&call_id).unwrap().unwrap();
    assert_eq!(call.status, "ended");
    assert!(call.ended_at.is_some_and(|end| Some(end) >= call.answered_at));

    // A callee who leaves while it rings ends the call.
    send(&mut alice, json!({ "type": "call.offer", "data": { "callee_id": t.bob_id, "type": "audio", "sdp": "v=0" } }))
        .await;
    let missed = next_of(&mut alice, "call.offer").await["data"]["call_id"].as_str().unwrap().to_string();
    next_of(&mut bob, "call.ring").await;
    drop(bob);
    let end = next_of(&mut alice, "call.end").await;
    assert_eq!(end["data"], json!({ "call_id": missed, "ended_by": t.bob_id, "reason": "disconnected" }));
    let call = store.call(&missed).unwrap().unwrap();
    assert_eq!((call.kind.as_str(), call.status.as_str(), call.answered_at), ("audio", "ended", None));

    // A callee with no connection: no ringing call, the caller is told, the record says ended.
    send(
        &mut alice,
        json!({ "id": "c-3", "type": "call.offer", "data": { "callee_id": t.bob_id, "type": "audio", "sdp": "v=0" } }),
    )
    .await;
    let offline = next_of(&mut alice, "error").await;
    assert_eq!((offline["id"].as_str(), offline["data"]["error"].as_str()), (Some("c-3"), Some("callee offline")));
    let calls = store.calls_of(&t.alice_id).unwrap();
    assert_eq!(calls.len(), 3);
    assert_eq!((calls[0].status.as_str(), calls[0].callee_id.as_str()), ("ended", t.bob_id.as_str()));
    assert_eq!(calls[0].ended_at, Some(calls[0].created_at));
    assert!(store.open_calls_of(&t.alice_id).unwrap().is_empty());
}

#[tokio::test]
async fn a_direct_message_wakes_the_agent_once() {
    let server = start(Limits::default()).await;
    let t = team(&server.hub);
    let dm = server.hub.store().add_channel("alice+bot", &[t.alice_id.clone(), t.bot_id.clone()]).unwrap();
    let mut alice = login(&server.url, &t.alice).await;
    let mut bot = login(&server.url, &t.bot).await;

    send(&mut alice, json!({ "type": "message.send", "data": { "channel_id": dm, "content": "are you there?" } }))
        .await;
    let first = next_of(&mut alice, "message.ack").await["data"]["message_id"].clone();
    let wake = next_of(&mut bot, "agent.wake").await;
    assert_eq!(wake["data"]["reason"], "dm");
    assert_eq!(wake["data"]["context"]["channel"]["id"], dm.as_str());
    assert_eq!(wake["data"]["context"]["recent_messages"][0]["id"], first);
    assert!(wake["data"].get("agent_id").is_none(), "a direct connection is not told whom it is for");

    // Named in the DM: one wake, for the mention. A channel of three is no DM.
    send(&mut alice, json!({ "type": "message.send", "data": { "channel_id": dm, "content": "@bot hello" } })).await;
    assert_eq!(next_of(&mut bot, "agent.wake").await["data"]["reason"], "mention");
    send(&mut alice, json!({ "type": "message.send", "data": { "channel_id": t.general, "content": "plain" } })).await;
    // The agent's own message in its DM wakes no one. (Alice waits for it, so the bot's frames
    // stay unread until the wake below: a second wake for the mention would come first.)
    send(&mut bot, json!({ "type": "message.send", "data": { "channel_id": dm, "content": "yes" } })).await;
    next_from(&mut alice, &t.bot_id).await;
    send(&mut alice, json!({ "type": "message.send", "data": { "channel_id": dm, "content": "good" } })).await;
    let wake = next_of(&mut bot, "agent.wake").await;
    assert_eq!(wake["data"]["reason"], "dm");
    let recent: Vec<&str> = wake["data"]["context"]["recent_messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(recent, ["are you there?", "@bot hello", "yes", "good"]);
}

#[tokio::test]
async fn bad_call_and_daemon_frames_get_errors_and_the_connection_keeps_serving() {
    let server = start(Limits::default()).await;
    let t = team(&server.hub);
    let hub = &server.hub;
    let carol = hub.add_member("carol", MemberKind::Human).unwrap();
    let loner = hub.add_member("loner", MemberKind::Human).unwrap();
    hub.store().add_channel("carol+alice", &[carol.id.clone(), t.alice_id.clone()]).unwrap();
    let mut stranger = connect(&server.url).await;
    send(
        &mut stranger,
        json!({ "type": "daemon.register", "data": { "agents": [{ "name": "bot", "agent_id": t.bot_id }] } }),
    )
    .await;
    assert_eq!(error(&mut stranger).await, "not authenticated");

    let mut alice = login(&server.url, &t.alice).await;
    let mut bob = login(&server.url, &t.bob).await;
    let mut carol_ws = login(&server.url, &hub.auth().issue_jwt(&carol.id)).await;
    for (agents, expected) in [
        (json!([{ "name": "alice", "agent_id": t.alice_id }]), "no such agent"),
        (
            json!([{ "name": "bot", "agent_id": t.bot_id }, { "name": "ghost", "agent_id": "mem_ghost" }]),
            "no such agent",
        ),
        (json!([{ "name": "not-bot", "agent_id": t.bot_id }]), "no such agent"),
        (json!([{ "agent_id": t.bot_id }]), "invalid data"),
        (json!([]), "invalid data"),
        (json!("bot"), "invalid data"),
    ] {
        send(&mut alice, json!({ "type": "daemon.register", "data": { "agents": agents } })).await;
        assert_eq!(error(&mut alice).await, expected, "{agents}");
    }
    assert_eq!(hub.daemon_agents(), 0, "a refused registration registered some");

    let offer = |callee: &str, kind: &str| json!({ "type": "call.offer", "data": { "callee_id": callee, "type": kind, "sdp": "v=0" } });
    for (frame, expected) in [
        (offer(&t.bob_id, "hologram"), "invalid data"),
        (offer(&t.alice_id, "audio"), "invalid data"),
        (offer("mem_ghost", "audio"), "member not found"),
        (offer(&loner.id, "audio"), "no channel shared with this member"),
        (json!({ "type": "call.answer", "data": { "call_id": "call_none", "sdp": "v=0" } }), "call not found"),
        (json!({ "type": "call.end", "data": {} }), "invalid data"),
    ] {
        send(&mut alice, frame.clone()).await;
        assert_eq!(error(&mut alice).await, expected, "{frame}");
    }

    send(&mut alice, offer(&t.bob_id, "audio")).await;
    let call_id = next_of(&mut alice, "call.offer").await["data"]["call_id"].as_str().unwrap().to_string();
    let ice = |target: &str| json!({ "type": "call.ice", "data": { "call_id": call_id, "target_id": target, "candidate": "candidate:1" } });
    send(&mut carol_ws, ice(&t.bob_id)).await;
    assert_eq!(error(&mut carol_ws).await, "not a party to this call");
    send(&mut carol_ws, json!({ "type": "call.end", "data": { "call_id": call_id } })).await;
    assert_eq!(error(&mut carol_ws).await, "not a party to this call");
    send(&mut bob, ice(&carol.id)).await;
    assert_eq!(error(&mut bob).await, "target is not the other party of the call");
    send(&mut bob, json!({ "type": "call.ice", "data": { "call_id": call_id, "target_id": t.alice_id } })).await;
    assert_eq!(error(&mut bob).await, "invalid data");
    send(&mut alice, json!({ "type": "call.answer", "data": { "call_id": call_id, "sdp": "v=0" } })).await;
    assert_eq!(error(&mut alice).await, "only the callee may answer a call");
    send(&mut bob, json!({ "type": "call.answer", "data": { "call_id": call_id, "sdp": "v=0" } })).await;
    next_of(&mut alice, "call.answer").await;
    send(&mut bob, json!({ "type": "call.answer", "data": { "call_id": call_id, "sdp": "v=0" } })).await;
    assert_eq!(error(&mut bob).await, "call is not ringing");
    send(&mut alice, json!({ "type": "call.end", "data": { "call_id": call_id } })).await;
    next_of(&mut bob, "call.end").await;
    send(&mut bob, json!({ "id": "e-2", "type": "call.end", "data": { "call_id": call_id } })).await;
    let ended = next_of(&mut bob, "error").await;
    assert_eq!((ended["id"].as_str(), ended["data"]["error"].as_str()), (Some("e-2"), Some("call has ended")));
    send(&mut bob, ice(&t.alice_id)).await;
    assert_eq!(error(&mut bob).await, "call has ended");
    assert_eq!(hub.store().call(&call_id).unwrap().unwrap().status, "ended");

    // Still serving, both of them: a registration and a message go through.
    send(
        &mut alice,
        json!({ "type": "daemon.register", "data": { "agents": [{ "name": "BOT", "agent_id": t.bot_id }] } }),
    )
    .await;
    assert_eq!(next_of(&mut alice, "daemon.registered").await["data"]["agents"][0]["name"], "bot");
    send(&mut bob, json!({ "type": "message.send", "data": { "channel_id": t.general, "content": "still on" } })).await;
    next_of(&mut bob, "message.ack").await;
}
