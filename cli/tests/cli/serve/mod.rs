//! `serve`: the real binary on a free loopback port, called with curl. Its answers are the
//! command's bytes; every error is a problem document with its status; SIGTERM answers the
//! requests in flight and exits 0.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use super::*;

mod edges;
mod limits;
mod requests;
mod template_errors;
mod timeouts;
mod tool_result;

/// A running service, stopped when dropped.
pub(super) struct Service {
    pub(super) child: Child,
    pub(super) address: String,
    /// Its standard error after the first line, read as the service goes.
    pub(super) log: std::sync::mpsc::Receiver<String>,
    /// The configuration file it was started with, kept as long as it runs.
    config: Option<TempFile>,
}

impl Service {
    /// Starts `serve --listen 127.0.0.1:0` with `args`, and waits for the line that says where
    /// it listens.
    pub(super) fn start(args: &[&str]) -> Service {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mentor-context"));
        command
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args);
        Service::start_command(command)
    }

    /// Starts `command`, which runs `serve --listen 127.0.0.1:0` (perhaps through another
    /// program that executes it), and waits for the line that says where it listens.
    pub(super) fn start_command(mut command: Command) -> Service {
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let first = lines.next().and_then(Result::ok).unwrap_or_default();
        let address = first
            .split("listening on http://")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .to_string();
        let (sender, log) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                let _ = sender.send(line);
            }
        });
        Service {
            child,
            address,
            log,
            config: None,
        }
    }

    /// Starts the service with the configuration file `toml`.
    pub(super) fn configured(toml: &[u8]) -> Service {
        let config = TempFile::new("serve.toml", toml);
        let mut service = Service::start(&["--config", config.path()]);
        service.config = Some(config);
        service
    }

    pub(super) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// SIGTERM, then the exit status.
    pub(super) fn stop(mut self) -> Option<i32> {
        terminate(&self.child);
        let status = self.child.wait().expect("the service exits");
        status.code()
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(super) fn terminate(child: &Child) {
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
}

/// What curl got: the status, the content type, the body.
#[derive(Debug)]
pub(super) struct Answer {
    pub(super) status: u16,
    pub(super) content_type: String,
    pub(super) body: String,
}

impl Answer {
    /// The problem document of an error, checked for its status and code.
    #[track_caller]
    pub(super) fn problem(&self, status: u16, code: &str) -> Value {
        assert_eq!(self.status, status, "{self:#?}");
        assert_eq!(self.content_type, "application/problem+json", "{self:#?}");
        let problem: Value = serde_json::from_str(&self.body).expect("a problem is JSON");
        assert_eq!(problem["status"], status, "{problem}");
        assert_eq!(problem["code"], code, "{problem}");
        assert_eq!(problem["type"], "about:blank");
        problem
    }
}

/// curl with `args`, through a real HTTP client.
pub(super) fn curl(args: &[&str]) -> Answer {
    let out = Command::new("curl")
        .args([
            "-sS",
            "--max-time",
            "30",
            "-w",
            "\n%{http_code} %{content_type}",
        ])
        .args(args)
        .output()
        .expect("curl runs");
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let (body, tail) = text.rsplit_once('\n').expect("curl's trailer");
    let (status, content_type) = tail.split_once(' ').unwrap_or((tail, ""));
    Answer {
        status: status.parse().unwrap_or(0),
        content_type: content_type.to_string(),
        body: body.to_string(),
    }
}

/// POSTs the file `path` as JSON.
pub(super) fn post_file(url: &str, path: &str) -> Answer {
    curl(&[
        "-H",
        "Content-Type: application/json",
        "--data-binary",
        &format!("@{path}"),
        url,
    ])
}

/// POSTs `body` as JSON.
pub(super) fn post(url: &str, body: &str) -> Answer {
    let file = TempFile::new("body.json", body.as_bytes());
    post_file(url, file.path())
}

pub(super) fn fixture(name: &str) -> String {
    format!("{}/../fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn reports_are_the_command_s_byte_for_byte() {
    let service = Service::start(&["--budget", "700", "--hide-metadata-keys", "chunk_id"]);
    for name in [
        "pricing.json",
        "support.json",
        "duplicates.json",
        "hostile-heads.json",
        "multilingual.json",
        "dotnet/pascal-case.json",
        "dotnet/string-scores.json",
        "dotnet/null-metadata.json",
        "dotnet/mixed-case.json",
        "dotnet/named-scores.json",
    ] {
        let path = fixture(name);
        let command = run(&[
            "assemble",
            "--json",
            "--budget",
            "700",
            "--hide-metadata-keys",
            "chunk_id",
            &path,
        ]);
        assert_eq!(command.code, Some(0), "{name}: {command:#?}");
        let answer = post_file(&service.url("/v1/default/assemble"), &path);
        assert_eq!(
            (answer.status, answer.content_type.as_str()),
            (200, "application/json"),
            "{name}: {answer:#?}"
        );
        assert_eq!(answer.body, command.stdout, "{name}");
        // The same results in an envelope, its keys as .NET's serializer writes them.
        let results = std::fs::read_to_string(&path).unwrap();
        let wrapped = post(
            &service.url("/v1/default/assemble"),
            &format!("{{\"Results\": {results}}}"),
        );
        assert_eq!(wrapped.body, command.stdout, "{name}, wrapped");
    }
}

#[test]
fn a_sealed_profile_continues_its_own_reports_and_refuses_others() {
    let key = TempFile::new("key", b"a key of thirty-two bytes, test!");
    let service = Service::configured(
        format!(
            "[profiles.chat]\nbudget = 2000\nseal_key_file = \"{}\"\n\n[profiles.open]\nbudget = 2000\n",
            key.path()
        )
        .as_bytes(),
    );
    let turn = |n: usize| fixture(&format!("conversation/turn-{n}.json"));
    let first = post_file(&service.url("/v1/chat/assemble"), &turn(1));
    assert_eq!(first.status, 200, "{first:#?}");
    let stored = TempFile::new("turn-1.json", first.body.as_bytes());
    let command = run(&[
        "assemble",
        "--json",
        "--budget",
        "2000",
        "--seal-key-file",
        key.path(),
        "--previous",
        stored.path(),
        &turn(2),
    ]);
    let results = std::fs::read_to_string(turn(2)).unwrap();
    let body = format!("{{\"previous\": {}, \"results\": {results}}}", first.body);
    let second = post(&service.url("/v1/chat/assemble"), &body);
    assert_eq!(second.status, 200, "{second:#?}");
    assert_eq!(second.body, command.stdout);
    // Edited, the report is refused, naming what: the seal.
    let edited = body.replacen("Quillstack", "Quillstock", 1);
    let refused =
        post(&service.url("/v1/chat/assemble"), &edited).problem(400, "PREVIOUS_TURN_MISMATCH");
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .starts_with("previous: the previous report does not fit this assembler: its seal"),
        "{refused}"
    );
    // A profile without a key continues nothing: the report has left the service.
    let open = post(&service.url("/v1/open/assemble"), &body).problem(400, "INVALID_SETTING");
    assert!(
        open["detail"].as_str().unwrap().contains("seal_key_file"),
        "{open}"
    );
}

/// Tools and template options in the body give what `prompt --tools --template-options`
/// prints; the request's options go over the profile's, and what the template cannot take is
/// a 400 naming the part.
#[test]
fn prompt_with_tools_and_options_is_the_command_s_byte_for_byte() {
    let config = fixture("prompt/chatml-tools/tokenizer_config.json");
    let tokenizer = fixture("prompt/chatml-tools/tokenizer.json");
    let settings = [
        "--window",
        "4096",
        "--chat-template",
        &config,
        "--tokenizer-file",
        &tokenizer,
    ];
    let service = Service::start(&settings);
    let conversation = std::fs::read_to_string(fixture("prompt/conversation.json")).unwrap();
    let results = std::fs::read_to_string(fixture("pricing.json")).unwrap();
    let tools = std::fs::read_to_string(fixture("prompt/chatml-tools/tools.json")).unwrap();
    let body = format!(
        "{{\"conversation\": {conversation}, \"results\": {results}, \"Tools\": {tools}, \
         \"template_options\": {{\"enable_thinking\": false}}}}"
    );
    let prompt = post(&service.url("/v1/default/prompt"), &body);
    let command = run(&[
        &["prompt", "--json"][..],
        &settings,
        &[
            "--conversation",
            &fixture("prompt/conversation.json"),
            "--tools",
            &fixture("prompt/chatml-tools/tools.json"),
            "--template-options",
            &fixture("prompt/chatml-tools/template-options.json"),
            &fixture("pricing.json"),
        ],
    ]
    .concat());
    assert_eq!((prompt.status, &prompt.body), (200, &command.stdout));
    let report: Value = serde_json::from_str(&prompt.body).unwrap();
    assert!(report["parts"]["tools"].as_u64().unwrap() > 0);
    let description: Value =
        serde_json::from_str(&curl(&[&service.url("/openapi.json")]).body).unwrap();
    let request = &description["components"]["schemas"]["PromptRequest"]["properties"];
    assert!(
        request["tools"].is_object() && request["template_options"].is_object(),
        "{request}"
    );
    assert!(
        report["prompt"]
            .as_str()
            .unwrap()
            .ends_with("<think>\n\n</think>\n\n")
    );

    let bad =
        format!("{{\"conversation\": {conversation}, \"results\": {results}, \"tools\": {{}}}}");
    let problem = post(&service.url("/v1/default/prompt"), &bad).problem(400, "INVALID_SETTING");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .starts_with("tools: tools must be a JSON array"),
        "{problem}"
    );
    let harmony = Service::start(&["--window", "8192", "--chat-template", "harmony"]);
    let options = format!(
        "{{\"conversation\": {conversation}, \"results\": {results}, \
         \"template_options\": {{\"enable_thinking\": false}}}}"
    );
    let problem =
        post(&harmony.url("/v1/default/prompt"), &options).problem(400, "INVALID_SETTING");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .starts_with("template_options: the harmony"),
        "{problem}"
    );
}

