//! JWT client assertions (`private_key_jwt`, RFC 7523 §2.2) at the fake
//! authorization server's token endpoint: a client registered with
//! `--jwt-client ID=PUBLIC_KEY.pem` proves itself with a JWT signed by its
//! private key, whose `iss` and `sub` are its id and whose `aud` is the
//! issuer or the token endpoint.

use std::collections::HashMap;

use anyhow::Context as _;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;

/// The registered JWT clients: id → public key (PEM).
#[derive(Default)]
pub struct JwtClients(HashMap<String, Vec<u8>>);

/// The claims checked besides the signature, `exp` and `aud`.
#[derive(Deserialize)]
struct Claims {
    iss: String,
    sub: String,
}

impl JwtClients {
    /// Reads `ID=PATH` arguments.
    pub fn load(args: &[String]) -> anyhow::Result<Self> {
        let mut clients = HashMap::new();
        for arg in args {
            let (id, path) = arg
                .split_once('=')
                .context("--jwt-client is ID=PUBLIC_KEY.pem")?;
            let pem = std::fs::read(path).with_context(|| format!("reading {path}"))?;
            clients.insert(id.to_string(), pem);
        }
        Ok(Self(clients))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The client id the assertion proves, or why it proves nothing.
    pub fn verify(&self, assertion: &str, audiences: &[String]) -> Result<String, String> {
        let header = jsonwebtoken::decode_header(assertion).map_err(|e| e.to_string())?;
        let unverified = jsonwebtoken::dangerous::insecure_decode::<Claims>(assertion)
            .map_err(|e| e.to_string())?;
        let id = unverified.claims.sub;
        let pem = self.0.get(&id).ok_or("unknown client")?;
        let key = match header.alg {
            Algorithm::ES256 | Algorithm::ES384 => DecodingKey::from_ec_pem(pem),
            Algorithm::RS256 | Algorithm::RS384 | Algorithm::RS512 => {
                DecodingKey::from_rsa_pem(pem)
            }
            other => return Err(format!("algorithm {other:?} is not accepted")),
        }
        .map_err(|e| e.to_string())?;
        let mut validation = Validation::new(header.alg);
        validation.set_audience(audiences);
        validation.set_issuer(&[id.as_str()]);
        validation.set_required_spec_claims(&["exp", "aud", "iss", "sub"]);
        let verified = jsonwebtoken::decode::<Claims>(assertion, &key, &validation)
            .map_err(|e| e.to_string())?;
        if verified.claims.sub != id || verified.claims.iss != id {
            return Err("iss and sub must both be the client id".into());
        }
        Ok(id)
    }
}
