//! The lexer's unit tests: token shapes, modes, and malformed input.

use super::*;
use crate::error::PathProblem;
use crate::token::Segment;

fn toks(src: &str) -> Vec<Token> {
    lex(src, 0, Mode::Main)
        .tokens
        .into_iter()
        .map(|(_, t, _)| t)
        .collect()
}

fn errs(src: &str) -> Vec<&'static str> {
    lex(src, 0, Mode::Main)
        .errors
        .iter()
        .map(|e| e.code())
        .collect()
}

#[test]
fn keywords_idents_punctuation() {
    assert_eq!(
        toks("object Foo { } -> * | ? : , = [ ]"),
        vec![
            Token::Object,
            Token::Ident("Foo".into()),
            Token::LBrace,
            Token::RBrace,
            Token::Arrow,
            Token::Star,
            Token::Pipe,
            Token::Question,
            Token::Colon,
            Token::Comma,
            Token::Eq,
            Token::LBracket,
            Token::RBracket,
        ]
    );
    assert_eq!(
        toks("readonly reads"),
        vec![Token::Readonly, Token::Ident("reads".into())]
    );
}

#[test]
fn content_types_are_one_token() {
    let t = toks("text/plain */* text/html; charset=utf-8 text/** application/vnd.a+json");
    let cts: Vec<String> = t
        .iter()
        .map(|t| match t {
            Token::ContentType(c) => format!("{}|{}", c.text, c.valid),
            Token::Star => "*".into(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        cts,
        vec![
            "text/plain|true",
            "*/*|true",
            "text/html; charset=utf-8|true",
            "text/*|true",
            "*",
            "application/vnd.a+json|true",
        ]
    );
    let t = toks(r#"text/html ; charset="utf-8" text/plain"#);
    assert!(
        matches!(&t[0], Token::ContentType(c) if c.text == r#"text/html ; charset="utf-8""# && c.valid)
    );
    assert!(matches!(&t[1], Token::ContentType(c) if c.text == "text/plain"));
}

#[test]
fn malformed_content_types() {
    use crate::error::ContentTypeProblem as P;
    let cases = [
        ("text/", P::NoSubtype("text".into())),
        ("text/;q", P::NoSubtype("text".into())),
        ("*/plain", P::WildcardTypeConcreteSubtype("plain".into())),
        ("te*t/plain", P::BadType("te*t".into())),
        ("text/plain;", P::BadParameter),
        ("text/plain; a", P::BadParameter),
        ("text/plain; a=", P::MissingValue("a".into())),
        ("text/plain; a=\"open", P::UnterminatedQuotedValue),
    ];
    for (src, want) in cases {
        let lexed = lex(src, 0, Mode::Main);
        assert_eq!(
            lexed.errors,
            vec![SyntaxError::MalformedContentType {
                span: Span::new(0, src.len()),
                reason: want
            }],
            "{src}"
        );
        assert!(
            matches!(&toks(src)[0], Token::ContentType(c) if !c.valid),
            "{src}"
        );
    }
}

#[test]
fn paths() {
    let t = toks("/ /dev/cons /hosts/{name} /files/** /a.b_c~d-e");
    let shown: Vec<String> = t
        .iter()
        .map(|t| match t {
            Token::Path(p) => p.to_string(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        shown,
        vec!["/", "/dev/cons", "/hosts/{name}", "/files/**", "/a.b_c~d-e"]
    );
    match &t[2] {
        Token::Path(p) => assert_eq!(
            p.segments,
            vec![
                Segment::Literal("hosts".into()),
                Segment::Capture("name".into())
            ]
        ),
        _ => unreachable!(),
    }
    // A brace after a path with no slash opens a block.
    assert_eq!(toks("/dev/cons{").len(), 3);
}

#[test]
fn malformed_paths() {
    let cases = [
        ("/a//b", PathProblem::EmptySegment),
        ("/a/", PathProblem::TrailingSlash),
        ("/a/../b", PathProblem::DotSegment("..".into())),
        ("/./b", PathProblem::DotSegment(".".into())),
        ("/**/a", PathProblem::RestNotLast),
        ("/a*", PathProblem::BadStars("a*".into())),
        ("/{1x}", PathProblem::BadCapture("{1x}".into())),
        ("/{x", PathProblem::BadCapture("{x".into())),
    ];
    for (src, want) in cases {
        let lexed = lex(src, 0, Mode::Main);
        assert_eq!(
            lexed.errors,
            vec![SyntaxError::MalformedPath {
                span: Span::new(0, src.len()),
                reason: want
            }],
            "{src}"
        );
    }
}

#[test]
fn strings_and_escapes() {
    assert_eq!(
        toks(r#""a\"b\\c\n\t\r\0\u{1F600}""#),
        vec![Token::Str("a\"b\\c\n\t\r\0\u{1F600}".into())]
    );
    assert_eq!(errs(r#""bad \q escape""#), vec!["E0105"]);
    assert_eq!(errs(r#""\u{110000}""#), vec!["E0105"]);
    // A bad `\u{...}` never reaches past the string's closing quote.
    assert_eq!(errs(r#""\u{é}" "\u" }"#), vec!["E0105", "E0105"]);
    assert_eq!(
        toks(r#""\u{é}x" object"#),
        vec![Token::Str("x".into()), Token::Object]
    );
    assert_eq!(errs("\"open\nobject"), vec!["E0102"]);
    // The unterminated string stops at the line end: the next line still lexes.
    assert_eq!(toks("\"open\nobject").last(), Some(&Token::Object));
}

#[test]
fn numbers() {
    assert_eq!(
        toks("0 -12 1_000 0xff 0x_1 1.5 -2.25e-3"),
        vec![
            Token::Int(0),
            Token::Int(-12),
            Token::Int(1000),
            Token::Int(255),
            Token::Int(1),
            Token::Float(1.5),
            Token::Float(-2.25e-3),
        ]
    );
    for bad in [
        "12ab",
        "1.",
        "0x",
        "1e5",
        "99999999999999999999999999999999999999999",
    ] {
        assert_eq!(errs(bad), vec!["E0106"], "{bad}");
    }
}

#[test]
fn comments_are_trivia() {
    let lexed = lex(
        "# plain\n## doc one\n## doc two\nobject A {}",
        0,
        Mode::Main,
    );
    let kinds: Vec<_> = lexed
        .trivia
        .iter()
        .map(|t| (t.kind, t.text.as_str()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (TriviaKind::Comment, " plain"),
            (TriviaKind::Doc, "doc one"),
            (TriviaKind::Doc, "doc two"),
        ]
    );
    assert_eq!(lexed.tokens.len(), 4);
}

#[test]
fn unexpected_characters_are_one_error_per_run() {
    let lexed = lex("object @@@ A ~ {}", 0, Mode::Main);
    assert_eq!(lexed.errors.len(), 2);
    assert_eq!(
        lexed.errors[0],
        SyntaxError::UnexpectedChar {
            span: Span::new(7, 10),
            text: "@@@".into()
        }
    );
}

#[test]
fn schema_bodies_are_captured_raw() {
    let src =
        "schemas application/bson { message A { s: string } # } in a comment\n \"}\" } object B {}";
    let lexed = lex(src, 0, Mode::Main);
    let (start, body, end) = &lexed.tokens[3];
    assert_eq!(*body, Token::SchemaBody);
    assert_eq!(
        &src[*start..*end],
        " message A { s: string } # } in a comment\n \"}\" "
    );
    let t = toks(src);
    assert_eq!(t[4], Token::RBrace);
    assert_eq!(t[5], Token::Object);
}

#[test]
fn unclosed_block_closes_before_next_item() {
    let lexed = lex("object A { serves { }\nobject B { }", 0, Mode::Main);
    assert_eq!(lexed.errors.len(), 1);
    match &lexed.errors[0] {
        SyntaxError::Unclosed { opener, by, .. } => {
            assert_eq!(*opener, Span::new(9, 10));
            assert_eq!(*by, UnclosedBy::NewItem);
        }
        other => panic!("{other:?}"),
    }
    // `{ image: 1 }` is a literal key, not an item.
    assert!(
        lex("image H { write /a M { image: 1 } }", 0, Mode::Main)
            .errors
            .is_empty()
    );
}

#[test]
fn message_and_enum_are_keywords_only_in_bson_mode() {
    let words = |mode| -> Vec<Token> {
        lex("message enum messages enums", 0, mode)
            .tokens
            .into_iter()
            .map(|(_, t, _)| t)
            .collect()
    };
    let ident = |s: &str| Token::Ident(s.into());
    assert_eq!(
        words(Mode::Main),
        vec![
            ident("message"),
            ident("enum"),
            ident("messages"),
            ident("enums")
        ]
    );
    assert_eq!(
        words(Mode::Bson),
        vec![
            Token::KwMessage,
            Token::KwEnum,
            ident("messages"),
            ident("enums")
        ]
    );
}

#[test]
fn bson_mode_keywords_and_offsets() {
    let lexed = lex("message M { message: string }", 100, Mode::Bson);
    assert_eq!(lexed.tokens[0], (100, Token::KwMessage, 107));
    assert_eq!(lexed.tokens[3].1, Token::KwMessage);
    // Errors found by the callbacks are placed in the file too.
    let lexed = lex(r#"x /a/ "\q""#, 100, Mode::Bson);
    let spans: Vec<(&str, Span)> = lexed.errors.iter().map(|e| (e.code(), e.span())).collect();
    assert_eq!(
        spans,
        vec![
            ("E0108", Span::new(102, 105)),
            ("E0105", Span::new(107, 109))
        ]
    );
}

#[test]
fn brackets_past_the_limit_are_one_error_and_left_out() {
    let depth = MAX_NESTING + 6;
    let src = format!("{}x{}", "[".repeat(depth), "]".repeat(depth));
    let lexed = lex(&src, 0, Mode::Main);
    let opens = lexed
        .tokens
        .iter()
        .filter(|t| t.1 == Token::LBracket)
        .count();
    let closes = lexed
        .tokens
        .iter()
        .filter(|t| t.1 == Token::RBracket)
        .count();
    assert_eq!((opens, closes), (MAX_NESTING, MAX_NESTING));
    assert_eq!(
        lexed.errors,
        vec![SyntaxError::TooDeep {
            span: Span::new(MAX_NESTING, MAX_NESTING + 1),
            limit: MAX_NESTING
        }]
    );
    // Mixed brackets past the limit, then more at a legal depth: the stream
    // stays balanced and the second deep run is a second error.
    let deep = format!(
        "{}{{[]}}{}",
        "[".repeat(MAX_NESTING),
        "]".repeat(MAX_NESTING)
    );
    let twice = format!("{deep} {deep}");
    let lexed = lex(&twice, 0, Mode::Main);
    assert_eq!(lexed.errors.len(), 2);
    let depth_seen = lexed
        .tokens
        .iter()
        .fold((0i64, 0i64), |(d, max), t| match t.1 {
            Token::LBracket | Token::LBrace => (d + 1, max.max(d + 1)),
            Token::RBracket | Token::RBrace => (d - 1, max),
            _ => (d, max),
        });
    assert_eq!(depth_seen, (0, MAX_NESTING as i64));
}

#[test]
fn the_word_scan_finds_what_a_byte_scan_finds() {
    // Bytes next to the four sought (`!`/`$` around `"`, `"`/`$` around `#`,
    // `z`/`|`/`~` around the braces), bytes with the high bit set, and zero:
    // the cases a word-at-a-time test could confuse with a match.
    let alphabet = b"ab\"#{}!$z|~\x00\x7f\x80\xa2\xfb\xff\n";
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for len in 0..80 {
        for _ in 0..40 {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    // Mostly filler, as in real text: a sought byte in five.
                    let k = (seed >> 33) as usize;
                    if k.is_multiple_of(5) {
                        b"\"#{}"[k / 5 % 4]
                    } else {
                        alphabet[k / 5 % alphabet.len()]
                    }
                })
                .collect();
            for start in 0..=len {
                let expected = (start..len)
                    .find(|&i| matches!(bytes[i], b'"' | b'#' | b'{' | b'}'))
                    .unwrap_or(len);
                assert_eq!(
                    next_brace_or_quote(&bytes, start),
                    expected,
                    "{bytes:?} from {start}"
                );
            }
        }
    }
}

#[test]
fn every_item_start_closes_what_was_left_open() {
    let closed_by_item = |src: &str, mode| {
        lex(src, 0, mode).errors.iter().any(|e| {
            matches!(
                e,
                SyntaxError::Unclosed {
                    by: UnclosedBy::NewItem,
                    ..
                }
            )
        })
    };
    for (src, mode) in [
        ("object A { object B {}", Mode::Main),
        ("object A { image I {}", Mode::Main),
        ("object A { import { X } from \"x.oth\"", Mode::Main),
        ("object A { schemas application/bson { }", Mode::Main),
        ("object A { native object N {}", Mode::Main),
        ("object A { export object B {}", Mode::Main),
        ("object A { export image I {}", Mode::Main),
        ("object A { export schemas application/bson { }", Mode::Main),
        ("object A { export native object N {}", Mode::Main),
        ("message A { a: i32\nmessage B { b: i32 }", Mode::Bson),
        ("message A { a: i32\nenum E { x }", Mode::Bson),
    ] {
        assert!(closed_by_item(src, mode), "{src:?} closes the open block");
    }
    // The same words where they begin no item: nothing is closed early.
    for (src, mode) in [
        ("object A { image: 1 }", Mode::Main),
        ("object A { import: 1 }", Mode::Main),
        ("object A { export: 1 }", Mode::Main),
        ("object A { native: 1 }", Mode::Main),
        ("message A { message: i32, enum: i32 }", Mode::Bson),
        ("message A { object B: i32 }", Mode::Bson),
    ] {
        assert!(!closed_by_item(src, mode), "{src:?} closes nothing early");
    }
}
