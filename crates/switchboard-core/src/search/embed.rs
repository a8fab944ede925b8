//! Meaning for search: static word-piece embeddings distilled from
//! all-MiniLM-L6-v2 (`bench/search/distill.py`, Apache-2.0, licence in
//! `embed/LICENSE`), vendored as `embed/vocab.txt` and `embed/vectors.bin`
//! (int8 rows, one f32 scale each; each piece's vector is partly its
//! meaning alone, partly its mean meaning inside generic software
//! sentences). A text's vector is the mean of its pieces' vectors,
//! normalised; no transformer runs at query time.
//!
//! The table lives in the binary's read-only data and is parsed on first use
//! ([`Table::get`]), so a hub that never searches never touches its pages.
//! The word-piece split is BERT's uncased one (lower-case, split on spaces
//! and punctuation, greedy longest match with `##` continuations); accents
//! are not stripped, a piece outside the kept (ASCII) vocabulary is skipped.

use std::collections::HashMap;
use std::sync::OnceLock;

const VECTORS: &[u8] = include_bytes!("embed/vectors.bin");
const VOCAB: &str = include_str!("embed/vocab.txt");
const MAGIC: &[u8; 8] = b"SBVEC001";
/// Words longer than this many characters are not split (BERT's rule).
const MAX_WORD: usize = 100;

/// Why the vendored table could not be read (a broken build, never input).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    #[error("the embedding table does not start with {MAGIC:?}")]
    Magic,
    #[error("the embedding table holds {found} bytes, its header needs {needed}")]
    Size { found: usize, needed: usize },
    #[error("the embedding table has {rows} rows but its vocabulary {pieces} pieces")]
    Vocabulary { rows: usize, pieces: usize },
}

/// The word-piece vectors, read from `bytes` in place.
#[derive(Debug)]
pub struct Table {
    dims: usize,
    /// One f32 scale per row, little-endian.
    scales: &'static [u8],
    /// `rows × dims` int8 values.
    values: &'static [u8],
    pieces: HashMap<&'static str, u32>,
}

impl Table {
    /// The vendored table, parsed on first call; `None` (logged once) if it
    /// is broken, and search then ranks by words alone.
    pub fn get() -> Option<&'static Table> {
        static TABLE: OnceLock<Option<Table>> = OnceLock::new();
        TABLE
            .get_or_init(|| match Table::parse(VECTORS, VOCAB) {
                Ok(table) => Some(table),
                Err(err) => {
                    tracing::error!("search by meaning is off: {err}");
                    None
                }
            })
            .as_ref()
    }

    /// Reads a table in the format `distill.py` writes.
    pub fn parse(bytes: &'static [u8], vocab: &'static str) -> Result<Table, TableError> {
        let header = bytes.get(..16).ok_or(TableError::Size {
            found: bytes.len(),
            needed: 16,
        })?;
        if &header[..8] != MAGIC {
            return Err(TableError::Magic);
        }
        let word = |at: usize| {
            u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
                as usize
        };
        let (rows, dims) = (word(8), word(12));
        let needed = 16 + rows * 4 + rows * dims;
        if bytes.len() != needed {
            return Err(TableError::Size {
                found: bytes.len(),
                needed,
            });
        }
        let pieces: HashMap<&'static str, u32> = vocab.lines().zip(0u32..).collect();
        if pieces.len() != rows {
            return Err(TableError::Vocabulary {
                rows,
                pieces: pieces.len(),
            });
        }
        Ok(Table {
            dims,
            scales: &bytes[16..16 + rows * 4],
            values: &bytes[16 + rows * 4..],
            pieces,
        })
    }

    /// Dimensions of a vector.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Adds `weight` × the vector of `row` to `sum`.
    fn add_row(&self, row: usize, weight: f32, sum: &mut [f32]) {
        let s = &self.scales[row * 4..row * 4 + 4];
        let scale = f32::from_le_bytes([s[0], s[1], s[2], s[3]]) * weight;
        let values = &self.values[row * self.dims..(row + 1) * self.dims];
        for (out, &v) in sum.iter_mut().zip(values) {
            *out += f32::from(v as i8) * scale;
        }
    }

    /// The word pieces of `text` that the table knows, as rows.
    pub fn pieces(&self, text: &str) -> Vec<u32> {
        let mut rows = Vec::new();
        for word in basic_words(text) {
            self.word_pieces(&word, &mut rows);
        }
        rows
    }

    /// Greedy longest-match-first split of one word (BERT's WordPiece);
    /// a word with a part the vocabulary lacks adds nothing.
    fn word_pieces(&self, word: &str, rows: &mut Vec<u32>) {
        if word.chars().count() > MAX_WORD {
            return;
        }
        let start_len = rows.len();
        let mut start = 0;
        let mut piece = String::new();
        while start < word.len() {
            let mut end = word.len();
            let mut found = None;
            while start < end {
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.push_str(&word[start..end]);
                if let Some(&row) = self.pieces.get(piece.as_str()) {
                    found = Some(row);
                    break;
                }
                end = word[..end]
                    .char_indices()
                    .next_back()
                    .map_or(start, |(i, _)| i);
            }
            match found {
                Some(row) => rows.push(row),
                None => {
                    rows.truncate(start_len);
                    return;
                }
            }
            start = end;
        }
    }

    /// The normalised mean of `rows`' vectors; all zeros when `rows` is empty.
    pub fn mean(&self, rows: &[u32]) -> Vec<f32> {
        let mut sum = vec![0.0; self.dims];
        for &row in rows {
            self.add_row(row as usize, 1.0, &mut sum);
        }
        normalise(&mut sum);
        sum
    }

    /// The vector of `text`.
    pub fn embed(&self, text: &str) -> Vec<f32> {
        self.mean(&self.pieces(text))
    }
}

