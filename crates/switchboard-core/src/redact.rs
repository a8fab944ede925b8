//! Moved to [`crate::util::redact`]; this re-export keeps the old path
//! working until the layout change is merged.

pub use crate::util::redact::*;
