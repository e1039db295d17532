//! An assembler with a request's own tools and template options, for a service whose
//! requests bring them: the template, its tokenizer and the context's assembler are shared,
//! not loaded again.

use std::sync::Arc;

use super::PromptAssembler;
use crate::error::Error;
use crate::prompt::{TemplateOptions, Tools, template_options, tools};

impl PromptAssembler {
    /// This assembler with `tools` and `options` in place of its own (`None` is none), as
    /// [`PromptBuilder::tools`](crate::prompt::PromptBuilder::tools) and
    /// [`PromptBuilder::template_options`](crate::prompt::PromptBuilder::template_options)
    /// would have set them. Cheap: the template and the context's assembler are shared.
    ///
    /// ```
    /// use mentor_context::prompt::{ChatTemplate, PromptBuilder};
    ///
    /// let prompts = PromptBuilder::new(ChatTemplate::harmony(), 8192).build()?;
    /// let err = prompts
    ///     .with_tools_and_options(None, Some(r#"{"enable_thinking": false}"#.parse()?))
    ///     .unwrap_err();
    /// assert!(err.to_string().contains("reads no template options"));
    /// # Ok::<(), mentor_context::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::PromptSetting`] as [`PromptBuilder::build`](crate::prompt::PromptBuilder::build)
    /// gives it for tools or options this template does not take.
    pub fn with_tools_and_options(
        &self,
        tools: Option<Tools>,
        options: Option<TemplateOptions>,
    ) -> Result<PromptAssembler, Error> {
        let inner = &self.inner;
        let allow = inner.special_tokens_in_messages;
        let tools = tools::for_template(tools, &inner.template, allow)?;
        let template_options = template_options::for_template(options, &inner.template, allow)?;
        Ok(PromptAssembler {
            inner: Arc::new(super::Inner {
                tools,
                template_options,
                ..(**inner).clone()
            }),
        })
    }
}
