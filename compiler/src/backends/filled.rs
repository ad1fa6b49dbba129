//! A handlebars template whose only expressions are plain `{{hole}}`s,
//! rendered once with a marker in each hole and kept as its literal pieces:
//! filling it for one value is then a few string pushes, not a template
//! rendering. The message class and enum templates are filled once per type
//! of a file, tens of thousands of times for a large schema; handlebars
//! turning each view into JSON and walking the template was most of `othc
//! gen`'s own time.
//!
//! Invariant: the template has no block helper (`#if`, `#each`) over a hole —
//! a marker is always truthy, so a condition would not be rendered as
//! written. Lists and conditions are made into strings before filling (a
//! block of doc lines, an enum's value lines, `, __h` or nothing). The snapshot tests render every
//! kind of message through it.

use std::collections::BTreeMap;

use handlebars::Handlebars;

/// Stands in each hole while the template is rendered once: a NUL, the
/// hole's number, a NUL (no generated text has a NUL).
const MARK: char = '\u{0}';

pub(super) struct Filled {
    /// The text before the first hole.
    head: String,
    /// Each hole (its number among the names given) and the text after it.
    rest: Vec<(usize, String)>,
}

impl Filled {
    /// The template registered as `name`, with the holes `holes`.
    pub(super) fn new(hb: &Handlebars, name: &str, holes: &[&str]) -> Filled {
        let view: BTreeMap<&str, String> = holes
            .iter()
            .enumerate()
            .map(|(i, h)| (*h, format!("{MARK}{i}{MARK}")))
            .collect();
        let text = hb
            .render(name, &view)
            .expect("the embedded templates render every view (tested)");
        let mut parts = text.split(MARK);
        let head = parts.next().unwrap_or_default().to_string();
        let mut rest = Vec::new();
        while let (Some(hole), Some(after)) = (parts.next(), parts.next()) {
            let hole = hole.parse().expect("a marker holds its hole's number");
            rest.push((hole, after.to_string()));
        }
        Filled { head, rest }
    }

    /// Appends the template filled with `values` (in the order of the
    /// holes given to `new`) to `out`.
    pub(super) fn fill(&self, out: &mut String, values: &[&str]) {
        out.push_str(&self.head);
        for (hole, after) in &self.rest {
            out.push_str(values[*hole]);
            out.push_str(after);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holes_are_filled_where_the_template_has_them_as_often_as_it_has_them() {
        let mut hb = Handlebars::new();
        hb.register_escape_fn(handlebars::no_escape);
        hb.set_strict_mode(true);
        hb.register_template_string("t", "class {{name}} {\n{{body}}}\n// {{name}}")
            .unwrap();
        let t = Filled::new(&hb, "t", &["body", "name"]);
        let mut out = String::from(">");
        t.fill(&mut out, &["  x: i32\n", "A"]);
        assert_eq!(out, ">class A {\n  x: i32\n}\n// A");
        let mut out = String::new();
        t.fill(&mut out, &["", "\"q\""]);
        assert_eq!(out, "class \"q\" {\n}\n// \"q\"");
    }
}
