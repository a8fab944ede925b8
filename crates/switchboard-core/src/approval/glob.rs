//! Tool-name patterns of `confirmTools` and `allowTools`: `*` matches any run
//! of characters (none included), `?` one character, everything else itself.
//! Pure; no pattern is refused (one without wildcards matches only itself).

/// Whether `name` matches `pattern`.
pub(crate) fn matches(pattern: &str, name: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    // Classic wildcard matching with one backtrack point: linear in practice.
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == '?' || c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    p = sp + 1;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn stars_and_question_marks_match_as_in_a_shell() {
        for (pattern, name) in [
            ("delete_file", "delete_file"),
            ("delete_*", "delete_file"),
            ("*", ""),
            ("*_file", "read_file"),
            ("d?l*e", "delete"),
            ("*a*b*", "xaxxbx"),
        ] {
            assert!(matches(pattern, name), "{pattern} ~ {name}");
        }
        for (pattern, name) in [
            ("delete_file", "delete_files"),
            ("delete_*", "read_file"),
            ("?", ""),
            ("*a*b", "xaxxbx"),
        ] {
            assert!(!matches(pattern, name), "{pattern} !~ {name}");
        }
    }
}
