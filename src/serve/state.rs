//! Server-side state: legacy sessions, MRTR `requestState` sealing, ids.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

/// How long an MRTR `requestState` stays valid.
pub(crate) const REQUEST_STATE_TTL_MS: u64 = 10 * 60 * 1000;

/// One 2025-11-25 session.
pub(crate) struct Session {
    /// `clientInfo` from `initialize`.
    pub client_info: Option<Value>,
    /// Client capabilities from `initialize`.
    pub capabilities: Value,
    /// Negotiated protocol version.
    pub protocol_version: String,
    /// Whether `notifications/initialized` arrived.
    pub initialized: bool,
    /// Server-to-client requests waiting for the client's JSON-RPC response,
    /// keyed by the serialised request id.
    pub pending: HashMap<String, Sender<Value>>,
    /// Lowest level of `notifications/message` the client asked for with `logging/setLevel`.
    pub log_level: Option<String>,
    /// Resource URIs the client subscribed to with `resources/subscribe`.
    pub subscriptions: HashSet<String>,
}

/// The 2025-11-25 sessions: each expires after `ttl` unused, and past `max` the least
/// recently used one is dropped. A dropped session is unknown: requests naming it get `404`.
pub(crate) struct Sessions {
    map: HashMap<String, (Session, Instant)>,
    ttl: Duration,
    max: usize,
}

impl Sessions {
    pub fn new(ttl: Duration, max: usize) -> Self {
        Self {
            map: HashMap::new(),
            ttl,
            max: max.max(1),
        }
    }

    /// Sessions held (expired ones not yet dropped included).
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Adds a session, dropping the expired ones and, at the cap, the least recently used.
    pub fn insert(&mut self, id: String, session: Session) {
        let now = Instant::now();
        let ttl = self.ttl;
        self.map
            .retain(|_, (_, used)| now.duration_since(*used) < ttl);
        while self.map.len() >= self.max {
            let Some(oldest) = self
                .map
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            self.map.remove(&oldest);
        }
        self.map.insert(id, (session, now));
    }

    /// The live session with this id, marked as used now; an expired one is dropped.
    pub fn get(&mut self, id: &str) -> Option<&mut Session> {
        let now = Instant::now();
        let expired = self
            .map
            .get(id)
            .is_some_and(|(_, used)| now.duration_since(*used) >= self.ttl);
        if expired {
            self.map.remove(id);
            return None;
        }
        let (s, used) = self.map.get_mut(id)?;
        *used = now;
        Some(s)
    }

    /// Ends a session; returns it when it was live.
    pub fn remove(&mut self, id: &str) -> Option<Session> {
        let live = self.get(id).is_some();
        let (s, _) = self.map.remove(id)?;
        live.then_some(s)
    }
}

/// Randomness and integrity keys for one server instance.
pub(crate) struct Keys {
    ids: RandomState,
    mac: RandomState,
    counter: AtomicU64,
}

impl Keys {
    pub fn new() -> Self {
        Self {
            ids: RandomState::new(),
            mac: RandomState::new(),
            counter: AtomicU64::new(0),
        }
    }

    /// 128 unpredictable bits as 32 hex digits (visible ASCII, as session ids must be).
    ///
    /// The std `RandomState` keys SipHash with 128 random bits from the OS;
    /// hashing a counter under that key yields values an observer cannot predict.
    pub fn random_hex(&self) -> String {
        let c = self.counter.fetch_add(1, Ordering::SeqCst);
        format!(
            "{:016x}{:016x}",
            self.ids.hash_one((c, 0u8)),
            self.ids.hash_one((c, 1u8))
        )
    }

    /// A keyed 64-bit tag (SipHash under a per-process random key).
    fn tag(&self, payload: &str) -> String {
        format!(
            "{:016x}",
            self.mac.hash_one(("mcp-verdict/request-state/v1", payload))
        )
    }

    /// Hash of a JSON value in canonical form (sorted keys), for binding a
    /// state to the arguments it was issued for.
    pub fn digest(&self, value: &Value) -> String {
        let mut s = String::new();
        canonical(value, &mut s);
        format!("{:016x}", self.mac.hash_one(("args", s)))
    }

    /// Seals an MRTR state: base64url(JSON payload) + "." + tag.
    pub fn seal_state(&self, tool: &str, args: &Value, request_id: &Value) -> String {
        let payload = json!({
            "v": 1,
            "tool": tool,
            "args": self.digest(args),
            "rid": request_id,
            "exp": now_ms() + REQUEST_STATE_TTL_MS,
        });
        self.seal(&payload)
    }

    /// Seals the state of a multi-round fixture (the conformance tool set): which request
    /// (`name`), for which arguments, and what earlier rounds gathered (`data`).
    pub fn seal_rounds(&self, name: &str, args: &Value, data: &Value) -> String {
        let payload = json!({
            "v": 2,
            "name": name,
            "args": self.digest(args),
            "data": data,
            "exp": now_ms() + REQUEST_STATE_TTL_MS,
        });
        self.seal(&payload)
    }

