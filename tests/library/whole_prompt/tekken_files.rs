//! The Tekken files the whole-prompt reference test renders through the `mistral` template:
//! the ones `mistral-common` ships, and one of them as each later version it reads.
#![cfg(feature = "huggingface")]

use std::path::{Path, PathBuf};

use mentor_context::prompt::ChatTemplate;
use serde_json::{Value, json};

/// The Tekken files `mistral-common` ships (both v3, each required: a missing one fails the
/// test, naming it), any other `tekken_*.json` in `dir`, and one of `tekken_240911.json` as
/// each later version whose format the `mistral` template writes (v7 with the special tokens
/// `mistral-common` gives a file without a list, v11 and v13 with a list as Mistral's files
/// have), written to a folder of this run's.
pub(super) fn tekken_files(dir: &Path) -> Vec<PathBuf> {
    let shipped = ["tekken_240718.json", "tekken_240911.json"];
    for name in shipped {
        let path = dir.join(name);
        assert!(
            path.is_file(),
            "{}: missing (.ci/tokenizer-data extracts mistral-common's Tekken files)",
            path.display()
        );
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("tekken_") && name.ends_with(".json"))
        })
        .collect();
    files.sort();
    let base: Value =
        serde_json::from_slice(&std::fs::read(dir.join(shipped[1])).unwrap()).unwrap();
    let folder = derived_folder();
    std::fs::create_dir_all(&folder).unwrap();
    let mut listed: Vec<String> = [
        "<unk>",
        "<s>",
        "</s>",
        "[INST]",
        "[/INST]",
        "[AVAILABLE_TOOLS]",
        "[/AVAILABLE_TOOLS]",
        "[TOOL_RESULTS]",
        "[/TOOL_RESULTS]",
        "[TOOL_CALLS]",
        "[IMG]",
        "<pad>",
        "[IMG_BREAK]",
        "[IMG_END]",
        "[PREFIX]",
        "[MIDDLE]",
        "[SUFFIX]",
        "[SYSTEM_PROMPT]",
        "[/SYSTEM_PROMPT]",
        "[TOOL_CONTENT]",
    ]
    .map(String::from)
    .into();
    listed.extend((20..32).map(|i| format!("<SPECIAL_{i}>")));
    listed.extend(["[ARGS]", "[CALL_ID]", "[THINK]", "[/THINK]"].map(String::from));
    for version in ["v7", "v11", "v13"] {
        let mut file = base.clone();
        file["config"]["version"] = json!(version);
        if version != "v7" {
            file["special_tokens"] = listed
                .iter()
                .enumerate()
                .map(|(rank, token)| json!({"rank": rank, "token_str": token, "is_control": true}))
                .collect();
        }
        let path = folder.join(format!("tekken_240911_as_{version}.json"));
        std::fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();
        files.push(path);
    }
    files
}

/// A folder removed when the test ends, passed or failed.
pub(super) struct RemovedOnDrop(pub(super) PathBuf);

impl Drop for RemovedOnDrop {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

/// Where this run writes its derived Tekken files.
pub(super) fn derived_folder() -> PathBuf {
    std::env::temp_dir().join(format!("whole-prompt-tekken-{}", std::process::id()))
}

/// The version in a `mistral` template's name (`mistral/tekken-v7@...`).
pub(super) fn tekken_version(template: &ChatTemplate) -> Option<String> {
    let rest = template.name().strip_prefix("mistral/tekken-")?;
    Some(rest.split('@').next()?.to_string())
}
