//! Which known name an unknown one most resembles: for "did you mean" hints.

/// The name in `known` closest to `name`, if it is close: at most a third of its letters
/// differ (two at least), once case, `_`, `-` and spaces are set aside, so `source_url`,
/// `Source-URL` and `sourceUrl` all read as one name, while `embedding` resembles nothing.
pub(crate) fn closest<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    let wanted = normalized(name);
    // Bound the work on a hostile name of a megabyte: no known name is that long.
    if wanted.len() > 64 {
        return None;
    }
    known
        .iter()
        .map(|&k| {
            let k_norm = normalized(k);
            (edit_distance(&wanted, &k_norm), k_norm.len(), k)
        })
        .filter(|&(distance, len, _)| distance <= (len / 3).max(2))
        .min_by_key(|&(distance, _, _)| distance)
        .map(|(_, _, k)| k)
}

fn normalized(name: &str) -> Vec<char> {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Levenshtein distance: insertions, deletions and substitutions of one character.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: [&str; 5] = ["content", "sourceUrl", "title", "score", "metadata"];

    #[test]
    fn close_names_are_suggested_and_far_ones_not() {
        for (name, expected) in [
            ("source_url", Some("sourceUrl")),
            ("Source-URL", Some("sourceUrl")),
            ("sourceUri", Some("sourceUrl")),
            ("url", None),
            ("contnet", Some("content")),
            ("scores", Some("score")),
            ("meta_data", Some("metadata")),
            ("embedding", None),
            ("", None),
        ] {
            assert_eq!(closest(name, &KNOWN), expected, "{name:?}");
        }
        assert_eq!(closest(&"x".repeat(1 << 20), &KNOWN), None);
    }

    #[test]
    fn distance_counts_single_edits() {
        let d = |a: &str, b: &str| {
            edit_distance(
                &a.chars().collect::<Vec<_>>(),
                &b.chars().collect::<Vec<_>>(),
            )
        };
        assert_eq!(d("kitten", "sitting"), 3);
        assert_eq!(d("", "abc"), 3);
        assert_eq!(d("abc", "abc"), 0);
    }
}
