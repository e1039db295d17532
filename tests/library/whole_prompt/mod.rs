//! The whole prompt: fitting conversations and results to a window through a chat template.

mod context_options;
mod conversations;
mod cost;
mod deadline;
mod documents;
mod generated;
mod harmony;
mod harmony_reference;
mod history_fit;
mod mistral_tools;
mod nothing_lost;
mod openai_tools;
mod properties;
mod reference;
mod snapshots;
mod tekken_files;
mod template_errors;
mod template_options;
mod tool_result;
mod tools;
