//! A tool message's content from entries a binding was given back (Python's dicts,
//! JavaScript's objects): each read as an entry of the dialect, exactly as
//! [`Assembler::entries`](crate::Assembler::entries) writes it, and refused otherwise.
//!
//! The Rust functions take typed [`Entry`] values, which only an assembler makes. A binding's
//! caller hands back untyped values, which may be another dialect's entries (or a report, or
//! entries edited by hand): read loosely, a Cohere document would become a Mistral reference
//! with no content, and a field added by hand would be dropped without a word.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::dialects::{
    CohereDocument, CohereToolContent, Entry, MistralReference, cohere_tool_content,
    mistral_tool_content,
};

/// [`mistral_tool_content`] of the entries, each read as a Mistral reference. `values` are
/// the entries as JSON values, which the checks read; `entries` reads the same entries again,
/// in their keys' order, which a [`Value`] does not keep (its objects are sorted), and the
/// metadata's order is the prompt's.
///
/// ```
/// use mentor_context::machinery::mistral_tool_content_of;
/// use serde_json::Value;
///
/// let text = r#"[{"title": "Prices", "metadata": {"valid": "2026", "currency": "EUR"},
///     "snippets": [["Plan B costs 12 EUR."]]}]"#;
/// let values: Vec<Value> = serde_json::from_str(text).unwrap();
/// let mut entries = serde_json::Deserializer::from_str(text);
/// assert_eq!(
///     mistral_tool_content_of(&values, &mut entries).unwrap(),
///     r#"{"0":{"title":"Prices","metadata":{"valid":"2026","currency":"EUR"},"snippets":[["Plan B costs 12 EUR."]]}}"#
/// );
/// let cohere: Vec<Value> = serde_json::from_str(r#"[{"id": "1", "data": {"text": "Plan B."}}]"#).unwrap();
/// assert_eq!(
///     mistral_tool_content_of(&cohere, Value::Array(cohere.clone())).unwrap_err(),
///     "entries[0]: a Cohere document, not a Mistral reference: give the entries of an \
///      assembler with dialect mistral"
/// );
/// ```
///
/// # Errors
///
/// One line naming the first entry that is not a Mistral reference as
/// [`Assembler::entries`](crate::Assembler::entries) writes it, and why.
pub fn mistral_tool_content_of<'de, D: Deserializer<'de>>(
    values: &[Value],
    entries: D,
) -> Result<String, String> {
    let entries = read_entries::<MistralReference, D>(values, entries, Kind::Mistral)?;
    let entries: Vec<Entry> = entries.into_iter().map(Entry::Mistral).collect();
    Ok(mistral_tool_content(&entries))
}

/// [`cohere_tool_content`] of the entries, each read as a Cohere document; `values` and
/// `entries` as for [`mistral_tool_content_of`].
///
/// ```
/// use mentor_context::machinery::cohere_tool_content_of;
/// use serde_json::{Value, json};
///
/// let text = r#"[{"id": "1", "data": {"title": "Prices", "text": "Plan B."}, "score": "0.9"}]"#;
/// let values: Vec<Value> = serde_json::from_str(text).unwrap();
/// let mut entries = serde_json::Deserializer::from_str(text);
/// assert_eq!(
///     cohere_tool_content_of(&values, &mut entries).unwrap_err(),
///     "entries[0]: holds `score`, which a Cohere document as Assembler.entries writes it \
///      does not"
/// );
/// ```
///
/// # Errors
///
/// As [`mistral_tool_content_of`], for Cohere documents.
pub fn cohere_tool_content_of<'de, D: Deserializer<'de>>(
    values: &[Value],
    entries: D,
) -> Result<Vec<CohereToolContent>, String> {
    let entries = read_entries::<CohereDocument, D>(values, entries, Kind::Cohere)?;
    let entries: Vec<Entry> = entries.into_iter().map(Entry::Cohere).collect();
    Ok(cohere_tool_content(&entries))
}

/// The dialect a tool content is written for.
#[derive(Clone, Copy)]
enum Kind {
    Mistral,
    Cohere,
}

impl Kind {
    /// The entry's name, with its article.
    fn entry_name(self) -> &'static str {
        match self {
            Kind::Mistral => "a Mistral reference",
            Kind::Cohere => "a Cohere document",
        }
    }

    /// The dialect's name, as `dialect=` takes it.
    fn dialect(self) -> &'static str {
        match self {
            Kind::Mistral => "mistral",
            Kind::Cohere => "cohere",
        }
    }
}

