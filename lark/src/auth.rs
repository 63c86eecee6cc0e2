//! Who is on the other end of a connection: `auth.login` tokens.
//!
//! - Humans: JWTs, HMAC-SHA256 signed with the store's secret, carrying the member id (`sub`) and
//!   a token id (`jti`); `auth.logout` puts the `jti` on the blacklist, so the token is refused
//!   from then on even before it expires.
//! - Agents: API keys, `lr_` and 32 random bytes in hex. Only their SHA-256 is stored: a copy of
//!   the database does not sign anyone in.

use crate::envelope::now_ms;
use crate::limits::JWT_LIFETIME;
use crate::store::{Member, Store, StoreError};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation, decode, encode};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The prefix of an agent's API key (spec: "API key — looked up in the database (prefix lr_ for
/// agents)").
pub const API_KEY_PREFIX: &str = "lr_";

#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    sub: String,
    jti: String,
    iat: i64,
    exp: i64,
}

/// A member signed in, and the token id to revoke at logout (JWTs only).
#[derive(Clone, Debug)]
pub struct Login {
    pub member: Member,
    pub jti: Option<String>,
}

pub struct Auth {
    encoding: EncodingKey,
    decoding: DecodingKey,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The stored form of an API key.
pub fn hash_key(key: &str) -> String {
    hex(&Sha256::digest(key.as_bytes()))
}

impl Auth {
    pub fn new(store: &Store) -> Result<Auth, StoreError> {
        let secret = store.jwt_secret()?;
        Ok(Auth { encoding: EncodingKey::from_secret(&secret), decoding: DecodingKey::from_secret(&secret) })
    }

    /// A JWT for a human member.
    pub fn issue_jwt(&self, member_id: &str) -> String {
        let iat = now_ms() / 1000;
        let claims = Claims {
            sub: member_id.into(),
            jti: uuid::Uuid::new_v4().to_string(),
            iat,
            exp: iat + JWT_LIFETIME.as_secs() as i64,
        };
        // HS256 over a struct of strings and integers cannot fail to encode.
        encode(&Header::new(Algorithm::HS256), &claims, &self.encoding).unwrap_or_default()
    }

    /// A new API key for an agent member, stored hashed; the key itself is shown once.
    pub fn issue_api_key(&self, store: &Store, member_id: &str) -> Result<String, StoreError> {
        let key = format!("{API_KEY_PREFIX}{}", hex(&rand::random::<[u8; 32]>()));
        store.add_api_key(member_id, &hash_key(&key))?;
        Ok(key)
    }

    /// The member a token signs in, or None for anything else (a bad signature, an expired or
    /// revoked JWT, an unknown key, a member since removed).
    pub fn login(&self, store: &Store, token: &str) -> Option<Login> {
        if token.starts_with(API_KEY_PREFIX) {
            let member = store.member_by_key_hash(&hash_key(token)).ok()??;
            return Some(Login { member, jti: None });
        }
        let claims = decode::<Claims>(token, &self.decoding, &Validation::new(Algorithm::HS256)).ok()?.claims;
        if store.is_revoked(&claims.jti).unwrap_or(true) {
            return None;
        }
        let member = store.member(&claims.sub).ok()??;
        Some(Login { member, jti: Some(claims.jti) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemberKind;

    #[test]
    fn tokens_sign_in_their_member_until_revoked() {
        let store = Store::open_in_memory().unwrap();
        let auth = Auth::new(&store).unwrap();
        let alice = store.add_member("alice", MemberKind::Human).unwrap();
        let bot = store.add_member("bot", MemberKind::Agent).unwrap();
        let jwt = auth.issue_jwt(&alice.id);
        let key = auth.issue_api_key(&store, &bot.id).unwrap();
        assert!(key.starts_with("lr_") && key.len() == 3 + 64);
        let login = auth.login(&store, &jwt).unwrap();
        assert_eq!(login.member, alice);
        assert_eq!(auth.login(&store, &key).unwrap().member, bot);
        store.revoke(login.jti.as_deref().unwrap()).unwrap();
        assert!(auth.login(&store, &jwt).is_none());
    }

    #[test]
    fn forged_and_unknown_tokens_sign_in_no_one() {
        let store = Store::open_in_memory().unwrap();
        let auth = Auth::new(&store).unwrap();
        let alice = store.add_member("alice", MemberKind::Human).unwrap();
        let other = Auth::new(&Store::open_in_memory().unwrap()).unwrap();
        assert!(auth.login(&store, &other.issue_jwt(&alice.id)).is_none());
        assert!(auth.login(&store, "lr_0000").is_none());
        assert!(auth.login(&store, "not a token").is_none());
        // The key is stored hashed.
        let key = auth.issue_api_key(&store, &alice.id).unwrap();
        assert!(store.member_by_key_hash(&key).unwrap().is_none());
    }
}
