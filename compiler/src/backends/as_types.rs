//! Type mapping for AssemblyScript: schema types to AS types, and the
//! statements and expressions that write and read them with the SDK's BSON
//! codec. Lists and maps get helper functions, named once per shape.

use foldhash::HashMap;

use crate::asnames;
use crate::model::{FieldType, Model, Scalar, TypeKind};

/// Helper functions for composite types, emitted once each at the end of a file.
#[derive(Default)]
pub struct Helpers {
    /// Schema shape → helper number. Keyed by the schema's type, not the AS
    /// type: `[time]` and `[i64]` are both `Array<i64>` in AS but are read
    /// and written as different BSON types.
    by_shape: HashMap<FieldType, usize>,
    pub code: Vec<String>,
}

/// The AS type of a field type.
pub fn as_type(model: &Model, t: &FieldType) -> String {
    let mut out = String::new();
    push_as_type(&mut out, model, t);
    out
}

/// Appends `as_type(model, t)` to `out` (as the `push_` functions below
/// do: a message class is written field by field into one buffer).
pub fn push_as_type(out: &mut String, model: &Model, t: &FieldType) {
    match t {
        FieldType::Scalar(s) => out.push_str(match s {
            Scalar::Bool => "bool",
            Scalar::String => "string",
            Scalar::Bytes => "ArrayBuffer",
            Scalar::I8 => "i8",
            Scalar::I16 => "i16",
            Scalar::I32 => "i32",
            Scalar::I64 => "i64",
            Scalar::U8 => "u8",
            Scalar::U16 => "u16",
            Scalar::U32 => "u32",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
            Scalar::Time => "i64",
            Scalar::Uuid => "Uuid",
        }),
        FieldType::Any | FieldType::Unknown => out.push_str("bson.Message"),
        FieldType::Named(id) => asnames::push_identifier(out, &model.ty(*id).name),
        FieldType::List(i) => {
            out.push_str("Array<");
            push_as_type(out, model, i);
            out.push('>');
        }
        FieldType::Map(i) => {
            out.push_str("Map<string, ");
            push_as_type(out, model, i);
            out.push('>');
        }
    }
}

/// A class or enum name for a schema type name.
pub fn type_name(name: &str) -> String {
    asnames::identifier(name)
}

/// Whether values of the type can be null in AS (reference types).
pub fn nullable(model: &Model, t: &FieldType) -> bool {
    match t {
        FieldType::Scalar(s) => matches!(s, Scalar::String | Scalar::Bytes | Scalar::Uuid),
        FieldType::Named(id) => matches!(model.ty(*id).kind, TypeKind::Message { .. }),
        _ => true,
    }
}

/// Appends the AS type of a field, optional ones included (`Box<T> | null`,
/// `T | null`).
pub fn push_field_type(out: &mut String, model: &Model, t: &FieldType, optional: bool) {
    let boxed = optional && !nullable(model, t);
    if boxed {
        out.push_str("Box<");
    }
    push_as_type(out, model, t);
    match (optional, boxed) {
        (false, _) => {}
        (true, true) => out.push_str("> | null"),
        (true, false) => out.push_str(" | null"),
    }
}

/// Appends the value a required field starts with.
pub fn push_default_value(out: &mut String, model: &Model, t: &FieldType) {
    match t {
        FieldType::Scalar(Scalar::Bool) => out.push_str("false"),
        FieldType::Scalar(Scalar::String) => out.push_str("\"\""),
        // The SDK's one empty buffer: it has no bytes to change, so every
        // message made may start with it.
        FieldType::Scalar(Scalar::Bytes) => out.push_str("bson.NO_BYTES"),
        FieldType::Scalar(Scalar::Uuid) => out.push_str("new Uuid()"),
        FieldType::Scalar(_) => out.push('0'),
        FieldType::Any | FieldType::Unknown => {
            out.push_str("new bson.Unknown(\"\", bson.NO_BYTES)")
        }
        FieldType::Named(id) => {
            let def = model.ty(*id);
            match &def.kind {
                TypeKind::Message { .. } => {
                    out.push_str("new ");
                    asnames::push_identifier(out, &def.name);
                    out.push_str("()");
                }
                TypeKind::Enum { values } => match values.first() {
                    Some(v) => {
                        asnames::push_identifier(out, &def.name);
                        out.push('.');
                        asnames::push_identifier(out, &v.name);
                    }
                    None => out.push('0'),
                },
            }
        }
        FieldType::List(_) | FieldType::Map(_) => {
            out.push_str("new ");
            push_as_type(out, model, t);
            out.push_str("()");
        }
    }
}

