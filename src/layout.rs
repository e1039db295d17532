//! The layout a report was written in, recorded in the report: what its text depends on
//! besides its results, so that a reader can read the report's contents from the report
//! alone, and a follow-up turn can say which part of an assembler differs.

use serde::{Deserialize, Serialize};

use crate::dialects::Dialect;

/// How a report's text was written, besides its results: recorded in every report as
/// [`AssembledContext::layout`](crate::AssembledContext::layout). With the report's [`encoding`](crate::AssembledContext::encoding)
/// and [`dialect`](crate::AssembledContext::dialect), it is all a reader needs to read the report's
/// contents back ([`AssembledContext::contents`](crate::AssembledContext::contents)), and what a follow-up turn compares with its
/// assembler's before anything else; a sealed report's seal covers it.
///
/// ```
/// use mentor_context::{ContextBuilder, MentorRagResult};
/// use mentor_context::format::XmlFormat;
///
/// let assembler = ContextBuilder::new(300).format(XmlFormat).hide_metadata_key("id").build()?;
/// let results = [MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9)];
/// let context = assembler.assemble(&results);
/// let layout = context.layout.as_ref().unwrap();
/// assert_eq!((layout.format.as_str(), layout.hidden_keys.as_slice()), ("xml", &["id".to_string()][..]));
/// assert_eq!(context.contents()?, ["Plan B costs 12 EUR."]);
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Layout {
    /// The format's name: `plain`, `xml`, a custom [`Format`](crate::format::Format)'s name,
    /// or with a dialect the dialect's (whose [`DialectFormat`](crate::dialects::DialectFormat)
    /// wrote the text).
    pub format: String,
    /// The header the text starts with, with its newline; empty for none.
    #[serde(default)]
    pub header: String,
    /// The metadata keys kept out of the prompt, sorted, each once.
    #[serde(default)]
    pub hidden_keys: Vec<String>,
    /// The most tokens a block's head may take, if capped.
    #[serde(default)]
    pub max_head_tokens: Option<usize>,
}

impl Layout {
    /// The layout of an assembler of these choices: the header as the text starts with it.
    pub(crate) fn new(
        format: &str,
        header: &str,
        hidden_keys: &[String],
        max_head_tokens: Option<usize>,
    ) -> Layout {
        let mut hidden_keys = hidden_keys.to_vec();
        hidden_keys.sort_unstable();
        hidden_keys.dedup();
        Layout {
            format: format.to_string(),
            header: header.to_string(),
            hidden_keys,
            max_head_tokens,
        }
    }

