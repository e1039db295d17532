//! The retrieval result we mirror from .NET: `Novior.MentorAgent.Abstractions.Models.MentorRagResult`.
//!
//! Its JSON form is read by [`wire`](crate::wire), as System.Text.Json writes it.

use indexmap::IndexMap;
use serde::Serialize;

/// Ordered `key: value` facts about a document, such as an author, a date or a version.
/// Insertion order is kept: it is the order the model sees them in.
///
/// A value is `None` where the .NET side holds `null` (a `Dictionary<string, string?>`): it
/// stays on the citation chip as `null` and writes no line in the prompt.
pub type Metadata = IndexMap<String, Option<String>>;

/// A single result from a retrieval (RAG) search.
///
/// Its JSON form is the one the .NET record produces with System.Text.Json's web defaults:
/// camelCase names, `null` for absent values. It is read as those defaults read it: property
/// names in any letter case (`Content`, `SOURCEURL`), a score given as a numeric string
/// (`"0.9"`), `null` metadata values; unknown properties are ignored (use
/// [`parse_request`](crate::wire::parse_request) to hear about them).
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
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MentorRagResult {
    /// The retrieved text injected into the prompt.
    pub content: String,
    /// URL of the source document, used as the link of its citation chip.
    pub source_url: Option<String>,
    /// Display title of the citation chip; falls back to `source_url`.
    pub title: Option<String>,
    /// Relevance: higher is more relevant. Read from JSON it is always finite.
    #[cfg_attr(feature = "openapi", schema(value_type = f64))]
    pub score: f32,
    /// Facts shown to the model next to the title, one `key: value` line each, in order.
    /// `None` or empty adds nothing; so does an entry whose value is `None`.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<HashMap<String, Option<String>>>))]
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
                .map(|(k, v)| (k.into(), Some(v.into())))
                .collect(),
        );
        self
    }

    /// The title shown for this result: `title`, else `source_url`. A value a reader would
    /// see nothing of (empty, whitespace, control or invisible characters only) counts as
    /// absent: it would write an empty title where the URL could stand.
    ///
    /// ```
    /// use mentor_context::MentorRagResult;
    ///
    /// let r = MentorRagResult::new("text", Some("https://a.example"), Some("  "), 1.0);
    /// assert_eq!(r.display_title(), Some("https://a.example"));
    /// let r = MentorRagResult::new("text", Some("https://a.example"), Some("\u{200b}"), 1.0);
    /// assert_eq!(r.display_title(), Some("https://a.example"));
    /// ```
    #[must_use]
    pub fn display_title(&self) -> Option<&str> {
        fn present(s: Option<&String>) -> Option<&str> {
            s.map(String::as_str)
                .filter(|s| !crate::format::line::renders_empty(s))
        }
        present(self.title.as_ref()).or_else(|| present(self.source_url.as_ref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::wire::parse_results;

    #[test]
    fn display_title_falls_back_to_url() {
        let r = MentorRagResult::new("c", Some("https://x.example/a"), None::<String>, 0.5);
        assert_eq!(r.display_title(), Some("https://x.example/a"));
        let r = MentorRagResult::new("c", None::<String>, Some("T"), 0.5);
        assert_eq!(r.display_title(), Some("T"));
        let r = MentorRagResult::new("c", Some(""), Some("\t"), 0.5);
        assert_eq!(r.display_title(), None);
        // A title that renders as nothing is absent too: the URL stands in its place.
        for unseen in ["\u{200b}", "\u{0007}", "\u{061c}", " \u{feff}\n\u{2028} "] {
            let r = MentorRagResult::new("c", Some("https://x.example/a"), Some(unseen), 0.5);
            assert_eq!(r.display_title(), Some("https://x.example/a"), "{unseen:?}");
        }
        let r = MentorRagResult::new("c", Some("\u{200b}"), Some("\u{200b}"), 0.5);
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
        assert!(
            err.to_string().contains("expected a JSON array of results"),
            "{err}"
        );
        let err = parse_results(r#"[{"content":"x","score":"high"}]"#).unwrap_err();
        assert!(
            err.to_string().contains("expected a finite number"),
            "{err}"
        );
        let err = parse_results("[").unwrap_err();
        assert!(matches!(err, Error::Json { column: 1.., .. }), "{err:?}");
    }
}
