//! An assembler with a request's own tools and template options, for a service or a binding
//! whose requests bring them: the template, its tokenizer and the context's assembler are
//! shared, not loaded again.

use std::sync::Arc;

use super::PromptAssembler;
use crate::error::Error;
use crate::prompt::{TemplateOptions, Tools, template_options, tools};

impl PromptAssembler {
    /// This assembler for one request's `tools` and `options`: the request's tools in place
    /// of the assembler's, its options over the assembler's name by name (as vLLM's request
    /// `chat_template_kwargs` go over the server's defaults); `None` keeps the assembler's.
    /// Cheap: the template and the context's assembler are shared.
    ///
    /// ```
    /// use mentor_context::prompt::{ChatTemplate, PromptBuilder};
    ///
    /// let prompts = PromptBuilder::new(ChatTemplate::harmony(), 8192).build()?;
    /// // gpt-oss reads one option, `reasoning_effort`.
    /// let _high = prompts.with_request(None, Some(r#"{"reasoning_effort": "high"}"#.parse()?))?;
    /// let err = prompts
    ///     .with_request(None, Some(r#"{"enable_thinking": false}"#.parse()?))
    ///     .unwrap_err();
    /// assert!(err.to_string().contains("reads one template option"));
    /// # Ok::<(), mentor_context::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::PromptSetting`] as [`PromptBuilder::build`](crate::prompt::PromptBuilder::build)
    /// gives it for tools or options this template does not take.
    pub fn with_request(
        &self,
        tools: Option<Tools>,
        options: Option<TemplateOptions>,
    ) -> Result<PromptAssembler, Error> {
        if tools.is_none() && options.is_none() {
            return Ok(self.clone());
        }
        let inner = &self.inner;
        let (own_tools, own_options) = &inner.given;
        let tools = tools.or_else(|| own_tools.clone());
        let options = match (options, own_options) {
            (Some(given), Some(own)) => Some(given.over(own)),
            (given, own) => given.or_else(|| own.clone()),
        };
        let allow = inner.special_tokens_in_messages;
        Ok(PromptAssembler {
            inner: Arc::new(super::Inner {
                tools: tools::for_template(tools.clone(), &inner.template, allow)?,
                template_options: template_options::for_template(
                    options.clone(),
                    &inner.template,
                    allow,
                )?,
                given: (tools, options),
                ..(**inner).clone()
            }),
        })
    }
}
