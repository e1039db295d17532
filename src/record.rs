//! The retrieval result we mirror from .NET: `Novior.MentorAgent.Abstractions.Models.MentorRagResult`.

use indexmap::IndexMap;
use serde::{Deserialize, Deserializer, Serialize};

use crate::error::Error;

/// Ordered `key: value` facts about a document, such as an author, a date or a version.
/// Insertion order is kept: it is the order the model sees them in.
pub type Metadata = IndexMap<String, String>;

/// A single result from a retrieval (RAG) search.
///
/// Its JSON form is the one the .NET record produces with System.Text.Json's web defaults:
/// camelCase names, `null` for absent values.
///
/// ```
/// use mentor_context::MentorRagResult;
///
/// let result = MentorRagResult::new(
///     "Plan B costs 12 EUR a month.",
///     Some("https://example.com/prices"),
///     Some("Price list"),
///     0.82,
/// )
/// .with_metadata([("valid from", "2026-01-01")]);
///
/// let json = serde_json::to_string(&result)?;
/// assert_eq!(
///     json,
///     r#"{"content":"Plan B costs 12 EUR a month.","sourceUrl":"https://example.com/prices","title":"Price list","score":0.82,"metadata":{"valid from":"2026-01-01"}}"#
/// );
/// assert_eq!(serde_json::from_str::<MentorRagResult>(&json)?, result);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MentorRagResult {
    /// The retrieved text injected into the prompt.
    pub content: String,
    /// URL of the source document, used as the link of its citation chip.
    #[serde(default)]
    pub source_url: Option<String>,
    /// Display title of the citation chip; falls back to `source_url`.
    #[serde(default)]
    pub title: Option<String>,
    /// Relevance: higher is more relevant. Read from JSON it is always finite.
    #[serde(deserialize_with = "finite_score")]
    pub score: f32,
    /// Facts shown to the model next to the title, one `key: value` line each, in order.
    /// `None` or empty adds nothing.
    #[serde(default)]
    pub metadata: Option<Metadata>,
}

impl MentorRagResult {
    /// A result from the four positional values of the .NET constructor; metadata is set
    /// separately with [`with_metadata`](Self::with_metadata), as in .NET, so code written for
    /// the four values keeps compiling. Without a URL or title,
    /// [`from_content`](Self::from_content) reads better than `None::<&str>`.
    #[must_use]
    pub fn new(
        content: impl Into<String>,
        source_url: Option<impl Into<String>>,
        title: Option<impl Into<String>>,
        score: f32,
    ) -> MentorRagResult {
        MentorRagResult {
            content: content.into(),
            source_url: source_url.map(Into::into),
            title: title.map(Into::into),
            score,
            metadata: None,
        }
    }

    /// A result with only its content and score: no URL, no title, no metadata. Add them with
    /// [`with_source_url`](Self::with_source_url), [`with_title`](Self::with_title) and
    /// [`with_metadata`](Self::with_metadata).
    ///
    /// ```
    /// use mentor_context::MentorRagResult;
    ///
    /// let r = MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9).with_title("Prices");
    /// assert_eq!(r.display_title(), Some("Prices"));
    /// assert_eq!(r.source_url, None);
    /// ```
    #[must_use]
    pub fn from_content(content: impl Into<String>, score: f32) -> MentorRagResult {
        MentorRagResult {
            content: content.into(),
            score,
            ..MentorRagResult::default()
        }
    }

    /// Sets the source URL.
    #[must_use]
    pub fn with_source_url(mut self, source_url: impl Into<String>) -> Self {
        self.source_url = Some(source_url.into());
        self
    }

