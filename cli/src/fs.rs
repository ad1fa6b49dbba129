//! The real disk, as a [`Loader`].

use std::io;
use std::path::Path;

use othc::loader::Loader;

pub struct FsLoader;

impl Loader for FsLoader {
    fn load(&self, path: &Path) -> io::Result<Vec<u8>> {
        if path.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            ));
        }
        othc::loader::read_bounded(std::fs::File::open(path)?)
    }
}
