//! The sandbox keys of the config file: `settings.sandbox` (the default for
//! every stdio server) and a server's own `sandbox` (`false`, `true`, or an
//! object with `expose`, `filesystem`, `network`, `required`).
//!
//! This module only reads and checks what the file says; what a policy means
//! on disk (the secret places, the paths a runtime needs) is
//! `switchboard_core`'s `sandbox::policy`, and enforcing it is the engine's sandbox's job.
//! Paths are kept as written after `${VAR}` expansion (the loader's); `~` is
//! resolved against the home directory when a server starts.

use std::fmt;
use std::str::FromStr;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

/// `settings.sandbox` (`SWITCHBOARD_SANDBOX`): what a stdio server without a
/// `sandbox` key of its own gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// The standard profile: the secret places under the home directory and
    /// Switchboard's own files are out of reach; everything else as before.
    #[default]
    Standard,
    /// No sandbox.
    Off,
}

impl FromStr for SandboxMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "standard" => Ok(Self::Standard),
            "off" => Ok(Self::Off),
            _ => Err("expected standard or off".into()),
        }
    }
}

/// A server's `sandbox` key.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ServerSandbox {
    /// No key: `settings.sandbox` decides.
    #[default]
    Inherit,
    /// `false`: this server runs unsandboxed.
    Off,
    /// `true` or an object: this server runs sandboxed, whatever
    /// `settings.sandbox` says.
    On(SandboxPolicy),
}

impl ServerSandbox {
    /// The policy this server runs under given the global mode; `None` is
    /// unsandboxed.
    pub fn effective(&self, mode: SandboxMode) -> Option<SandboxPolicy> {
        match (self, mode) {
            (Self::Off, _) | (Self::Inherit, SandboxMode::Off) => None,
            (Self::Inherit, SandboxMode::Standard) => Some(SandboxPolicy::default()),
            (Self::On(policy), _) => Some(policy.clone()),
        }
    }

    /// The path strings of the key (`expose`, `filesystem.read`/`write`),
    /// for the loader's `${VAR}` expansion.
    pub(crate) fn paths_mut(&mut self) -> Vec<(String, &mut String)> {
        let Self::On(policy) = self else {
            return Vec::new();
        };
        let mut out: Vec<(String, &mut String)> = Vec::new();
        for (i, path) in policy.expose.iter_mut().enumerate() {
            out.push((format!("sandbox.expose[{i}]"), path));
        }
        if let Some(fs) = &mut policy.filesystem {
            for (i, path) in fs.read.iter_mut().enumerate() {
                out.push((format!("sandbox.filesystem.read[{i}]"), path));
            }
            for (i, path) in fs.write.iter_mut().enumerate() {
                out.push((format!("sandbox.filesystem.write[{i}]"), path));
            }
        }
        out
    }
}

/// What a sandboxed server may reach.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxPolicy {
    /// Secret places given back to this server (`~/.kube`, `~/.aws`, ...).
    pub expose: Vec<String>,
    /// Only these paths (plus what a runtime needs): the custom profile.
    pub filesystem: Option<FilesystemPolicy>,
    /// Outbound connections.
    pub network: NetworkPolicy,
    /// Refuse to start the server when the sandbox cannot be enforced.
    pub required: bool,
}

impl SandboxPolicy {
    /// `custom` when the key limits the file system or the network, else `standard`.
    pub fn is_custom(&self) -> bool {
        self.filesystem.is_some() || self.network == NetworkPolicy::None
    }
}

/// `sandbox.filesystem`: the paths a custom profile allows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FilesystemPolicy {
    pub read: Vec<String>,
    pub write: Vec<String>,
}

/// `sandbox.network`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NetworkPolicy {
    /// As without a sandbox.
    #[default]
    Any,
    /// Every outbound connection refused, loopback included.
    None,
}

/// The object form of a server's `sandbox` key.
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a sandbox policy (an object with `expose`, `filesystem`, `network` or `required`)"
)]
struct RawPolicy {
    #[serde(default)]
    expose: Vec<String>,
    filesystem: Option<RawFilesystem>,
    network: Option<String>,
    #[serde(default)]
    required: bool,
}

