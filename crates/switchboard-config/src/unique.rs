//! Duplicate keys in the config file: serde and `serde_json::Value` keep the
//! last of two equal keys in an object, so a second `"work": {...}` under
//! `profiles` (one without a `token`, say) would silently replace the first.
//! [`check_unique_keys`] walks the whole file once, before the loader reads
//! it, and refuses the first key that repeats in any object at any depth
//! (`mcpServers`, a server's `env` and `headers`, `profiles`, `settings`, the
//! top object, ...). This is the one check of duplicate keys; the loader has
//! no other.
//!
//! Keys are compared as JSON strings after unescaping (`"a"` and `"\u0061"`
//! are the same key). The error carries the line and column just after the
//! repeated key, and names where it is, in the file's words.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// Refuses a key that appears twice in one object of `text`. Only a repeated
/// key is reported: a syntax error is left to the loader, which reports it
/// (with the same position) as it always did.
pub(super) fn check_unique_keys(text: &str) -> Result<(), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    match Walk(&Place::Top).deserialize(&mut de) {
        Err(err) if err.classify() == serde_json::error::Category::Data => Err(err),
        _ => Ok(()),
    }
}

/// Where a value is in the file: a chain of keys and indexes up to the top.
enum Place<'a> {
    Top,
    Key(&'a Place<'a>, &'a str),
    Index(&'a Place<'a>, usize),
}

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Top => Ok(()),
            Self::Key(Self::Top, key) => f.write_str(key),
            Self::Key(parent, key) => write!(f, "{parent}.{key}"),
            Self::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

impl Place<'_> {
    /// What a repeated `key` in the object at this place is, for people.
    fn twice(&self, key: &str) -> String {
        match self {
            Self::Top => format!("the key {key:?} appears twice in the file"),
            Self::Key(Self::Top, "mcpServers") => format!("server id {key:?} is defined twice"),
            Self::Key(Self::Top, "profiles") => format!("profile {key:?} is defined twice"),
            _ => format!("the key {key:?} appears twice in `{self}`"),
        }
    }
}

/// Reads any JSON value and throws it away, checking every object on the way.
struct Walk<'a>(&'a Place<'a>);

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0;
        while seq
            .next_element_seed(Walk(&Place::Index(self.0, i)))?
            .is_some()
        {
            i += 1;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if seen.contains(&key) {
                return Err(de::Error::custom(self.0.twice(&key)));
            }
            map.next_value_seed(Walk(&Place::Key(self.0, &key)))?;
            seen.insert(key);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Source, load};
    use pretty_assertions::assert_eq;

    /// The message, line and column of the refusal of `text`.
    fn refused(text: &str) -> (String, usize, usize) {
        let err = check_unique_keys(text).unwrap_err();
        let message = err.to_string();
        let message = message[..message.rfind(" at line ").unwrap()].to_string();
        (message, err.line(), err.column())
    }

    #[test]
    fn a_repeated_server_id_is_refused_where_it_repeats() {
        let text = "{\"mcpServers\": {\n  \"a\": {\"command\": \"x\"},\n  \"a\": {}}}";
        assert_eq!(
            refused(text),
            ("server id \"a\" is defined twice".into(), 3, 5)
        );
    }

    #[test]
    fn a_repeated_profile_is_refused() {
        let text = r#"{"profiles": {
            "work": {"servers": [], "token": "0123456789abcdef0123"},
            "work": {"servers": []}}}"#;
        let (message, line, _) = refused(text);
        assert_eq!(message, "profile \"work\" is defined twice");
        assert_eq!(line, 3);
    }

    #[test]
    fn repeated_keys_inside_a_profile_env_headers_and_settings_are_refused() {
        for (text, expected) in [
            (
                r#"{"profiles": {"work": {"servers": [], "token": "a", "token": "b"}}}"#,
                "the key \"token\" appears twice in `profiles.work`",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x", "env": {"K": "1", "K": "2"}}}}"#,
                "the key \"K\" appears twice in `mcpServers.a.env`",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "http://h", "headers": {"X": "1", "X": "2"}}}}"#,
                "the key \"X\" appears twice in `mcpServers.a.headers`",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x", "command": "y"}}}"#,
                "the key \"command\" appears twice in `mcpServers.a`",
            ),
            (
                r#"{"settings": {"toolMode": "all", "toolMode": "search"}}"#,
                "the key \"toolMode\" appears twice in `settings`",
            ),
            (
                r#"{"mcpServers": {}, "mcpServers": {"a": {"command": "x"}}}"#,
                "the key \"mcpServers\" appears twice in the file",
            ),
            (
                r#"{"x": [{"k": 1}, {"k": 1, "k": 2}]}"#,
                "the key \"k\" appears twice in `x[1]`",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x", "env": {"K": "1", "\u004b": "2"}}}}"#,
                "the key \"K\" appears twice in `mcpServers.a.env`",
            ),
        ] {
            assert_eq!(refused(text).0, expected, "{text}");
        }
    }

    #[test]
    fn the_loader_reports_a_repeated_key_with_path_line_and_column() {
        let text = "{\"mcpServers\": {},\n \"profiles\": {\"w\": {\"servers\": []},\n  \"w\": {}}}";
        let err = load(Source::text(text, std::path::Path::new("cfg.json"))).unwrap_err();
        assert_eq!(
            err.to_string(),
            "cfg.json:3:5: profile \"w\" is defined twice"
        );
    }

    #[test]
    fn distinct_keys_and_syntax_errors_pass_to_the_loader() {
        for text in [
            "",
            "{}",
            r#"{"mcpServers": {"a": {"env": {"K": "1", "k": "2"}}, "b": {"env": {"K": "1"}}}}"#,
            r#"{"a": [1, 2.5, -3, true, null, "s", {"a": {"a": 1}}], "b": {"a": 1}}"#,
            "{\"a\": 1, \"b\"",
            "{,}",
        ] {
            assert!(check_unique_keys(text).is_ok(), "{text}");
        }
    }
}
