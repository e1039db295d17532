//! The options a page was made with, as the command line and the settings file gave them or
//! their defaults: what a reader of an `inspect` or `batch --report` page needs to make it
//! again.

use mentor_context::Assembler;
use mentor_context::settings::{Settings, Spelling};

use super::Configured;
use crate::output::escape_os;

impl Configured {
    /// Each option of the context, by its flag, with the value in force: the assembler's
    /// where it resolved one (the budget a model's window leaves, the default minimum cut),
    /// the settings' otherwise. A seal key is said to be set, never shown.
    pub(crate) fn shown(&self) -> Vec<(String, String)> {
        shown(&self.settings, &self.assembler)
    }
}

/// [`Configured::shown`] of `settings` and the assembler they built.
pub(crate) fn shown(settings: &Settings, assembler: &Assembler) -> Vec<(String, String)> {
    let flag = |name: &str| Spelling::Flag.of(name);
    let or_none = |value: Option<String>| value.unwrap_or_else(|| "none".to_string());
    let mut shown = vec![
        (flag("budget"), assembler.budget().to_string()),
        (
            "tokenizer".to_string(),
            assembler.tokenizer_name().to_string(),
        ),
    ];
    if let Some(model) = &settings.model {
        shown.push((flag("model"), model.clone()));
    }
    if let Some(engine) = settings.engine {
        shown.push((flag("engine"), engine.to_string()));
    }
    if let Some(path) = &settings.tokenizer_file {
        shown.push((flag("tokenizer_file"), escape_os(path.as_os_str())));
    }
    let count = |count: Option<usize>| or_none(count.map(|n| n.to_string()));
    shown.extend([
        (flag("format"), assembler.format().name().to_string()),
        (flag("overflow"), assembler.overflow().to_string()),
        (flag("duplicates"), assembler.duplicates().to_string()),
        (flag("order"), assembler.order().to_string()),
        (
            flag("min_score"),
            or_none(assembler.min_score().map(|min| min.to_string())),
        ),
        (flag("max_blocks"), count(assembler.max_blocks())),
        (flag("max_per_source"), count(assembler.max_per_source())),
        (flag("max_head_tokens"), count(assembler.max_head_tokens())),
        (
            flag("min_truncated_tokens"),
            assembler.min_truncated_tokens().to_string(),
        ),
        (
            flag("hide_metadata_keys"),
            match assembler.hidden_metadata_keys() {
                [] => "none".to_string(),
                keys => keys.join(", "),
            },
        ),
        (
            flag("header"),
            or_none(Some(assembler.header().trim_end().to_string()).filter(|h| !h.is_empty())),
        ),
    ]);
    if let Some(reserve) = settings.reserve_output {
        shown.push((flag("reserve_output"), reserve.to_string()));
    }
    if let Some(prompt) = settings.prompt_tokens {
        shown.push((flag("prompt_tokens"), prompt.to_string()));
    }
    if let Some(bytes) = settings.cache_bytes {
        shown.push((flag("cache_bytes"), bytes.to_string()));
    }
    shown.push((
        flag("seal_key_file"),
        if assembler.seals() {
            "set (the key is not shown)".to_string()
        } else {
            "none".to_string()
        },
    ));
    shown.push((flag("strict"), settings.strict.to_string()));
    shown
}
