//! What can be wrong with a schema block's types, as data: in one block
//! (E0301-E0303, E0306-E0308, W0002) and across an image's types (E0304,
//! E0305). The wording is in `to_diagnostic`.

use crate::diagnostics::suggest::closest;
use crate::diagnostics::{Code, Diagnostic, Label, ToDiagnostic};
use crate::model::Scalar;
use crate::source::FileSpan;

#[derive(Clone, Debug, PartialEq)]
pub enum SchemaError {
    /// E0301.
    FieldTwice {
        message: String,
        field: String,
        at: FileSpan,
        first: FileSpan,
    },
    /// E0302.
    ValueTwice {
        enum_: String,
        value: String,
        at: FileSpan,
        first: FileSpan,
    },
    /// E0303: a field type no message type or enum in scope has.
    UnknownType {
        name: String,
        at: FileSpan,
        candidates: crate::diagnostics::suggest::Candidates,
    },
    /// E0306: a lower-case type name that is not one of the BSON scalars.
    UnsupportedScalar { name: String, at: FileSpan },
    /// E0307.
    DollarField { field: String, at: FileSpan },
    /// E0308.
    EmptyEnum { name: String, at: FileSpan },
    /// W0002: a type name not in PascalCase; `what` is "message type" or
    /// "enum", `fix` the name to use.
    TypeStyle {
        what: &'static str,
        name: String,
        at: FileSpan,
        fix: String,
    },
    /// W0002: a field name neither camelCase nor snake_case.
    FieldStyle {
        name: String,
        at: FileSpan,
        fix: String,
    },
    /// E0305: a cycle of required fields; `chain` names the types from the
    /// start back to it, `required` is each required field on the way
    /// (its span, `Type.field`).
    Unbuildable {
        name: String,
        at: FileSpan,
        chain: Vec<String>,
        required: Vec<(FileSpan, String)>,
    },
    /// E0304: two declarations of one type name an image uses, different.
    Disagree {
        name: String,
        at: FileSpan,
        file: String,
        first: FileSpan,
        first_file: String,
        differences: Vec<String>,
        image: String,
        image_at: FileSpan,
    },
}

impl ToDiagnostic for SchemaError {
    fn to_diagnostic(&self) -> Diagnostic {
        match self {
            SchemaError::FieldTwice {
                message,
                field,
                at,
                first,
            } => Diagnostic::new(
                Code::E0301,
                format!("field `{field}` is declared twice in `{message}`"),
                Label::at(*at, "declared again here"),
            )
            .with_label(Label::at(*first, "first declared here"))
            .with_help("rename or remove one of the two fields"),
            SchemaError::ValueTwice {
                enum_,
                value,
                at,
                first,
            } => Diagnostic::new(
                Code::E0302,
                format!("value `{value}` is listed twice in enum `{enum_}`"),
                Label::at(*at, "listed again here"),
            )
            .with_label(Label::at(*first, "first listed here"))
            .with_help("remove one of the two"),
            SchemaError::UnknownType {
                name,
                at,
                candidates,
            } => {
                let refs: Vec<&str> = candidates.iter().map(String::as_str).collect();
                let d = Diagnostic::new(
                    Code::E0303,
                    format!("unknown type `{name}`"),
                    Label::at(*at, "no message type or enum of this name is in scope"),
                )
                .about("field type", name);
                match closest(name, &refs) {
                    Some(near) => d.with_help(format!("did you mean `{near}`?")),
                    None => d.with_help(format!(
                        "declare `{name}` in a schemas block, or import it: `import {{ {name} }} from \"file.oth\"`"
                    )),
                }
            }
            SchemaError::UnsupportedScalar { name, at } => Diagnostic::new(
                Code::E0306,
                format!("the BSON format has no type `{name}`"),
                Label::at(*at, "not a BSON type"),
            )
            .about("scalar", name)
            .with_help(scalar_hint(name)),
            SchemaError::DollarField { field, at } => Diagnostic::new(
                Code::E0307,
                format!("field name `{field}` starts with `$`"),
                Label::at(*at, "names starting with `$` belong to the wire"),
            )
            .with_help(format!(
                "`$type` is written by the format itself; rename the field (e.g. `{}`)",
                field.trim_start_matches('$')
            )),
            SchemaError::EmptyEnum { name, at } => Diagnostic::new(
                Code::E0308,
                format!("enum `{name}` has no values"),
                Label::at(*at, "no value of this enum can be written"),
            )
            .with_help("list its values: `enum Style { plain, shouted }`"),
            SchemaError::TypeStyle { what, name, at, fix } => Diagnostic::new(
                Code::W0002,
                format!("{what} `{name}` is not written in PascalCase"),
                Label::at(*at, "type names are PascalCase"),
            )
            .with_help(format!("call it `{fix}`")),
            SchemaError::FieldStyle { name, at, fix } => Diagnostic::new(
                Code::W0002,
                format!("field `{name}` is neither camelCase nor snake_case"),
                Label::at(*at, "field names start with a lower-case letter"),
            )
            .with_help(format!("call it `{fix}`")),
            SchemaError::Unbuildable {
                name,
                at,
                chain,
                required,
            } => {
                let mut d = Diagnostic::new(
                    Code::E0305,
                    format!("`{name}` can never be built: {}", chain.join(" → ")),
                    Label::at(*at, "every value of this type would contain another one"),
                );
                for (f, field) in required {
                    d = d.with_label(Label::at(*f, format!("`{field}` is required")));
                }
                d.with_help(
                    "make one field of the cycle optional (`name?: T`), or a list `[T]`, to end the chain",
                )
            }
            SchemaError::Disagree {
                name,
                at,
                file,
                first,
                first_file,
                differences,
                image,
                image_at,
            } => Diagnostic::new(
                Code::E0304,
                format!(
                    "two declarations of `{name}` disagree: {}",
                    differences.join("; ")
                ),
                Label::at(*at, format!("the second `{name}` ({file})")),
            )
            .with_label(Label::at(*first, format!("the first `{name}` ({first_file})")))
            .with_label(Label::at(*image_at, format!("image `{image}` uses both")))
            .with_help(format!(
                "a type is its name and its exact fields: make the two declarations of `{name}` the same, or rename one"
            )),
        }
    }
}

/// What to write instead of a scalar the BSON format does not have.
fn scalar_hint(n: &str) -> String {
    match n {
        "u64" | "usize" | "u128" | "i128" | "int" | "long" | "integer" => {
            "BSON integers are at most 64-bit signed: use `i64`".to_string()
        }
        "float" | "double" | "number" => "use `f64` (or `f32`)".to_string(),
        "str" | "text" => "use `string`".to_string(),
        "boolean" => "use `bool`".to_string(),
        "date" | "datetime" | "timestamp" => "use `time`".to_string(),
        _ => {
            let scalars: Vec<&str> = Scalar::ALL
                .iter()
                .map(|s| s.as_str())
                .chain(["any"])
                .collect();
            match closest(n, &scalars) {
                Some(near) => format!("did you mean `{near}`?"),
                None => format!("the BSON format's scalars: {}", scalars.join(", ")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_hints_name_the_bson_type() {
        assert!(scalar_hint("u64").contains("`i64`"));
        assert_eq!(scalar_hint("strng"), "did you mean `string`?");
        assert!(scalar_hint("zzzzzzzz").starts_with("the BSON format's scalars: "));
    }
}
