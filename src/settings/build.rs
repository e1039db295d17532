//! The rules between settings, and the settings checked into an [`Assembler`] or a
//! [`PromptAssembler`]. Every error names the setting at fault as the caller spells it; the
//! first problem found is the one reported.

use std::path::Path;

use super::Settings;
use crate::budget::ModelWindow;
use crate::error::Error;
use crate::prompt::{ChatTemplate, PromptAssembler, PromptBuilder};
use crate::read_file::{SEAL_KEY_FILE, describe, read_file};
use crate::seal::SealKey;
use crate::tokenizer::{Encoding, TokenCache, TokenizerKind};
use crate::{Assembler, ContextBuilder, Duplicates};

impl Settings {
    /// Whether these are a whole prompt's settings: `window` or `chat_template` is set.
    #[must_use]
    pub fn is_whole_prompt(&self) -> bool {
        self.window.is_some() || self.chat_template.is_some()
    }

    /// The assembler these settings describe, checked.
    ///
    /// # Errors
    ///
    /// [`Error::Setting`] naming the setting at fault: a value that cannot work, two settings
    /// that choose one thing, a setting that needs another, a missing budget, a whole
    /// prompt's setting; with the library's error as its source where there is one (an
    /// unknown model, a header over the budget, a tokenizer file that cannot be read).
    pub fn assembler(&self) -> Result<Assembler, Error> {
        let builder = self.context_builder()?;
        builder.build().map_err(|err| self.at_fault(err))
    }

    /// The builder of the assembler these settings describe, its tokenizer loaded, not yet
    /// built: for a caller that sets what settings cannot hold (a custom format or
    /// tokenizer, a shared [`TokenCache`]).
    ///
    /// # Errors
    ///
    /// As [`assembler`](Self::assembler), but for what only building checks.
    pub fn context_builder(&self) -> Result<ContextBuilder, Error> {
        if let Some((setting, _)) = self.whole_prompt().into_iter().find(|&(_, set)| set) {
            return Err(self.invalid(
                setting,
                format!(
                    "a whole prompt's setting; a context alone is fitted to {}",
                    self.name("budget")
                ),
            ));
        }
        self.check_tokenizer()?;
        if self.model.is_none() {
            for (setting, set) in [
                ("reserve_output", self.reserve_output.is_some()),
                ("prompt_tokens", self.prompt_tokens.is_some()),
            ] {
                if set {
                    return Err(self.invalid(
                        setting,
                        format!("needs {}, whose window it shares", self.name("model")),
                    ));
                }
            }
        }
        let window = self.window_of_model()?;
        let budget = match (self.budget, &window) {
            (Some(_), Some(_)) => {
                let window_setting = if self.reserve_output.is_some() {
                    "reserve_output"
                } else {
                    "prompt_tokens"
                };
                return Err(self.conflict(
                    "budget",
                    window_setting,
                    "the model's window sets the budget",
                ));
            }
            (Some(budget), None) => budget,
            (None, Some(window)) => window.budget(),
            (None, None) => {
                return Err(self.invalid(
                    "budget",
                    format!(
                        "missing; give the budget in tokens, or {} with {} or {}",
                        self.name("model"),
                        self.name("reserve_output"),
                        self.name("prompt_tokens")
                    ),
                ));
            }
        };
        let builder = ContextBuilder::new(budget);
        let builder = match &self.tokenizer_file {
            Some(path) => builder.tokenizer_shared(self.load_tokenizer_file(path)?),
            None => {
                let encoding = self.encoding_named()?.unwrap_or_default();
                match self.engine {
                    Some(engine) => builder.tokenizer(
                        encoding
                            .with_engine(engine)
                            .map_err(|err| self.caused("engine", err))?,
                    ),
                    None => builder.encoding(encoding),
                }
            }
        };
        // The window last: it sets the budget.
        Ok(self.layout_options(builder)?.window(window))
    }

    /// The whole-prompt assembler these settings describe, checked: `window` and
    /// `chat_template` are required; the context's settings are the assembler's, but for
    /// those the window and the template decide (its budget and tokenizer).
    ///
    /// # Errors
    ///
    /// As [`assembler`](Self::assembler), and [`Error::Setting`] for a missing window or
    /// template, a context setting a whole prompt decides, a template that cannot be loaded
    /// or that does not fit the other settings (with the library's error as its source).
    pub fn prompt_assembler(&self) -> Result<PromptAssembler, Error> {
        self.prompt_builder()?
            .build()
            .map_err(|err| self.at_fault(err))
    }