    /// What a seal covers of a report written in this layout, counted by `tokenizer`, in
    /// `dialect`: a string that names each part by its own name (never a `Debug` form, which
    /// could change with the code), so a seal holds across versions.
    pub(crate) fn sealed(&self, tokenizer: &str, dialect: Option<Dialect>) -> String {
        /// The parts in a fixed order: a struct's fields are written in the order declared,
        /// whatever features of `serde_json` another crate turns on (a `json!` map's order
        /// follows `preserve_order`).
        #[derive(Serialize)]
        struct Sealed<'a> {
            tokenizer: &'a str,
            format: &'a str,
            header: &'a str,
            hidden_keys: &'a [String],
            max_head_tokens: Option<usize>,
            dialect: Option<&'static str>,
        }
        serde_json::to_string(&Sealed {
            tokenizer,
            format: &self.format,
            header: &self.header,
            hidden_keys: &self.hidden_keys,
            max_head_tokens: self.max_head_tokens,
            dialect: dialect.map(Dialect::as_str),
        })
        .expect("strings and numbers serialize")
    }

    /// The first part in which a report written in `self` differs from what an assembler of
    /// `ours` writes, in words; `None` if they are the same.
    pub(crate) fn difference(&self, ours: &Layout) -> Option<String> {
        let keys = |keys: &[String]| match keys {
            [] => "no metadata key".to_string(),
            keys => format!("the metadata keys {}", keys.join(", ")),
        };
        let cap = |cap: Option<usize>| cap.map_or("none".to_string(), |cap| cap.to_string());
        if self.format != ours.format {
            Some(format!(
                "it was written in the {} format, this assembler writes {}",
                self.format, ours.format
            ))
        } else if self.header != ours.header {
            Some(format!(
                "its header is {:?}, this assembler's is {:?}",
                self.header.trim_end(),
                ours.header.trim_end()
            ))
        } else if self.hidden_keys != ours.hidden_keys {
            Some(format!(
                "it hides {}, this assembler hides {}",
                keys(&self.hidden_keys),
                keys(&ours.hidden_keys)
            ))
        } else if self.max_head_tokens != ours.max_head_tokens {
            Some(format!(
                "its head cap (max head tokens) is {}, this assembler's is {}",
                cap(self.max_head_tokens),
                cap(ours.max_head_tokens)
            ))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> Layout {
        Layout::new("plain", "", &["b".into(), "a".into(), "b".into()], None)
    }

    #[test]
    fn hidden_keys_are_kept_sorted_and_once() {
        assert_eq!(layout().hidden_keys, ["a", "b"]);
    }

    #[test]
    fn each_part_is_named_where_it_differs() {
        let ours = layout();
        assert_eq!(ours.difference(&ours), None);
        let xml = Layout {
            format: "xml".into(),
            ..layout()
        };
        assert_eq!(
            xml.difference(&ours).unwrap(),
            "it was written in the xml format, this assembler writes plain"
        );
        let header = Layout {
            header: "Cite [n].\n".into(),
            ..layout()
        };
        assert_eq!(
            header.difference(&ours).unwrap(),
            r#"its header is "Cite [n].", this assembler's is """#
        );
        let hidden = Layout {
            hidden_keys: Vec::new(),
            ..layout()
        };
        assert_eq!(
            hidden.difference(&ours).unwrap(),
            "it hides no metadata key, this assembler hides the metadata keys a, b"
        );
        let capped = Layout {
            max_head_tokens: Some(40),
            ..layout()
        };
        assert_eq!(
            capped.difference(&ours).unwrap(),
            "its head cap (max head tokens) is 40, this assembler's is none"
        );
    }

    /// A report sealed before reports recorded their layout was sealed over the layout
    /// string of that time: it still continues, and the string stays what it was.
    #[test]
    fn a_report_sealed_before_layouts_were_recorded_still_continues() {
        use crate::{ContextBuilder, MentorRagResult};
        let builder = ContextBuilder::new(300)
            .dialect(Dialect::AnthropicDocuments)
            .hide_metadata_key("id")
            .seal_key(b"a secret of 32 bytes or more......");
        let config = builder.config();
        assert_eq!(
            config.unrecorded_layout(),
            r#"{"dialect":"AnthropicDocuments","format":"anthropic-documents","header":"","hidden_keys":["id"],"max_head_tokens":null,"tokenizer":"o200k_base"}"#
        );
        let key = config.seal_key.as_ref().unwrap();
        let assembler = builder.build().unwrap();
        let mut old = assembler
            .assemble(&[MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9)])
            .into_owned();
        (old.layout, old.seal) = (None, None);
        old.seal = Some(key.seal(&old, &config.unrecorded_layout()));
        assert!(assembler.assemble_follow_up(&old, &[]).is_ok());
        old.seal = Some(key.seal(&old, &config.sealed_layout()));
        assert!(assembler.assemble_follow_up(&old, &[]).is_err());
    }

    #[test]
    fn the_sealed_string_names_the_dialect_by_its_name() {
        let sealed = layout().sealed("o200k_base", Some(Dialect::AnthropicDocuments));
        assert_eq!(
            sealed,
            r#"{"tokenizer":"o200k_base","format":"plain","header":"","hidden_keys":["a","b"],"max_head_tokens":null,"dialect":"anthropic-documents"}"#
        );
    }
}
