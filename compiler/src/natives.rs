//! The runtime's native objects, described once: their names (as
//! `othismo:env` declares them, `sdk/env/Runtime.oth`) and what the
//! compiler must know of each beyond its header: whether two nodes of a
//! cluster may each run one, and where its startup configuration says the
//! address it listens on. The checker, placement and the runtime ask here;
//! the runtime implements each (`othismo_runtime::natives`).

use crate::model::Verb;

/// A native object of the runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Native {
    Console,
    Files,
    Clock,
    Http,
}

impl Native {
    /// Every native, in the order `othismo:env` declares them.
    pub const ALL: [Native; 4] = [Native::Console, Native::Files, Native::Clock, Native::Http];

    /// The native an object of the runtime's header is, by its name.
    pub fn named(name: &str) -> Option<Native> {
        Native::ALL.into_iter().find(|n| n.name() == name)
    }

    /// Its object's name in `othismo:env`.
    pub fn name(self) -> &'static str {
        match self {
            Native::Console => "Console",
            Native::Files => "Files",
            Native::Clock => "Clock",
            Native::Http => "Http",
        }
    }

    /// Whether two nodes cannot each run one: each would read the one
    /// terminal (Console), or take the one address (Http).
    pub fn one_node_only(self) -> bool {
        matches!(self, Native::Console | Native::Http)
    }

    /// The address an instance of it listens on, from a startup request
    /// to it (`verb path` with payload `bytes`): Http's configuration is
    /// written to `/`, its `listen` field the address.
    pub fn listen_address(self, verb: Verb, path: &str, bytes: &[u8]) -> Option<String> {
        if self != Native::Http || verb != Verb::Write || path != "/" {
            return None;
        }
        let doc = bson::Document::from_reader(bytes).ok()?;
        doc.get_str("listen").ok().map(str::to_string)
    }

    /// An import of every native, as a file that uses them all writes it.
    pub fn import_all() -> String {
        let names: Vec<&str> = Native::ALL.iter().map(|n| n.name()).collect();
        format!("import {{ {} }} from \"othismo:env\"\n", names.join(", "))
    }
}

impl std::fmt::Display for Native {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::Native;

    #[test]
    fn every_native_of_the_runtimes_header_is_described_and_none_else() {
        let headers = crate::header::natives().unwrap();
        let mut declared: Vec<&str> = headers.iter().map(|h| h.object.name.as_str()).collect();
        declared.sort();
        let mut described: Vec<&str> = Native::ALL.iter().map(|n| n.name()).collect();
        described.sort();
        assert_eq!(declared, described);
        for name in declared {
            assert_eq!(Native::named(name).map(Native::name), Some(name));
        }
    }
}
