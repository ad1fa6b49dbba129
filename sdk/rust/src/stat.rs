//! Stat records (book: reference/wire.md): `name[s] kind[1] length[8]
//! type[s] version[8]`, little-endian, `[s]` a u16 byte length then UTF-8.

use crate::payload::Payload;

pub const STAT: &str = "application/x-othismo-stat";
pub const KIND_FILE: u8 = 0;
pub const KIND_DIRECTORY: u8 = 1;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatRecord {
    pub name: String,
    pub kind: u8,
    pub length: i64,
    pub content_type: String,
    pub version: i64,
}

impl StatRecord {
    pub fn is_directory(&self) -> bool {
        self.kind == KIND_DIRECTORY
    }

    pub fn to_payload(&self) -> Payload {
        let mut out = Vec::new();
        put_s(&mut out, &self.name);
        out.push(self.kind);
        out.extend_from_slice(&self.length.to_le_bytes());
        put_s(&mut out, &self.content_type);
        out.extend_from_slice(&self.version.to_le_bytes());
        Payload::new(STAT, out)
    }

    /// The record a payload holds; `None` when it is not one.
    pub fn from_payload(p: &Payload) -> Option<StatRecord> {
        if p.media_type() != STAT {
            return None;
        }
        let mut at = 0;
        let d = &p.data;
        let name = get_s(d, &mut at)?;
        let kind = *d.get(at)?;
        at += 1;
        let length = i64::from_le_bytes(d.get(at..at + 8)?.try_into().ok()?);
        at += 8;
        let content_type = get_s(d, &mut at)?;
        let version = i64::from_le_bytes(d.get(at..at + 8)?.try_into().ok()?);
        Some(StatRecord {
            name,
            kind,
            length,
            content_type,
            version,
        })
    }
}

fn put_s(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u16).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn get_s(d: &[u8], at: &mut usize) -> Option<String> {
    let n = u16::from_le_bytes(d.get(*at..*at + 2)?.try_into().ok()?) as usize;
    *at += 2;
    let s = std::str::from_utf8(d.get(*at..*at + n)?).ok()?.to_string();
    *at += n;
    Some(s)
}
