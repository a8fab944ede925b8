//! An error and its sources in one line, for messages people read.

/// The error and its sources, joined with `": "`; a source whose text the
/// line already contains (many errors repeat their source) is left out.
pub fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(inner) = source {
        let part = inner.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = inner.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use std::fmt;

    use super::*;

    #[derive(Debug)]
    struct Layer(&'static str, Option<Box<Layer>>);

    impl fmt::Display for Layer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Layer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|e| e as _)
        }
    }

    #[test]
    fn joins_sources_and_skips_repeated_text() {
        let err = Layer(
            "cannot connect: connection refused",
            Some(Box::new(Layer(
                "connection refused",
                Some(Box::new(Layer("os error 111", None))),
            ))),
        );
        assert_eq!(
            error_chain(&err),
            "cannot connect: connection refused: os error 111"
        );
        assert_eq!(error_chain(&Layer("alone", None)), "alone");
    }
}
