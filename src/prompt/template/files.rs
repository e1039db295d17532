//! Chat templates from a model's files, and by the names the front ends give them
//! (`openai`, `harmony`, `mistral`, or a template file's path).

use std::path::Path;

use super::ChatTemplate;
#[cfg(feature = "huggingface")]
use super::hf_config;
use crate::error::Error;
#[cfg(feature = "huggingface")]
use crate::error::TemplateErrorKind::{NotATemplate, Unsupported};
#[cfg(feature = "huggingface")]
use crate::read_file::{TEMPLATE_FILE, read_file};
use crate::read_file::{describe, regular};
use crate::tokenizer::{Encoding, TekkenTokenizer};

impl ChatTemplate {
    /// The template `name` stands for, as the command's `--chat-template` and the bindings'
    /// `chat_template` / `chatTemplate` take it: `openai` (OpenAI's rule, counted with
    /// `encoding`, o200k_base without one), `harmony` (gpt-oss), `mistral` (with the model's
    /// Tekken file as `tokenizer_file`), or else the path of a model's `tokenizer_config.json`
    /// or `chat_template.jinja`, with its `tokenizer.json` as `tokenizer_file` (the
    /// `huggingface` feature).
    ///
    /// ```
    /// use mentor_context::prompt::ChatTemplate;
    ///
    /// assert_eq!(ChatTemplate::named("harmony", None, None)?.name(), "harmony/o200k_harmony");
    /// assert!(ChatTemplate::named("mistral", None, None).is_err()); // it needs its Tekken file
    /// # Ok::<(), mentor_context::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::PromptSetting`] when a tokenizer file or an encoding is given where the
    /// template counts with its own, or is missing where it needs one, or a template file does
    /// not exist; what [`mistral`](Self::mistral), `from_files` (feature `huggingface`) and
    /// [`TekkenTokenizer::from_file`] refuse.
    pub fn named(
        name: &str,
        tokenizer_file: Option<&Path>,
        encoding: Option<Encoding>,
    ) -> Result<ChatTemplate, Error> {
        let setting =
            |setting: &'static str, problem: String| Error::PromptSetting { setting, problem };
        let own_encoding = |name: &str| match tokenizer_file {
            Some(_) => Err(setting(
                "tokenizer_file",
                format!(
                    "the `{name}` chat template counts with its own encoding: a tokenizer file is for \
                 a template file or `mistral`"
                ),
            )),
            None => Ok(()),
        };
        match name {
            "openai" => {
                own_encoding(name)?;
                Ok(ChatTemplate::openai(encoding.unwrap_or_default()))
            }
            "harmony" => {
                own_encoding(name)?;
                match encoding {
                    Some(encoding) if encoding != Encoding::O200kBase => Err(setting(
                        "encoding",
                        format!(
                            "the `harmony` chat template (gpt-oss) counts with o200k_base and \
                         Harmony's tokens, not {encoding}: leave the encoding out"
                        ),
                    )),
                    _ => Ok(ChatTemplate::harmony()),
                }
            }
            "mistral" => {
                let path = tokenizer_file.ok_or_else(|| {
                    setting(
                        "tokenizer_file",
                        "the `mistral` chat template needs the model's Tekken file as its \
                         tokenizer file"
                            .to_string(),
                    )
                })?;
                ChatTemplate::mistral(TekkenTokenizer::from_file(path)?)
            }
            path => ChatTemplate::from_named_files(Path::new(path), tokenizer_file, encoding),
        }
    }

