//! `ui/src/api.gen.ts` is the TypeScript rendering of this crate's types:
//! this test fails when the committed file is stale, and rewrites it when
//! `SWITCHBOARD_WRITE_TS=1` is set.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use switchboard_api::typescript::{REGENERATE, render};

fn committed() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/api.gen.ts")
}

#[test]
fn committed_typescript_is_current() {
    let fresh = render();
    let path = committed();
    if std::env::var_os("SWITCHBOARD_WRITE_TS").is_some() {
        std::fs::write(&path, &fresh).expect("write ui/src/api.gen.ts");
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == fresh,
        "ui/src/api.gen.ts is stale or missing: regenerate it with `{REGENERATE}` \
         (then rebuild ui/dist: `cd ui && npm run build`)"
    );
}

#[test]
fn rendering_names_every_type_once() {
    let text = render();
    for name in [
        "HubSnapshot",
        "ServerSnapshot",
        "ReloadResponse",
        "LogsResponse",
    ] {
        let declaration = format!("export type {name} =");
        assert_eq!(text.matches(&declaration).count(), 1, "{name} in:\n{text}");
    }
}
