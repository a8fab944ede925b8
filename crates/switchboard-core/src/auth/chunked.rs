//! Values longer than a keyring item can hold, split over several items.
//!
//! The Windows Credential Manager keeps at most 2560 bytes per credential, and
//! a password is stored as UTF-16: 1280 characters, less than some OAuth
//! responses (two JWTs and a client registration). [`Chunked`] wraps such a
//! store: the item `account` holds `<parts>:<first part>` and items
//! `account#2` … `account#<parts>` the rest, each at most
//! [`Chunked::max_units`] UTF-16 code units. Every value it writes has the
//! header, so reading is never ambiguous; a value it cannot parse is reported
//! as bad data, never guessed at.

use super::store::{KeyringKind, StoreError, TokenStore};

/// A [`TokenStore`] whose items hold at most `max_units` UTF-16 code units.
pub struct Chunked<S> {
    inner: S,
    max_units: usize,
}

/// The Credential Manager's limit: 2560 bytes of UTF-16, less room for the header.
pub const CREDENTIAL_MANAGER_UNITS: usize = 1200;

/// More parts than this is not a credential but a mistake.
const MAX_PARTS: usize = 64;

fn part_account(account: &str, index: usize) -> String {
    format!("{account}#{index}")
}

/// `value` cut into pieces of at most `max_units` UTF-16 code units, never
/// inside a character.
fn split(value: &str, max_units: usize) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut units = 0;
    for (at, ch) in value.char_indices() {
        if units + ch.len_utf16() > max_units {
            parts.push(&value[start..at]);
            start = at;
            units = 0;
        }
        units += ch.len_utf16();
    }
    parts.push(&value[start..]);
    parts
}

impl<S: TokenStore> Chunked<S> {
    pub fn new(inner: S, max_units: usize) -> Self {
        Self {
            inner,
            max_units: max_units.max(1),
        }
    }

    /// The number of parts and the first part of the head item.
    fn parse_head<'a>(&self, account: &str, head: &'a str) -> Result<(usize, &'a str), StoreError> {
        let bad = || StoreError::BadData {
            account: account.to_string(),
        };
        let (count, first) = head.split_once(':').ok_or_else(bad)?;
        match count.parse::<usize>() {
            Ok(n) if (1..=MAX_PARTS).contains(&n) => Ok((n, first)),
            _ => Err(bad()),
        }
    }

    /// How many parts the stored value has (0 when there is none).
    fn stored_parts(&self, account: &str) -> usize {
        match self.inner.get(account) {
            Ok(Some(head)) => self.parse_head(account, &head).map_or(1, |(n, _)| n),
            _ => 0,
        }
    }
}

impl<S: TokenStore> TokenStore for Chunked<S> {
    fn kind(&self) -> KeyringKind {
        self.inner.kind()
    }

    fn get(&self, account: &str) -> Result<Option<String>, StoreError> {
        let Some(head) = self.inner.get(account)? else {
            return Ok(None);
        };
        let (count, first) = self.parse_head(account, &head)?;
        let mut value = first.to_string();
        for index in 2..=count {
            match self.inner.get(&part_account(account, index))? {
                Some(part) => value.push_str(&part),
                // A part is missing (written by half a set): the value is lost.
                None => {
                    return Err(StoreError::BadData {
                        account: account.to_string(),
                    });
                }
            }
        }
        Ok(Some(value))
    }

    fn set(&self, account: &str, value: &str) -> Result<(), StoreError> {
        let parts = split(value, self.max_units);
        if parts.len() > MAX_PARTS {
            return Err(StoreError::Platform {
                kind: self.kind(),
                message: format!(
                    "the value for {account:?} is too long for the keyring ({} characters)",
                    value.chars().count()
                ),
            });
        }
        let before = self.stored_parts(account);
        // The tail first, the head last: a reader never sees a head whose parts
        // are not written yet.
        for (i, part) in parts.iter().enumerate().skip(1) {
            self.inner.set(&part_account(account, i + 1), part)?;
        }
        let first = parts.first().copied().unwrap_or_default();
        self.inner
            .set(account, &format!("{}:{first}", parts.len()))?;
        for index in parts.len() + 1..=before {
            self.inner.delete(&part_account(account, index))?;
        }
        Ok(())
    }

