//! The options a page was made with, as the command line gave them or their defaults: what a
//! reader of an `inspect` or `batch --report` page needs to make it again.

use mentor_context::Assembler;

use super::BuildArgs;
use crate::output::escape_os;

impl BuildArgs {
    /// Each option of the context builder, by its flag, with the value in force: the
    /// assembler's where it resolved one (the budget a model's window leaves, the default
    /// minimum cut), the command line's otherwise. A seal key is said to be set, never shown.
    pub(crate) fn settings(&self, assembler: &Assembler) -> Vec<(&'static str, String)> {
        let or_none = |value: Option<String>| value.unwrap_or_else(|| "none".to_string());
        let mut settings = vec![
            ("--budget", assembler.budget().to_string()),
            ("tokenizer", assembler.tokenizer_name().to_string()),
        ];
        if let Some(model) = &self.model {
            settings.push(("--model", model.name.clone()));
        }
        if let Some(engine) = self.engine {
            settings.push(("--engine", engine.to_string()));
        }
        if let Some(path) = &self.tokenizer_file {
            settings.push(("--tokenizer-file", escape_os(path.as_os_str())));
        }
        settings.extend([
            ("--format", assembler.format().name().to_string()),
            ("--overflow", assembler.overflow().to_string()),
            ("--duplicates", assembler.duplicates().to_string()),
            ("--order", self.order.to_string()),
            (
                "--min-score",
                or_none(assembler.min_score().map(|min| min.to_string())),
            ),
            (
                "--max-blocks",
                or_none(assembler.max_blocks().map(|max| max.to_string())),
            ),
            (
                "--max-per-source",
                or_none(self.max_per_source.map(|max| max.to_string())),
            ),
            (
                "--max-head-tokens",
                or_none(self.max_head_tokens.map(|max| max.to_string())),
            ),
            (
                "--min-truncated-tokens",
                assembler.min_truncated_tokens().to_string(),
            ),
            (
                "--hide-metadata-key",
                if assembler.hidden_metadata_keys().is_empty() {
                    "none".to_string()
                } else {
                    assembler.hidden_metadata_keys().join(", ")
                },
            ),
            (
                "--header",
                or_none(Some(assembler.header().trim_end().to_string()).filter(|h| !h.is_empty())),
            ),
        ]);
        if let Some(reserve) = self.reserve_output {
            settings.push(("--reserve-output", reserve.to_string()));
        }
        if let Some(prompt) = self.prompt_tokens {
            settings.push(("--prompt-tokens", prompt.to_string()));
        }
        settings.push((
            "--seal-key-file",
            if self.seal_key_file.is_some() {
                "set (the key is not shown)".to_string()
            } else {
                "none".to_string()
            },
        ));
        settings.push(("--strict", self.strict.to_string()));
        settings
    }
}