    /// Sets the title.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the metadata, keeping the order of `entries`.
    #[must_use]
    pub fn with_metadata<K, V>(mut self, entries: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<String>,
        V: Into<String>,
    {
        self.metadata = Some(
            entries
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        );
        self
    }

    /// The title shown for this result: `title`, else `source_url`. A value that is empty or
    /// only whitespace counts as absent.
    ///
    /// ```
    /// use mentor_context::MentorRagResult;
    ///
    /// let r = MentorRagResult::new("text", Some("https://a.example"), Some("  "), 1.0);
    /// assert_eq!(r.display_title(), Some("https://a.example"));
    /// ```
    #[must_use]
    pub fn display_title(&self) -> Option<&str> {
        fn present(s: Option<&String>) -> Option<&str> {
            s.map(String::as_str).filter(|s| !s.trim().is_empty())
        }
        present(self.title.as_ref()).or_else(|| present(self.source_url.as_ref()))
    }
}

/// Reads a JSON array of results in the wire form of [`MentorRagResult`].
///
/// # Errors
///
/// [`Error::Json`], with the line and column, when the text is not JSON, not an array, a
/// record lacks `content` or `score`, a field has the wrong type (metadata values must be
/// strings), or a score is not a finite number.
///
/// ```
/// let results = mentor_context::parse_results(r#"[{"content":"a","score":1}]"#)?;
/// assert_eq!(results[0].title, None);
///
/// let err = mentor_context::parse_results(r#"[{"score":1}]"#).unwrap_err();
/// assert_eq!(err.to_string(), "line 1, column 12: missing field `content`");
/// # Ok::<(), mentor_context::Error>(())
/// ```
pub fn parse_results(json: &str) -> Result<Vec<MentorRagResult>, Error> {
    Ok(serde_json::from_str(json)?)
}

fn finite_score<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f32, D::Error> {
    /// Accepts any JSON number, and says "a finite number" when given something else.
    struct Score;

    impl serde::de::Visitor<'_> for Score {
        type Value = f32;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a finite number")
        }

        fn visit_f64<E: serde::de::Error>(self, score: f64) -> Result<f32, E> {
            // A JSON number too large for f32 would silently become infinity.
            let narrowed = score as f32;
            if narrowed.is_finite() {
                Ok(narrowed)
            } else {
                Err(E::custom(format_args!(
                    "score {score:e} is not a finite 32-bit number"
                )))
            }
        }

        fn visit_i64<E: serde::de::Error>(self, score: i64) -> Result<f32, E> {
            self.visit_f64(score as f64)
        }

        fn visit_u64<E: serde::de::Error>(self, score: u64) -> Result<f32, E> {
            self.visit_f64(score as f64)
        }
    }

    deserializer.deserialize_f64(Score)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_title_falls_back_to_url() {
        let r = MentorRagResult::new("c", Some("https://x.example/a"), None::<String>, 0.5);
        assert_eq!(r.display_title(), Some("https://x.example/a"));
        let r = MentorRagResult::new("c", None::<String>, Some("T"), 0.5);
        assert_eq!(r.display_title(), Some("T"));
        let r = MentorRagResult::new("c", Some(""), Some("\t"), 0.5);
        assert_eq!(r.display_title(), None);
    }

    #[test]
    fn missing_and_null_optionals_are_none() {
        let a: MentorRagResult = serde_json::from_str(r#"{"content":"x","score":1}"#).unwrap();
        let b: MentorRagResult = serde_json::from_str(
            r#"{"content":"x","sourceUrl":null,"title":null,"score":1,"metadata":null}"#,
        )
        .unwrap();
        assert_eq!(a, b);
        assert_eq!(a.metadata, None);
    }

    #[test]
    fn metadata_keeps_insertion_order() {
        let r: MentorRagResult = serde_json::from_str(
            r#"{"content":"x","score":1,"metadata":{"version":"3","author":"A","date":"D"}}"#,
        )
        .unwrap();
        let keys: Vec<_> = r.metadata.unwrap().into_keys().collect();
        assert_eq!(keys, ["version", "author", "date"]);
    }

    #[test]
    fn rejects_bad_records_with_position() {
        let err = parse_results("[{\"content\":\"x\",\n\"score\":1e39}]").unwrap_err();
        let Error::Json { line, message, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(*line, 2);
        assert!(message.contains("not a finite"), "{message}");
        let err = parse_results(r#"[{"content":"x","score":1,"metadata":{"a":1}}]"#).unwrap_err();
        assert!(err.to_string().contains("expected a string"), "{err}");
        let err = parse_results(r#"{"content":"x","score":1}"#).unwrap_err();
        assert!(err.to_string().contains("expected a sequence"), "{err}");
        let err = parse_results(r#"[{"content":"x","score":"high"}]"#).unwrap_err();
        assert!(
            err.to_string().contains("expected a finite number"),
            "{err}"
        );
        let err = parse_results("[").unwrap_err();
        assert!(matches!(err, Error::Json { column: 1.., .. }), "{err:?}");
    }
}
