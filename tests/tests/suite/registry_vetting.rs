//! What a server being vetted (added from the registry, its tools not yet
//! approved) serves besides its tools: nothing. Its prompts, resources and
//! instructions are text a model reads, as a tool's description is.

use serde_json::json;
use switchboard_e2e::{Client, TestHub, eventually};

use super::registry::{docs, hub_cli};
use super::registry_install::{Installing, stand_in_npm_server};

#[tokio::test]
async fn a_server_being_vetted_serves_no_prompts_or_resources_until_approved() {
    let set = Installing::start(docs(&[]), &[]).await;
    let (hub, packages) = (&set.hub, &set.packages);
    // In the server's own folder: the only one its vetting sandbox reads.
    std::fs::create_dir_all(packages.path().join("texts")).unwrap();
    let spec = packages.path().join("texts").join("catalog.json");
    std::fs::write(
        &spec,
        json!({
            "tools": [{"name": "echo", "behavior": "echo"}],
            "prompts": [{"name": "greet", "description": "says hello"}],
            "resources": [{"uri": "file:///note", "name": "note", "text": "a note"}],
        })
        .to_string(),
    )
    .unwrap();
    let spec = spec.to_string_lossy().into_owned();
    stand_in_npm_server(
        hub,
        packages.path(),
        "texts",
        &[],
        &["--spec", &spec],
        json!({}),
    )
    .await;
    let (code, _) = hub.post("/api/v1/servers/texts/refresh").await;
    assert_eq!(code, 200, "{}", hub.log());
    hub.wait_for("texts", "listed and held", |s| !s.held_tools.is_empty())
        .await;

    let client = hub.client().await;
    let prompts = client.service.list_all_prompts().await.unwrap();
    assert!(
        !prompts.iter().any(|p| p.name.starts_with("texts__")),
        "{prompts:?}"
    );
    let resources = client.service.list_all_resources().await.unwrap();
    assert!(resources.is_empty(), "{resources:?}");
    // Named anyway on the merged endpoint: unknown there (not listed).
    let err = client
        .service
        .get_prompt(rmcp::model::GetPromptRequestParams::new("texts__greet"))
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown prompt"), "{err}");
    // The server's own endpoint lists none and refuses them, saying why.
    let own = Client::connect(&hub.url().replace("/mcp", "/servers/texts/mcp")).await;
    let prompts = own.service.list_all_prompts().await.unwrap();
    assert!(prompts.is_empty(), "{prompts:?}");
    let err = own
        .service
        .get_prompt(rmcp::model::GetPromptRequestParams::new("greet"))
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("'texts' is being vetted"), "{err}");
    let err = own
        .service
        .read_resource(rmcp::model::ReadResourceRequestParams::new("file:///note"))
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("'texts' is being vetted"), "{err}");

    let (ok, out, err) = hub_cli(hub, packages.path(), &["approve", "texts"]).await;
    assert!(ok && out.contains("approved echo"), "{out}{err}");
    hub.wait_for("texts", "restarted, approved", |s| {
        s.held_tools.is_empty() && s.tool_count == 1
    })
    .await;
    let client = hub.client().await;
    let prompts = eventually("the prompt served", || async {
        let prompts = client.service.list_all_prompts().await.ok()?;
        prompts
            .iter()
            .any(|p| p.name == "texts__greet")
            .then_some(prompts)
    })
    .await;
    assert!(!prompts.is_empty());
    let resources = client.service.list_all_resources().await.unwrap();
    assert!(
        resources.iter().any(|r| r.uri == "file:///note"),
        "{resources:?}"
    );
}
