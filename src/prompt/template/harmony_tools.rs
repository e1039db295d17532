//! The `functions` tools section of gpt-oss's developer message, as `openai-harmony` (0.0.8,
//! `src/encoding.rs`: `template_tools_section` and `json_schema_to_typescript`) writes
//! `DeveloperContent.with_function_tools`: each function's description as `//` lines, then its
//! parameters' JSON schema as a TypeScript type. The rules (and their quirks: a nested object's
//! closing brace indented as its fields, `default` written raw where it is a string) are
//! openai-harmony's, kept byte for byte since gpt-oss was trained on them.

use minijinja::value::{Value, ValueKind};

/// One function as `ToolDescription.new(name, description, parameters)` holds it.
pub(super) struct Function {
    pub(super) name: String,
    pub(super) description: String,
    pub(super) parameters: Option<Value>,
}

/// `# Tools` and the `functions` namespace with every function.
pub(super) fn section(functions: &[Function]) -> String {
    let mut lines = vec![
        "## functions\n".to_string(),
        "namespace functions {\n".to_string(),
    ];
    for function in functions {
        // Rust's `str::lines`, as openai-harmony splits them.
        for line in function.description.lines() {
            lines.push(format!("// {line}"));
        }
        match &function.parameters {
            Some(parameters) => lines.push(format!(
                "type {} = (_: {}) => any;\n",
                function.name,
                typescript(parameters, "")
            )),
            None => lines.push(format!("type {} = () => any;\n", function.name)),
        }
    }
    lines.push("} // namespace functions".to_string());
    format!("# Tools\n\n{}", lines.join("\n"))
}

/// `key` of an object (JSON `null` included, as `Some(none)`), or `None` where it is absent
/// or `value` is not an object.
fn get(value: &Value, key: &str) -> Option<Value> {
    if value.kind() != ValueKind::Map {
        return None;
    }
    value.get_attr(key).ok().filter(|v| !v.is_undefined())
}

fn get_str(value: &Value, key: &str) -> Option<String> {
    get(value, key).and_then(|v| v.as_str().map(str::to_string))
}

fn items(value: &Value) -> Option<Vec<Value>> {
    (value.kind() == ValueKind::Seq)
        .then(|| value.try_iter().map(Iterator::collect).unwrap_or_default())
}

fn is_enum(schema: &Value) -> bool {
    get(schema, "enum")
        .and_then(|e| items(&e))
        .is_some_and(|e| !e.is_empty())
}

fn nullable(schema: &Value) -> bool {
    get(schema, "nullable").is_some_and(|n| n.kind() == ValueKind::Bool && n.is_true())
}

