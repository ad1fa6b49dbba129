//! Formatting for an editor: the canonical printer's text for a file, or
//! why there is none (its first syntax error, worded as `othc check` words
//! it); and, for formatting a range, which lines the printer changes.

use crate::diagnostics::Diagnostic;
use crate::source::FileId;

/// Why a text is not formatted: it does not parse.
#[derive(Debug)]
pub struct NotFormatted {
    /// Where its first syntax error is (a byte offset).
    pub at: usize,
    /// That error, as `othc check` reports it.
    pub error: Option<Box<Diagnostic>>,
}

/// `text` as the canonical printer prints it (as `othc fmt` would).
pub fn format(text: &str) -> Result<String, NotFormatted> {
    crate::printer::format_file(text).map_err(|u| {
        let first = u.errors.first();
        NotFormatted {
            at: first.map_or(0, |e| e.span().start()),
            error: first.map(|e| Box::new(crate::diagnostics::syntax::to_diagnostic(FileId(0), e))),
        }
    })
}

/// The lines `formatted` changes of `text`: the byte range of `text` from
/// the first changed line's start to the last one's end, and what takes
/// its place; `None` when nothing changes. The lines before and after it
/// are the same in both.
pub fn changed_lines<'a>(
    text: &str,
    formatted: &'a str,
) -> Option<(std::ops::Range<usize>, &'a str)> {
    if text == formatted {
        return None;
    }
    let old: Vec<&str> = text.split_inclusive('\n').collect();
    let new: Vec<&str> = formatted.split_inclusive('\n').collect();
    let same_start = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let same_end = old[same_start..]
        .iter()
        .rev()
        .zip(new[same_start..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let bytes = |lines: &[&str]| lines.iter().map(|l| l.len()).sum::<usize>();
    let start = bytes(&old[..same_start]);
    let end = text.len() - bytes(&old[old.len() - same_end..]);
    let new_start = bytes(&new[..same_start]);
    let new_end = formatted.len() - bytes(&new[new.len() - same_end..]);
    Some((start..end, &formatted[new_start..new_end]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_lines_that_change_are_replaced() {
        let text = "a\n b\nc\n  d\ne\n";
        let formatted = "a\nb\nc\nd\ne\n";
        let (range, with) = changed_lines(text, formatted).unwrap();
        assert_eq!(&text[range], " b\nc\n  d\n");
        assert_eq!(with, "b\nc\nd\n");
        assert_eq!(changed_lines(text, text), None);
        // A line added at the end.
        let (range, with) = changed_lines("a\n", "a\nb\n").unwrap();
        assert_eq!((range, with), (2..2, "b\n"));
    }
}
