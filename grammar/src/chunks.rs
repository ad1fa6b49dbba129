//! Large schema blocks are parsed in pieces, one thread per piece (the
//! calling thread takes the first).
//!
//! A BSON block is a sequence of declarations, each self-delimited by its
//! braces, and the grammar is `Block: Decl*`. So where the text between two
//! declarations is cut, right after a `}` that closes a declaration, each
//! piece parses on its own, and when every piece parses without a single
//! error or warning, the pieces' declarations, comments and (empty) error
//! lists joined are exactly what one parse of the whole block gives:
//! - each cut is a token boundary with no bracket open, so the lexer reads
//!   the same tokens on both sides and its bracket balancing is in the same
//!   (empty) state;
//! - everything after the `}` up to the next declaration (comments, docs)
//!   falls in the next piece, before the token it precedes in both cases,
//!   so docs attach to the same declarations.
//!
//! From the first piece with an error or warning on, the rest of the block
//! is parsed again as one piece: a clean prefix leaves nothing open and no
//! error behind, so the parser meets the rest in the state it starts in,
//! and what the rest reports is what one parse reports. When the parser
//! gives up on the rest (an error it cannot recover from), one parse gives
//! up on the whole block at the same error and keeps nothing of it: the
//! whole block is parsed again in one piece.
//!
//! The cuts are found by a scan that only needs to be right for clean
//! text: when it cuts somewhere odd (inside a string, say), the piece
//! before the cut reports an error, and the text from that piece on is
//! parsed again in one piece.

use crate::ast::bson::Block;
use crate::{Parsed, lexer};

/// Blocks smaller than this are parsed in one piece: below it, starting
/// threads costs more than it saves.
pub const MIN_PARALLEL_BYTES: usize = 128 * 1024;

/// Parses `body` (at byte `offset` of its file) in up to `pieces` pieces on
/// as many threads; `parse` is the one-piece parse.
pub fn parse_in_pieces(
    body: &str,
    offset: usize,
    pieces: usize,
    parse: fn(&str, usize) -> Parsed<Block>,
) -> Parsed<Block> {
    let cuts = cuts(body, pieces);
    if cuts.is_empty() {
        return parse(body, offset);
    }
    let mut bounds = Vec::with_capacity(cuts.len() + 2);
    bounds.push(0);
    bounds.extend(cuts);
    bounds.push(body.len());
    // The first piece is parsed on this thread: one thread fewer to start,
    // and one heap fewer for the allocator to keep (each thread's heap holds
    // on to memory the others cannot reuse).
    let parts: Vec<Parsed<Block>> = std::thread::scope(|s| {
        let handles: Vec<_> = bounds[1..]
            .windows(2)
            .map(|w| {
                let (a, b) = (w[0], w[1]);
                s.spawn(move || parse(&body[a..b], offset + a))
            })
            .collect();
        let first = parse(&body[..bounds[1]], offset);
        std::iter::once(first)
            .chain(
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))),
            )
            .collect()
    });
    // The pieces before the first one with an error stand; from there on,
    // the rest of the block is parsed again in one piece, so every error
    // is reported with what precedes it in one parse (the cut before it is
    // still clean: nothing open, no error behind it).
    let clean = parts
        .iter()
        .position(|p| !p.errors.is_empty())
        .unwrap_or(parts.len());
    let mut out = Parsed {
        tree: Block {
            decls: Vec::with_capacity(parts.iter().map(|p| p.tree.decls.len()).sum()),
        },
        trivia: Vec::with_capacity(parts.iter().map(|p| p.trivia.len()).sum()),
        errors: Vec::new(),
        gave_up: false,
    };
    let rest = (clean < parts.len()).then(|| bounds[clean]);
    for mut p in parts.into_iter().take(clean) {
        out.tree.decls.append(&mut p.tree.decls);
        out.trivia.append(&mut p.trivia);
    }
    if let Some(at) = rest {
        let mut p = parse(&body[at..], offset + at);
        if p.gave_up {
            // One parse gives up at the same error, and then keeps nothing
            // before it either (its docs are all left unattached): that
            // parse, then.
            return parse(body, offset);
        }
        out.tree.decls.append(&mut p.tree.decls);
        out.trivia.append(&mut p.trivia);
        out.errors = p.errors;
    }
    out
}

/// Up to `pieces - 1` places to cut `text`, in order, each right after a
/// `}` that brings the brace depth back to 0, spaced about evenly. Braces
/// are counted as the lexer counts them ([`lexer::braces`]); a closer with
/// nothing open stops the scan.
pub fn cuts(text: &str, pieces: usize) -> Vec<usize> {
    let mut out = Vec::new();
    if pieces < 2 {
        return out;
    }
    let step = text.len() / pieces;
    let mut next_at = step;
    let mut depth = 0usize;
    lexer::braces(text, |i, opens| {
        if opens {
            depth += 1;
            return true;
        }
        if depth == 0 {
            return false;
        }
        depth -= 1;
        if depth == 0 && i + 1 >= next_at && i + 1 < text.len() {
            out.push(i + 1);
            next_at = i + 1 + step;
        }
        out.len() + 1 < pieces
    });
    out
}
