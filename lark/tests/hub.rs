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