    fn delete(&self, account: &str) -> Result<(), StoreError> {
        let count = self.stored_parts(account);
        self.inner.delete(account)?;
        for index in 2..=count {
            self.inner.delete(&part_account(account, index))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::store::MemoryTokenStore;

    fn store(max: usize) -> Chunked<MemoryTokenStore> {
        Chunked::new(MemoryTokenStore::new(), max)
    }

    #[test]
    fn short_and_long_values_round_trip() {
        let s = store(4);
        s.set("a", "abc").unwrap();
        assert_eq!(s.inner.get("a").unwrap().as_deref(), Some("1:abc"));
        assert_eq!(s.get("a").unwrap().as_deref(), Some("abc"));

        s.set("a", "0123456789").unwrap();
        assert_eq!(s.inner.get("a").unwrap().as_deref(), Some("3:0123"));
        assert_eq!(s.inner.get("a#2").unwrap().as_deref(), Some("4567"));
        assert_eq!(s.inner.get("a#3").unwrap().as_deref(), Some("89"));
        assert_eq!(s.get("a").unwrap().as_deref(), Some("0123456789"));

        // Shrinking removes the parts no longer used.
        s.set("a", "xy").unwrap();
        assert_eq!(s.inner.get("a#2").unwrap(), None);
        assert_eq!(s.inner.get("a#3").unwrap(), None);
        assert_eq!(s.get("a").unwrap().as_deref(), Some("xy"));

        s.set("a", "").unwrap();
        assert_eq!(s.get("a").unwrap().as_deref(), Some(""));
        assert_eq!(s.get("missing").unwrap(), None);
    }

    #[test]
    fn delete_removes_every_part() {
        let s = store(2);
        s.set("t", "abcdefg").unwrap();
        s.delete("t").unwrap();
        for account in ["t", "t#2", "t#3", "t#4"] {
            assert_eq!(s.inner.get(account).unwrap(), None, "{account}");
        }
        s.delete("t").unwrap();
    }

    #[test]
    fn splits_count_utf16_units_and_keep_characters_whole() {
        // "é" is one unit, "😀" two: no part may exceed 3 units or cut a character.
        assert_eq!(split("éé😀é", 3), vec!["éé", "😀é"]);
        assert_eq!(split("😀😀", 3), vec!["😀", "😀"]);
        let s = store(3);
        s.set("u", "a😀b😀c😀").unwrap();
        assert_eq!(s.get("u").unwrap().as_deref(), Some("a😀b😀c😀"));
    }

    #[test]
    fn unreadable_or_incomplete_values_are_bad_data() {
        let s = store(2);
        s.inner.set("x", "written by another tool").unwrap();
        assert!(matches!(s.get("x"), Err(StoreError::BadData { .. })));
        s.inner.set("y", "9999:a").unwrap();
        assert!(matches!(s.get("y"), Err(StoreError::BadData { .. })));
        s.set("z", "abcdef").unwrap();
        s.inner.delete("z#2").unwrap();
        let err = s.get("z").unwrap_err();
        assert_eq!(
            err,
            StoreError::BadData {
                account: "z".into()
            }
        );
        // Overwriting a foreign value works and leaves nothing behind.
        s.set("x", "new").unwrap();
        assert_eq!(s.get("x").unwrap().as_deref(), Some("new"));
    }

    #[test]
    fn too_long_values_are_refused_without_writing() {
        let s = store(1);
        let long = "a".repeat(MAX_PARTS + 1);
        assert!(matches!(
            s.set("l", &long),
            Err(StoreError::Platform { .. })
        ));
        assert_eq!(s.inner.get("l").unwrap(), None);
        assert_eq!(s.kind(), KeyringKind::Memory);
    }
}
