//! The TypeScript declarations of every wire type, in one file for the
//! dashboard (`ui/src/api.gen.ts`). Only with the `ts` feature; the test
//! `tests/typescript.rs` compares the committed file with this rendering.

use ts_rs::TS;

use crate::*;

/// The command that rewrites `ui/src/api.gen.ts`.
pub const REGENERATE: &str =
    "SWITCHBOARD_WRITE_TS=1 cargo test -p switchboard-api --test typescript";

/// The whole generated file.
pub fn render() -> String {
    let mut out = format!(
        "// GENERATED from crates/switchboard-api by ts-rs: do not edit.\n\
         // Regenerate with `{REGENERATE}`.\n"
    );
    let decls = [
        decl::<HubSnapshot>(),
        decl::<Totals>(),
        decl::<ServerSnapshot>(),
        decl::<ServerState>(),
        decl::<Health>(),
        decl::<BreakerState>(),
        decl::<BreakerSnapshot>(),
        decl::<RefreshTrigger>(),
        decl::<ListChange>(),
        decl::<SessionSnapshot>(),
        decl::<EndpointSnapshot>(),
        decl::<EndpointProfile>(),
        decl::<ToolMode>(),
        decl::<AuthSnapshot>(),
        decl::<KeyringKind>(),
        decl::<ConfigError>(),
        decl::<ReloadResult>(),
        decl::<ErrorResponse>(),
        decl::<RefreshAllResponse>(),
        decl::<RefreshResult>(),
        decl::<ReloadResponse>(),
        decl::<LogsResponse>(),
        decl::<LogLine>(),
        decl::<LoginResponse>(),
        decl::<LogoutResponse>(),
        decl::<AuthFailure>(),
        decl::<AuthErrorDetail>(),
        decl::<WireDuration>(),
        decl::<DashboardLink>(),
        decl::<ServerDefinition>(),
        decl::<ImportOffer>(),
        decl::<ImportCandidate>(),
        decl::<ImportSelection>(),
        decl::<ImportResponse>(),
        decl::<HeldTool>(),
        decl::<ToolFinding>(),
        decl::<SandboxStatus>(),
        decl::<HeldDefinition>(),
        decl::<HeldResponse>(),
        decl::<ApproveRequest>(),
        decl::<ApproveTool>(),
        decl::<ReviewedTool>(),
        decl::<ApproveResponse>(),
        decl::<ServerToolsResponse>(),
        decl::<ServerTool>(),
        decl::<ToolOverride>(),
        decl::<SearchResponse>(),
        decl::<SearchedTool>(),
        decl::<SearchMatch>(),
        decl::<ActivityResponse>(),
        decl::<ActivityEntry>(),
        decl::<ActivityOutcome>(),
        decl::<ActivityTask>(),
        decl::<PendingResponse>(),
        decl::<PendingCall>(),
        decl::<DecideRequest>(),
        decl::<DecideResponse>(),
        decl::<ActivityApproval>(),
        decl::<RegistrySearchResponse>(),
        decl::<RegistryServer>(),
        decl::<RegistryInput>(),
        decl::<RegistryInstallRequest>(),
        decl::<RegistryInstallResponse>(),
    ];
    for decl in decls {
        out.push('\n');
        out.push_str(&decl);
        out.push('\n');
    }
    // The control API's routes, typed by endpoint (`routes.rs`).
    out.push('\n');
    out.push_str(&crate::routes::typescript());
    out
}

fn decl<T: TS>() -> String {
    let mut out = T::docs().unwrap_or_default();
    out.push_str("export ");
    out.push_str(&T::decl());
    out
}
