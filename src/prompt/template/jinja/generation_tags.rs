//! `{% generation %}` blocks, which transformers knows and minijinja does not.

use std::fmt::Write as _;

/// `transformers` reads `{% generation %}` ... `{% endgeneration %}` (which marks the
/// assistant's tokens for training) and renders its body unchanged; minijinja does not know the
/// tag, so it becomes an `{% if true %}` block with the same whitespace control.
pub(super) fn rewrite_generation_tags(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(at) = rest.find("{%") {
        out.push_str(&rest[..at]);
        let tag = &rest[at..];
        // After the opening: in `{%}` the `%` of `{%` is no closing.
        let Some(end) = tag[2..].find("%}").map(|end| end + 2) else {
            out.push_str(tag);
            return out;
        };
        let inner = &tag[2..end];
        let (left, body) = inner
            .strip_prefix(['-', '+'])
            .map_or(("", inner), |b| (&inner[..1], b));
        let (body, right) = body
            .strip_suffix(['-', '+'])
            .map_or((body, ""), |b| (b, &body[b.len()..]));
        match body.trim() {
            "generation" => {
                let _ = write!(out, "{{%{left} if true {right}%}}");
            }
            "endgeneration" => {
                let _ = write!(out, "{{%{left} endif {right}%}}");
            }
            _ => out.push_str(&tag[..end + 2]),
        }
        rest = &tag[end + 2..];
    }
    out.push_str(rest);
    out
}
