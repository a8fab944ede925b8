//! `switchboard registry search|show|outdated`, `switchboard add` and
//! `switchboard update`: finding servers in the MCP Registry
//! (`settings.registryUrl`) and adding them, vetted before they get
//! anything (see `docs/registry.md`).
//!
//! `search`, `show` and `outdated` ask the registry directly (no hub
//! needed). `add` goes through a running hub (`POST /api/v1/registry/install`,
//! so the hub stores the secrets in its keyring and applies the config at
//! once), else it runs the same install flow itself. `update` stages the
//! new version in the lock (the config entry and the running version left
//! alone), lists it here in its vetting sandbox and shows the tool diff;
//! `approve` (through the hub) applies it. A remote's update is written to
//! its entry at once and vetted by the hub.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use switchboard::remote::Remote;
use switchboard_api as api;
use switchboard_core::config::{self, Source, process_env};
use switchboard_core::{Config, Lockfile, RegistryClient};

use crate::{HubAddress, print, switchboard_config};

#[derive(Subcommand)]
pub(crate) enum RegistryAction {
    /// Search the registry: name, version, description, transports, and
    /// whether it is installed.
    Search {
        query: String,
        /// Print the answer as JSON (the fields of `GET /api/v1/registry`).
        #[arg(long)]
        json: bool,
        #[arg(long, env = "SWITCHBOARD_CONFIG")]
        config: Option<PathBuf>,
    },
    /// Show one server's document: packages, remotes, the values it asks for.
    Show {
        /// The registry name (`io.github.owner/server`), optionally `@VERSION`.
        name: String,
        /// Print the registry's answer as JSON.
        #[arg(long)]
        json: bool,
        #[arg(long, env = "SWITCHBOARD_CONFIG")]
        config: Option<PathBuf>,
    },
    /// Compare the servers added from the registry with its latest versions.
    Outdated {
        #[arg(long)]
        json: bool,
        #[arg(long, env = "SWITCHBOARD_CONFIG")]
        config: Option<PathBuf>,
    },
}

#[derive(clap::Args)]
pub(crate) struct AddArgs {
    /// The registry name, optionally `@VERSION` (exact; default the latest).
    name: String,
    /// The server id (default: the name's last part).
    #[arg(long)]
    id: Option<String>,
    /// An environment variable, `K=V` (repeatable); secret ones go to the keyring.
    #[arg(long = "env", value_name = "K=V")]
    env: Vec<String>,
    /// A header of a remote server, `K=V` (repeatable); secret ones go to the keyring.
    #[arg(long = "header", value_name = "K=V")]
    headers: Vec<String>,
    #[command(flatten)]
    hub: HubAddress,
}

fn settings(config: Option<PathBuf>) -> anyhow::Result<(PathBuf, Config)> {
    let path = switchboard_config(config);
    // A refused file is no reason to refuse: only the settings are needed.
    let config = config::load(Source::start(&path).overrides(&process_env).or_empty())?.config;
    Ok((path, config))
}

fn client(config: &Config) -> RegistryClient {
    RegistryClient::with_defaults(&config.settings.registry_url)
}

/// `name@version` → (`name`, `version`); a name has no `@` of its own.
fn split_version(spec: &str) -> (String, Option<String>) {
    match spec.rsplit_once('@') {
        Some((name, version)) if !name.is_empty() => (name.to_string(), Some(version.to_string())),
        _ => (spec.to_string(), None),
    }
}

fn stale_note(stale: Option<std::time::SystemTime>) {
    if let Some(at) = stale {
        let age = at.elapsed().map(|d| d.as_secs()).unwrap_or_default();
        eprintln!(
            "switchboard: warning: the registry cannot be reached; showing its answer from {age} s ago"
        );
    }
}

