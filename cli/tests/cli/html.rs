//! Reading the pages back: their tags and attributes, character references decoded, and the
//! check every page must pass, whatever its input: nothing that loads or runs.

/// What every page must be: one document that loads nothing and runs nothing, whose only
/// links are to its own sections or to http(s) URLs. Read tag by tag: text from the input
/// can only be text if its `<` was escaped, so any markup it smuggled in shows up here.
#[track_caller]
pub(crate) fn check_self_contained(html: &str) {
    assert!(html.starts_with("<!doctype html>"), "{}", &html[..80]);
    let lower = html.to_ascii_lowercase();
    for outside in ["@import", "url("] {
        assert!(!lower.contains(outside), "{outside} in the page");
    }
    for (name, attributes) in tags(html) {
        assert!(
            ![
                "script",
                "iframe",
                "img",
                "object",
                "embed",
                "link",
                "frame",
                "base",
                "form",
                "meta http-equiv"
            ]
            .contains(&name.as_str()),
            "a <{name}> tag"
        );
        for (attribute, value) in attributes {
            assert!(!attribute.starts_with("on"), "<{name} {attribute}=...>");
            if ["href", "src", "xlink:href", "action", "formaction"].contains(&attribute.as_str()) {
                let value = value.to_ascii_lowercase();
                assert!(
                    value.starts_with('#')
                        || value.starts_with("http://")
                        || value.starts_with("https://"),
                    "<{name} {attribute}={value:?}>"
                );
            }
            if name == "meta" {
                assert_ne!(attribute, "http-equiv", "a <meta http-equiv>");
            }
        }
    }
}

/// The start tags of `html`: each tag's name and its attributes, values with their
/// character references decoded, all names in lower case. Comments, the doctype and the
/// style sheet are skipped.
fn tags(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut tags = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        rest = &rest[at..];
        if let Some(comment) = rest.strip_prefix("<!--") {
            rest = comment.split_once("-->").map_or("", |(_, after)| after);
            continue;
        }
        if rest.starts_with("<!") || rest.starts_with("</") {
            rest = rest.split_once('>').map_or("", |(_, after)| after);
            continue;
        }
        let (tag, after) = rest[1..].split_once('>').expect("every tag closes");
        rest = after;
        let mut chars = tag.trim_end_matches('/').char_indices().peekable();
        let mut name = String::new();
        while let Some(&(_, c)) = chars.peek().filter(|(_, c)| !c.is_whitespace()) {
            name.push(c.to_ascii_lowercase());
            chars.next();
        }
        let mut attributes = Vec::new();
        let tag: Vec<char> = tag.chars().collect();
        let mut i = name.chars().count();
        while i < tag.len() {
            while i < tag.len() && (tag[i].is_whitespace() || tag[i] == '/') {
                i += 1;
            }
            let start = i;
            while i < tag.len() && !tag[i].is_whitespace() && tag[i] != '=' && tag[i] != '/' {
                i += 1;
            }
            let attribute: String = tag[start..i]
                .iter()
                .collect::<String>()
                .to_ascii_lowercase();
            let mut value = String::new();
            if i < tag.len() && tag[i] == '=' {
                i += 1;
                let quote = tag.get(i).copied().filter(|q| *q == '"' || *q == '\'');
                if quote.is_some() {
                    i += 1;
                }
                while i < tag.len()
                    && Some(tag[i]) != quote
                    && (quote.is_some() || !tag[i].is_whitespace())
                {
                    value.push(tag[i]);
                    i += 1;
                }
                i += 1;
            }
            if !attribute.is_empty() {
                attributes.push((attribute, decode(&value)));
            }
        }
        if name == "style" {
            rest = rest.split_once("</style>").map_or("", |(_, after)| after);
        }
        tags.push((name, attributes));
    }
    tags
}

/// `text` with its character references decoded (the named ones minijinja writes, and
/// numeric ones).
pub(crate) fn decode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let Some(end) = rest.find(';') else { break };
        let entity = &rest[1..end];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|dec| dec.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}
