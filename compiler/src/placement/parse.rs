//! A placement file's lines: `image NAME`, `node NAME: INSTANCE, ...`,
//! blank lines and `#` comments. Every line is read, so one mistake does
//! not hide the next.

use super::errors::{Expected, PlacementError, Twice};
use super::{Named, NodeDecl, Placement};
use crate::source::{FileId, FileSpan, Span};

/// Parses a placement; the errors of its lines beside what was read.
pub fn parse(file: FileId, text: &str) -> (Placement, Vec<PlacementError>) {
    let at = |start: usize, end: usize| FileSpan::new(file, Span::new(start, end));
    let mut placement = Placement {
        image: None,
        nodes: Vec::new(),
        start: at(0, 0),
        complete: true,
    };
    let mut errors = Vec::new();
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let line_start = offset;
        offset += raw.len();
        let content = raw.split('#').next().unwrap_or_default();
        let mut words = Words {
            text: content,
            pos: 0,
            last_end: 0,
            base: line_start,
            file,
        };
        let Some(first) = words.name() else {
            if let Some(bad) = words.rest() {
                errors.push(malformed(bad, Expected::Line));
            }
            continue;
        };
        let result = match first.name.as_str() {
            "image" => image_line(&mut words, &mut placement),
            "node" => node_line(&mut words, &mut placement, &mut errors),
            _ => Err(malformed(first, Expected::Line)),
        };
        if let Err(e) = result {
            errors.push(e);
            placement.complete = false;
        }
    }
    let end = at(text.len(), text.len());
    if placement.nodes.is_empty() && errors.is_empty() {
        errors.push(PlacementError::NoNodes { at: end });
    }
    (placement, errors)
}

fn image_line(words: &mut Words, placement: &mut Placement) -> Result<(), PlacementError> {
    let name = words
        .name()
        .ok_or_else(|| missing(words, Expected::ImageName))?;
    if let Some(bad) = words.rest() {
        return Err(malformed(bad, Expected::LineEnd));
    }
    if let Some(first) = &placement.image {
        return Err(PlacementError::Twice {
            what: Twice::Image,
            name: name.name,
            at: name.at,
            first: first.at,
        });
    }
    placement.image = Some(name);
    Ok(())
}

fn node_line(
    words: &mut Words,
    placement: &mut Placement,
    errors: &mut Vec<PlacementError>,
) -> Result<(), PlacementError> {
    let name = words
        .name()
        .ok_or_else(|| missing(words, Expected::NodeName))?;
    if !words.eat(':') {
        return Err(match words.rest() {
            Some(bad) => malformed(bad, Expected::Colon),
            None => missing(words, Expected::Colon),
        });
    }
    let mut instances: Vec<Named> = Vec::new();
    let mut twice = Vec::new();
    loop {
        let Some(inst) = words.name() else {
            return Err(match words.rest() {
                Some(bad) => malformed(bad, Expected::InstanceName),
                None => missing(words, Expected::InstanceName),
            });
        };
        if let Some(first) = instances.iter().find(|i| i.name == inst.name) {
            // Reported, and the line kept: the node runs it once.
            twice.push(PlacementError::Twice {
                what: Twice::Instance {
                    node: name.name.clone(),
                },
                name: inst.name.clone(),
                at: inst.at,
                first: first.at,
            });
        } else {
            instances.push(inst);
        }
        if words.eat(',') {
            continue;
        }
        if let Some(bad) = words.rest() {
            return Err(malformed(bad, Expected::CommaOrEnd));
        }
        break;
    }
    if let Some(first) = placement.node(&name.name) {
        return Err(PlacementError::Twice {
            what: Twice::Node,
            name: name.name,
            at: name.at,
            first: first.name.at,
        });
    }
    errors.append(&mut twice);
    let last = instances.last().map_or(name.at, |i| i.at);
    placement.nodes.push(NodeDecl {
        name,
        instances,
        list_end: FileSpan::new(last.file, Span::point(last.span.end())),
    });
    Ok(())
}

fn malformed(found: Named, expected: Expected) -> PlacementError {
    PlacementError::Malformed {
        at: found.at,
        found: found.name,
        expected,
    }
}

