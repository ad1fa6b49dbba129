//! What can be wrong with a value (a literal, a slot's value), as data
//! (E06xx, and E0514 for a slot with none). The wording is in
//! `to_diagnostic`.

use crate::diagnostics::suggest::closest;
use crate::diagnostics::wording::quote_list;
use crate::diagnostics::{Code, Diagnostic, Label, ToDiagnostic};
use crate::model::Scalar;
use crate::source::FileSpan;

#[derive(Clone, Debug, PartialEq)]
pub enum ValueError {
    /// E0601: a message was expected; `found` says what the literal is.
    NotAMessage {
        expected: String,
        found: String,
        at: FileSpan,
    },
    /// E0601: a literal of the wrong kind for its type.
    Mismatch {
        expected: String,
        found: String,
        at: FileSpan,
    },
    /// E0601: `null` for a required field.
    RequiredNull {
        message: String,
        field: String,
        expected: String,
        at: FileSpan,
    },
    /// E0601: a slot of a content type given something other than a string.
    NotAString { content_type: String, at: FileSpan },
    /// E0601: the encoder refused the value.
    Unencodable {
        format: &'static str,
        reason: String,
        at: FileSpan,
    },
    /// E0602.
    MissingFields {
        message: String,
        missing: Vec<String>,
        at: FileSpan,
    },
    /// E0603.
    UnknownField {
        message: String,
        field: String,
        at: FileSpan,
        fields: Vec<String>,
    },
    /// E0604: `scalar` holds `lo..=hi`.
    OutOfRange {
        value: i128,
        scalar: Scalar,
        at: FileSpan,
    },
    /// E0604: a number beyond what an `f32` holds (it would be infinity).
    F32OutOfRange { value: f64, at: FileSpan },
    /// E0604: a float literal beyond `f64`'s range (it would be infinite).
    F64OutOfRange { at: FileSpan },
    /// E0605.
    UnknownEnumValue {
        enum_: String,
        value: String,
        values: Vec<String>,
        at: FileSpan,
    },
    /// E0606.
    NotATime { text: String, at: FileSpan },
    /// E0607.
    NotAUuid { text: String, at: FileSpan },
    /// E0608: a literal of another message type than the one expected.
    WrongMessageType {
        expected: String,
        found: String,
        at: FileSpan,
    },
    /// E0609: a field (`key: false`) or a map key (`key: true`) twice.
    GivenTwice {
        name: String,
        key: bool,
        at: FileSpan,
        first: FileSpan,
    },
    /// E0610: a value for a slot the image does not have.
    NoSlot {
        name: String,
        at: FileSpan,
        slots: Vec<String>,
    },
    /// E0611.
    AnyWithoutType { at: FileSpan },
    /// E0612.
    NotBase64 { at: FileSpan },
    /// E0514: a slot of the image being run with no value from anywhere.
    SlotWithoutValue {
        slot: String,
        ty: String,
        at: FileSpan,
    },
}