/// The AS string literal of `s`.
pub fn string_literal(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Helpers {
    /// The statement that writes `value` (of type `t`) under `key` (an AS
    /// expression: a string literal, or `null` for the next array element).
    pub fn write(&mut self, model: &Model, t: &FieldType, key: &str, value: &str) -> String {
        match t {
            FieldType::Scalar(s) => match s {
                Scalar::Bool => format!("w.bool({key}, {value})"),
                Scalar::String => format!("w.string({key}, {value})"),
                Scalar::Bytes => format!("w.binary({key}, {value}, 0)"),
                // Widened to the wire's type where the field's is narrower;
                // written as it is where they are the same.
                Scalar::I32 => format!("w.int32({key}, {value})"),
                Scalar::I8 | Scalar::I16 | Scalar::U8 | Scalar::U16 => {
                    format!("w.int32({key}, <i32>{value})")
                }
                Scalar::I64 => format!("w.int64({key}, {value})"),
                Scalar::U32 => format!("w.int64({key}, <i64>{value})"),
                Scalar::F64 => format!("w.double({key}, {value})"),
                Scalar::F32 => format!("w.double({key}, <f64>{value})"),
                Scalar::Time => format!("w.datetime({key}, {value})"),
                Scalar::Uuid => format!("w.uuid({key}, {value})"),
            },
            FieldType::Any | FieldType::Unknown => format!("{value}.writeAsAny(w, {key})"),
            FieldType::Named(id) => {
                let def = model.ty(*id);
                let name = type_name(&def.name);
                match def.kind {
                    TypeKind::Enum { .. } => format!("w.string({key}, nameOf{name}({value}))"),
                    TypeKind::Message { .. } => format!("{value}.writeEmbedded(w, {key})"),
                }
            }
            FieldType::List(_) | FieldType::Map(_) => {
                let n = self.helper(model, t);
                format!("__write{n}(w, {key}, changetype<usize>({value}))")
            }
        }
    }

    /// The expression that reads the current element of reader `r` as `t`.
    pub fn read(&mut self, model: &Model, t: &FieldType, r: &str) -> String {
        match t {
            FieldType::Scalar(s) => match s {
                Scalar::Bool => format!("{r}.bool()"),
                Scalar::String => format!("{r}.string()"),
                Scalar::Bytes => format!("{r}.binary(0)"),
                Scalar::I8 => format!("{r}.int8()"),
                Scalar::I16 => format!("{r}.int16()"),
                Scalar::I32 => format!("{r}.int32()"),
                Scalar::I64 => format!("{r}.int64()"),
                Scalar::U8 => format!("{r}.uint8()"),
                Scalar::U16 => format!("{r}.uint16()"),
                Scalar::U32 => format!("{r}.uint32()"),
                Scalar::F32 => format!("<f32>{r}.double()"),
                Scalar::F64 => format!("{r}.double()"),
                Scalar::Time => format!("{r}.datetime()"),
                Scalar::Uuid => format!("{r}.uuid()"),
            },
            FieldType::Any | FieldType::Unknown => format!("{r}.anyMessage()"),
            FieldType::Named(id) => {
                let def = model.ty(*id);
                let name = type_name(&def.name);
                match def.kind {
                    TypeKind::Enum { .. } => format!("<{name}>bson.readEnum({r}, parse{name})"),
                    TypeKind::Message { .. } => format!("bson.readMessage<{name}>({r})"),
                }
            }
            FieldType::List(_) | FieldType::Map(_) => {
                let n = self.helper(model, t);
                format!("changetype<{}>(__read{n}({r}))", as_type(model, t))
            }
        }
    }

    /// Appends the type of a field in its class's shape descriptor (the
    /// SDK's `shape.ts` reads it): a letter for a scalar, `@Name` a
    /// message, `%Name` an enum, `#n` the n-th list or map helper; `?`
    /// before it when optional. Whether it names a helper (`add` has added
    /// the field's).
    pub fn push_descriptor(
        &self,
        out: &mut String,
        model: &Model,
        t: &FieldType,
        optional: bool,
    ) -> bool {
        if optional {
            out.push('?');
        }
        match t {
            FieldType::Scalar(s) => out.push(match s {
                Scalar::Bool => 'b',
                Scalar::String => 's',
                Scalar::Bytes => 'y',
                Scalar::I8 => '1',
                Scalar::I16 => '2',
                Scalar::I32 => 'i',
                Scalar::I64 => 'l',
                Scalar::U8 => '3',
                Scalar::U16 => '4',
                Scalar::U32 => 'u',
                Scalar::F32 => 'f',
                Scalar::F64 => 'd',
                Scalar::Time => 't',
                Scalar::Uuid => 'g',
            }),
            FieldType::Any | FieldType::Unknown => out.push('a'),
            FieldType::Named(id) => {
                let def = model.ty(*id);
                out.push(match def.kind {
                    TypeKind::Enum { .. } => '%',
                    TypeKind::Message { .. } => '@',
                });
                out.push_str(&def.name);
            }
            FieldType::List(_) | FieldType::Map(_) => {
                use std::fmt::Write as _;
                let n = self.by_shape.get(t);
                let _ = write!(out, "#{}", n.expect("a field's helpers are added first"));
                return true;
            }
        }
        false
    }

    /// Adds the helpers a field of type `t` is read and written by, if it
    /// is a list or map (and those of its items): the helpers are numbered
    /// in the order they are added, which is the order of the text.
    pub fn add(&mut self, model: &Model, t: &FieldType) {
        if matches!(t, FieldType::List(_) | FieldType::Map(_)) {
            self.helper(model, t);
        }
    }

    /// How many helper pairs there are.
    pub fn count(&self) -> usize {
        self.by_shape.len()
    }

    /// The number of the reader/writer helper pair of a list or map type.
    fn helper(&mut self, model: &Model, t: &FieldType) -> usize {
        if let Some(&n) = self.by_shape.get(t) {
            return n;
        }
        let n = self.by_shape.len();
        self.by_shape.insert(t.clone(), n);
        let ty = as_type(model, t);
        let code = match t {
            FieldType::List(inner) => {
                let item = as_type(model, inner);
                let read = self.read(model, inner, "a");
                // Values are read unchecked (`i` is below `v.length`, and
                // writing runs no code that could shorten `v`); references
                // checked, so a hole in an array made with a length aborts
                // with AssemblyScript's message rather than reading at 0.
                let element = if !nullable(model, inner) {
                    "unchecked(v[i])"
                } else {
                    "v[i]"
                };
                let write = self.write(model, inner, "null", element);
                format!(
                    "function __read{n}(r: bson.BsonReader): usize {{\n  const a = r.lendDocument()\n  const out = new {ty}()\n  if (r.type != bson.ARRAY) r.fail()\n  else {{\n    while (a.next()) {{\n      const x: {item} = {read}\n      out.push(x)\n    }}\n    if (!a.ok) r.fail()\n  }}\n  bson.giveBack(a)\n  return changetype<usize>(out)\n}}\n\nfunction __write{n}(w: bson.BsonWriter, key: string | null, p: usize): void {{\n  const v = changetype<{ty}>(p)\n  w.startArray(key)\n  for (let i = 0; i < v.length; i++) {{\n    {write}\n  }}\n  w.end()\n}}\n"
                )
            }
            FieldType::Map(inner) => {
                let item = as_type(model, inner);
                let read = self.read(model, inner, "d");
                let write = self.write(
                    model,
                    inner,
                    "k",
                    &format!("bson.entryValue<string, {item}>(e)"),
                );
                format!(
                    "function __read{n}(r: bson.BsonReader): usize {{\n  const d = r.lendDocument()\n  const out = new {ty}()\n  if (r.type != bson.DOCUMENT) r.fail()\n  else {{\n    while (d.next()) {{\n      const k = d.key\n      const x: {item} = {read}\n      out.set(k, x)\n    }}\n    if (!d.ok) r.fail()\n  }}\n  bson.giveBack(d)\n  return changetype<usize>(out)\n}}\n\nfunction __write{n}(w: bson.BsonWriter, key: string | null, p: usize): void {{\n  const v = changetype<{ty}>(p)\n  w.startDocument(key)\n  const slots = bson.mapSlots(v)\n  for (let i = 0; i < slots; i++) {{\n    const e = bson.mapEntry(v, i)\n    if (e == 0) continue\n    const k = bson.entryKey<string, {item}>(e)\n    {write}\n  }}\n  w.end()\n}}\n"
                )
            }
            _ => unreachable!("helpers are for lists and maps"),
        };
        self.code.push(code);
        n
    }
}
