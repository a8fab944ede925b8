//! The registry's `server.json` documents (the official schema's fields that
//! an install needs; unknown fields are ignored) and what `switchboard add`
//! writes for one: the config entry, the secrets for the keyring and the
//! package to fetch and lock.
//!
//! Pure: [`plan_install`] takes the document and the person's values and
//! returns a [`Plan`]; nothing is written here. An npm package becomes
//! `npx -y <id>@<version>`, a PyPI one `uvx <id>==<version>`, a remote its
//! `url` and headers; a range or `latest` is never written. OCI and other
//! package types are refused with what they would need.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// One `server.json` document.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerDocument {
    /// The registry name, reverse-DNS (`io.github.owner/server`).
    pub name: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// The server's version (the registry's, not necessarily the package's).
    pub version: String,
    #[serde(default)]
    pub packages: Vec<Package>,
    #[serde(default)]
    pub remotes: Vec<Transport>,
}

/// A package the server is published as.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Package {
    /// `npm`, `pypi`, `oci`, `nuget`, `mcpb`.
    pub registry_type: String,
    #[serde(default)]
    pub registry_base_url: Option<String>,
    pub identifier: String,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub transport: Transport,
    #[serde(default)]
    pub runtime_arguments: Vec<Argument>,
    #[serde(default)]
    pub package_arguments: Vec<Argument>,
    #[serde(default)]
    pub environment_variables: Vec<Input>,
}

/// A transport (`stdio`, `streamable-http`, `sse`): a package's, or a remote.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Transport {
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub headers: Vec<Input>,
    /// Values the `{name}` placeholders of `url` take.
    #[serde(default)]
    pub variables: BTreeMap<String, Input>,
}

/// An environment variable, header or URL variable the document declares.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Input {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub is_required: bool,
    #[serde(default)]
    pub is_secret: bool,
    #[serde(default)]
    pub default: Option<String>,
    /// A fixed value (may hold `{placeholders}` of `variables`).
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub choices: Vec<String>,
}

/// A runtime or package argument.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Argument {
    /// `positional` or `named`.
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub default: Option<String>,
    #[serde(default)]
    pub value_hint: Option<String>,
    #[serde(default)]
    pub is_required: bool,
}

/// How an installed server runs, as the lockfile and vetting need it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PackageKind {
    Npm,
    Pypi,
    Remote,
}

/// Why a document cannot be installed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error(
        "{name} is published only as a container image ({image}); container images need a \
         container runtime, which Switchboard does not run servers in yet"
    )]
    OciOnly { name: String, image: String },
    #[error(
        "{name} has no npm or PyPI package and no remote endpoint Switchboard can use ({kinds})"
    )]
    Unsupported { name: String, kinds: String },
    #[error("{name}: its {registry} package {identifier} has no exact version in the document")]
    NoVersion {
        name: String,
        registry: String,
        identifier: String,
    },
    #[error("{name} needs a value for {what} {key}{}: pass it with --{flag} {key}=VALUE", described(.description))]
    Missing {
        name: String,
        what: &'static str,
        flag: &'static str,
        key: String,
        description: Option<String>,
    },
}

fn described(description: &Option<String>) -> String {
    description
        .as_deref()
        .map(|d| format!(" ({d})"))
        .unwrap_or_default()
}

/// A secret `add` puts in the keyring: its keyring name and its value.
#[derive(Clone, PartialEq, Eq)]
pub struct PlannedSecret {
    pub keyring_name: String,
    pub value: String,
}

impl std::fmt::Debug for PlannedSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PlannedSecret({})", self.keyring_name)
    }
}

/// What installing one document writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The config entry (`mcpServers.<id>`).
    pub entry: Value,
    pub kind: PackageKind,
    /// The package identifier (npm/PyPI) or the remote URL.
    pub identifier: String,
    /// The exact package version (none for a remote).
    pub package_version: Option<String>,
    /// The names of the env variables or headers given as secrets.
    pub secret_names: Vec<String>,
    pub secrets: Vec<PlannedSecret>,
}

/// The document's inputs the person may give (`--env`, `--header`): name,
/// required, secret, description. For prompts and the dashboard's form.
pub fn inputs(doc: &ServerDocument) -> (Vec<Input>, Vec<Input>) {
    match choose(doc) {
        Ok(Choice::Package(p)) => (p.environment_variables.clone(), Vec::new()),
        Ok(Choice::Remote(r)) => (Vec::new(), r.headers.clone()),
        Err(_) => (Vec::new(), Vec::new()),
    }
}

/// The transports of a document, for listings: `stdio (npm)`, `streamable-http`.
pub fn transports(doc: &ServerDocument) -> Vec<String> {
    let mut out: Vec<String> = doc
        .packages
        .iter()
        .map(|p| {
            let kind = if p.transport.kind.is_empty() {
                "stdio"
            } else {
                &p.transport.kind
            };
            format!("{kind} ({})", p.registry_type)
        })
        .collect();
    out.extend(doc.remotes.iter().map(|r| r.kind.clone()));
    out
}

