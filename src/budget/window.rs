//! A budget derived from a model's context window: the window, less the tokens reserved for
//! the answer and the tokens the rest of the prompt takes.

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// The context window of a model and how it is shared: the answer's reserve, the rest of the
/// prompt (system message, question, history), and what is left for the context block.
///
/// Window sizes are tiktoken-rs's table (`tiktoken_rs::model::get_context_size`), which knows
/// OpenAI's models (`gpt-4o`: 128,000 tokens, `gpt-4`: 8,192, `gpt-4.1`: 1,047,576, ...).
///
/// ```
/// use mentor_context::budget::ModelWindow;
///
/// let window = ModelWindow::new("gpt-4o", 1000, 350)?;
/// assert_eq!(window.context_window, 128_000);
/// assert_eq!(window.budget(), 128_000 - 1000 - 350);
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelWindow {
    /// The model's name, as given.
    pub model: String,
    /// The model's context window: prompt and answer together.
    pub context_window: usize,
    /// Tokens kept free for the model's answer.
    pub reserve_output: usize,
    /// Tokens the rest of the prompt takes.
    pub prompt_tokens: usize,
}

impl ModelWindow {
    /// The window of `model`, shared out.
    ///
    /// # Errors
    ///
    /// - [`Error::UnknownModel`] when the model's window size is not known;
    /// - [`Error::WindowTooSmall`] when the reserve and the prompt take the whole window.
    pub fn new(model: &str, reserve_output: usize, prompt_tokens: usize) -> Result<Self, Error> {
        let context_window =
            tiktoken_rs::model::get_context_size(model).ok_or_else(|| Error::UnknownModel {
                model: model.to_string(),
            })?;
        let window = ModelWindow {
            model: model.to_string(),
            context_window,
            reserve_output,
            prompt_tokens,
        };
        if window.budget() == 0 {
            return Err(Error::WindowTooSmall {
                model: window.model,
                context_window,
                reserve_output,
                prompt_tokens,
            });
        }
        Ok(window)
    }

    /// The tokens left for the context block: the window less the reserve and the prompt.
    #[must_use]
    pub fn budget(&self) -> usize {
        self.context_window
            .saturating_sub(self.reserve_output)
            .saturating_sub(self.prompt_tokens)
    }

    /// The tokens of the window still free once a context of `context_tokens` is in: room
    /// the answer can use beyond its reserve.
    #[must_use]
    pub fn headroom(&self, context_tokens: usize) -> usize {
        self.budget().saturating_sub(context_tokens)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_what_the_reserve_and_prompt_leave() {
        let window = ModelWindow::new("gpt-4", 1000, 192).unwrap();
        assert_eq!(window.context_window, 8192);
        assert_eq!(window.budget(), 7000);
        assert_eq!(window.headroom(6000), 1000);
        assert_eq!(window.headroom(9000), 0);
    }

    #[test]
    fn unknown_models_and_full_windows_are_errors() {
        let err = ModelWindow::new("llama-3", 0, 0).unwrap_err();
        assert!(matches!(err, Error::UnknownModel { .. }), "{err:?}");
        let err = ModelWindow::new("gpt-4", 8000, 192).unwrap_err();
        assert_eq!(
            err.to_string(),
            "model `gpt-4` has a window of 8192 tokens: reserving 8000 for the answer and 192 \
             for the rest of the prompt leaves no room for the context"
        );
        assert!(ModelWindow::new("gpt-4", usize::MAX, usize::MAX).is_err());
    }
}
