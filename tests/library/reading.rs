//! Reading request after request into one `ParsedResults` (`deserialize_request_into`, as the
//! Python bindings do) gives what reading each one fresh gives: the same results, the same
//! unknown properties, the same error. Model-based, in the style of indexmap's
//! `tests/quick.rs`: `deserialize_request` is the model, and the sequences mix long requests
//! with short ones, every field present or absent, null or of a wrong type, names in any
//! letter case, given twice, and metadata keys given twice, so that whatever a buffer kept
//! from the request before has a chance to show.

use mentor_context::machinery::deserialize_request_into;
use mentor_context::wire::{ParsedResults, UnknownProperties, deserialize_request};
use proptest::prelude::*;

/// A JSON string of varied length (a long one grows a buffer a short one then reuses).
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec!["", "a", "Plan B", "中文 👩🏽‍💻", "line\nbreak"])
            .prop_map(str::to_string),
        (1usize..3000).prop_map(|n| "x".repeat(n)),
    ]
    .prop_map(|s| serde_json::to_string(&s).unwrap())
}

/// A string or `null`.
fn optional_text() -> impl Strategy<Value = String> {
    prop_oneof![3 => text(), 1 => Just("null".to_string())]
}

/// Metadata: a map whose keys come from a small pool (so one is given twice) and whose
/// values are strings or nulls; or `null`.
fn metadata() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec!["k", "K", "v", "w"]);
    let entries = prop::collection::vec((key, optional_text()), 0..5);
    prop_oneof![
        4 => entries.prop_map(|entries| {
            let body: Vec<String> = entries.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            format!("{{{}}}", body.join(","))
        }),
        1 => Just("null".to_string()),
    ]
}

/// One of a property's spellings: as written, capitalized, or in capitals.
fn spelled(name: &'static str) -> impl Strategy<Value = String> {
    prop::sample::select(vec![0, 1, 2]).prop_map(move |case| match case {
        0 => name.to_string(),
        1 => name[..1].to_uppercase() + &name[1..],
        _ => name.to_uppercase(),
    })
}

/// An optional property: present (spelled any way, with a value from `value`) or absent.
fn maybe(
    name: &'static str,
    value: impl Strategy<Value = String>,
) -> impl Strategy<Value = Option<String>> {
    prop::option::of((spelled(name), value).prop_map(|(n, v)| format!("\"{n}\":{v}")))
}

/// A record that reads: content and score, and any of the other properties (an unknown one
/// among them), in a shuffled order.
fn record() -> impl Strategy<Value = String> {
    let score = prop::sample::select(vec!["0.5", "-1", "\"0.25\"", "3", "1e-3"]);
    (
        (spelled("content"), text()).prop_map(|(n, v)| format!("\"{n}\":{v}")),
        (spelled("score"), score).prop_map(|(n, v)| format!("\"{n}\":{v}")),
        maybe("sourceUrl", optional_text()),
        maybe("title", optional_text()),
        maybe("metadata", metadata()),
        maybe("embedding", Just("[1,2]".to_string())),
    )
        .prop_map(|(content, score, url, title, metadata, unknown)| {
            let mut fields = vec![content, score];
            fields.extend([url, title, metadata, unknown].into_iter().flatten());
            fields
        })
        .prop_shuffle()
        .prop_map(|fields| format!("{{{}}}", fields.join(",")))
}

/// A record that does not read, each for another reason.
fn refused_record() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        r#"{"score":1}"#,
        r#"{"content":"x"}"#,
        r#"{"content":null,"score":1}"#,
        r#"{"content":"x","score":"high"}"#,
        r#"{"content":"x","score":1e39}"#,
        r#"{"content":"x","score":1,"title":5}"#,
        r#"{"content":"x","score":1,"metadata":[1]}"#,
        r#"{"content":"x","score":1,"metadata":{"k":7}}"#,
        r#"{"content":"x","Content":"y","score":1}"#,
        r#"[1]"#,
    ])
    .prop_map(str::to_string)
}

/// A request: an array of 0 to 12 records that read, and now and then (one request in five)
/// one that does not, at any place.
fn request() -> impl Strategy<Value = String> {
    let records = prop::collection::vec(record(), 0..12);
    let refused = prop::option::weighted(0.2, (refused_record(), any::<prop::sample::Index>()));
    (records, refused).prop_map(|(mut records, refused)| {
        if let Some((record, at)) = refused {
            records.insert(at.index(records.len() + 1), record);
        }
        format!("[{}]", records.join(","))
    })
}

fn fresh(json: &str, policy: UnknownProperties) -> Result<ParsedResults, String> {
    deserialize_request(&mut serde_json::Deserializer::from_str(json), policy)
        .map_err(|err| err.to_string())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn reading_into_the_last_request_reads_what_reading_fresh_reads(
        requests in prop::collection::vec(request(), 1..8),
        reject in any::<bool>(),
    ) {
        let policy = if reject { UnknownProperties::Reject } else { UnknownProperties::Report };
        let mut reused = ParsedResults::default();
        for json in &requests {
            let expected = fresh(json, policy);
            let read = deserialize_request_into(
                &mut serde_json::Deserializer::from_str(json),
                policy,
                &mut reused,
            );
            match expected {
                Ok(expected) => {
                    prop_assert!(read.is_ok(), "{json}: {read:?}");
                    // As text: `==` on metadata (an `IndexMap`) does not look at the order.
                    prop_assert_eq!(format!("{reused:?}"), format!("{expected:?}"), "{}", json);
                }
                Err(message) => {
                    let err = read.expect_err(json);
                    prop_assert_eq!(err.to_string(), message);
                    prop_assert_eq!(format!("{reused:?}"), format!("{:?}", ParsedResults::default()), "{}", json);
                }
            }
        }
    }
}

#[test]
fn a_field_absent_from_the_next_request_is_absent_from_what_it_reads() {
    let mut parsed = ParsedResults::default();
    let full = r#"[{"content":"long text","score":1,"title":"T","sourceUrl":"u","metadata":{"k":"v"}},
                   {"content":"b","score":2}]"#;
    let bare = r#"[{"content":"c","score":"0.5"}]"#;
    for json in [full, bare] {
        deserialize_request_into(
            &mut serde_json::Deserializer::from_str(json),
            UnknownProperties::Report,
            &mut parsed,
        )
        .unwrap();
    }
    let only = &parsed.results;
    assert_eq!(only.len(), 1);
    assert_eq!(only[0].content, "c");
    assert_eq!(only[0].score, 0.5);
    assert_eq!(only[0].title, None);
    assert_eq!(only[0].source_url, None);
    assert_eq!(only[0].metadata, None);
}

#[test]
fn metadata_read_into_a_table_keeps_first_places_and_last_values() {
    let mut parsed = ParsedResults::default();
    for json in [
        r#"[{"content":"a","score":1,"metadata":{"z":"1","y":"2","x":"3"}}]"#,
        r#"[{"content":"a","score":1,"metadata":{"b":"1","a":null,"b":"3"}}]"#,
    ] {
        deserialize_request_into(
            &mut serde_json::Deserializer::from_str(json),
            UnknownProperties::Report,
            &mut parsed,
        )
        .unwrap();
    }
    let metadata = parsed.results[0].metadata.as_ref().unwrap();
    let entries: Vec<(&str, Option<&str>)> = metadata
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_deref()))
        .collect();
    assert_eq!(entries, [("b", Some("3")), ("a", None)]);
}