/// Scales `v` to length 1 (left alone when it is zero).
pub fn normalise(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// The dot product of two vectors of the same length.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// BERT's basic split, uncased: lower-case, split on white space, and every
/// punctuation or symbol character is a word of its own.
fn basic_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    for ch in text.chars() {
        if ch.is_whitespace() || ch.is_control() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
        } else if ch.is_ascii_punctuation() || (!ch.is_alphanumeric() && !ch.is_ascii()) {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            words.push(ch.to_string());
        } else {
            word.extend(ch.to_lowercase());
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    const TINY_VOCAB: &str = "[UNK]\nun\n##aff\n##able\nrun\n##ning\n!\n";

    fn tiny() -> Table {
        // 7 rows of 2 dims: row i is (i, 1) at scale 0.5.
        let mut bytes = MAGIC.to_vec();
        bytes.extend(7u32.to_le_bytes());
        bytes.extend(2u32.to_le_bytes());
        for _ in 0..7 {
            bytes.extend(0.5f32.to_le_bytes());
        }
        for i in 0..7u8 {
            bytes.extend([i, 1]);
        }
        Table::parse(Box::leak(bytes.into_boxed_slice()), TINY_VOCAB).unwrap()
    }

    #[test]
    fn words_split_into_the_longest_known_pieces() {
        let table = tiny();
        assert_eq!(table.pieces("Unaffable running!"), vec![1, 2, 3, 4, 5, 6]);
        // "unknown" has no piece for "known": the whole word adds nothing.
        assert_eq!(table.pieces("unknown run"), vec![4]);
    }

    #[test]
    fn a_text_vector_is_the_normalised_mean_of_its_pieces() {
        let table = tiny();
        let v = table.embed("run");
        // row 4 = (4, 1) * 0.5, normalised
        let n = (17.0f32).sqrt();
        assert!((v[0] - 4.0 / n).abs() < 1e-6 && (v[1] - 1.0 / n).abs() < 1e-6);
        assert_eq!(table.embed("zzz"), vec![0.0, 0.0]);
    }

    #[test]
    fn a_broken_table_is_refused_with_the_reason() {
        assert_eq!(
            Table::parse(b"SBVEC000\0\0\0\0\0\0\0\0", "").unwrap_err(),
            TableError::Magic
        );
        assert_eq!(
            Table::parse(b"SBVEC001\x01\0\0\0\x02\0\0\0", "a\n").unwrap_err(),
            TableError::Size {
                found: 16,
                needed: 22
            }
        );
    }

    #[test]
    fn the_vendored_table_reads_and_knows_related_words() {
        let table = Table::get().expect("the vendored table parses");
        let sim = |a: &str, b: &str| dot(&table.embed(a), &table.embed(b));
        assert!(sim("delete a file", "remove a document") > sim("delete a file", "weather"));
        assert!(
            sim("running processes", "list_processes") > sim("running processes", "git commit")
        );
    }
}