    /// The builder of the whole-prompt assembler these settings describe, its template
    /// loaded, not yet built.
    ///
    /// # Errors
    ///
    /// As [`prompt_assembler`](Self::prompt_assembler), but for what only building checks.
    pub fn prompt_builder(&self) -> Result<PromptBuilder, Error> {
        let window = self.window.ok_or_else(|| {
            self.invalid(
                "window",
                "missing; give the model's context window in tokens (prompt and answer)"
                    .to_string(),
            )
        })?;
        let Some(choice) = self.chat_template.as_deref() else {
            return Err(self.invalid(
                "chat_template",
                "missing; give openai, harmony, mistral or the path of a tokenizer_config.json \
                 or chat_template.jinja"
                    .to_string(),
            ));
        };
        for (setting, set, why) in [
            (
                "budget",
                self.budget.is_some(),
                format!(
                    "the window sets the context's budget; give {}",
                    self.name("window")
                ),
            ),
            (
                "reserve_output",
                self.reserve_output.is_some(),
                format!("give {}", self.name("reserve")),
            ),
            (
                "prompt_tokens",
                self.prompt_tokens.is_some(),
                format!("the whole prompt is counted; give {}", self.name("window")),
            ),
            (
                "engine",
                self.engine.is_some(),
                "the chat template's tokenizer counts".to_string(),
            ),
            (
                "tokenizer_kind",
                self.tokenizer_kind.is_some(),
                format!(
                    "{} says what {} is",
                    self.name("chat_template"),
                    self.name("tokenizer_file")
                ),
            ),
        ] {
            if set {
                return Err(
                    self.invalid(setting, format!("not a setting of a whole prompt: {why}"))
                );
            }
        }
        if self.encoding.is_some() && self.model.is_some() {
            return Err(self.conflict("model", "encoding", "both choose the encoding"));
        }
        let template = ChatTemplate::named(
            choice,
            self.tokenizer_file.as_deref(),
            self.encoding_named()?,
        )
        .map_err(|err| self.at_fault(err))?;
        let mut builder = PromptBuilder::new(template, window)
            .context(self.layout_options(ContextBuilder::new(0))?)
            .date(self.date)
            .history_max_tokens(self.history_max_tokens)
            .special_tokens_in_messages(self.allow_special_tokens_in_messages)
            .tools(self.tools.clone())
            .template_options(self.template_options.clone())
            .cache(self.cache_bytes.map(TokenCache::new));
        if let Some(reserve) = self.reserve {
            builder = builder.reserve(reserve);
        }
        if let Some(placement) = self.context_in {
            builder = builder.context_in(placement);
        }
        if let Some(step) = self.trim_step {
            builder = builder.trim_step(step);
        }
        Ok(builder)
    }

    /// `builder` with the settings that shape the context's text and selection, its cache
    /// and its seal: all but the budget and the tokenizer.
    fn layout_options(&self, builder: ContextBuilder) -> Result<ContextBuilder, Error> {
        if self.dialect.is_some() && self.format.is_some() {
            return Err(self.conflict("dialect", "format", "both choose what is written"));
        }
        if self.cache_control && self.dialect.is_none() {
            return Err(self.invalid(
                "cache_control",
                format!(
                    "marks a dialect's entries: give {} anthropic or anthropic-documents",
                    self.name("dialect")
                ),
            ));
        }
        let builder = builder
            .format(self.format.unwrap_or_default())
            .overflow(self.overflow.unwrap_or_default())
            .duplicates(self.duplicates.unwrap_or(Duplicates::UrlAndContent))
            .order(self.order.unwrap_or_default())
            .min_score(self.min_score)
            .max_blocks(self.max_blocks)
            .min_truncated_tokens(self.min_truncated_tokens)
            .hide_metadata_keys(&self.hide_metadata_keys)
            .header(self.header.clone().unwrap_or_default())
            .max_per_source(self.max_per_source)
            .max_head_tokens(self.max_head_tokens)
            .cache(self.cache_bytes.map(TokenCache::new))
            .dialect(self.dialect);
        Ok(match self.seal_key()? {
            Some(key) => builder.seal_key_shared(key),
            None => builder,
        })
    }

    /// The key to seal with: given as bytes, or read from `seal_key_file`.
    fn seal_key(&self) -> Result<Option<SealKey>, Error> {
        match (&self.seal_key, &self.seal_key_file) {
            (Some(_), Some(_)) => Err(self.invalid(
                "seal_key_file",
                "cannot be used with a seal key given as bytes: both give the key".to_string(),
            )),
            (Some(key), None) => Ok(Some(key.clone())),
            (None, Some(path)) => read_seal_key(path)
                .map(|key| Some(SealKey::new(&key)))
                .map_err(|problem| self.invalid("seal_key_file", problem)),
            (None, None) => Ok(None),
        }
    }

