//! Every relative link in the book leads to a page that exists, and every
//! page is in its table of contents: the book builds without dead links.

use std::path::Path;

/// The targets of `](...)` links in a page, without anchors.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = rest[..end].split('#').next().unwrap_or_default();
        if !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:") {
            out.push(target.to_string());
        }
    }
    out
}

#[test]
fn every_link_in_the_book_leads_somewhere() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../book/src");
    let all = test_support::files_with_extension(&src, "md");
    assert!(all.len() > 50, "the book has its pages");
    let mut dead = Vec::new();
    for page in &all {
        let text = std::fs::read_to_string(page).unwrap();
        for l in links(&text) {
            let to = page.parent().unwrap().join(&l);
            if !to.exists() {
                dead.push(format!(
                    "{} -> {l}",
                    page.strip_prefix(&src).unwrap().display()
                ));
            }
        }
    }
    assert!(dead.is_empty(), "dead links:\n{}", dead.join("\n"));
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let listed = links(&summary);
    let missing: Vec<String> = all
        .iter()
        .map(|p| p.strip_prefix(&src).unwrap().to_string_lossy().into_owned())
        .filter(|p| p != "SUMMARY.md" && !listed.contains(p))
        .collect();
    assert!(missing.is_empty(), "pages not in SUMMARY.md: {missing:?}");
}
