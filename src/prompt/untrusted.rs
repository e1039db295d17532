//! Neutralizing control tokens in what the caller did not write: every field of every result,
//! and (unless the caller vouches for them) the conversation's messages.

use std::borrow::Cow;

use minijinja::value::{Value, ValueKind};

use super::control::ControlTokens;
use crate::MentorRagResult;

/// `results` with control tokens broken in every field (content, title, URL, metadata keys
/// and values). Only the first `bound` bytes of a content are read: no context of this
/// window can hold more of it (the window's tokens times the longest token), so the rest is
/// never written and need not be scanned. Results without a control token are borrowed.
pub(crate) fn results<'r>(
    results: &'r [MentorRagResult],
    control: &ControlTokens,
    bound: usize,
) -> Cow<'r, [MentorRagResult]> {
    let needs = |r: &MentorRagResult| {
        let head = &r.content[..r.content.floor_char_boundary(bound.min(r.content.len()))];
        control.is_in(head)
            || r.title.as_deref().is_some_and(|t| control.is_in(t))
            || r.source_url.as_deref().is_some_and(|t| control.is_in(t))
            || r.metadata.as_ref().is_some_and(|m| {
                m.iter().any(|(k, v)| {
                    control.is_in(k) || v.as_deref().is_some_and(|v| control.is_in(v))
                })
            })
    };
    let Some(first) = results.iter().position(needs) else {
        return Cow::Borrowed(results);
    };
    let mut owned = results.to_vec();
    for result in &mut owned[first..] {
        if !needs(result) {
            continue;
        }
        let cut = result
            .content
            .floor_char_boundary(bound.min(result.content.len()));
        if let Cow::Owned(head) = control.neutralize(&result.content[..cut]) {
            result.content = head + &result.content[cut..];
        }
        for text in [&mut result.title, &mut result.source_url]
            .into_iter()
            .flatten()
        {
            *text = control.neutralize(text).into_owned();
        }
        if let Some(metadata) = &mut result.metadata {
            *metadata = metadata
                .iter()
                .map(|(k, v)| {
                    (
                        control.neutralize(k).into_owned(),
                        v.as_deref().map(|v| control.neutralize(v).into_owned()),
                    )
                })
                .collect();
        }
    }
    Cow::Owned(owned)
}

/// A message with control tokens broken in every string it holds, at any depth, but for its
/// `role` and the keys of its objects (which name fields, and are the caller's).
pub(crate) fn message(value: &Value, control: &ControlTokens) -> Value {
    neutralize_value(value, control, true)
}

fn neutralize_value(value: &Value, control: &ControlTokens, top: bool) -> Value {
    match value.kind() {
        ValueKind::String => {
            let text = value.as_str().unwrap_or_default();
            match control.neutralize(text) {
                Cow::Borrowed(_) => value.clone(),
                Cow::Owned(text) => Value::from(text),
            }
        }
        ValueKind::Seq => Value::from(
            value
                .try_iter()
                .map(|items| {
                    items
                        .map(|item| neutralize_value(&item, control, false))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default(),
        ),
        ValueKind::Map => {
            let Ok(keys) = value.try_iter() else {
                return value.clone();
            };
            Value::from_pairs(keys.map(|key| {
                let item = value.get_item(&key).unwrap_or_default();
                let item = if top && key.as_str() == Some("role") {
                    item
                } else {
                    neutralize_value(&item, control, false)
                };
                (key, item)
            }))
        }
        _ => value.clone(),
    }
}
