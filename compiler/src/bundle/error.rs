//! Why a bundle cannot be made (a fault of what its maker was given) or
//! read (a fault of the file).

use super::FORMAT;

/// Why an image cannot be bundled: the caller passed what a checked and
/// built image would not give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MakeError {
    /// The image did not check: there is no flattened namespace for it.
    NotChecked,
    /// It needs what an enclosing image mounts: only that one is bundled.
    RunsInside,
    /// An instance whose object did not resolve.
    NoObject { instance: String },
    /// An object of the image that is not among the built ones.
    NotBuilt { object: String },
    /// A startup request sends a slot that was given no value.
    SlotWithoutValue { slot: String, image: String },
    /// A startup payload literal that did not check.
    PayloadNotChecked,
    /// `image.json` names a module the caller did not pass.
    NoModule { module: String, instance: String },
    /// A module whose header sections cannot be read back.
    NotAModule { module: String, why: String },
    /// The archive could not be written: what the writer said.
    Archive(String),
}

impl std::fmt::Display for MakeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MakeError::NotChecked => f.write_str("it did not check"),
            MakeError::RunsInside => {
                f.write_str("it needs what the image it runs in mounts: bundle that image")
            }
            MakeError::NoObject { instance } => write!(f, "instance `{instance}` names no object"),
            MakeError::NotBuilt { object } => write!(f, "`{object}` was not built"),
            MakeError::SlotWithoutValue { slot, image } => {
                write!(f, "slot `{slot}` of image `{image}` has no value")
            }
            MakeError::PayloadNotChecked => f.write_str("a startup payload did not check"),
            MakeError::NoModule { module, instance } => {
                write!(f, "no module `{module}` for instance `{instance}`")
            }
            MakeError::NotAModule { module, why } => write!(f, "`{module}`: {why}"),
            MakeError::Archive(why) => write!(f, "cannot write the bundle: {why}"),
        }
    }
}

impl std::error::Error for MakeError {}

/// For the callers that report it among their own faults, in words.
impl From<MakeError> for String {
    fn from(e: MakeError) -> String {
        e.to_string()
    }
}

/// Why a bundle cannot be read: each a fault of the file, worded for
/// whoever holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BundleError {
    /// It does not begin as the tar archive `othc build` writes.
    NotABundle,
    /// It lacks the archive's end: not written or copied whole.
    CutShort,
    /// The archive is damaged inside: what the reader said.
    Damaged(String),
    /// An entry that is not a plain file (a link, a device, sparse).
    NotAFile {
        name: String,
        kind: String,
    },
    /// An entry held twice.
    Twice(String),
    /// `image.json` is not what a bundle's is: what the parser said.
    MalformedJson(String),
    /// Another format than this othc's.
    Format(String),
    NoImageJson,
    /// An instance names a module the bundle does not hold.
    MissingModule {
        instance: String,
        module: String,
    },
    /// An instance gives no hash for its module.
    NoHash {
        instance: String,
        module: String,
    },
    /// A module whose bytes are not what `image.json`'s hash says.
    WrongHash {
        module: String,
    },
}

impl std::fmt::Display for BundleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BundleError::NotABundle => f.write_str(
                "not a bundle: it does not begin as one (the tar archive `othc build` writes, NAME.othimg)",
            ),
            BundleError::CutShort => f.write_str(
                "the bundle is cut short (it lacks the archive's end): it was not written or copied whole; build it again",
            ),
            BundleError::Damaged(e) => write!(f, "the bundle is damaged ({e}); build it again"),
            BundleError::NotAFile { name, kind } => write!(
                f,
                "its entry `{name}` is not a plain file ({kind}): a bundle holds only files"
            ),
            BundleError::Twice(name) => write!(f, "it holds `{name}` twice"),
            BundleError::MalformedJson(e) => write!(f, "its image.json is malformed: {e}"),
            BundleError::Format(format) => write!(f, "its format is `{format}`, not `{FORMAT}`"),
            BundleError::NoImageJson => f.write_str("it has no image.json"),
            BundleError::MissingModule { instance, module } => write!(
                f,
                "instance `{instance}` names `{module}`, which the bundle does not hold"
            ),
            BundleError::NoHash { instance, module } => {
                write!(f, "instance `{instance}` gives no sha256 for `{module}`")
            }
            BundleError::WrongHash { module } => {
                write!(f, "`{module}` does not have the hash image.json gives it")
            }
        }
    }
}

impl std::error::Error for BundleError {}

/// For the callers that report a bundle's fault among their own, in words.
impl From<BundleError> for String {
    fn from(e: BundleError) -> String {
        e.to_string()
    }
}