/// What is missing at the end of a line, just after what was read.
fn missing(words: &Words, expected: Expected) -> PlacementError {
    PlacementError::Malformed {
        at: words.span(words.last_end, words.last_end),
        found: String::new(),
        expected,
    }
}

/// The words of one line, with their places.
struct Words<'a> {
    text: &'a str,
    pos: usize,
    /// Where the last name or mark read ends.
    last_end: usize,
    base: usize,
    file: FileId,
}

/// What a name may hold: instance names of nested images have dots.
fn name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.')
}

impl Words<'_> {
    fn skip_space(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn span(&self, start: usize, end: usize) -> FileSpan {
        FileSpan::new(self.file, Span::new(self.base + start, self.base + end))
    }

    /// The next name, if a name comes next.
    fn name(&mut self) -> Option<Named> {
        self.skip_space();
        let rest = &self.text[self.pos..];
        let len = rest.find(|c| !name_char(c)).unwrap_or(rest.len());
        if len == 0 {
            return None;
        }
        let start = self.pos;
        self.pos += len;
        self.last_end = self.pos;
        Some(Named {
            name: rest[..len].to_string(),
            at: self.span(start, self.pos),
        })
    }

    /// Takes `c` if it comes next.
    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        if self.text[self.pos..].starts_with(c) {
            self.pos += c.len_utf8();
            self.last_end = self.pos;
            true
        } else {
            false
        }
    }

    /// What is left of the line, if anything but spaces.
    fn rest(&mut self) -> Option<Named> {
        self.skip_space();
        let rest = self.text[self.pos..].trim_end();
        if rest.is_empty() {
            return None;
        }
        // The first word of it (or character, if not a name's).
        let len = rest
            .find(char::is_whitespace)
            .unwrap_or(rest.len())
            .max(rest.chars().next().map_or(1, char::len_utf8));
        Some(Named {
            name: rest[..len].to_string(),
            at: self.span(self.pos, self.pos + len),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> (Placement, Vec<PlacementError>) {
        parse(FileId(0), text)
    }

    #[test]
    fn reads_an_image_and_its_nodes() {
        let (p, errors) = parsed(
            "# a comment\nimage Site\n\nnode front: web, server,public # trailing\nnode pages:site\n",
        );
        assert_eq!(errors, vec![]);
        assert_eq!(p.image.as_ref().map(|n| n.name.as_str()), Some("Site"));
        assert_eq!(p.node_names(), ["front", "pages"]);
        assert_eq!(p.nodes_of("site"), ["pages"]);
        let names: Vec<&str> = p.nodes[0]
            .instances
            .iter()
            .map(|i| i.name.as_str())
            .collect();
        assert_eq!(names, ["web", "server", "public"]);
        assert_eq!(
            p.nodes[0].list_end.span.start(),
            "# a comment\nimage Site\n\nnode front: web, server,public".len()
        );
    }

    #[test]
    fn each_bad_line_is_one_error_at_its_place() {
        let text = "image Site extra\nnode a web\nnode b:\nnode c: x y\nnod d: x\nnode e: x,\n";
        let (_, errors) = parsed(text);
        let found: Vec<(&str, &str)> = errors
            .iter()
            .map(|e| match e {
                PlacementError::Malformed { at, found, .. } => {
                    (&text[at.span.range()], found.as_str())
                }
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            found,
            [
                ("extra", "extra"),
                ("web", "web"),
                ("", ""),
                ("y", "y"),
                ("nod", "nod"),
                ("", "")
            ]
        );
    }

    #[test]
    fn names_given_twice_point_at_the_first() {
        let (_, errors) = parsed("image A\nimage B\nnode a: x, x\nnode b: y\nnode b: z\n");
        let twice: Vec<&Twice> = errors
            .iter()
            .filter_map(|e| match e {
                PlacementError::Twice { what, .. } => Some(what),
                _ => None,
            })
            .collect();
        assert_eq!(
            twice,
            [
                &Twice::Image,
                &Twice::Instance { node: "a".into() },
                &Twice::Node
            ]
        );
    }

    #[test]
    fn an_empty_placement_says_so() {
        let (_, errors) = parsed("image A\n");
        assert!(matches!(errors[..], [PlacementError::NoNodes { .. }]));
    }
}
