//! Reading a file whole: a regular file only, and never more than a cap.
//!
//! Every file the library reads (a tokenizer file, a chat template file, a seal key file) and
//! every file the command reads whole comes through here. A path such as `/dev/zero` would
//! otherwise be read until memory runs out, a directory would say "no such file" or an
//! operating system's error, and a FIFO would block its reader (a service, before it
//! listens) until a writer came. So the kind is checked before the file is opened, again on
//! the file opened, and a file is read for at most its cap and one byte more.
//!
//! The caps are far above any real file of each kind, so that only a mistaken path meets
//! one; `ARCHITECTURE.md` ("Limits") lists them.

use std::fmt;
use std::fs::{File, FileType, Metadata};
use std::io::{self, Read};
use std::path::Path;

/// The most bytes a file of one kind is read for, and what the kind is called in the
/// refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileCap {
    /// The most bytes read.
    pub(crate) bytes: u64,
    /// The kind of file, with its article, as a refusal names it: "a tokenizer file".
    pub(crate) what: &'static str,
}

/// A tokenizer file (`tokenizer.json`, a Tekken file): the largest real ones are tens of
/// megabytes (Gemma 3's `tokenizer.json` is 33 MB, Tekken's 19 MB).
pub(crate) const TOKENIZER_FILE: FileCap = FileCap {
    bytes: 256 << 20,
    what: "a tokenizer file",
};

/// A chat template file (`tokenizer_config.json`, `chat_template.jinja`): Gemma 3's
/// `tokenizer_config.json`, with its added tokens, is 1.2 MB; a template is a few kilobytes.
#[cfg(feature = "huggingface")]
pub(crate) const TEMPLATE_FILE: FileCap = FileCap {
    bytes: 64 << 20,
    what: "a chat template file",
};

/// A seal key file: a key is a few dozen bytes.
pub(crate) const SEAL_KEY_FILE: FileCap = FileCap {
    bytes: 4096,
    what: "a seal key file",
};

impl fmt::Display for FileCap {
    /// The cap in the largest binary unit that says it exactly: `256 MiB`, `4 KiB`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bytes = self.bytes;
        for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] {
            if bytes >= 1 << shift && bytes.trailing_zeros() >= shift {
                return write!(f, "{} {unit}", bytes >> shift);
            }
        }
        write!(f, "{bytes} bytes")
    }
}

/// All the bytes of the file at `path`, when it is a regular file (or a link to one) of at
/// most `cap` bytes.
///
/// # Errors
///
/// The error opening or reading it; an [`io::ErrorKind::IsADirectory`] or
/// [`io::ErrorKind::InvalidInput`] error for a directory, a FIFO, a device or a socket, and
/// an [`io::ErrorKind::FileTooLarge`] one past the cap, each saying so in one line.
pub(crate) fn read_file(path: &Path, cap: FileCap) -> io::Result<Vec<u8>> {
    let (file, len) = open_regular(path)?;
    if len > cap.bytes {
        return Err(too_large(cap));
    }
    let expected = usize::try_from(len).unwrap_or(0);
    read_capped_into(file, cap, Vec::with_capacity(expected))
}

/// The first `n` bytes of the regular file at `path` (all of it when it is shorter).
///
/// # Errors
///
/// As [`read_file`], but for the cap.
pub(crate) fn read_head(path: &Path, n: u64) -> io::Result<Vec<u8>> {
    let (file, _) = open_regular(path)?;
    let mut head = Vec::new();
    file.take(n).read_to_end(&mut head)?;
    Ok(head)
}

/// The regular file at `path`, opened, with its size.
///
/// # Errors
///
/// As [`read_file`], but for the cap.
pub(crate) fn open_regular(path: &Path) -> io::Result<(File, u64)> {
    // Opening a FIFO waits for a writer, so its kind is looked at first.
    regular(&std::fs::metadata(path)?)?;
    let file = File::open(path)?;
    // The path may name another file now than when it was looked at.
    let metadata = file.metadata()?;
    regular(&metadata)?;
    Ok((file, metadata.len()))
}

/// All the bytes of `reader` (standard input), when they are at most `cap`.
///
/// # Errors
///
/// The error reading it, and an [`io::ErrorKind::FileTooLarge`] error past the cap.
#[cfg(any(test, feature = "unstable_machinery"))]
pub(crate) fn read_capped(reader: impl Read, cap: FileCap) -> io::Result<Vec<u8>> {
    read_capped_into(reader, cap, Vec::new())
}