/// The entries `entries` reads, once each of `values` is found to be a `T` that writes it
/// again, or the first refusal.
fn read_entries<'de, T, D>(values: &[Value], entries: D, kind: Kind) -> Result<Vec<T>, String>
where
    T: DeserializeOwned + Serialize,
    D: Deserializer<'de>,
{
    for (i, value) in values.iter().enumerate() {
        exactly::<T>(value, kind).map_err(|problem| format!("entries[{i}]: {problem}"))?;
    }
    let entries = Vec::<T>::deserialize(entries).map_err(|err| format!("entries: {err}"))?;
    // The same entries, read twice: a reader that gave other values the second time would
    // be this crate's bug, and is refused rather than sent.
    let same = entries.len() == values.len()
        && entries
            .iter()
            .zip(values)
            .all(|(entry, value)| serde_json::to_value(entry).ok().as_ref() == Some(value));
    if !same {
        return Err("entries: read twice, they differ".to_string());
    }
    Ok(entries)
}

/// `value` as a `T` that writes `value` again: nothing of it is left out or changed.
fn exactly<T: DeserializeOwned + Serialize>(value: &Value, kind: Kind) -> Result<T, String> {
    let read = T::deserialize(value).map_err(|err| match other_entry(value) {
        Some(other) => format!(
            "{other}, not {}: give the entries of an assembler with dialect {}",
            kind.entry_name(),
            kind.dialect()
        ),
        None => format!("not {}: {err}", kind.entry_name()),
    })?;
    // Values the type reads are values it writes: serde_json cannot fail here.
    let written = serde_json::to_value(&read).unwrap_or(Value::Null);
    if written == *value {
        return Ok(read);
    }
    // Only objects read as these types, and what they write holds no key they did not read.
    let extra = match (value, &written) {
        (Value::Object(given), Value::Object(written)) => given
            .iter()
            .find(|(key, item)| written.get(*key) != Some(item))
            .map(|(key, _)| key.clone()),
        _ => None,
    };
    Err(match extra {
        Some(key) => format!(
            "holds `{key}`, which {} as Assembler.entries writes it does not",
            kind.entry_name()
        ),
        None => format!("not {} as Assembler.entries writes it", kind.entry_name()),
    })
}

