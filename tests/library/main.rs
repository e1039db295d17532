//! The library's integration tests, in one binary: each module is a concept's tests, and
//! `common` holds the invariants every assembly must keep. One binary links the dependency
//! graph once, where a binary per file linked it sixteen times.

mod allocations;
mod bedrock_mistral;
mod boundaries;
mod budget_gate;
mod citations;
mod common;
mod cut_room;
mod dialect_attacks;
mod dialects;
mod docs;
mod engines;
mod errors;
mod follow_up;
mod global_state;
mod heads;
mod hostile;
mod model;
mod open_models;
mod options;
mod orders;
mod previous_report;
mod properties;
mod quote_bounds;
mod range_markers;
mod reading;
mod renumbered_ranges;
mod report_layout;
mod response_edges;
mod responses;
mod selection;
mod settings;
mod snapshots;
mod stand_ins;
mod tekken_versions;
mod tool_content;
mod unsealed_fields;
mod whole_prompt;
