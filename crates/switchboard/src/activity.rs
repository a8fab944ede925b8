//! `switchboard activity`: the hub's recorded calls as a table for people
//! (oldest first, so the newest is at the bottom, as in `logs`), one row a
//! call: time, client, server, tool (or prompt or resource URI), duration and
//! outcome, with the error text after a failed call.

use switchboard_api::{ActivityEntry, ActivityOutcome};

/// The table's header line.
const HEADER: [&str; 6] = ["TIME", "CLIENT", "SERVER", "TOOL", "DURATION", "OUTCOME"];

/// `entries` (newest first, as the API answers) as table rows, oldest
/// first; with `header`, the header line first.
pub fn render(entries: &[ActivityEntry], header: bool) -> Vec<String> {
    let rows: Vec<[String; 6]> = entries.iter().rev().map(row).collect();
    // Minimum widths, so that rows printed later (`--follow`) line up too.
    let mut widths = [8, 12, 12, 20, 8, 7];
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 6]| -> String {
        let mut out = String::new();
        for (i, (cell, width)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == cells.len() {
                out.push_str(cell);
            } else {
                out.push_str(&format!("{cell:<width$}  "));
            }
        }
        out.trim_end().to_string()
    };
    let mut lines = Vec::new();
    if header {
        lines.push(line(HEADER));
    }
    for (row, entry) in rows.iter().zip(entries.iter().rev()) {
        let mut text = line([&row[0], &row[1], &row[2], &row[3], &row[4], &row[5]]);
        if let Some(error) = &entry.error {
            text.push_str(": ");
            text.push_str(error);
        }
        lines.push(text);
    }
    lines
}

fn row(entry: &ActivityEntry) -> [String; 6] {
    // RFC 3339 in UTC: the time of day, to the second.
    let time = entry
        .time
        .get(11..19)
        .unwrap_or(entry.time.as_str())
        .to_string();
    let outcome = match entry.outcome {
        ActivityOutcome::Ok => "ok",
        ActivityOutcome::Error => "error",
        ActivityOutcome::Cancelled => "cancelled",
        ActivityOutcome::Timeout => "timeout",
    };
    [
        time,
        entry.client.clone().unwrap_or_else(|| "-".into()),
        entry.server.clone().unwrap_or_else(|| "-".into()),
        entry.name.clone(),
        duration(entry.duration_ms),
        outcome.to_string(),
    ]
}

/// Milliseconds for people: `0.4 ms`, `12 ms`, `3.2 s`.
fn duration(ms: f64) -> String {
    if ms < 10.0 {
        format!("{ms:.1} ms")
    } else if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(seq: u64, name: &str, outcome: ActivityOutcome, error: Option<&str>) -> ActivityEntry {
        ActivityEntry {
            seq,
            time: format!("2026-11-30T19:0{seq}:05.123Z"),
            method: "tools/call".into(),
            name: name.into(),
            client: Some("claude-code".into()),
            session: None,
            endpoint: "/mcp".into(),
            profile: None,
            server: Some("notes".into()),
            duration_ms: 12.4,
            outcome,
            error: error.map(String::from),
            argument_bytes: 2,
            result_bytes: 30,
            arguments: None,
            approval: None,
            result_secrets: None,
            task: None,
            run: None,
        }
    }

    #[test]
    fn the_table_lists_oldest_first_with_errors_after_the_row() {
        let entries = vec![
            entry(
                2,
                "notes__fail",
                ActivityOutcome::Error,
                Some("server 'notes': boom"),
            ),
            entry(1, "notes__echo", ActivityOutcome::Ok, None),
        ];
        assert_eq!(
            render(&entries, true),
            vec![
                "TIME      CLIENT        SERVER        TOOL                  DURATION  OUTCOME",
                "19:01:05  claude-code   notes         notes__echo           12 ms     ok",
                "19:02:05  claude-code   notes         notes__fail           12 ms     error: server 'notes': boom",
            ]
        );
    }

    #[test]
    fn durations_read_well() {
        assert_eq!(duration(0.42), "0.4 ms");
        assert_eq!(duration(250.0), "250 ms");
        assert_eq!(duration(3200.0), "3.2 s");
    }
}