    /// Refuses the settings that choose an OpenAI encoding beside a tokenizer file, and the
    /// kind of a file not given.
    fn check_tokenizer(&self) -> Result<(), Error> {
        if self.tokenizer_file.is_some() {
            for (setting, set) in [
                ("encoding", self.encoding.is_some()),
                ("model", self.model.is_some()),
                ("engine", self.engine.is_some()),
            ] {
                if set {
                    return Err(self.conflict(
                        setting,
                        "tokenizer_file",
                        "a tokenizer file counts with its own vocabulary",
                    ));
                }
            }
        } else if self.tokenizer_kind.is_some() {
            return Err(self.invalid(
                "tokenizer_kind",
                format!(
                    "says what {} is, and none is given",
                    self.name("tokenizer_file")
                ),
            ));
        }
        if self.encoding.is_some() && self.model.is_some() {
            return Err(self.conflict("model", "encoding", "both choose the encoding"));
        }
        Ok(())
    }

    /// The encoding `encoding` or `model` names, if either does.
    fn encoding_named(&self) -> Result<Option<Encoding>, Error> {
        match &self.model {
            Some(model) => Encoding::for_model(model)
                .map(Some)
                .map_err(|err| self.caused("model", err)),
            None => Ok(self.encoding),
        }
    }

    /// The window `model` with `reserve_output` or `prompt_tokens` describe, if they do.
    fn window_of_model(&self) -> Result<Option<ModelWindow>, Error> {
        let (Some(model), true) = (
            &self.model,
            self.reserve_output.is_some() || self.prompt_tokens.is_some(),
        ) else {
            return Ok(None);
        };
        let (reserve, prompt) = (
            self.reserve_output.unwrap_or(0),
            self.prompt_tokens.unwrap_or(0),
        );
        ModelWindow::new(model, reserve, prompt)
            .map(Some)
            .map_err(|err| self.caused("model", err))
    }

    fn load_tokenizer_file(
        &self,
        path: &Path,
    ) -> Result<std::sync::Arc<dyn crate::tokenizer::TokenCounter>, Error> {
        let kind = match self.tokenizer_kind {
            Some(kind) => kind,
            None => {
                TokenizerKind::of_file(path).map_err(|err| self.caused("tokenizer_file", err))?
            }
        };
        kind.load(path)
            .map_err(|err| self.caused("tokenizer_file", err))
    }

    /// The settings only a whole prompt reads, each with whether it is set (not `None` or
    /// `false`), in the order the first set one is reported.
    fn whole_prompt(&self) -> [(&'static str, bool); 10] {
        [
            ("window", self.window.is_some()),
            ("reserve", self.reserve.is_some()),
            ("chat_template", self.chat_template.is_some()),
            ("date", self.date.is_some()),
            ("context_in", self.context_in.is_some()),
            ("history_max_tokens", self.history_max_tokens.is_some()),
            ("trim_step", self.trim_step.is_some()),
            (
                "allow_special_tokens_in_messages",
                self.allow_special_tokens_in_messages,
            ),
            ("tools", self.tools.is_some()),
            ("template_options", self.template_options.is_some()),
        ]
    }

    /// `err`, a library error of building or loading, said of the setting at fault.
    fn at_fault(&self, err: Error) -> Error {
        let setting = match err.setting_at_fault() {
            Some("seal_key") if self.seal_key_file.is_some() => "seal_key_file",
            Some(setting) => setting,
            None => return err,
        };
        self.caused(setting, err)
    }

    /// `err` said of `setting`, as its source.
    fn caused(&self, setting: &str, err: Error) -> Error {
        Error::Setting {
            setting: self.name(setting),
            problem: err.to_string(),
            source: Some(Box::new(err)),
        }
    }

    fn invalid(&self, setting: &str, problem: String) -> Error {
        Error::Setting {
            setting: self.name(setting),
            problem,
            source: None,
        }
    }

    /// `setting` and `other`, both set, choose one thing: `why`.
    fn conflict(&self, setting: &str, other: &str, why: &str) -> Error {
        self.invalid(
            setting,
            format!("cannot be used with {}: {why}; give one", self.name(other)),
        )
    }
}

/// The key in the file at `path` (a regular file of at most [`SEAL_KEY_FILE`] bytes), without
/// the one newline an editor or `echo` leaves at its end.
fn read_seal_key(path: &Path) -> Result<Vec<u8>, String> {
    let mut key = read_file(path, SEAL_KEY_FILE)
        .map_err(|err| format!("{}: cannot read: {}", path.display(), describe(&err)))?;
    if key.ends_with(b"\n") {
        key.pop();
        if key.ends_with(b"\r") {
            key.pop();
        }
    }
    Ok(key)
}