fn read_capped_into(reader: impl Read, cap: FileCap, mut bytes: Vec<u8>) -> io::Result<Vec<u8>> {
    // One byte past the cap tells a file that is larger from one that is exactly as large
    // (a file can grow after its size was looked at).
    reader
        .take(cap.bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap.bytes {
        return Err(too_large(cap));
    }
    Ok(bytes)
}

/// Refuses what is not a regular file, naming what it is.
pub(crate) fn regular(metadata: &Metadata) -> io::Result<()> {
    let kind = metadata.file_type();
    if kind.is_file() {
        return Ok(());
    }
    if kind.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory, not a file",
        ));
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("is {}, not a regular file", special(kind)),
    ))
}

/// What a file that is neither regular nor a directory is.
fn special(kind: FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO (a named pipe)";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    let _ = kind;
    "a special file"
}

fn too_large(cap: FileCap) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!("larger than {cap}, the most read for {}", cap.what),
    )
}

/// A read error in a few lowercase words, without the "(os error 2)" that says nothing more:
/// what the refusals of this module say, as they say it.
pub(crate) fn describe(err: &io::Error) -> String {
    match err.kind() {
        // An error of this module, or of the system, that carries its own words.
        _ if err.raw_os_error().is_none() && err.get_ref().is_some() => err.to_string(),
        io::ErrorKind::NotFound => "no such file".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        io::ErrorKind::IsADirectory => "is a directory, not a file".to_string(),
        _ => err.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: FileCap = FileCap {
        bytes: 8,
        what: "a test file",
    };

    fn temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("mentor-read-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn a_file_up_to_the_cap_is_read_and_one_byte_more_is_refused() {
        let at_cap = temp("at-cap", b"12345678");
        assert_eq!(read_file(&at_cap, SMALL).unwrap(), b"12345678");
        let over = temp("over", b"123456789");
        let err = read_file(&over, SMALL).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(
            describe(&err),
            "larger than 8 bytes, the most read for a test file"
        );
        // A stream has no size to look at first: the cap is met while reading.
        assert_eq!(read_capped(&b"12345678"[..], SMALL).unwrap().len(), 8);
        let err = read_capped(&b"123456789"[..], SMALL).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::FileTooLarge);
    }

    #[test]
    fn an_endless_stream_stops_one_byte_past_the_cap() {
        let mut zeros = io::repeat(0).take(1 << 30);
        let err = read_capped(&mut zeros, SMALL).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::FileTooLarge);
        // What is left unread bounds what was read.
        assert_eq!(zeros.limit(), (1 << 30) - 9);
    }

    #[test]
    fn a_directory_is_refused_by_name() {
        let err = read_file(&std::env::temp_dir(), SMALL).unwrap_err();
        assert_eq!(describe(&err), "is a directory, not a file");
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_refused_before_they_are_read() {
        // Read, /dev/zero would fill the cap and be called too large.
        let err = read_file(Path::new("/dev/zero"), TOKENIZER_FILE).unwrap_err();
        assert_eq!(describe(&err), "is a device, not a regular file");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let path = temp("fifo-dir-marker", b"").with_file_name("fifo");
        let _ = std::fs::remove_file(&path);
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(made.success());
        // A writer waits for a reader: if the FIFO were opened and read, it would read what
        // this writer sends instead of blocking.
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                use std::io::Write;
                let mut fifo = std::fs::OpenOptions::new().write(true).open(path)?;
                fifo.write_all(b"1234")
            })
        };
        let read = read_file(&path, SMALL);
        // Meet the writer if the read did not, so that it ends.
        if read.is_err() {
            drop(File::open(&path).unwrap());
        }
        let _ = writer.join().unwrap();
        std::fs::remove_file(&path).unwrap();
        let err = read.unwrap_err();
        assert_eq!(
            describe(&err),
            "is a FIFO (a named pipe), not a regular file"
        );
    }

    #[test]
    fn a_missing_file_is_said_in_words() {
        let err = read_file(Path::new("/no/such/file"), SMALL).unwrap_err();
        assert_eq!(describe(&err), "no such file");
    }

    #[test]
    fn caps_are_said_in_the_unit_that_says_them_exactly() {
        let said = |bytes| FileCap { bytes, what: "" }.to_string();
        assert_eq!(said(256 << 20), "256 MiB");
        assert_eq!(said(1 << 30), "1 GiB");
        assert_eq!(said(4096), "4 KiB");
        assert_eq!(said(1000), "1000 bytes");
        assert_eq!(said((1 << 20) + 1024), "1025 KiB");
    }
}
