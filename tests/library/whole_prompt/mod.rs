//! The whole prompt: fitting conversations and results to a window through a chat template.

mod conversations;
mod properties;
mod reference;
