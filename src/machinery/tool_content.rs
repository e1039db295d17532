//! A tool message's content from entries a binding was given back (Python's dicts,
//! JavaScript's objects): each read as an entry of the dialect, exactly as
//! [`Assembler::entries`](crate::Assembler::entries) writes it, and refused otherwise.
//!
//! The Rust functions take typed [`Entry`] values, which only an assembler makes. A binding's
//! caller hands back untyped values, which may be another dialect's entries (or a report, or
//! entries edited by hand): read loosely, a Cohere document would become a Mistral reference
//! with no content, and a field added by hand would be dropped without a word.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::dialects::{
    CohereDocument, CohereToolContent, Entry, MistralReference, cohere_tool_content,
    mistral_tool_content,
};

/// [`mistral_tool_content`] of `entries`, each read as a Mistral reference.
///
/// ```
/// use mentor_context::machinery::mistral_tool_content_of;
/// use serde_json::json;
///
/// let entries = [json!({"title": "Prices", "snippets": [["Plan B costs 12 EUR."]]})];
/// assert_eq!(
///     mistral_tool_content_of(&entries).unwrap(),
///     r#"{"0":{"title":"Prices","snippets":[["Plan B costs 12 EUR."]]}}"#
/// );
/// let cohere = [json!({"id": "1", "data": {"text": "Plan B costs 12 EUR."}})];
/// assert_eq!(
///     mistral_tool_content_of(&cohere).unwrap_err(),
///     "entries[0]: a Cohere document, not a Mistral reference: give the entries of an \
///      assembler with dialect mistral"
/// );
/// ```
///
/// # Errors
///
/// One line naming the first entry that is not a Mistral reference as
/// [`Assembler::entries`](crate::Assembler::entries) writes it, and why.
pub fn mistral_tool_content_of(entries: &[Value]) -> Result<String, String> {
    let entries = read_entries(entries, Kind::Mistral)?;
    Ok(mistral_tool_content(&entries))
}

/// [`cohere_tool_content`] of `entries`, each read as a Cohere document.
///
/// ```
/// use mentor_context::machinery::cohere_tool_content_of;
/// use serde_json::json;
///
/// let entries = [json!({"id": "1", "data": {"text": "Plan B costs 12 EUR."}})];
/// let content = serde_json::to_value(cohere_tool_content_of(&entries).unwrap()).unwrap();
/// assert_eq!(content, json!([{"type": "document", "document": entries[0]}]));
/// let added = [json!({"id": "1", "data": {"text": "Plan B."}, "score": "0.9"})];
/// assert_eq!(
///     cohere_tool_content_of(&added).unwrap_err(),
///     "entries[0]: holds `score`, which a Cohere document as Assembler.entries writes it \
///      does not"
/// );
/// ```
///
/// # Errors
///
/// As [`mistral_tool_content_of`], for Cohere documents.
pub fn cohere_tool_content_of(entries: &[Value]) -> Result<Vec<CohereToolContent>, String> {
    let entries = read_entries(entries, Kind::Cohere)?;
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

/// `values` as entries of `kind`, or the first refusal.
fn read_entries(values: &[Value], kind: Kind) -> Result<Vec<Entry>, String> {
    values
        .iter()
        .enumerate()
        .map(|(i, value)| {
            let entry = match kind {
                Kind::Mistral => exactly::<MistralReference>(value, kind).map(Entry::Mistral),
                Kind::Cohere => exactly::<CohereDocument>(value, kind).map(Entry::Cohere),
            };
            entry.map_err(|problem| format!("entries[{i}]: {problem}"))
        })
        .collect()
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

    use super::{cohere_tool_content_of, mistral_tool_content_of};
    use crate::dialects::{Dialect, cohere_tool_content, mistral_tool_content};
    use crate::{ContextBuilder, MentorRagResult};

    /// Entries of `dialect`, one of them cut and both with metadata, as JSON values.
    fn entries(dialect: Dialect) -> (Vec<crate::dialects::Entry>, Vec<Value>) {
        let assembler = ContextBuilder::new(150).dialect(dialect).build().unwrap();
        let long = "Plan C costs 20 EUR a month and comes with more. ".repeat(20);
        let results = [
            MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9)
                .with_title("Prices")
                .with_source_url("https://example.com/prices")
                .with_metadata([("title", "clash")]),
            MentorRagResult::from_content(long, 0.8).with_metadata([("region", "EU")]),
        ];
        let entries = assembler.entries(&assembler.assemble(&results)).unwrap();
        assert_eq!(entries.len(), 2);
        let values = entries
            .iter()
            .map(|entry| serde_json::to_value(entry).unwrap())
            .collect();
        (entries, values)
    }

    #[test]
    fn entries_given_back_give_what_the_typed_entries_give() {
        let (typed, values) = entries(Dialect::Mistral);
        assert!(
            values.iter().any(|v| v["truncated"] == json!(true)),
            "{values:?}"
        );
        assert_eq!(
            mistral_tool_content_of(&values).unwrap(),
            mistral_tool_content(&typed)
        );
        let (typed, values) = entries(Dialect::Cohere);
        assert!(
            values.iter().any(|v| v["data"]["truncated"] == "true"),
            "{values:?}"
        );
        assert_eq!(
            cohere_tool_content_of(&values).unwrap(),
            cohere_tool_content(&typed)
        );
        assert_eq!(mistral_tool_content_of(&[]).unwrap(), "{}");
        assert!(cohere_tool_content_of(&[]).unwrap().is_empty());
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
                mistral_tool_content_of(&values).unwrap_err(),
                format!(
                    "entries[0]: {name}, not a Mistral reference: give the entries of an \
                     assembler with dialect mistral"
                )
            );
        }
        let (_, mistral) = entries(Dialect::Mistral);
        assert_eq!(
            cohere_tool_content_of(&mistral).unwrap_err(),
            "entries[0]: a Mistral reference, not a Cohere document: give the entries of an \
             assembler with dialect cohere"
        );
        // Not an entry at all: serde's words, and the entry's place.
        let (_, mut values) = entries(Dialect::Mistral);
        values[1] = json!("Plan B");
        assert_eq!(
            mistral_tool_content_of(&values).unwrap_err(),
            "entries[1]: not a Mistral reference: invalid type: string \"Plan B\", expected \
             struct MistralReference"
        );
    }

    #[test]
    fn nothing_given_is_left_out() {
        let (_, mut values) = entries(Dialect::Mistral);
        values[1]["id"] = json!("2");
        assert_eq!(
            mistral_tool_content_of(&values).unwrap_err(),
            "entries[1]: holds `id`, which a Mistral reference as Assembler.entries writes \
             it does not"
        );
        // A field the entry has, at a value it never writes.
        let (_, mut values) = entries(Dialect::Mistral);
        values[0]["truncated"] = json!(false);
        assert!(
            mistral_tool_content_of(&values)
                .unwrap_err()
                .starts_with("entries[0]: holds `truncated`")
        );
        let (_, mut values) = entries(Dialect::Cohere);
        values[0]["cache_control"] = json!({"type": "ephemeral"});
        assert!(
            cohere_tool_content_of(&values)
                .unwrap_err()
                .starts_with("entries[0]: holds `cache_control`")
        );
    }
}