    /// Opens a state sealed by [`Keys::seal_rounds`] for this request and these arguments;
    /// returns the data it carries.
    pub fn open_rounds(&self, state: &str, name: &str, args: &Value) -> Result<Value, String> {
        let payload = self.open_payload(state)?;
        if payload["v"] != 2 {
            return Err("unknown state version".into());
        }
        if payload["name"] != name {
            return Err(format!(
                "state was issued for {}, not {name}",
                payload["name"]
            ));
        }
        if payload["args"] != self.digest(args).as_str() {
            return Err("state was issued for different arguments".into());
        }
        if payload["exp"].as_u64().unwrap_or(0) < now_ms() {
            return Err("state has expired".into());
        }
        Ok(payload["data"].clone())
    }

    /// base64url(JSON payload) + "." + tag.
    fn seal(&self, payload: &Value) -> String {
        let b64 = URL_SAFE_NO_PAD.encode(payload.to_string());
        let tag = self.tag(&b64);
        format!("{b64}.{tag}")
    }

    /// Checks a sealed state's tag and decodes its payload.
    fn open_payload(&self, state: &str) -> Result<Value, String> {
        let (b64, tag) = state
            .rsplit_once('.')
            .ok_or_else(|| "not a state issued by this server".to_string())?;
        if self.tag(b64) != tag {
            return Err(
                "integrity check failed (state was modified or not issued by this server instance)"
                    .into(),
            );
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(b64)
            .map_err(|_| "state payload is not base64url".to_string())?;
        serde_json::from_slice(&bytes).map_err(|_| "state payload is not JSON".to_string())
    }

    /// Opens a sealed state issued for this tool and these arguments.
    /// Returns the id of the request that received it.
    pub fn open_state(&self, state: &str, tool: &str, args: &Value) -> Result<Value, String> {
        let payload = self.open_payload(state)?;
        if payload["v"] != 1 {
            return Err("unknown state version".into());
        }
        if payload["tool"] != tool {
            return Err(format!(
                "state was issued for tool {}, not {tool}",
                payload["tool"]
            ));
        }
        if payload["args"] != self.digest(args).as_str() {
            return Err("state was issued for different arguments".into());
        }
        if payload["exp"].as_u64().unwrap_or(0) < now_ms() {
            return Err("state has expired".into());
        }
        Ok(payload["rid"].clone())
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Writes `value` as JSON with object keys sorted.
fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String((*k).clone()).to_string());
                out.push(':');
                canonical(&map[k.as_str()], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_round_trip_and_tamper() {
        let k = Keys::new();
        let args = json!({"b": 1, "a": [1, {"y": 2, "x": 1}]});
        let reordered = json!({"a": [1, {"x": 1, "y": 2}], "b": 1});
        let s = k.seal_state("echo", &args, &json!(7));
        assert_eq!(k.open_state(&s, "echo", &reordered).unwrap(), json!(7));
        assert!(k.open_state(&s, "add", &args).is_err());
        assert!(k.open_state(&s, "echo", &json!({})).is_err());
        let mut tampered = s.clone().into_bytes();
        tampered[3] ^= 1;
        let tampered = String::from_utf8(tampered).unwrap();
        assert!(k.open_state(&tampered, "echo", &args).is_err());
        assert!(k.open_state("garbage", "echo", &args).is_err());
        let other = Keys::new();
        assert!(other.open_state(&s, "echo", &args).is_err());
    }

    fn session() -> Session {
        Session {
            client_info: None,
            capabilities: json!({}),
            protocol_version: "2025-11-25".into(),
            initialized: true,
            pending: HashMap::new(),
            log_level: None,
            subscriptions: HashSet::new(),
        }
    }

    #[test]
    fn sessions_expire_and_the_least_recently_used_goes_at_the_cap() {
        let mut s = Sessions::new(Duration::from_secs(600), 2);
        s.insert("a".into(), session());
        s.insert("b".into(), session());
        assert!(s.get("a").is_some()); // a is now the most recently used
        s.insert("c".into(), session());
        assert_eq!(s.len(), 2);
        assert!(s.get("b").is_none(), "the least recently used went");
        assert!(s.get("a").is_some() && s.get("c").is_some());
        assert!(s.remove("a").is_some() && s.remove("a").is_none());

        let mut s = Sessions::new(Duration::from_millis(30), 10);
        s.insert("a".into(), session());
        std::thread::sleep(Duration::from_millis(60));
        assert!(s.get("a").is_none(), "expired");
        assert_eq!(s.len(), 0);
        assert!(s.remove("a").is_none());
    }

    #[test]
    fn random_ids_differ() {
        let k = Keys::new();
        let a = k.random_hex();
        let b = k.random_hex();
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
    }
}