impl ToDiagnostic for ValueError {
    fn to_diagnostic(&self) -> Diagnostic {
        match self {
            ValueError::NotAMessage { expected, found, at } => Diagnostic::new(
                Code::E0601,
                format!("expected a `{expected}` message, found {found}"),
                Label::at(*at, format!("this should be a `{expected} {{ ... }}`")),
            )
            .with_help(format!(
                "write the message with its type before the braces: `{expected} {{ ... }}`"
            )),
            ValueError::Mismatch { expected, found, at } => Diagnostic::new(
                Code::E0601,
                format!("expected {expected}, found {found}"),
                Label::at(*at, format!("expected {expected}")),
            ),
            ValueError::RequiredNull {
                message,
                field,
                expected,
                at,
            } => Diagnostic::new(
                Code::E0601,
                format!("field `{field}` of `{message}` is required and cannot be null"),
                Label::at(*at, format!("expected {expected}")),
            )
            .with_help("`null` is only for optional fields (`name?: T`)"),
            ValueError::NotAString { content_type, at } => Diagnostic::new(
                Code::E0601,
                format!("a `{content_type}` slot takes a string"),
                Label::at(*at, "expected a string"),
            )
            .with_help("write the payload's text in quotes"),
            ValueError::Unencodable { format, reason, at } => Diagnostic::new(
                Code::E0601,
                format!("this value cannot be encoded as `{format}`: {reason}"),
                Label::at(*at, "cannot be encoded"),
            ),
            ValueError::MissingFields {
                message,
                missing,
                at,
            } => {
                let list = quote_list(missing);
                let (noun, verb) = if missing.len() == 1 {
                    ("field", "is")
                } else {
                    ("fields", "are")
                };
                let adds: Vec<String> = missing.iter().map(|m| format!("{m}: ...")).collect();
                Diagnostic::new(
                    Code::E0602,
                    format!("required {noun} {list} of `{message}` {verb} missing"),
                    Label::at(*at, format!("this `{message}` needs {list}")),
                )
                .with_help(format!("add {}", quote_list(&adds)))
            }
            ValueError::UnknownField {
                message,
                field,
                at,
                fields,
            } => {
                let refs: Vec<&str> = fields.iter().map(String::as_str).collect();
                let d = Diagnostic::new(
                    Code::E0603,
                    format!("`{message}` has no field `{field}`"),
                    Label::at(*at, "unknown field"),
                );
                match closest(field, &refs) {
                    Some(near) => d.with_help(format!("did you mean `{near}`?")),
                    None if fields.is_empty() => d.with_help(format!("`{message}` has no fields")),
                    None => d.with_help(format!(
                        "the fields of `{message}`: {}",
                        fields.join(", ")
                    )),
                }
            }
            ValueError::OutOfRange { value, scalar, at } => {
                let (lo, hi) = scalar
                    .int_range()
                    .unwrap_or((i64::MIN.into(), i64::MAX.into()));
                Diagnostic::new(
                    Code::E0604,
                    format!("{value} is out of range for `{}`", scalar.as_str()),
                    Label::at(*at, format!("`{}` holds {lo} to {hi}", scalar.as_str())),
                )
                .with_help(match scalar {
                    Scalar::I64 | Scalar::Time => "this is beyond what BSON can hold",
                    _ => "use a wider type in the schema, or a smaller value",
                })
            }
            ValueError::F32OutOfRange { value, at } => Diagnostic::new(
                Code::E0604,
                format!("{value:e} is out of range for `f32`"),
                Label::at(*at, format!("`f32` holds -{:e} to {:e}", f32::MAX, f32::MAX)),
            )
            .with_help("use `f64` in the schema, or a smaller value"),
            ValueError::F64OutOfRange { at } => Diagnostic::new(
                Code::E0604,
                "this number is out of range for `f64`",
                Label::at(*at, format!("`f64` holds -{:e} to {:e}", f64::MAX, f64::MAX)),
            )
            .with_help("write a smaller value: a larger one would be infinite"),
            ValueError::UnknownEnumValue {
                enum_,
                value,
                values,
                at,
            } => {
                let refs: Vec<&str> = values.iter().map(String::as_str).collect();
                let all = values
                    .iter()
                    .map(|n| format!("\"{n}\""))
                    .collect::<Vec<_>>()
                    .join(", ");
                let d = Diagnostic::new(
                    Code::E0605,
                    format!("`{enum_}` has no value \"{value}\""),
                    Label::at(*at, "unknown enum value"),
                );
                match closest(value, &refs) {
                    Some(near) => d.with_help(format!(
                        "did you mean \"{near}\"? the values of `{enum_}`: {all}"
                    )),
                    None => d.with_help(format!("the values of `{enum_}`: {all}")),
                }
            }
            ValueError::NotATime { text, at } => Diagnostic::new(
                Code::E0606,
                format!("\"{text}\" is not a time"),
                Label::at(*at, "not an RFC 3339 time"),
            )
            .with_help(
                "write it as RFC 3339, \"2026-10-23T12:00:00Z\", or as milliseconds since 1970",
            ),
            ValueError::NotAUuid { text, at } => Diagnostic::new(
                Code::E0607,
                format!("\"{text}\" is not a uuid"),
                Label::at(*at, "not a uuid"),
            )
            .with_help(
                "write it in the 8-4-4-4-12 hex form: \"123e4567-e89b-12d3-a456-426614174000\"",
            ),
            ValueError::WrongMessageType {
                expected,
                found,
                at,
            } => Diagnostic::new(
                Code::E0608,
                format!("expected a `{expected}`, found a `{found}`"),
                Label::at(*at, format!("this must be `{expected}`")),
            )
            .with_help(format!(
                "write `{expected} {{ ... }}`, or leave the type name out where it is known"
            )),
            ValueError::GivenTwice {
                name,
                key,
                at,
                first,
            } => Diagnostic::new(
                Code::E0609,
                format!(
                    "{} `{name}` is given twice",
                    if *key { "key" } else { "field" }
                ),
                Label::at(*at, "given again here"),
            )
            .with_label(Label::at(*first, "first given here"))
            .with_help(if *key {
                "a map holds each key once: remove one of the two"
            } else {
                "remove one of the two"
            }),
            ValueError::NoSlot { name, at, slots } => {
                let refs: Vec<&str> = slots.iter().map(String::as_str).collect();
                let d = Diagnostic::new(
                    Code::E0610,
                    format!("no slot `{name}`"),
                    Label::at(*at, "the image has no slot of this name"),
                );
                match closest(name, &refs) {
                    Some(near) => d.with_help(format!("did you mean `{near}`?")),
                    None if slots.is_empty() => {
                        d.with_help("the image has no slots (`require NAME : TYPE`)")
                    }
                    None => d.with_help(format!("the slots are {}", quote_list(slots))),
                }
            }
            ValueError::AnyWithoutType { at } => Diagnostic::new(
                Code::E0611,
                "a value for an `any` field must name its type",
                Label::at(*at, "which message type is this?"),
            )
            .with_help("write the type before the braces: `Note { text: \"hi\" }`"),
            ValueError::NotBase64 { at } => Diagnostic::new(
                Code::E0612,
                "this string is not base64",
                Label::at(*at, "a `bytes` value is written in base64"),
            )
            .with_help(
                "encode the bytes in standard base64 with padding: \"aGk=\" is the bytes of `hi`",
            ),
            ValueError::SlotWithoutValue { slot, ty, at } => Diagnostic::new(
                Code::E0514,
                format!("slot `{slot}` has no value"),
                Label::at(*at, "no default, and no value file or --set gives one"),
            )
            .with_help(format!(
                "give it a default (`require {slot} : {ty} = ...`), or a value: `--set '{slot}=...'`"
            )),
        }
    }
}
