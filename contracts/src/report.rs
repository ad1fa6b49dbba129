//! A run's findings for machines: JSON lines (one per finding, then one
//! summary per object) and JUnit XML (a suite per object, a test case per
//! serves entry, a failure per finding), for CI.

use othc::diagnostics::ToDiagnostic;
use othc::source::SourceMap;
use serde_json::json;

use crate::{Failure, Report};

/// A finding as one JSON object: its diagnostic (code, message, place,
/// book page), the input, the seed and case that replay it, the trace.
pub fn finding_json(sources: &SourceMap, seed: u64, f: &Failure) -> serde_json::Value {
    let d = f.finding.to_diagnostic();
    let file = sources.get(f.finding.at.file);
    let at = file.line_col(f.finding.at.span.start());
    json!({
        "kind": "finding",
        "object": f.finding.object,
        "entry": f.finding.entry,
        "code": d.code.as_str(),
        "message": d.message,
        "file": file.name,
        "line": at.line,
        "column": at.column,
        "page": format!("book/src/errors/{}.md", d.code.as_str()),
        "requests": f.requests,
        "seed": seed,
        "case": f.case,
        "trace": f.trace,
    })
}

/// An object's summary as one JSON object.
pub fn summary_json(r: &Report) -> serde_json::Value {
    json!({
        "kind": "summary",
        "object": r.object,
        "cases": r.cases,
        "requests": r.requests,
        "findings": r.failures.len(),
        "entries": r.entries.iter().map(|(e, n)| json!({"entry": e, "cases": n})).collect::<Vec<_>>(),
    })
}

/// JUnit XML of every object's report.
pub fn junit(file: &str, seed: u64, reports: &[Report]) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let tests: usize = reports.iter().map(|r| r.entries.len().max(1)).sum();
    let failures: usize = reports.iter().map(|r| r.failures.len()).sum();
    out.push_str(&format!(
        "<testsuites name=\"othc test {}\" tests=\"{tests}\" failures=\"{failures}\">\n",
        xml(file)
    ));
    for r in reports {
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\">\n",
            xml(&r.object),
            r.entries.len().max(1),
            r.failures.len()
        ));
        out.push_str(&format!(
            "    <properties><property name=\"seed\" value=\"{seed}\"/></properties>\n"
        ));
        let mut cases: Vec<&str> = r.entries.iter().map(|(e, _)| e.as_str()).collect();
        if cases.is_empty() {
            cases.push("start");
        }
        for name in cases {
            out.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{}\">\n",
                xml(&r.object),
                xml(name)
            ));
            for f in r.failures.iter().filter(|f| {
                f.finding.entry.as_deref() == Some(name)
                    || (f.finding.entry.is_none()
                        && Some(name) == r.entries.first().map(|e| e.0.as_str()).or(Some("start")))
            }) {
                let d = f.finding.to_diagnostic();
                out.push_str(&format!(
                    "      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                    d.code.as_str(),
                    xml(&d.message),
                    xml(&format!(
                        "requests: {}\nreplay: --seed {seed} (case {})\n{}",
                        f.requests.join("; "),
                        f.case,
                        f.trace.join("\n")
                    ))
                ));
            }
            out.push_str("    </testcase>\n");
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// Text made safe inside XML (and free of characters XML forbids).
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' | '\r' => out.push(ch),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('?'),
            c => out.push(c),
        }
    }
    out
}
