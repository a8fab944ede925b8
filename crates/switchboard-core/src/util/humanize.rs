//! Durations in words, for messages people read.

use std::time::Duration;

/// A duration as precisely as a message needs it: `250 ms`, `3 s`, `1.5 s`.
pub fn humanize(d: Duration) -> String {
    if d.as_millis() < 1000 {
        format!("{} ms", d.as_millis())
    } else if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// A duration in its largest whole unit, for "how long ago" lines:
/// `42 s`, `3 min`, `5 h`, `2 d` (rounded down).
pub fn humanize_coarse(d: Duration) -> String {
    let secs = d.as_secs();
    match secs {
        0..=59 => format!("{secs} s"),
        60..=3599 => format!("{} min", secs / 60),
        3600..=86_399 => format!("{} h", secs / 3600),
        _ => format!("{} d", secs / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precise_durations() {
        for (d, text) in [
            (Duration::ZERO, "0 ms"),
            (Duration::from_millis(999), "999 ms"),
            (Duration::from_secs(1), "1 s"),
            (Duration::from_millis(1500), "1.5 s"),
            (Duration::from_secs(90), "90 s"),
        ] {
            assert_eq!(humanize(d), text);
        }
    }

    #[test]
    fn coarse_durations() {
        for (secs, text) in [
            (0, "0 s"),
            (59, "59 s"),
            (60, "1 min"),
            (3599, "59 min"),
            (3600, "1 h"),
            (86_399, "23 h"),
            (86_400, "1 d"),
        ] {
            assert_eq!(humanize_coarse(Duration::from_secs(secs)), text);
        }
    }
}
