//! Writing a page: to a file beside it, then renamed over it, so that a browser (or a person
//! reloading a `batch --report` page while the run goes on) never sees half a page.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use crate::input::io_problem;
use crate::output::{Failure, escape_os};

/// Where a page goes, and its name for messages.
#[derive(Debug)]
pub(crate) struct PageFile {
    path: PathBuf,
    name: String,
}

impl PageFile {
    /// The page at `path`.
    pub(crate) fn new(path: &Path) -> PageFile {
        PageFile {
            path: path.to_path_buf(),
            name: escape_os(path.as_os_str()),
        }
    }

    /// Writes `html` as the whole page.
    ///
    /// # Errors
    ///
    /// A write failure naming the page.
    pub(crate) fn write(&self, html: &str) -> Result<(), Failure> {
        let fail = |err: &std::io::Error| {
            Failure::write_failed(format!("{}: cannot write: {}", self.name, io_problem(err)))
        };
        // A path that is not a regular file (/dev/stdout, a pipe) cannot be renamed over.
        let regular = fs::metadata(&self.path).map_or(true, |meta| meta.is_file());
        if !regular {
            return fs::write(&self.path, html).map_err(|err| fail(&err));
        }
        let temporary = self.temporary();
        fs::write(&temporary, html)
            .and_then(|()| fs::rename(&temporary, &self.path))
            .map_err(|err| {
                let _ = fs::remove_file(&temporary);
                fail(&err)
            })
    }

    /// The file written before the rename: hidden, beside the page, one per process.
    fn temporary(&self) -> PathBuf {
        let mut name = OsString::from(".");
        name.push(self.path.file_name().unwrap_or_default());
        name.push(format!(".{}.tmp", std::process::id()));
        self.path.with_file_name(name)
    }
}

/// Writes `html` to `path`.
///
/// # Errors
///
/// A write failure naming the page.
pub(crate) fn write_page(path: &Path, html: &str) -> Result<(), Failure> {
    PageFile::new(path).write(html)
}