enum Choice<'a> {
    Package(&'a Package),
    Remote(&'a Transport),
}

/// An npm or PyPI package with stdio first (it can be vetted), else a remote.
fn choose(doc: &ServerDocument) -> Result<Choice<'_>, PlanError> {
    let runnable = |p: &&Package| {
        matches!(p.registry_type.as_str(), "npm" | "pypi")
            && (p.transport.kind.is_empty() || p.transport.kind == "stdio")
    };
    if let Some(package) = doc.packages.iter().find(runnable) {
        return Ok(Choice::Package(package));
    }
    if let Some(remote) = doc
        .remotes
        .iter()
        .find(|r| matches!(r.kind.as_str(), "streamable-http" | "sse") && r.url.is_some())
    {
        return Ok(Choice::Remote(remote));
    }
    if let Some(oci) = doc.packages.iter().find(|p| p.registry_type == "oci") {
        return Err(PlanError::OciOnly {
            name: doc.name.clone(),
            image: oci.identifier.clone(),
        });
    }
    Err(PlanError::Unsupported {
        name: doc.name.clone(),
        kinds: transports(doc).join(", "),
    })
}

/// The keyring name of a secret of server `id`: `<id>-<NAME>`.
pub fn keyring_name(id: &str, key: &str) -> String {
    let key: String = key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{id}-{key}")
}