    fn from_named_files(
        path: &Path,
        tokenizer_file: Option<&Path>,
        encoding: Option<Encoding>,
    ) -> Result<ChatTemplate, Error> {
        let setting =
            |setting: &'static str, problem: String| Error::PromptSetting { setting, problem };
        let name = path.display();
        if encoding.is_some() {
            return Err(setting(
                "encoding",
                format!(
                    "the chat template {name} counts with the model's tokenizer.json, given as its \
                 tokenizer file, not with an encoding"
                ),
            ));
        }
        let Some(tokenizer_file) = tokenizer_file else {
            return Err(setting(
                "tokenizer_file",
                format!(
                    "the chat template {name} needs the model's tokenizer.json as its tokenizer file \
                 (openai, harmony and mistral are the templates written here)"
                ),
            ));
        };
        // A name that is no file may be a misspelt template name; a path to something that
        // is not a regular file (a directory, a FIFO, a device) is said as what it is.
        match std::fs::metadata(path) {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return Err(setting(
                    "chat_template",
                    format!(
                        "the chat template {name}: no such file (openai, harmony and mistral are \
                         the templates written here)"
                    ),
                ));
            }
            Err(err) => {
                return Err(setting(
                    "chat_template",
                    format!("the chat template {name}: cannot read: {}", describe(&err)),
                ));
            }
            Ok(metadata) => {
                if let Err(err) = regular(&metadata) {
                    return Err(setting(
                        "chat_template",
                        format!("the chat template {name}: {}", describe(&err)),
                    ));
                }
            }
        }
        #[cfg(feature = "huggingface")]
        {
            ChatTemplate::from_files(path, tokenizer_file)
        }
        #[cfg(not(feature = "huggingface"))]
        {
            let _ = tokenizer_file;
            Err(setting(
                "chat_template",
                format!(
                    "the chat template {name} needs the `huggingface` feature, which this build \
                 lacks"
                ),
            ))
        }
    }

    /// A model's own chat template and tokenizer: the `chat_template` of its
    /// `tokenizer_config.json` (`config`), with its `tokenizer.json` loaded as `tokenizer`.
    /// Needs the `huggingface` feature.
    ///
    /// The control tokens are what `transformers`' `sanitize_control_tokens` takes: the
    /// tokenizer's special tokens, its other added tokens that the template writes (but for
    /// whitespace, such as Gemma's `"\n"`), and the config's `bos_token` and `eos_token`.
    ///
    /// # Errors
    ///
    /// [`Error::ChatTemplate`] when the config has no usable `chat_template`, the template does
    /// not compile, or the tokenizer's normalizer removes the zero-width space that
    /// neutralizes control tokens.
    #[cfg(feature = "huggingface")]
    #[cfg_attr(docsrs, doc(cfg(feature = "huggingface")))]
    pub fn hugging_face(
        config: &[u8],
        tokenizer: crate::tokenizer::HuggingFaceTokenizer,
    ) -> Result<ChatTemplate, Error> {
        let config = hf_config::read(config).map_err(|problem| {
            Error::template(NotATemplate, format!("tokenizer_config.json: {problem}"))
        })?;
        ChatTemplate::from_hugging_face_parts(
            &config.template,
            config.bos_token,
            config.eos_token,
            tokenizer,
        )
    }

    /// [`hugging_face`](Self::hugging_face) from files: `template_file` is the model's
    /// `tokenizer_config.json`, or a `chat_template.jinja` (then the template sees no
    /// `bos_token` or `eos_token`), and `tokenizer_file` its `tokenizer.json`.
    ///
    /// # Errors
    ///
    /// As [`hugging_face`](Self::hugging_face), and [`Error::TokenizerFile`] or
    /// [`Error::ChatTemplate`] naming a file that cannot be read.
    #[cfg(feature = "huggingface")]
    #[cfg_attr(docsrs, doc(cfg(feature = "huggingface")))]
    pub fn from_files(
        template_file: impl AsRef<std::path::Path>,
        tokenizer_file: impl AsRef<std::path::Path>,
    ) -> Result<ChatTemplate, Error> {
        let template_file = template_file.as_ref();
        let tokenizer = crate::tokenizer::HuggingFaceTokenizer::from_file(tokenizer_file)?;
        let in_file = |err: Error| match err {
            Error::ChatTemplate(err) => Error::ChatTemplate(err.in_file(template_file)),
            other => other,
        };
        let bytes = read_file(template_file, TEMPLATE_FILE).map_err(|e| {
            in_file(Error::template(
                NotATemplate,
                format!("cannot read: {}", describe(&e)),
            ))
        })?;
        if template_file.extension().is_some_and(|e| e == "jinja") {
            let source = String::from_utf8(bytes)
                .map_err(|_| in_file(Error::template(NotATemplate, "not UTF-8")))?;
            ChatTemplate::from_hugging_face_parts(&source, None, None, tokenizer).map_err(in_file)
        } else {
            ChatTemplate::hugging_face(&bytes, tokenizer).map_err(in_file)
        }
    }

    #[cfg(feature = "huggingface")]
    fn from_hugging_face_parts(
        source: &str,
        bos_token: Option<String>,
        eos_token: Option<String>,
        tokenizer: crate::tokenizer::HuggingFaceTokenizer,
    ) -> Result<ChatTemplate, Error> {
        if !tokenizer.keeps_zero_width_space() {
            return Err(Error::template(
                Unsupported,
                "the tokenizer's normalizer removes U+200B, so control tokens in retrieved text could not be neutralized",
            ));
        }
        let control: Vec<String> = tokenizer
            .added_tokens()
            .into_iter()
            // As transformers: whitespace tokens (Gemma's "\n") are ordinary text in templates.
            .filter(|(content, special)| {
                *special
                    || (source.contains(content.as_str())
                        && !content.chars().all(char::is_whitespace))
            })
            .map(|(content, _)| content)
            .collect();
        ChatTemplate::jinja(source, tokenizer, control, bos_token, eos_token)
    }
}
