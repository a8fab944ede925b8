//! The config loader on arbitrary bytes: parsing and validation never panic,
//! and whatever is accepted keeps the config's invariants (valid, unique
//! server ids; every duration within `MAX_DURATION`; timeouts at least 1 s).
//! The same bytes are also tried as the value of one `SWITCHBOARD_*` variable.

#![no_main]

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use switchboard_core::config::{self, Config, ENV_VARS, MAX_DURATION, ServerId, Settings};
use switchboard_core::Fingerprint;

fn check_settings(settings: &Settings) {
    for duration in [
        settings.cache_ttl,
        settings.poll_interval,
        settings.startup_timeout,
        settings.call_timeout,
        settings.cold_list_timeout,
        settings.idle_shutdown,
    ] {
        assert!(duration <= MAX_DURATION, "{duration:?} accepted");
    }
    assert!(settings.startup_timeout >= Duration::from_secs(1));
    assert!(settings.call_timeout >= Duration::from_secs(1));
    assert!(settings.cache_max_entries >= 1);
}

fn check(config: &Config) {
    let mut ids = HashSet::new();
    for server in &config.servers {
        assert_eq!(ServerId::new(server.id.as_str()).as_ref(), Ok(&server.id));
        assert!(ids.insert(server.id.clone()), "{} twice", server.id);
        for timeout in [server.timeouts.startup, server.timeouts.call]
            .into_iter()
            .flatten()
        {
            assert!(timeout >= Duration::from_secs(1) && timeout <= MAX_DURATION);
        }
        let _ = Fingerprint::of(server);
        let _ = serde_json::to_string(server);
        assert!(
            server
                .prefix()
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        );
    }
    check_settings(&config.settings);
}

fuzz_target!(|data: &[u8]| {
    match config::load(config::Source::bytes(data, Path::new("fuzz.json"))) {
        Ok(config) => check(&config),
        Err(err) => {
            let _ = err.to_string();
            let _ = serde_json::to_string(&err);
        }
    }
    if let Some((which, value)) = data.split_first() {
        let (name, _) = ENV_VARS[usize::from(*which) % ENV_VARS.len()];
        let value = String::from_utf8_lossy(value).into_owned();
        let mut settings = Settings::default();
        match settings.apply_env(|n| (n == name).then(|| value.clone())) {
            Ok(()) => check_settings(&settings),
            Err(err) => {
                let text = err.to_string();
                assert!(text.contains(name), "{text}");
            }
        }
    }
});