pub(crate) async fn registry(action: RegistryAction) -> anyhow::Result<ExitCode> {
    match action {
        RegistryAction::Search {
            query,
            json,
            config,
        } => {
            let (path, config) = settings(config)?;
            let client = client(&config);
            let answer = client.search(&query, 30).await?;
            stale_note(answer.stale_since);
            let lock = Lockfile::read(&path).unwrap_or_default();
            let configured: Vec<String> = config.servers.iter().map(|s| s.id.to_string()).collect();
            let servers: Vec<api::RegistryServer> = answer
                .value
                .servers
                .iter()
                .map(|e| switchboard_core::registry_server(&e.server, &lock, &configured))
                .collect();
            if json {
                let out = api::RegistrySearchResponse {
                    registry: client.base().to_string(),
                    servers,
                    stale_since: answer.stale_since.map(switchboard_core::timestamp),
                };
                print(&serde_json::to_string_pretty(&out)?)?;
            } else if servers.is_empty() {
                print(&format!("no server in {} matches {query:?}", client.base()))?;
            } else {
                for s in &servers {
                    let installed = s
                        .installed_as
                        .as_deref()
                        .map(|id| format!("  [installed as {id}]"))
                        .unwrap_or_default();
                    print(&format!(
                        "{}  {}  {}{installed}",
                        s.name,
                        s.version,
                        s.transports.join(", ")
                    ))?;
                    if let Some(d) = &s.description {
                        print(&format!("    {d}"))?;
                    }
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        RegistryAction::Show { name, json, config } => {
            let (_, config) = settings(config)?;
            let (name, version) = split_version(&name);
            let answer = client(&config).server(&name, version.as_deref()).await?;
            stale_note(answer.stale_since);
            if json {
                print(&serde_json::to_string_pretty(&answer.value)?)?;
            } else {
                print(show(&answer.value.server).trim_end())?;
            }
            Ok(ExitCode::SUCCESS)
        }
        RegistryAction::Outdated { json, config } => {
            let (path, config) = settings(config)?;
            let client = client(&config).revalidating();
            let lock = Lockfile::read(&path)?;
            let mut rows = Vec::new();
            for (id, entry) in &lock.servers {
                let latest = client.server(&entry.registry_name, None).await?;
                rows.push(serde_json::json!({
                    "id": id,
                    "name": entry.registry_name,
                    "locked": entry.version,
                    "latest": latest.value.server.version,
                    "outdated": latest.value.server.version != entry.version,
                    "vetting": entry.vetting(),
                    "staged": entry.update.as_ref().map(|u| u.version.clone()),
                }));
            }
            if json {
                print(&serde_json::to_string_pretty(&rows)?)?;
            } else if rows.is_empty() {
                print("no server was added from the registry")?;
            } else {
                for r in &rows {
                    let note = if let Some(staged) = r["staged"].as_str() {
                        format!(
                            "→ {staged} staged  (switchboard approve {})",
                            r["id"].as_str().unwrap_or_default()
                        )
                    } else if r["outdated"] == true {
                        format!(
                            "→ {}  (switchboard update {})",
                            r["latest"].as_str().unwrap_or_default(),
                            r["id"].as_str().unwrap_or_default()
                        )
                    } else {
                        "up to date".to_string()
                    };
                    print(&format!(
                        "{}  {}  {}  {note}",
                        r["id"].as_str().unwrap_or_default(),
                        r["name"].as_str().unwrap_or_default(),
                        r["locked"].as_str().unwrap_or_default()
                    ))?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// A document for people.
fn show(doc: &switchboard_core::ServerDocument) -> String {
    let mut out = format!("{} {}\n", doc.name, doc.version);
    if let Some(title) = &doc.title {
        out.push_str(&format!("  {title}\n"));
    }
    if let Some(d) = &doc.description {
        out.push_str(&format!("  {d}\n"));
    }
    for p in &doc.packages {
        out.push_str(&format!(
            "  package: {} {} {} ({})\n",
            p.registry_type,
            p.identifier,
            p.version.as_deref().unwrap_or("(no version)"),
            if p.transport.kind.is_empty() {
                "stdio"
            } else {
                &p.transport.kind
            }
        ));
        for e in &p.environment_variables {
            out.push_str(&format!("    env {}{}\n", e.name, flags(e)));
        }
    }
    for r in &doc.remotes {
        out.push_str(&format!(
            "  remote: {} {}\n",
            r.kind,
            r.url.as_deref().unwrap_or_default()
        ));
        for h in &r.headers {
            out.push_str(&format!("    header {}{}\n", h.name, flags(h)));
        }
    }
    out
}

fn flags(input: &switchboard_core::RegistryInput) -> String {
    let mut parts = Vec::new();
    if input.is_required {
        parts.push("required");
    }
    if input.is_secret {
        parts.push("secret");
    }
    let mut out = String::new();
    if !parts.is_empty() {
        out.push_str(&format!(" ({})", parts.join(", ")));
    }
    if let Some(d) = &input.description {
        out.push_str(&format!(": {d}"));
    }
    out
}

fn pairs(values: &[String], flag: &str) -> anyhow::Result<BTreeMap<String, String>> {
    values
        .iter()
        .map(|kv| {
            kv.split_once('=')
                .filter(|(k, _)| !k.is_empty())
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .with_context(|| format!("--{flag} takes K=V, not {kv:?}"))
        })
        .collect()
}

/// Whether a hub answers at `base` (a TCP connect; nothing is sent).
async fn hub_running(base: &str) -> bool {
    let Some(authority) = base
        .strip_prefix("http://")
        .map(|r| r.split('/').next().unwrap_or(r).to_string())
    else {
        return false;
    };
    matches!(
        tokio::time::timeout(
            std::time::Duration::from_secs(2),
            tokio::net::TcpStream::connect(authority)
        )
        .await,
        Ok(Ok(_))
    )
}

pub(crate) async fn add(args: AddArgs) -> anyhow::Result<ExitCode> {
    let (path, config) = settings(args.hub.config.clone())?;
    let (name, version) = split_version(&args.name);
    let mut env = pairs(&args.env, "env")?;
    let mut headers = pairs(&args.headers, "header")?;
    let client = client(&config);
    // On a terminal, ask for the required values not given.
    if std::io::stdin().is_terminal() {
        let doc = client.server(&name, version.as_deref()).await?.value.server;
        let (want_env, want_headers) = switchboard_core::registry_inputs(&doc);
        for (wanted, given) in [(want_env, &mut env), (want_headers, &mut headers)] {
            for input in wanted {
                if input.is_required && input.value.is_none() && !given.contains_key(&input.name) {
                    let value = crate::secret::prompt_value(&input.name, input.is_secret)?;
                    given.insert(input.name.clone(), value);
                }
            }
        }
    }
    let base = args.hub.base_url()?;
    let id = if hub_running(&base).await {
        let remote = Remote::new(&base)?;
        let request = api::RegistryInstallRequest {
            name: name.clone(),
            version,
            id: args.id,
            env: Some(env),
            headers: Some(headers),
        };
        let answer: api::RegistryInstallResponse =
            remote.post_json("/registry/install", &request).await?;
        answer.id
    } else {
        let opened = switchboard_core::auth::store::open_async(config.settings.token_store).await;
        let request = switchboard_core::InstallRequest {
            name: name.clone(),
            version,
            id: args.id,
            env,
            headers,
        };
        let http = reqwest::Client::new();
        let installed = switchboard_core::registry_install::install(
            &client,
            &http,
            &opened.store,
            &path,
            &request,
        )
        .await?;
        installed.id
    };
    let lock = Lockfile::read(&path)?;
    let spec = lock.servers.get(&id).map(|e| e.spec()).unwrap_or_default();
    print(&format!(
        "added '{id}' ({spec}) from {name}; its tools are held until you approve them \
         (`switchboard approve {id}`); until then it runs without its secrets, offline, in a strict sandbox"
    ))?;
    Ok(ExitCode::SUCCESS)
}

pub(crate) async fn update(id: String, cancel: bool, hub: HubAddress) -> anyhow::Result<ExitCode> {
    let (path, config) = settings(hub.config.clone())?;
    if cancel {
        let running = Lockfile::read(&path)?
            .servers
            .get(&id)
            .map(|e| e.spec())
            .unwrap_or_default();
        match switchboard_core::registry_install::cancel_update(&path, &id)? {
            Some(staged) => print(&format!(
                "'{id}': the update to {} ({}) was dropped; {running} keeps running",
                staged.version,
                staged.spec()
            ))?,
            None => print(&format!("'{id}': no update is staged"))?,
        }
        return Ok(ExitCode::SUCCESS);
    }
    let client = client(&config).revalidating();
    let http = reqwest::Client::new();
    let installed =
        switchboard_core::registry_install::stage_update(&client, &http, &path, &id).await?;
    print(&format!(
        "'{id}': {} → {} ({}), fetched and checked",
        installed.previous_version.as_deref().unwrap_or("?"),
        installed.version,
        installed.spec
    ))?;
    if installed.kind == switchboard_core::PackageKind::Remote {
        return remote_update(&id, &hub, &installed.previous_tools).await;
    }
    // Listed here, in its vetting sandbox (no secrets, no network), with or
    // without a hub; the running version is not touched.
    let running = Lockfile::read(&path)?
        .servers
        .get(&id)
        .map(|e| e.spec())
        .unwrap_or_default();
    let listing = switchboard_core::list_staged_update(&path, &id)
        .await
        .with_context(|| {
            format!(
                "{running} keeps running; `switchboard update {id} --cancel` drops the staged update"
            )
        })?;
    let diff = &listing.diff;
    let mut lines: Vec<String> = Vec::new();
    lines.extend(diff.added.iter().map(|t| format!("  + {t} (new)")));
    lines.extend(
        diff.changed
            .iter()
            .map(|t| format!("  ~ {t} (definition changed)")),
    );
    lines.extend(diff.removed.iter().map(|t| format!("  - {t} (gone)")));
    let mut out = std::io::stdout().lock();
    if lines.is_empty() {
        writeln!(out, "tools: no change ({} tools)", listing.tools.len())?;
    } else {
        writeln!(out, "tools:")?;
        for line in lines {
            writeln!(out, "{line}")?;
        }
    }
    if diff.names_only {
        writeln!(
            out,
            "(the lock has only the names of the approved tools, so a changed definition is not shown; \
             `switchboard approve {id}` applies the update and pins what was listed now)"
        )?;
    }
    writeln!(
        out,
        "{running} keeps running until you approve {} with `switchboard approve {id}` \
         (`switchboard update {id} --cancel` drops it)",
        listing.spec
    )?;
    Ok(ExitCode::SUCCESS)
}

/// A remote's update, written to its entry at once (it has no package to
/// vet beside the running one): with a hub running, lists it in its
/// vetting connection and shows the tool diff before anything is approved.
async fn remote_update(
    id: &str,
    hub: &HubAddress,
    previous_tools: &[String],
) -> anyhow::Result<ExitCode> {
    let base = hub.base_url()?;
    if !hub_running(&base).await {
        print("no hub is running: the new version is vetted at its first start")?;
        return Ok(ExitCode::SUCCESS);
    }
    let remote = Remote::new(&base)?;
    let _: api::ReloadResponse = remote.post("/reload").await?;
    // Lists the new version in its vetting connection (no secret headers).
    let refreshed: api::RefreshResult = remote.post(&format!("/servers/{id}/refresh")).await?;
    if let Some(error) = &refreshed.error {
        anyhow::bail!("listing the new version failed: {error}");
    }
    let held: api::HeldResponse = remote.get(&format!("/servers/{id}/held")).await?;
    let served: api::ServerToolsResponse = remote.get(&format!("/servers/{id}/tools")).await?;
    let mut now: Vec<String> = served.tools.iter().map(|t| t.name.clone()).collect();
    now.extend(held.tools.iter().map(|t| t.name.clone()));
    let mut lines = Vec::new();
    for t in &held.tools {
        if t.change == "new server" {
            lines.push(format!("  + {} (new)", t.name));
        } else {
            lines.push(format!("  ~ {} ({} changed)", t.name, t.change));
        }
    }
    for old in previous_tools {
        if !now.contains(old) {
            lines.push(format!("  - {old} (gone)"));
        }
    }
    let mut out = std::io::stdout().lock();
    if lines.is_empty() {
        writeln!(out, "tools: no change")?;
    } else {
        writeln!(out, "tools:")?;
        for line in lines {
            writeln!(out, "{line}")?;
        }
    }
    writeln!(
        out,
        "approve the new version with `switchboard approve {id}`; until then it runs without its secrets"
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `switchboard approve <id> [<tool>...]` (`commands::approve`), saying
/// when it applied an update staged by `switchboard update <id>`, or that
/// one is still waiting.
pub(crate) async fn approve(
    id: &str,
    tools: &[String],
    hub: &HubAddress,
) -> anyhow::Result<ExitCode> {
    let path = switchboard_config(hub.config.clone());
    let staged = || {
        Lockfile::read(&path)
            .ok()
            .and_then(|l| l.servers.get(id).cloned())
    };
    let before = staged().and_then(|e| e.update);
    let code = crate::commands::approve(&hub.remote()?, id, tools).await?;
    if let Some(update) = before {
        let after = staged();
        if after.as_ref().is_some_and(|e| e.update.is_none()) {
            print(&format!(
                "{id}: now runs {} ({}), with its env and headers",
                update.spec(),
                update.version
            ))?;
        } else {
            print(&format!(
                "{id}: the update to {} is still staged; `switchboard approve {id}` with no tool named applies it",
                update.version
            ))?;
        }
    }
    Ok(code)
}