/// What installing `doc` as server `id` with the person's `env` and
/// `headers` writes (see the module docs).
pub fn plan_install(
    doc: &ServerDocument,
    id: &str,
    env: &BTreeMap<String, String>,
    headers: &BTreeMap<String, String>,
) -> Result<Plan, PlanError> {
    let mut secrets = Vec::new();
    let mut secret_names = Vec::new();
    let mut resolve = |inputs: &[Input],
                       given: &BTreeMap<String, String>,
                       what: &'static str,
                       flag: &'static str|
     -> Result<serde_json::Map<String, Value>, PlanError> {
        let mut out = serde_json::Map::new();
        for input in inputs.iter().filter(|i| !i.name.is_empty()) {
            let value = given
                .get(&input.name)
                .cloned()
                .or_else(|| input.value.clone())
                .or_else(|| input.default.clone());
            let Some(value) = value else {
                if input.is_required {
                    return Err(PlanError::Missing {
                        name: doc.name.clone(),
                        what,
                        flag,
                        key: input.name.clone(),
                        description: input.description.clone(),
                    });
                }
                continue;
            };
            if input.is_secret {
                let keyring_name = keyring_name(id, &input.name);
                out.insert(input.name.clone(), json!({ "keyring": keyring_name }));
                secret_names.push(input.name.clone());
                secrets.push(PlannedSecret {
                    keyring_name,
                    value,
                });
            } else {
                out.insert(input.name.clone(), Value::String(value));
            }
        }
        // Values the document does not declare are written as given.
        for (key, value) in given {
            if !inputs.iter().any(|i| &i.name == key) {
                out.insert(key.clone(), Value::String(value.clone()));
            }
        }
        Ok(out)
    };
    match choose(doc)? {
        Choice::Package(package) => {
            let version = package
                .version
                .clone()
                .filter(|v| is_exact(v))
                .ok_or_else(|| PlanError::NoVersion {
                    name: doc.name.clone(),
                    registry: package.registry_type.clone(),
                    identifier: package.identifier.clone(),
                })?;
            let env_map = resolve(
                &package.environment_variables,
                env,
                "environment variable",
                "env",
            )?;
            let (kind, command, spec) = if package.registry_type == "npm" {
                (
                    PackageKind::Npm,
                    "npx",
                    format!("{}@{version}", package.identifier),
                )
            } else {
                (
                    PackageKind::Pypi,
                    "uvx",
                    format!("{}=={version}", package.identifier),
                )
            };
            let mut args: Vec<String> = Vec::new();
            if kind == PackageKind::Npm {
                args.push("-y".into());
            }
            args.extend(arguments(&package.runtime_arguments));
            args.push(spec);
            args.extend(arguments(&package.package_arguments));
            let mut entry = json!({ "command": command, "args": args });
            if !env_map.is_empty() {
                entry["env"] = Value::Object(env_map);
            }
            Ok(Plan {
                entry,
                kind,
                identifier: package.identifier.clone(),
                package_version: Some(version),
                secret_names,
                secrets,
            })
        }
        Choice::Remote(remote) => {
            let mut url = remote.url.clone().unwrap_or_default();
            for (key, variable) in &remote.variables {
                let value = headers
                    .get(key)
                    .cloned()
                    .or_else(|| variable.value.clone())
                    .or_else(|| variable.default.clone());
                match value {
                    Some(value) => url = url.replace(&format!("{{{key}}}"), &value),
                    None => {
                        return Err(PlanError::Missing {
                            name: doc.name.clone(),
                            what: "URL variable",
                            flag: "header",
                            key: key.clone(),
                            description: variable.description.clone(),
                        });
                    }
                }
            }
            let given: BTreeMap<String, String> = headers
                .iter()
                .filter(|(k, _)| !remote.variables.contains_key(*k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let header_map = resolve(&remote.headers, &given, "header", "header")?;
            let mut entry = json!({ "url": url });
            if remote.kind == "sse" {
                entry["transport"] = json!("sse");
            }
            if !header_map.is_empty() {
                entry["headers"] = Value::Object(header_map);
            }
            Ok(Plan {
                entry,
                kind: PackageKind::Remote,
                identifier: url,
                package_version: None,
                secret_names,
                secrets,
            })
        }
    }
}

/// A version that names one release: no range, tag or wildcard.
pub fn is_exact(version: &str) -> bool {
    !version.is_empty()
        && version != "latest"
        && version.chars().next().is_some_and(|c| c.is_ascii_digit())
        && !version.contains(['^', '~', '>', '<', '=', '*', ' ', '|', 'x'])
}

/// The arguments as the command line gets them (fixed values and defaults;
/// an argument with neither is left out).
fn arguments(args: &[Argument]) -> Vec<String> {
    let mut out = Vec::new();
    for arg in args {
        let value = arg.value.clone().or_else(|| arg.default.clone());
        match (arg.kind.as_str(), &arg.name, value) {
            ("named", Some(name), Some(value)) => {
                out.push(name.clone());
                out.push(value);
            }
            ("named", Some(name), None) if !arg.is_required => {}
            ("named", Some(name), None) => out.push(name.clone()),
            (_, _, Some(value)) => out.push(value),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn doc(json: &str) -> ServerDocument {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn an_npm_package_is_written_at_its_exact_version_with_secrets_in_the_keyring() {
        let d = doc(r#"{"name":"io.github.x/gh","version":"1.0.0","packages":[{
            "registryType":"npm","identifier":"@x/gh","version":"1.2.3",
            "transport":{"type":"stdio"},
            "packageArguments":[{"type":"named","name":"--mode","value":"ro"}],
            "environmentVariables":[
              {"name":"TOKEN","isRequired":true,"isSecret":true},
              {"name":"LEVEL","default":"info"}]}]}"#);
        let env = BTreeMap::from([("TOKEN".to_string(), "s3cret".to_string())]);
        let plan = plan_install(&d, "gh", &env, &BTreeMap::new()).unwrap();
        assert_eq!(
            plan.entry,
            json!({"command":"npx","args":["-y","@x/gh@1.2.3","--mode","ro"],
                   "env":{"TOKEN":{"keyring":"gh-TOKEN"},"LEVEL":"info"}})
        );
        assert_eq!(plan.secrets[0].value, "s3cret");
        assert!(!plan.entry.to_string().contains("s3cret"));
        let err = plan_install(&d, "gh", &BTreeMap::new(), &BTreeMap::new()).unwrap_err();
        assert!(err.to_string().contains("--env TOKEN=VALUE"), "{err}");
    }

    #[test]
    fn pypi_remote_oci_and_ranges() {
        let d = doc(
            r#"{"name":"a/time","version":"1","packages":[{"registryType":"pypi",
            "identifier":"mcp-server-time","version":"2025.9.25","transport":{"type":"stdio"}}]}"#,
        );
        let plan = plan_install(&d, "time", &BTreeMap::new(), &BTreeMap::new()).unwrap();
        assert_eq!(
            plan.entry,
            json!({"command":"uvx","args":["mcp-server-time==2025.9.25"]})
        );
        let d = doc(
            r#"{"name":"a/r","version":"1","remotes":[{"type":"streamable-http",
            "url":"https://{tenant}.example.com/mcp","variables":{"tenant":{"default":"acme"}},
            "headers":[{"name":"X-Key","isSecret":true,"isRequired":true}]}]}"#,
        );
        let headers = BTreeMap::from([("X-Key".to_string(), "k".to_string())]);
        let plan = plan_install(&d, "r", &BTreeMap::new(), &headers).unwrap();
        assert_eq!(
            plan.entry,
            json!({"url":"https://acme.example.com/mcp","headers":{"X-Key":{"keyring":"r-X-Key"}}})
        );
        let d = doc(
            r#"{"name":"a/o","version":"1","packages":[{"registryType":"oci",
            "identifier":"docker.io/a/o:1.0","transport":{"type":"stdio"}}]}"#,
        );
        let err = plan_install(&d, "o", &BTreeMap::new(), &BTreeMap::new()).unwrap_err();
        assert!(err.to_string().contains("container runtime"), "{err}");
        for v in ["^1.0.0", "latest", "1.x", ">=1", ""] {
            assert!(!is_exact(v), "{v}");
        }
        assert!(is_exact("2025.9.25") && is_exact("1.0.0-rc.1"));
    }
}
