//! `switchboard pending [--follow]`, `switchboard allow ID [--always]` and
//! `switchboard deny ID`: the calls waiting for a person's approval
//! (`settings.confirmCalls`), listed and decided through the control API
//! (`GET /api/v1/pending`, `POST /api/v1/pending/<id>/allow|deny`).

use std::process::ExitCode;
use std::time::Duration;

use switchboard::remote::Remote;
use switchboard_api::{DecideRequest, DecideResponse, PendingCall, PendingResponse};

use crate::{HubAddress, print};

/// `switchboard pending`.
#[derive(clap::Args)]
pub struct PendingArgs {
    /// Keep printing calls as they start to wait (each once).
    #[arg(long, short)]
    follow: bool,
    /// Print the API's answer as JSON (with --follow, one call a line).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    hub: HubAddress,
}

/// `switchboard allow` and `switchboard deny`.
#[derive(clap::Args)]
pub struct DecideArgs {
    /// The waiting call's id (from `switchboard pending`).
    id: String,
    /// Allow, and stop asking for this tool (adds it to the server's
    /// `allowTools` in the config file). Only with `allow`.
    #[arg(long)]
    always: bool,
    #[command(flatten)]
    hub: HubAddress,
}

/// One line for a waiting call.
fn line(call: &PendingCall) -> String {
    format!(
        "{}  {}  {}  {}  {}",
        call.id,
        call.since.get(11..19).unwrap_or(&call.since),
        call.client.as_deref().unwrap_or("-"),
        format_args!("{}/{}", call.server, call.tool),
        call.arguments
    )
}

pub async fn pending(args: PendingArgs) -> anyhow::Result<ExitCode> {
    let remote = args.hub.remote()?;
    let answer: PendingResponse = remote.get("/pending").await?;
    if args.json && !args.follow {
        print(&serde_json::to_string_pretty(&answer)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    if !args.json {
        if answer.calls.is_empty() && !args.follow {
            print("no calls are waiting for approval")?;
            return Ok(ExitCode::SUCCESS);
        }
        print("ID  SINCE  CLIENT  SERVER/TOOL  ARGUMENTS")?;
    }
    let mut shown = std::collections::BTreeSet::new();
    let mut answer = answer;
    loop {
        for call in &answer.calls {
            if shown.insert(call.id.clone()) {
                if args.json {
                    print(&serde_json::to_string(call)?)?;
                } else {
                    print(&line(call))?;
                }
            }
        }
        if !args.follow {
            return Ok(ExitCode::SUCCESS);
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        answer = remote.get("/pending").await?;
    }
}

pub async fn decide(args: DecideArgs, allow: bool) -> anyhow::Result<ExitCode> {
    if args.always && !allow {
        anyhow::bail!("--always goes with `switchboard allow`");
    }
    let remote: Remote = args.hub.remote()?;
    let verb = if allow { "allow" } else { "deny" };
    let path = format!("/pending/{}/{verb}", args.id);
    let answer: DecideResponse = if args.always {
        remote
            .post_json(&path, &DecideRequest { always: Some(true) })
            .await?
    } else {
        remote.post(&path).await?
    };
    let done = if allow { "allowed" } else { "denied" };
    let mut text = format!("call {}: {done}", answer.id);
    if answer.always {
        text.push_str(" (and added to allowTools)");
    }
    print(&text)?;
    if let Some(error) = answer.error {
        eprintln!("{error}");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
