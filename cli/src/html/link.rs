//! Which URLs a page may link to: `http:` and `https:` ones, written so that no browser
//! could read another scheme into them. Anything else (`javascript:`, `data:`, a relative
//! path, a URL with a control character a browser would strip) is shown as text only.

/// The longest URL made a link: a longer one is shown cut, as text, since a link must hold
/// the whole URL and a page must not hold megabytes of one.
pub(crate) const MAX_LINK_BYTES: usize = 2048;

/// `url` as a link target, if it may be one.
pub(crate) fn href(url: &str) -> Option<&str> {
    let scheme_ok = ["http://", "https://"].iter().any(|scheme| {
        url.get(..scheme.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(scheme))
    });
    // Browsers drop tabs and line breaks anywhere in a URL and spaces and controls at its
    // ends before reading its scheme; none of them is let in, so the scheme read is the one
    // checked.
    let clean = !url
        .chars()
        .any(|c| c.is_control() || c.is_whitespace() || crate::output::breaks_line(c));
    (scheme_ok && clean && url.len() <= MAX_LINK_BYTES).then_some(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_and_https_urls_are_links() {
        for good in [
            "https://example.com/prices",
            "HTTP://example.com",
            "https://example.com/a?b=1&c=\"x\"",
        ] {
            assert_eq!(href(good), Some(good), "{good}");
        }
        for bad in [
            "javascript:alert(1)",
            "JavaScript:alert(1)",
            " javascript:alert(1)",
            "java\tscript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "vbscript:msgbox(1)",
            "//example.com/x",
            "/relative",
            "https:/example.com",
            "\u{1}https://example.com",
            "https://example.com/\nx",
            " https://example.com",
            "https://exa mple.com",
            "ftp://example.com",
            "",
        ] {
            assert_eq!(href(bad), None, "{bad:?}");
        }
        let long = format!("https://example.com/{}", "a".repeat(MAX_LINK_BYTES));
        assert_eq!(href(&long), None);
    }
}
