//! LAVS subscriptions for the extension, over native messaging.
//!
//! Native messaging carries replies to requests, and the sidecar's requests are answered one by
//! one; a subscription's pushes therefore wait here in a queue, and the sidecar collects them with
//! `lavs.poll` (which waits up to `wait_ms` for the first one). `lavs.subscribe` starts the stream
//! ([`laika_lavs::Runtime::subscribe`], audited as the caller `sidecar`), `lavs.unsubscribe`
//! ends it, and a subscription nobody polled for [`IDLE`] is ended too by [`Subscriptions::sweep`]
//! (a closed sidecar never says goodbye). Each push is delivered once, in order.

use crate::transport::HostError;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc::Receiver;

/// A subscription not polled for this long is ended.
pub const IDLE: Duration = Duration::from_secs(120);
/// The longest a poll waits for the first push.
pub const MAX_WAIT: Duration = Duration::from_secs(10);
/// Pushes returned by one poll at most; the rest wait for the next.
const BATCH: usize = 100;
/// Open subscriptions at most (all clients together); the oldest-polled is ended past it.
const OPEN_MAX: usize = 64;

struct Open {
    service: String,
    endpoint: String,
    pushes: Arc<tokio::sync::Mutex<Receiver<Value>>>,
    last_poll: Instant,
}

#[derive(Default)]
pub struct Subscriptions {
    open: Mutex<HashMap<String, Open>>,
}

fn not_found(id: &str) -> HostError {
    HostError::new(
        "LAVS_SUBSCRIPTION_UNKNOWN",
        format!("no subscription {id:?}: it was ended, or not polled for {} s", IDLE.as_secs()),
    )
}

impl Subscriptions {
    fn open(&self) -> std::sync::MutexGuard<'_, HashMap<String, Open>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts a subscription; its id is what `lavs.poll` and `lavs.unsubscribe` take.
    pub fn subscribe(
        &self,
        runtime: &laika_lavs::Runtime,
        service: &str,
        endpoint: &str,
        input: Option<Value>,
    ) -> Result<Value, HostError> {
        let pushes = runtime
            .subscribe(service, endpoint, input, "sidecar")
            .map_err(|e| HostError::new("LAVS_ERROR", serde_json::to_string(&e).unwrap_or_default()))?;
        let id = crate::prompt::new_id();
        self.sweep();
        let mut open = self.open();
        while open.len() >= OPEN_MAX {
            let Some(oldest) = open.iter().min_by_key(|(_, o)| o.last_poll).map(|(id, _)| id.clone()) else { break };
            open.remove(&oldest);
        }
        open.insert(
            id.clone(),
            Open {
                service: service.to_string(),
                endpoint: endpoint.to_string(),
                pushes: Arc::new(tokio::sync::Mutex::new(pushes)),
                last_poll: Instant::now(),
            },
        );
        Ok(json!({ "subscription_id": id, "service": service, "endpoint": endpoint }))
    }

    /// The pushes since the last poll (waiting up to `wait` for the first); `closed` once the
    /// stream ended, after which the subscription is gone.
    pub async fn poll(&self, id: &str, wait: Duration) -> Result<Value, HostError> {
        let pushes = {
            let mut open = self.open();
            let found = open.get_mut(id).ok_or_else(|| not_found(id))?;
            found.last_poll = Instant::now();
            found.pushes.clone()
        };
        // One poller at a time per subscription, so pushes keep their order.
        let mut pushes = pushes.lock().await;
        let mut events = Vec::new();
        let mut closed = false;
        let first = tokio::time::timeout(wait.min(MAX_WAIT), pushes.recv()).await;
        match first {
            Ok(Some(event)) => events.push(event),
            Ok(None) => closed = true,
            Err(_) => {}
        }
        while !closed && events.len() < BATCH {
            match pushes.try_recv() {
                Ok(event) => events.push(event),
                Err(tokio::sync::mpsc::error::TryRecvError::Empty) => break,
                Err(tokio::sync::mpsc::error::TryRecvError::Disconnected) => closed = true,
            }
        }
        drop(pushes);
        if closed {
            self.open().remove(id);
        }
        Ok(json!({ "events": events, "closed": closed }))
    }

    /// Ends the subscriptions nobody polled for [`IDLE`] (the daemon calls this every second).
    pub fn sweep(&self) {
        self.sweep_idle(IDLE);
    }

    fn sweep_idle(&self, idle: Duration) {
        self.open().retain(|_, o| o.last_poll.elapsed() < idle);
    }

    /// Ends a subscription (its handler is stopped when the stream is dropped).
    pub fn unsubscribe(&self, id: &str) -> Result<Value, HostError> {
        let removed = self.open().remove(id).ok_or_else(|| not_found(id))?;
        Ok(json!({ "unsubscribed": true, "service": removed.service, "endpoint": removed.endpoint }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_unpolled_subscription_is_ended_and_its_stream_dropped() {
        let dir = std::env::temp_dir().join(format!("laika-subscriptions-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let host = crate::host::Host::open(&dir).expect("host");
        let runtime = host.lavs.clone().expect("LAVS runtime");
        let started = host.lavs_subscriptions.subscribe(&runtime, "laika", "approvalUpdates", None).unwrap();
        let id = started["subscription_id"].as_str().unwrap().to_string();
        assert_eq!(host.lavs_subscriptions.poll(&id, Duration::ZERO).await.unwrap()["closed"], false);
        host.lavs_subscriptions.sweep();
        assert!(host.lavs_subscriptions.poll(&id, Duration::ZERO).await.is_ok(), "just polled: kept");
        host.lavs_subscriptions.sweep_idle(Duration::ZERO);
        let gone = host.lavs_subscriptions.poll(&id, Duration::ZERO).await.unwrap_err();
        assert_eq!(gone.code, "LAVS_SUBSCRIPTION_UNKNOWN");
        drop(host);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
