//! Reading what a compiled module says about itself (book: reference/bundles.md).

/// The first line of every `othismo:header` section.
pub const HEADER_MAGIC: &str = "# othismo header 1";
pub const HEADER_SECTION: &str = "othismo:header";
pub const SCHEMAS_SECTION_PREFIX: &str = "othismo:schemas:";

/// The custom sections of a module: (name, size in bytes), in order.
pub fn custom_sections(bytes: &[u8]) -> Result<Vec<(String, usize)>, String> {
    let mut out = Vec::new();
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        let payload = payload.map_err(|e| format!("it is not a valid WebAssembly module ({e})"))?;
        if let wasmparser::Payload::CustomSection(section) = payload {
            out.push((section.name().to_string(), section.data().len()));
        }
    }
    Ok(out)
}

/// The module's schema blocks, then its header without the magic line: as
/// the source it was built from reads after `othc fmt` (comments aside).
pub fn header_for_reading(bytes: &[u8]) -> Result<String, String> {
    let text = header_source(bytes)?;
    let (header, schemas) = match text.find("\nexport schemas ") {
        Some(i) => (&text[..i + 1], &text[i + 1..]),
        None => (text.as_str(), ""),
    };
    let header = header
        .strip_prefix(HEADER_MAGIC)
        .unwrap_or(header)
        .trim_matches('\n');
    Ok(if schemas.is_empty() {
        format!("{header}\n")
    } else {
        format!("{}\n\n{header}\n", schemas.trim_end_matches('\n'))
    })
}

/// The module's header followed by its schema blocks, as one `.oth` text.
pub fn header_source(bytes: &[u8]) -> Result<String, String> {
    let mut header: Option<String> = None;
    let mut schemas = Vec::new();
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        let payload = payload.map_err(|e| format!("it is not a valid WebAssembly module ({e})"))?;
        if let wasmparser::Payload::CustomSection(section) = payload {
            let name = section.name();
            if name == HEADER_SECTION || name.starts_with(SCHEMAS_SECTION_PREFIX) {
                let text = std::str::from_utf8(section.data())
                    .map_err(|_| format!("its `{name}` section is not UTF-8"))?
                    .to_string();
                if name == HEADER_SECTION {
                    header = Some(text);
                } else {
                    schemas.push(text);
                }
            }
        }
    }
    let header = header.ok_or_else(|| {
        format!("it has no `{HEADER_SECTION}` section (was it built with `othc build`?)")
    })?;
    if !header.starts_with(HEADER_MAGIC) {
        return Err(format!(
            "its `{HEADER_SECTION}` section does not start with `{HEADER_MAGIC}`"
        ));
    }
    let mut text = header;
    for s in schemas {
        text.push('\n');
        text.push_str(&s);
    }
    Ok(text)
}

/// A module of nothing but custom sections (name, text): what a header
/// is read from, for tests and fuzzing of everything that reads one.
pub fn module_with_sections(sections: &[(&str, &str)]) -> Vec<u8> {
    let mut out = wasm_encoder::Module::new();
    for (name, text) in sections {
        out.section(&wasm_encoder::CustomSection {
            name: (*name).into(),
            data: text.as_bytes().into(),
        });
    }
    out.finish()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn reads_header_and_schemas() {
        let m = module_with_sections(&[
            ("name", "x"),
            (HEADER_SECTION, "# othismo header 1\nexport object A { }"),
            (
                "othismo:schemas:application/bson",
                "export schemas application/bson { }",
            ),
        ]);
        let text = header_source(&m).unwrap();
        assert!(text.starts_with(HEADER_MAGIC));
        assert!(text.ends_with("export schemas application/bson { }"));
    }

    #[test]
    fn refuses_modules_without_header() {
        let m = module_with_sections(&[("name", "x")]);
        assert!(
            header_source(&m)
                .unwrap_err()
                .contains("no `othismo:header`")
        );
        let m = module_with_sections(&[(HEADER_SECTION, "object A {}")]);
        assert!(header_source(&m).unwrap_err().contains("does not start"));
        assert!(
            header_source(b"\0asm\x02")
                .unwrap_err()
                .contains("not a valid")
        );
    }
}