/// A value as `serde_json`'s `Display` writes it: compact JSON.
fn json(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A `default` as a comment's text: a string in quotes (raw) unless the schema is an enum.
fn default_text(schema: &Value, default: &Value) -> String {
    match default.as_str() {
        Some(text) if default.kind() == ValueKind::String && !is_enum(schema) => {
            format!("default: \"{text}\"")
        }
        Some(text) if default.kind() == ValueKind::String => format!("default: {text}"),
        _ => format!("default: {}", json(default)),
    }
}

fn with_null(schema: &Value, type_text: String) -> String {
    if nullable(schema) && !type_text.contains("null") {
        format!("{type_text} | null")
    } else {
        type_text
    }
}

/// A JSON schema as a TypeScript type, `indent` before its inner lines.
fn typescript(schema: &Value, indent: &str) -> String {
    if let Some(variants) = get(schema, "oneOf").and_then(|v| items(&v)) {
        let mut out = String::new();
        for variant in &variants {
            out.push_str(&format!("\n{indent} | "));
            out.push_str(&with_null(
                variant,
                typescript(variant, &format!("{indent}   ")),
            ));
            let mut comments = Vec::new();
            if let Some(description) = get_str(variant, "description") {
                comments.push(description);
            }
            // Here, unlike in a property, only a string of a schema that is not an enum is
            // written raw; any other default is JSON.
            if let Some(default) = get(variant, "default") {
                comments.push(match default.as_str() {
                    Some(text) if default.kind() == ValueKind::String && !is_enum(variant) => {
                        format!("default: \"{text}\"")
                    }
                    _ => format!("default: {}", json(&default)),
                });
            }
            if !comments.is_empty() {
                out.push_str(&format!(" // {}", comments.join(" ")));
            }
        }
        return out;
    }
    let kind = get(schema, "type");
    if let Some(types) = kind.as_ref().and_then(items) {
        let names: Vec<&str> = types
            .iter()
            .filter_map(Value::as_str)
            .map(|t| if t == "integer" { "number" } else { t })
            .collect();
        if !names.is_empty() {
            return names.join(" | ");
        }
    }
    let Some(kind) = kind.filter(|k| k.kind() == ValueKind::String) else {
        // openai-harmony's second look at `oneOf` here is unreachable: handled above.
        return "any".to_string();
    };
    match kind.as_str().unwrap_or_default() {
        "object" => object(schema, indent),
        "string" => {
            let names: Vec<String> = get(schema, "enum")
                .and_then(|e| items(&e))
                .unwrap_or_default()
                .iter()
                .filter(|v| v.kind() == ValueKind::String)
                .filter_map(|v| v.as_str().map(|s| format!("\"{s}\"")))
                .collect();
            if names.is_empty() {
                "string".to_string()
            } else {
                names.join(" | ")
            }
        }
        "number" | "integer" => "number".to_string(),
        "boolean" => "boolean".to_string(),
        "array" => match get(schema, "items") {
            Some(items) => format!("{}[]", typescript(&items, indent)),
            None => "Array<any>".to_string(),
        },
        _ => "any".to_string(),
    }
}

/// An object schema: its description, then one line (or one block, for `oneOf`) per property.
fn object(schema: &Value, indent: &str) -> String {
    let mut out = String::new();
    if let Some(description) = get_str(schema, "description") {
        out.push_str(&format!("{indent}// {description}\n"));
    }
    out.push_str("{\n");
    if let Some(properties) = get(schema, "properties").filter(|p| p.kind() == ValueKind::Map) {
        let required: Vec<String> = get(schema, "required")
            .and_then(|r| items(&r))
            .unwrap_or_default()
            .iter()
            .filter_map(|r| r.as_str().map(str::to_string))
            .collect();
        for key in properties.try_iter().into_iter().flatten() {
            let value = properties.get_item(&key).unwrap_or_default();
            let key = key.as_str().map(str::to_string).unwrap_or_default();
            let optional = if required.contains(&key) { "" } else { "?" };
            property_comments(&value, indent, &mut out);
            if let Some(variants) = get(&value, "oneOf").and_then(|v| items(&v)) {
                one_of_property(&value, &variants, &key, optional, indent, &mut out);
                continue;
            }
            out.push_str(&format!("{indent}{key}{optional}: "));
            out.push_str(&with_null(
                &value,
                typescript(&value, &format!("{indent}    ")),
            ));
            out.push(',');
            // A `oneOf` that is not an array writes no default, as openai-harmony.
            if get(&value, "oneOf").is_none()
                && let Some(default) = get(&value, "default")
            {
                out.push_str(&format!(" // {}", default_text(&value, &default)));
            }
            out.push('\n');
        }
    }
    out.push_str(&format!("{indent}}}"));
    out
}

/// A property's title, description (unless it has `oneOf`, which writes its own) and string
/// examples, as comments above it.
fn property_comments(value: &Value, indent: &str, out: &mut String) {
    if let Some(title) = get_str(value, "title") {
        out.push_str(&format!("{indent}// {title}\n{indent}//\n"));
    }
    if get(value, "oneOf").is_none()
        && let Some(description) = get_str(value, "description")
    {
        out.push_str(&format!("{indent}// {description}\n"));
    }
    let examples = get(value, "examples")
        .and_then(|e| items(&e))
        .unwrap_or_default();
    if !examples.is_empty() {
        out.push_str(&format!("{indent}// Examples:\n"));
        for example in examples.iter().filter_map(Value::as_str) {
            out.push_str(&format!("{indent}// - \"{example}\"\n"));
        }
    }
}

/// A property with `oneOf`: its description (unless the first variant says the same) and
/// default above it, then one line per variant.
fn one_of_property(
    value: &Value,
    variants: &[Value],
    key: &str,
    optional: &str,
    indent: &str,
    out: &mut String,
) {
    let description = get_str(value, "description");
    let first_says_it = variants
        .first()
        .and_then(|first| get_str(first, "description"))
        .is_some_and(|first| Some(&first) == description.as_ref());
    let above = !first_says_it && description.is_some();
    if above && let Some(description) = &description {
        out.push_str(&format!("{indent}// {description}\n"));
    }
    if let Some(default) = get(value, "default") {
        out.push_str(&format!("{indent}// {}\n", default_text(value, &default)));
    }
    out.push_str(&format!("{indent}{key}{optional}:\n"));
    for (i, variant) in variants.iter().enumerate() {
        out.push_str(&format!("{indent} | "));
        out.push_str(&with_null(
            variant,
            typescript(variant, &format!("{indent}   ")),
        ));
        let mut comments = Vec::new();
        if !(i == 0 && above)
            && let Some(text) = get_str(variant, "description")
            && Some(&text) != description.as_ref()
        {
            comments.push(text);
        }
        if let Some(default) = get(variant, "default") {
            comments.push(default_text(variant, &default));
        }
        if !comments.is_empty() {
            out.push_str(&format!(" // {}", comments.join(" ")));
        }
        out.push('\n');
    }
    out.push_str(&format!("{indent},\n"));
}
