//! The files settings name (a tokenizer file, a chat template file, a seal key file) are
//! read only when they are regular files: a directory, a FIFO or a device is refused in one
//! line that says what it is, before it is read (or, for a FIFO, before it blocks).

use std::fs::OpenOptions;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use serde_json::{Value, json};

use super::{TEKKEN, read};

/// A FIFO at a fresh path, with a writer that waits for readers: a reader that opened it
/// would read what the writer sends rather than block. Removed when dropped.
struct Fifo {
    path: PathBuf,
    stop: Arc<AtomicBool>,
    writer: Option<JoinHandle<()>>,
}

impl Fifo {
    fn new(name: &str) -> Fifo {
        let path =
            std::env::temp_dir().join(format!("mentor-settings-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(made.success());
        let stop = Arc::new(AtomicBool::new(false));
        let writer = {
            let (path, stop) = (path.clone(), Arc::clone(&stop));
            std::thread::spawn(move || {
                // Open first, then look at the stop: the drop's reader always meets a writer.
                loop {
                    let Ok(mut fifo) = OpenOptions::new().write(true).open(&path) else {
                        return;
                    };
                    // A reader gone already is no matter (Rust ignores SIGPIPE).
                    let _ = fifo.write_all(b"0123456789abcdef0123456789abcdef");
                    if stop.load(Ordering::SeqCst) {
                        return;
                    }
                }
            })
        };
        Fifo {
            path,
            stop,
            writer: Some(writer),
        }
    }

    fn path(&self) -> &str {
        self.path.to_str().unwrap()
    }
}

impl Drop for Fifo {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // The writer waits for a reader: meet it once, so that it sees the stop.
        drop(std::fs::File::open(&self.path));
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The error `value` builds to, as a whole prompt's settings when it has a window.
fn refusal(value: &Value) -> String {
    let settings = read(value);
    let err = if value.get("window").is_some() {
        settings.prompt_assembler().map(|_| ()).unwrap_err()
    } else {
        settings.assembler().map(|_| ()).unwrap_err()
    };
    err.to_string()
}

#[test]
fn files_that_are_not_regular_are_refused_by_what_they_are() {
    let fifo = Fifo::new("not-regular.fifo");
    let dir = std::env::temp_dir();
    let dir = dir.to_str().unwrap();
    let (fifo, device) = (fifo.path(), "/dev/zero");
    let directory = "is a directory, not a file";
    let is_fifo = "is a FIFO (a named pipe), not a regular file";
    let is_device = "is a device, not a regular file";
    for (value, expected) in [
        (
            json!({"budget": 9, "tokenizer_file": device}),
            format!("tokenizer_file: tokenizer file {device}: {is_device}"),
        ),
        (
            json!({"budget": 9, "tokenizer_file": fifo}),
            format!("tokenizer_file: tokenizer file {fifo}: {is_fifo}"),
        ),
        (
            json!({"budget": 9, "tokenizer_file": dir}),
            format!("tokenizer_file: tokenizer file {dir}: {directory}"),
        ),
        (
            json!({"budget": 9, "seal_key_file": fifo}),
            format!("seal_key_file: {fifo}: cannot read: {is_fifo}"),
        ),
        (
            json!({"budget": 9, "seal_key_file": device}),
            format!("seal_key_file: {device}: cannot read: {is_device}"),
        ),
        (
            json!({"budget": 9, "seal_key_file": dir}),
            format!("seal_key_file: {dir}: cannot read: {directory}"),
        ),
        (
            json!({"window": 4096, "chat_template": dir, "tokenizer_file": TEKKEN}),
            format!("chat_template: the chat template {dir}: {directory}"),
        ),
        (
            json!({"window": 4096, "chat_template": device, "tokenizer_file": TEKKEN}),
            format!("chat_template: the chat template {device}: {is_device}"),
        ),
        (
            json!({"window": 4096, "chat_template": fifo, "tokenizer_file": TEKKEN}),
            format!("chat_template: the chat template {fifo}: {is_fifo}"),
        ),
    ] {
        assert_eq!(refusal(&value), expected, "{value}");
    }
}