#[test]
fn cite_and_prompt_are_the_command_s_byte_for_byte() {
    let service = Service::start(&["--budget", "400"]);
    let report = run(&[
        "assemble",
        "--json",
        "--budget",
        "400",
        &fixture("pricing.json"),
    ])
    .stdout;
    let stored = TempFile::new("report.json", report.as_bytes());
    let answer = std::fs::read_to_string(fixture("quoted-answer.txt")).unwrap();
    // The report as the command wrote it: through a `Value` its metadata's keys would be
    // sorted, and the chips `cite` returns whole would differ.
    let body = format!(
        r#"{{"report": {}, "answer": {}, "renumber": true}}"#,
        report.trim_end(),
        Value::from(answer)
    );
    let cited = post(&service.url("/v1/default/cite"), &body);
    let command = run(&[
        "cite",
        "--renumber",
        stored.path(),
        &fixture("quoted-answer.txt"),
    ]);
    assert_eq!((cited.status, cited.body), (200, command.stdout));

    // The same settings for the service and the command.
    let harmony_settings = [
        "--window",
        "8192",
        "--chat-template",
        "harmony",
        "--date",
        "2026-12-04",
    ];
    let harmony = Service::start(&harmony_settings);
    let conversation = std::fs::read_to_string(fixture("prompt/conversation.json")).unwrap();
    let results = std::fs::read_to_string(fixture("pricing.json")).unwrap();
    let body = format!("{{\"conversation\": {conversation}, \"results\": {results}}}");
    let prompt = post(&harmony.url("/v1/default/prompt"), &body);
    let conversation_file = fixture("prompt/conversation.json");
    let results_file = fixture("pricing.json");
    let command = run(&[
        &["prompt", "--json"][..],
        &harmony_settings,
        &["--conversation", &conversation_file, &results_file],
    ]
    .concat());
    assert_eq!((prompt.status, prompt.body), (200, command.stdout));
    // Each profile has the endpoint that fits it.
    post(&harmony.url("/v1/default/assemble"), &results).problem(404, "NOT_FOUND");
    post(&service.url("/v1/default/prompt"), &body).problem(404, "NOT_FOUND");
}

