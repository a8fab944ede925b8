//! The fast path's request sniffing on arbitrary bytes: reading a request body
//! (JSON-RPC probe, id check, list and call parameters, cancellations) and an
//! answer stream (server-sent events split anywhere) never panics, and an
//! answer envelope built for a sniffed id is recognised as that id's answer.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (split, body) = match data.split_first() {
        Some((first, rest)) => (usize::from(*first), rest),
        None => (0, data),
    };
    switchboard_core::fuzz_sniff(body, split);
});
