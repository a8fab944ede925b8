//! Switchboard's wire types: what the hub serves on its control API
//! (`/api/v1`, see `docs/status.md`) and what the CLI, the desktop app, the
//! dashboard and the tests read back. The core builds these values; nobody
//! re-parses the JSON by string keys.
//!
//! Every type is `Serialize + Deserialize` and spells its fields in
//! camelCase, exactly the JSON the hub has always sent: `docs/status.md`,
//! the dashboard and the end-to-end tests are the contract, and the tests
//! here round-trip JSON captured from a running hub. With the `ts` feature
//! the types also describe themselves to TypeScript; `ui/src/api.gen.ts` is
//! generated from them (see `tests/typescript.rs`).
//!
//! This crate depends on serde (and serde_json, for server and tool
//! definitions that travel as free-form JSON) only, so every layer can use it.

mod activity;
mod control;
mod endpoints;
mod pending;
mod pins;
mod registry;
mod routes;
mod servers;
mod snapshot;
mod tools;

pub use activity::{ActivityEntry, ActivityOutcome, ActivityResponse, ActivityTask};
pub use control::{
    AuthErrorDetail, AuthFailure, DashboardLink, ErrorResponse, LogLine, LoginResponse,
    LogoutResponse, LogsResponse, RefreshAllResponse, RefreshResult, ReloadResponse, WireDuration,
};
pub use endpoints::{EndpointProfile, EndpointSnapshot, ToolMode};
pub use pending::{ActivityApproval, DecideRequest, DecideResponse, PendingCall, PendingResponse};
pub use pins::{
    ApproveRequest, ApproveResponse, ApproveTool, HeldDefinition, HeldResponse, HeldTool,
    ReviewedTool, ToolFinding,
};
pub use registry::{
    RegistryInput, RegistryInstallRequest, RegistryInstallResponse, RegistrySearchResponse,
    RegistryServer,
};
pub use routes::{API_ROUTES, ApiRoute};
pub use servers::{
    ImportCandidate, ImportOffer, ImportResponse, ImportSelection, ServerDefinition,
};
pub use snapshot::{
    AuthSnapshot, BreakerSnapshot, BreakerState, ConfigError, Health, HubSnapshot, KeyringKind,
    ListChange, RefreshTrigger, ReloadResult, SandboxStatus, ServerSnapshot, ServerState,
    SessionSnapshot, Totals,
};

pub use tools::{
    SearchMatch, SearchResponse, SearchedTool, ServerTool, ServerToolsResponse, ToolOverride,
};

#[cfg(feature = "ts")]
pub mod typescript;
