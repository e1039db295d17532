//! For the results left out for lack of room: the smallest context's budget at which the same
//! request would have taken each in, and what each would need alone
//! ([`Assembler::smallest_budget`]): for its head and the shortest cut, and whole.
//!
//! The budget for a result in its request is searched by assembling the whole request at
//! other budgets (all other settings kept): upwards from the budget to a ceiling, then by
//! halving the gap between the largest budget known to leave it out and the smallest known to
//! take it in. Every assembly answers for every result at once, so later searches start from
//! what earlier ones learned. The search is bounded as the library's own is: up to four
//! budgets (at least 4,096 tokens), for the [`SMALLEST_BUDGET_RESULTS`] best-ranked of those
//! results, and within [`MAX_ASSEMBLIES`] assemblies in all, so a page costs a bounded number
//! of assemblies whatever the input.

use std::collections::{BTreeMap, HashMap, HashSet};

use mentor_context::budget::{SMALLEST_BUDGET_RESULTS, SmallestBudget};
use mentor_context::{AssembledContext, Assembler, MentorRagResult, OmitReason};

use crate::assemble::Request;

/// The most assemblies one page's search runs: about a dozen per result searched.
pub(super) const MAX_ASSEMBLIES: usize = 200;

/// Budgets are searched up to this many times the request's (at least 4,096 tokens), as
/// [`Assembler::smallest_budget`] searches them.
const BUDGETS_SEARCHED: usize = 4;

/// What a budget search found for one result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Need {
    /// At this budget the result is in the text, and at the largest budget tried below it,
    /// it is not.
    At(usize),
    /// Not in the text at any budget up to this one.
    MoreThan(usize),
    /// Not searched: beyond the results or the assemblies a page searches.
    NotSearched,
}

impl Need {
    /// As a page says it.
    pub(super) fn text(self) -> String {
        match self {
            Need::At(budget) => budget.to_string(),
            Need::MoreThan(budget) => format!("more than {budget}"),
            Need::NotSearched => "not searched".to_string(),
        }
    }
}

/// What a result needs alone, as a page says it: the context's budget that takes it in
/// ([`Assembler::smallest_budget`]'s answer), whether it is cut there (its head and the
/// shortest cut the settings allow), and the budget that takes it whole.
fn alone_text(assembler: &Assembler, result: &MentorRagResult, ceiling: usize) -> String {
    let results = std::slice::from_ref(result);
    let least = match assembler.smallest_budget(results) {
        Some(SmallestBudget::Exactly(budget)) => budget,
        Some(SmallestBudget::MoreThan(budget)) => return format!("more than {budget}"),
        Some(_) => return "more".to_string(),
        None => return "never (left out by the options)".to_string(),
    };
    // Alone at a budget, the block's text is the whole context: its count is the budget that
    // holds exactly that text.
    let alone_at = |budget: usize| {
        let context = assembler.with_budget(budget).ok()?.assemble(results);
        let citation = context.citations.first()?;
        Some((citation.truncated, context.token_count))
    };
    match alone_at(least) {
        Some((true, _)) => {
            let whole = match alone_at(ceiling.max(least)) {
                Some((false, tokens)) => tokens.to_string(),
                _ => format!("more than {}", ceiling.max(least)),
            };
            format!("{least} for its head and the shortest cut; {whole} whole")
        }
        Some((false, _)) => format!("{least} whole"),
        // Not in alone at the budget its search found: said as found, with nothing more.
        None => least.to_string(),
    }
}

/// For each result of `context` left out for lack of room, by input index: the smallest
/// budget that takes it in, and what it needs alone.
pub(super) fn needs(
    request: &Request,
    context: &AssembledContext<'_>,
) -> HashMap<usize, (Need, String)> {
    let assembler = &request.assembler;
    let budget = assembler.budget();
    let ceiling = budget.max(64).saturating_mul(BUDGETS_SEARCHED).max(4096);
    let targets: Vec<usize> = context
        .omitted
        .iter()
        .filter(|o| o.reason == OmitReason::DidNotFit)
        .map(|o| o.input_index)
        .collect();
    let mut search = Search {
        request,
        assembler,
        seen: BTreeMap::new(),
        assemblies: 0,
    };
    search.seen.insert(budget, included(request, context));
    let mut needs = HashMap::with_capacity(targets.len());
    for (rank, &target) in targets.iter().enumerate() {
        if rank >= SMALLEST_BUDGET_RESULTS {
            needs.insert(target, (Need::NotSearched, "not searched".to_string()));
            continue;
        }
        let alone = alone_text(assembler, &request.results[target], ceiling);
        needs.insert(target, (search.need(target, budget, ceiling), alone));
    }
    needs
}

/// The assemblies of one page's search, by budget: which input indices each took in.
struct Search<'s> {
    request: &'s Request,
    assembler: &'s Assembler,
    seen: BTreeMap<usize, HashSet<usize>>,
    assemblies: usize,
}

impl Search<'_> {
    /// The input indices the request takes in at `budget`; `None` past the bound.
    fn at(&mut self, budget: usize) -> Option<&HashSet<usize>> {
        if !self.seen.contains_key(&budget) {
            if self.assemblies >= MAX_ASSEMBLIES {
                return None;
            }
            self.assemblies += 1;
            // A budget the header or the minimum cut does not fit takes nothing in; so does
            // a follow-up turn whose earlier blocks it cannot hold.
            let taken = self
                .assembler
                .with_budget(budget)
                .ok()
                .and_then(|assembler| {
                    let context = self.request.assemble_with(&assembler).ok()?;
                    Some(included(self.request, &context))
                })
                .unwrap_or_default();
            self.seen.insert(budget, taken);
        }
        self.seen.get(&budget)
    }

    /// The smallest budget above `budget` (which leaves `target` out) and up to `ceiling`
    /// that takes `target` in.
    fn need(&mut self, target: usize, budget: usize, ceiling: usize) -> Need {
        match self.at(ceiling) {
            None => return Need::NotSearched,
            Some(taken) if !taken.contains(&target) => return Need::MoreThan(ceiling),
            Some(_) => {}
        }
        loop {
            // The smallest budget seen to take it in, and the largest below it seen to leave
            // it out (the request's own budget at least).
            let works = self
                .seen
                .range(budget..)
                .find(|(_, taken)| taken.contains(&target))
                .map_or(ceiling, |(&b, _)| b);
            let fails = self
                .seen
                .range(budget..works)
                .next_back()
                .map_or(budget, |(&b, _)| b);
            if works - fails <= 1 {
                return Need::At(works);
            }
            if self.at(fails + (works - fails) / 2).is_none() {
                return Need::NotSearched;
            }
        }
    }
}

/// The input indices of `context`'s blocks of this turn (a follow-up turn's earlier blocks
/// point into an earlier request).
fn included(request: &Request, context: &AssembledContext<'_>) -> HashSet<usize> {
    context
        .citations
        .iter()
        .skip(request.earlier_blocks())
        .map(|c| c.input_index)
        .collect()
}
