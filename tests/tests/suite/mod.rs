//! The suites: end-to-end files (the real `switchboard` binary and fixture
//! processes) and in-process engine files (`engine_*`: the hub inside the test process, driven through its handle).

mod access;
mod activity;
mod cli;
mod config_file;
mod disabled_tools;
mod discovery;
mod engine_reload;
mod engine_upstreams;
mod env_vars;
mod errors;
mod fast_path;
mod faults_flood;
mod faults_stdio;
mod files;
mod forwarding;
mod freshness;
mod input_required;
mod keyring;
mod launch;
mod list_changed;
mod merge;
mod oauth;
mod pins;
mod profiles;
mod reload;
mod revision;
mod routing;
mod secrets;
mod self_proxy;
mod server_edits;
mod sessions;
mod sse_upstream;
mod token_counter;
mod totals;
mod upstream_version;
