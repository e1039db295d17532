//! The whole prompt: fitting conversations and results to a window through a chat template.

mod conversations;
mod cost;
mod deadline;
mod properties;
mod reference;
