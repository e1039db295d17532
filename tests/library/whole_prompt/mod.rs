//! The whole prompt: fitting conversations and results to a window through a chat template.

mod conversations;
mod cost;
mod deadline;
mod nothing_lost;
mod properties;
mod reference;
mod tekken_files;
mod template_options;
mod tools;
