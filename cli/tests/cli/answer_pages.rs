//! `inspect --answer`: the page's size follows what it shows, not the answer. The answer is
//! cut at 256 KiB and 2,000 markers, and at most 100 unknown markers and 100 quotes are
//! listed, with a count of the rest: a 5 MB answer made of nothing but markers and quotes
//! gives a page under 5 MB (the red team's gave 212 MB).

use super::TempFile;
use super::pages::inspect;

/// `pieces` repeated, in turn, to `bytes`.
fn answer_of(pieces: &[&str], bytes: usize) -> String {
    let mut answer = String::with_capacity(bytes + 64);
    for piece in pieces.iter().cycle() {
        if answer.len() >= bytes {
            break;
        }
        answer.push_str(piece);
    }
    answer
}

fn page_of(answer: &str) -> String {
    let file = TempFile::new("answer.txt", answer.as_bytes());
    inspect(&[
        "--budget",
        "400",
        "--answer",
        file.path(),
        "fixtures/pricing.json",
    ])
}

#[test]
fn a_5_mb_answer_of_markers_and_quotes_gives_a_page_under_5_mb() {
    let pieces = [
        r#""Quillstack is billed" [1] "#,
        "[9] ",
        "[1, 2] ",
        r#""not said" [2] "#,
    ];
    let answer = answer_of(&pieces, 5 << 20);
    let html = page_of(&answer);
    assert!(html.len() < 5 << 20, "{} bytes", html.len());
    assert!(html.contains(&format!("{} bytes in all", answer.len())));
    // The first 100 unknown markers are listed, then how many more.
    let unknown = answer.matches("[9]").count();
    assert!(html.contains("cite:/unknown/99/at"));
    assert!(!html.contains("cite:/unknown/100/at"));
    assert!(html.contains(&format!(", and {} more (see cite)", unknown - 100)));
    // 100 quotes in all, the first block's first; the rest counted per block.
    assert_eq!(html.matches("<q class=").count(), 100);
    let quoted = answer.matches(r#""Quillstack is billed" [1]"#).count();
    assert!(html.contains(&format!("and {} more (see cite)", quoted - 100)));
    let not_said = answer.matches(r#""not said" [2]"#).count();
    assert!(html.contains(&format!("and {not_said} more (see cite)")));
}

#[test]
fn an_answer_of_markers_alone_links_at_most_2000() {
    let answer = answer_of(&["[1]"], 256 << 10);
    let html = page_of(&answer);
    assert_eq!(html.matches("<a class=\"cite").count(), 2000);
    assert!(html.contains(&format!("{} bytes in all", answer.len())));
    assert!(html.len() < 400_000, "{} bytes", html.len());
    // A short answer is shown whole, every marker linked.
    let short = answer_of(&["[1]"], 3 * 1999);
    let html = page_of(&short);
    assert_eq!(html.matches("<a class=\"cite").count(), 1999);
    assert!(!html.contains("bytes in all"));
}
