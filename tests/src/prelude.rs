//! What a suite imports: `use switchboard_e2e::prelude::*;` brings the two
//! kinds of hub, the [`TestHub`] contract they share, the typed snapshot and
//! its predicates, clients and the fixture helpers.

pub use crate::engine::Engine;
pub use crate::{
    Client, DEADLINE, Health, Hub, HubSnapshot, RefreshTrigger, ServerSnapshot, ServerState,
    TestHub, api, auth, auth_message, eventually, is, last_error, pid_alive, server, stdio_fixture,
    write_control,
};