#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "an object with `read` and `write` lists of paths (`sandbox.filesystem`)"
)]
struct RawFilesystem {
    #[serde(default)]
    read: Vec<String>,
    #[serde(default)]
    write: Vec<String>,
}

impl<'de> Deserialize<'de> for ServerSandbox {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct SandboxVisitor;
        impl<'de> Visitor<'de> for SandboxVisitor {
            type Value = ServerSandbox;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`sandbox`: false, true or an object with `expose`, `filesystem`, `network`, `required`")
            }
            fn visit_bool<E: de::Error>(self, on: bool) -> Result<Self::Value, E> {
                Ok(if on {
                    ServerSandbox::On(SandboxPolicy::default())
                } else {
                    ServerSandbox::Off
                })
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(ServerSandbox::Inherit)
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(ServerSandbox::Inherit)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let raw = RawPolicy::deserialize(de::value::MapAccessDeserializer::new(map))?;
                let network = match raw.network.as_deref() {
                    None | Some("any") => NetworkPolicy::Any,
                    Some("none") => NetworkPolicy::None,
                    Some(other) => {
                        return Err(de::Error::custom(format!(
                            "`sandbox.network` is {other:?}; expected \"any\" or \"none\""
                        )));
                    }
                };
                for path in raw.expose.iter().chain(
                    raw.filesystem
                        .iter()
                        .flat_map(|f| f.read.iter().chain(&f.write)),
                ) {
                    if path.trim().is_empty() {
                        return Err(de::Error::custom("a path in `sandbox` is empty"));
                    }
                }
                Ok(ServerSandbox::On(SandboxPolicy {
                    expose: raw.expose,
                    filesystem: raw.filesystem.map(|f| FilesystemPolicy {
                        read: f.read,
                        write: f.write,
                    }),
                    network,
                    required: raw.required,
                }))
            }
        }
        d.deserialize_any(SandboxVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ServerSandbox, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn the_forms_of_the_key() {
        assert_eq!(parse("false").unwrap(), ServerSandbox::Off);
        assert_eq!(
            parse("true").unwrap(),
            ServerSandbox::On(SandboxPolicy::default())
        );
        assert_eq!(parse("null").unwrap(), ServerSandbox::Inherit);
        let ServerSandbox::On(policy) = parse(
            r#"{"filesystem": {"read": ["~/data"], "write": ["/tmp/out"]}, "network": "none", "required": true}"#,
        )
        .unwrap() else {
            panic!("expected a policy");
        };
        assert!(policy.is_custom());
        assert!(policy.required);
        assert_eq!(policy.network, NetworkPolicy::None);
        assert_eq!(policy.filesystem.unwrap().read, vec!["~/data".to_string()]);
        let ServerSandbox::On(policy) = parse(r#"{"expose": ["~/.kube"]}"#).unwrap() else {
            panic!("expected a policy");
        };
        assert!(!policy.is_custom());
        assert_eq!(policy.expose, vec!["~/.kube".to_string()]);
    }

    #[test]
    fn bad_values_say_what_is_wrong() {
        let err = parse(r#"{"network": "some"}"#).unwrap_err();
        assert!(err.contains("sandbox.network"), "{err}");
        let err = parse(r#"{"expsoe": []}"#).unwrap_err();
        assert!(err.contains("expsoe"), "{err}");
        let err = parse(r#""yes""#).unwrap_err();
        assert!(err.contains("`sandbox`"), "{err}");
        let err = parse(r#"{"expose": [" "]}"#).unwrap_err();
        assert!(err.contains("empty"), "{err}");
    }

    #[test]
    fn the_global_mode_applies_only_without_a_key() {
        assert!(
            ServerSandbox::Inherit
                .effective(SandboxMode::Standard)
                .is_some()
        );
        assert!(ServerSandbox::Inherit.effective(SandboxMode::Off).is_none());
        assert!(
            ServerSandbox::Off
                .effective(SandboxMode::Standard)
                .is_none()
        );
        assert!(
            ServerSandbox::On(SandboxPolicy::default())
                .effective(SandboxMode::Off)
                .is_some()
        );
    }
}
