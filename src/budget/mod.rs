//! Budgets: where they come from, and what a context needs.
//!
//! A budget is the most tokens the whole text may take. It is given
//! ([`ContextBuilder::new`](crate::ContextBuilder::new)), or derived from a model's
//! [`ModelWindow`] ([`ContextBuilder::for_model`](crate::ContextBuilder::for_model)). When
//! a context comes out empty, [`Assembler::smallest_budget`](crate::Assembler::smallest_budget)
//! says what budget would have put a block in it ([`SmallestBudget`]).

mod window;

pub use crate::assembler::{DEFAULT_MIN_TRUNCATED_TOKENS, SMALLEST_BUDGET_RESULTS, SmallestBudget};
pub use window::ModelWindow;