/// What another dialect's entry `value` is, if it is one.
fn other_entry(value: &Value) -> Option<&'static str> {
    Some(match Entry::deserialize(value).ok()? {
        Entry::Anthropic(_) => "an Anthropic block",
        Entry::Cohere(_) => "a Cohere document",
        Entry::Bedrock(_) => "a Bedrock document",
        Entry::Mistral(_) => "a Mistral reference",
    })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{CohereToolContent, cohere_tool_content_of, mistral_tool_content_of};
    use crate::dialects::{Dialect, Entry, cohere_tool_content, mistral_tool_content};
    use crate::{ContextBuilder, MentorRagResult};

    /// Entries of `dialect`, one of them cut and both with metadata in an order that is not
    /// sorted, and their JSON text.
    fn entries(dialect: Dialect) -> (Vec<Entry>, Vec<Value>) {
        let assembler = ContextBuilder::new(150).dialect(dialect).build().unwrap();
        let long = "Plan C costs 20 EUR a month and comes with more. ".repeat(20);
        let results = [
            MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9)
                .with_title("Prices")
                .with_source_url("https://example.com/prices")
                .with_metadata([("title", "clash"), ("region", "EU"), ("author", "Ann")]),
            MentorRagResult::from_content(long, 0.8).with_metadata([("zone", "1"), ("a", "2")]),
        ];
        let entries = assembler.entries(&assembler.assemble(&results)).unwrap();
        assert_eq!(entries.len(), 2);
        let values = entries
            .iter()
            .map(|e| serde_json::to_value(e).unwrap())
            .collect();
        (entries, values)
    }

    /// Both readings of `values`: as values, and again from their JSON text.
    fn mistral(values: &[Value]) -> Result<String, String> {
        let text = serde_json::to_string(&values).unwrap();
        mistral_tool_content_of(values, &mut serde_json::Deserializer::from_str(&text))
    }

    fn cohere(values: &[Value]) -> Result<Vec<CohereToolContent>, String> {
        let text = serde_json::to_string(&values).unwrap();
        cohere_tool_content_of(values, &mut serde_json::Deserializer::from_str(&text))
    }

    /// What the bindings are given: the text the typed entries write, keys in their order.
    fn as_written(entries: &[Entry]) -> (Vec<Value>, String) {
        let text = serde_json::to_string(entries).unwrap();
        (serde_json::from_str(&text).unwrap(), text)
    }

    #[test]
    fn entries_given_back_give_what_the_typed_entries_give_byte_for_byte() {
        let (typed, _) = entries(Dialect::Mistral);
        let (values, text) = as_written(&typed);
        assert!(
            values.iter().any(|v| v["truncated"] == json!(true)),
            "{text}"
        );
        assert!(
            text.contains(r#"{"title":"clash","region":"EU","author":"Ann"}"#),
            "{text}"
        );
        let mut reader = serde_json::Deserializer::from_str(&text);
        assert_eq!(
            mistral_tool_content_of(&values, &mut reader).unwrap(),
            mistral_tool_content(&typed)
        );
        let (typed, _) = entries(Dialect::Cohere);
        let (values, text) = as_written(&typed);
        assert!(text.contains(r#""title (metadata)":"clash","region":"EU","author":"Ann""#));
        let mut reader = serde_json::Deserializer::from_str(&text);
        assert_eq!(
            serde_json::to_string(&cohere_tool_content_of(&values, &mut reader).unwrap()).unwrap(),
            serde_json::to_string(&cohere_tool_content(&typed)).unwrap()
        );
        assert_eq!(mistral(&[]).unwrap(), "{}");
        assert!(cohere(&[]).unwrap().is_empty());
    }

    #[test]
    fn another_dialect_s_entries_are_refused_by_name() {
        for (dialect, name) in [
            (Dialect::Anthropic, "an Anthropic block"),
            (Dialect::AnthropicDocuments, "an Anthropic block"),
            (Dialect::Bedrock, "a Bedrock document"),
            (Dialect::Cohere, "a Cohere document"),
        ] {
            let (_, values) = entries(dialect);
            assert_eq!(
                mistral(&values).unwrap_err(),
                format!(
                    "entries[0]: {name}, not a Mistral reference: give the entries of an \
                     assembler with dialect mistral"
                )
            );
        }
        let (_, values) = entries(Dialect::Mistral);
        assert_eq!(
            cohere(&values).unwrap_err(),
            "entries[0]: a Mistral reference, not a Cohere document: give the entries of an \
             assembler with dialect cohere"
        );
        // Not an entry at all: serde's words, and the entry's place.
        let (_, mut values) = entries(Dialect::Mistral);
        values[1] = json!("Plan B");
        assert_eq!(
            mistral(&values).unwrap_err(),
            "entries[1]: not a Mistral reference: invalid type: string \"Plan B\", expected \
             struct MistralReference"
        );
    }

    #[test]
    fn nothing_given_is_left_out() {
        let (_, mut values) = entries(Dialect::Mistral);
        values[1]["id"] = json!("2");
        assert_eq!(
            mistral(&values).unwrap_err(),
            "entries[1]: holds `id`, which a Mistral reference as Assembler.entries writes \
             it does not"
        );
        // A field the entry has, at a value it never writes.
        let (_, mut values) = entries(Dialect::Mistral);
        values[0]["truncated"] = json!(false);
        assert!(
            mistral(&values)
                .unwrap_err()
                .starts_with("entries[0]: holds `truncated`")
        );
        let (_, mut values) = entries(Dialect::Cohere);
        values[0]["cache_control"] = json!({"type": "ephemeral"});
        assert!(
            cohere(&values)
                .unwrap_err()
                .starts_with("entries[0]: holds `cache_control`")
        );
    }

    #[test]
    fn a_second_reading_that_differs_is_refused() {
        let (_, values) = entries(Dialect::Mistral);
        let (_, other) = entries(Dialect::Mistral);
        let mut fewer = serde_json::Deserializer::from_str("[]");
        assert_eq!(
            mistral_tool_content_of(&values, &mut fewer).unwrap_err(),
            "entries: read twice, they differ"
        );
        let mut changed = other.clone();
        changed[0]["title"] = json!("Other");
        let text = serde_json::to_string(&changed).unwrap();
        let mut reader = serde_json::Deserializer::from_str(&text);
        assert_eq!(
            mistral_tool_content_of(&values, &mut reader).unwrap_err(),
            "entries: read twice, they differ"
        );
    }
}
