//! The rewrite of `~` and `in` into calls of ours, read from minijinja's own syntax tree.

use std::collections::HashSet;

use minijinja::machinery::parse;
use minijinja::syntax::SyntaxConfig;
use minijinja::{Error, ErrorKind};
use serde_json::Value as Json;

use super::{CONCAT, CONTAINS};

/// Rewrites every `~` and `in` operator of `source` into a call of ours (see the module's
/// documentation). Runs on the compiler's thread: the parse recurses as deep as the source
/// nests.
///
/// # Errors
///
/// The parser's error for a source that does not parse, with its line; a chain of
/// comparisons holding `in`.
pub(in super::super) fn rewrite_operators(
    source: &str,
    syntax: SyntaxConfig,
) -> Result<String, Error> {
    let tree = parse(source, super::super::NAME, syntax)?;
    let tree = serde_json::to_value(&tree).map_err(|e| {
        Error::new(
            ErrorKind::InvalidOperation,
            format!("the template's syntax tree could not be read: {e}"),
        )
    })?;
    let mut edits = Vec::new();
    collect_edits(source, &tree, &mut edits)?;
    edits.sort_by_key(|edit| (edit.at, edit.rank));
    let mut out = String::with_capacity(source.len() + edits.len() * 16);
    let mut from = 0;
    for edit in edits {
        out.push_str(&source[from..edit.at]);
        out.push_str(&edit.text);
        from = edit.at + edit.replaces;
    }
    out.push_str(&source[from..]);
    Ok(out)
}

/// Text written at `at` in place of `replaces` bytes.
struct Edit {
    at: usize,
    /// At the same offset: closings first (inner before outer), then replacements, then
    /// openings (outer before inner).
    rank: (u8, i64),
    replaces: usize,
    text: String,
}

/// Walks the tree as serde writes it: a node is `{"inner": [NODE, SPAN]}`, parents before
/// their children.
fn collect_edits(source: &str, json: &Json, edits: &mut Vec<Edit>) -> Result<(), Error> {
    // `~` chains already written as one call: `a ~ b ~ c` is one `__mentor_concat(a, b, c)`,
    // not calls nested as deep as the chain is long.
    let mut chained = HashSet::new();
    // An explicit stack: a template's tree is as deep as its source nests.
    let mut stack = vec![json];
    while let Some(json) = stack.pop() {
        match json {
            Json::Array(items) => stack.extend(items),
            Json::Object(fields) => {
                if let Some(Json::Array(inner)) = fields.get("inner")
                    && let [node, span] = inner.as_slice()
                {
                    refuse_in_chains(node, span)?;
                    operator(source, node, span, &mut chained, edits)?;
                }
                stack.extend(fields.values());
            }
            _ => {}
        }
    }
    Ok(())
}

/// A chain of comparisons (`a < b in c`) holding `in`: one that is not a chain is a
/// `BinOp`, rewritten.
fn refuse_in_chains(node: &Json, span: &Json) -> Result<(), Error> {
    match node.get("ops") {
        Some(Json::Array(ops))
            if ops
                .iter()
                .any(|op| matches!(op["op"].as_str(), Some("In" | "NotIn"))) =>
        {
            Err(Error::new(
                ErrorKind::SyntaxError,
                format!(
                    "a chain of comparisons holding `in` is not supported (line {})",
                    line_of(span)
                ),
            ))
        }
        _ => Ok(()),
    }
}

fn line_of(span: &Json) -> u64 {
    span["start_line"].as_u64().unwrap_or(0)
}

/// Where an operand that starts at `at` and is wrapped in `parens` parentheses starts with
/// them.
fn opening(source: &str, at: usize, parens: usize) -> Option<usize> {
    let mut start = at;
    for _ in 0..parens {
        let before = source.get(..start)?.trim_end();
        start = before.strip_suffix('(')?.len();
    }
    Some(start)
}

/// Where a node starts and ends in the source.
fn extent(span: &Json) -> Option<(usize, usize)> {
    let at = |field: &str| usize::try_from(span[field].as_u64()?).ok();
    Some((at("start_offset")?, at("end_offset")?))
}

/// A `~` or `in` operator node, its operands' extents.
struct Operator {
    function: &'static str,
    at: (usize, usize),
    left: (usize, usize),
    right: (usize, usize),
}

fn read_operator(node: &Json, span: &Json) -> Option<Operator> {
    let function = match node["op"].as_str()? {
        "Concat" => CONCAT,
        "In" => CONTAINS,
        _ => return None,
    };
    Some(Operator {
        function,
        at: extent(span)?,
        left: extent(node.get("left")?.get("inner")?.get(1)?)?,
        right: extent(node.get("right")?.get("inner")?.get(1)?)?,
    })
}

/// The edits for a `~` or `in` node: the call opened where the expression starts, each
/// operator of the chain replaced by a comma, the call closed where it ends.
fn operator(
    source: &str,
    node: &Json,
    span: &Json,
    chained: &mut HashSet<(usize, usize)>,
    edits: &mut Vec<Edit>,
) -> Result<(), Error> {
    if node.get("left").is_none() {
        return Ok(());
    }
    let Some(op) = read_operator(node, span) else {
        return Ok(());
    };
    if chained.contains(&op.at) {
        return Ok(());
    }
    let (function, (mut start, end)) = (op.function, op.at);
    let unreadable = || {
        Error::new(
            ErrorKind::SyntaxError,
            format!(
                "an operator's place could not be read (line {})",
                line_of(span)
            ),
        )
    };
    let mut negated = false;
    let mut link = (node, op);
    loop {
        let (node, op) = link;
        // Between the operands there are only parentheses, spaces and the operator.
        let between = source.get(op.left.1..op.right.0).ok_or_else(unreadable)?;
        let (at, len) = if function == CONCAT {
            (between.find('~').ok_or_else(unreadable)?, 1)
        } else {
            let word = between.rfind("in").ok_or_else(unreadable)?;
            // minijinja's span of a comparison starts a token early: the expression starts
            // where its left operand does, with as many `(` before it as there are `)`
            // between it and the operator.
            let parens = between[..word].matches(')').count();
            start = opening(source, op.left.0, parens).ok_or_else(unreadable)?;
            match between[..word].rfind("not") {
                Some(not) => {
                    negated = true;
                    (not, word + 2 - not)
                }
                None => (word, 2),
            }
        };
        edits.push(Edit {
            at: op.left.1 + at,
            rank: (1, 0),
            replaces: len,
            text: ",".to_string(),
        });
        // `(a ~ b) ~ c` starts at its parenthesis, and `a ~ b` after it: only a left
        // operand written without parentheses joins the chain.
        let left = &node["left"];
        match read_operator(&left["inner"][0], &left["inner"][1]) {
            Some(inner)
                if function == CONCAT && inner.function == CONCAT && inner.at.0 == start =>
            {
                chained.insert(inner.at);
                link = (&left["inner"][0], inner);
            }
            _ => break,
        }
    }
    let depth = i64::try_from(end - start).unwrap_or(i64::MAX);
    let (open, close) = if negated {
        (format!("(not {function}("), "))")
    } else {
        (format!("{function}("), ")")
    };
    edits.push(Edit {
        at: start,
        rank: (2, -depth),
        replaces: 0,
        text: open,
    });
    edits.push(Edit {
        at: end,
        rank: (0, depth),
        replaces: 0,
        text: close.to_string(),
    });
    Ok(())
}