#[test]
fn every_error_is_a_problem_document_with_its_status() {
    let service = Service::configured(
        b"[server]\nbody_limit = 4096\n\n[profiles.small]\nbudget = 300\nstrict = true\n",
    );
    let assemble = service.url("/v1/small/assemble");
    let bad = post(&assemble, "[{\"content\": \"x\", \"score\": 1,}]").problem(400, "INVALID_JSON");
    assert_eq!(bad["detail"], "results: line 1, column 30: trailing comma");
    let missing =
        post(&assemble, "{\"results\": [\n  {\"score\": 1}\n]}").problem(400, "INVALID_JSON");
    assert_eq!(
        missing["detail"],
        "results: line 2, column 14: missing field `content`"
    );
    post(
        &assemble,
        "[{\"content\": \"x\", \"score\": 1, \"rank\": 2}]",
    )
    .problem(400, "INVALID_JSON");
    post(&assemble, "{\"result\": []}").problem(400, "INVALID_ARGUMENT");
    post(&service.url("/v1/nope/assemble"), "[]").problem(404, "NOT_FOUND");
    curl(&[&service.url("/no/such/path")]).problem(404, "NOT_FOUND");
    curl(&[&assemble]).problem(405, "METHOD_NOT_ALLOWED");
    let big = format!("[{{\"content\": \"{}\", \"score\": 1}}]", "x".repeat(8000));
    post(&assemble, &big).problem(413, "PAYLOAD_TOO_LARGE");
    curl(&[
        "--data-binary",
        "[]",
        "-H",
        "Content-Type: text/plain",
        &assemble,
    ])
    .problem(415, "UNSUPPORTED_MEDIA_TYPE");
    assert_eq!(
        curl(&[&service.url("/healthz")]).body,
        "{\"status\":\"ok\"}\n"
    );
    let metrics = curl(&[&service.url("/metrics")]);
    assert!(
        metrics
            .body
            .contains("mentor_context_requests_total{endpoint=\"assemble\",status=\"413\"} 1"),
        "{metrics:#?}"
    );
    let description: Value =
        serde_json::from_str(&curl(&[&service.url("/openapi.json")]).body).unwrap();
    for path in [
        "/v1/{profile}/assemble",
        "/v1/{profile}/cite",
        "/v1/{profile}/prompt",
        "/healthz",
        "/metrics",
    ] {
        assert!(description["paths"][path].is_object(), "{path}");
    }
    assert_eq!(service.stop(), Some(0));
}
