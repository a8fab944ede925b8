//! Durations in settings: whole numbers of a unit ([`TimeUnit`]), at most
//! [`MAX_DURATION`], read from the file by [`DurationVisitor`] (errors name
//! the key; serde_json adds the line and column).

use std::fmt;
use std::time::Duration;

use serde::Deserializer;
use serde::de::{self, DeserializeSeed, Visitor};

use super::MAX_DURATION;

/// The unit a duration setting is given in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    Secs,
    Millis,
}

impl TimeUnit {
    /// The largest value accepted in this unit ([`MAX_DURATION`]).
    pub fn max(self) -> u64 {
        match self {
            Self::Secs => MAX_DURATION.as_secs(),
            Self::Millis => MAX_DURATION.as_secs() * 1000,
        }
    }

    /// `value` of this unit as a duration, or why it is refused (too long).
    pub fn duration(self, value: u64) -> Result<Duration, String> {
        if value > self.max() {
            return Err(format!(
                "{value} is more than the maximum {} ({} days)",
                self.max(),
                MAX_DURATION.as_secs() / 86_400
            ));
        }
        Ok(match self {
            Self::Secs => Duration::from_secs(value),
            Self::Millis => Duration::from_millis(value),
        })
    }

    fn name(self) -> &'static str {
        match self {
            Self::Secs => "seconds",
            Self::Millis => "milliseconds",
        }
    }
}

/// Reads one duration key: a whole number of `unit`s from `min` to the
/// maximum, or `null` (the default). Errors name the key; serde_json adds
/// the line and column.
pub(crate) struct DurationVisitor {
    pub(crate) key: &'static str,
    pub(crate) unit: TimeUnit,
    pub(crate) min: u64,
}

impl<'de> Visitor<'de> for DurationVisitor {
    type Value = Option<Duration>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: a whole number of {}", self.key, self.unit.name())
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Self::Value, E> {
        if value < self.min {
            return Err(E::custom(format!(
                "`{}` must be at least {}",
                self.key, self.min
            )));
        }
        self.unit
            .duration(value)
            .map(Some)
            .map_err(|message| E::custom(format!("`{}`: {message}", self.key)))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Self::Value, E> {
        match u64::try_from(value) {
            Ok(value) => self.visit_u64(value),
            Err(_) => Err(E::custom(format!(
                "`{}` must not be negative (got {value})",
                self.key
            ))),
        }
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Self::Value, E> {
        // Numbers too big for u64 arrive here too.
        if value > self.unit.max() as f64 {
            return Err(E::custom(format!(
                "`{}`: {value:e} is more than the maximum {} ({} days)",
                self.key,
                self.unit.max(),
                MAX_DURATION.as_secs() / 86_400
            )));
        }
        Err(E::custom(format!(
            "`{}` must be a whole number of {} (got {value})",
            self.key,
            self.unit.name()
        )))
    }
}

impl<'de> DeserializeSeed<'de> for DurationVisitor {
    type Value = Option<Duration>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}
