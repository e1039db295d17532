//! A chat template that fails on a request's conversation: a 422 whose `code` is
//! `CHAT_TEMPLATE` and whose `templateKind` names what happened (it raised, or which bound it
//! met), never a 5xx; the OpenAPI description lists the 422 and the field. The one kind no
//! request causes, `ENGINE_FAILED`, is a 503.

use super::super::TempFile;
use super::{Service, curl, post};
use crate::prompt::chatml_tokenizer;
use std::process::Command;

/// ChatML that fails as the request's `mode` template option asks: raising, looping without
/// end, nesting without end, writing without end.
const FAILS_BY_MODE: &str = "{% if mode == 'raise' %}{{ raise_exception('no system message') }}\
{% elif mode == 'loop' %}{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}\
{% elif mode == 'nest' %}{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}\
{% elif mode == 'write' %}{{ 'x' * 5000000 }}{% endif %}\
{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}\
{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

#[test]
fn a_template_failing_on_the_request_is_a_422_naming_its_kind() {
    let template = TempFile::new("chat_template.jinja", FAILS_BY_MODE.as_bytes());
    let tokenizer = chatml_tokenizer();
    let service = Service::configured(
        format!(
            "[profiles.chat]\nwindow = 8192\nchat_template = \"{}\"\ntokenizer_file = \"{}\"\n",
            template.path(),
            tokenizer.path()
        )
        .as_bytes(),
    );
    let url = service.url("/v1/chat/prompt");
    let body = |mode: &str| {
        serde_json::json!({
            "conversation": [{"role": "user", "content": "What does Plan B cost?"}],
            "results": [{"content": "Plan B costs 12 EUR a month.", "score": 0.9}],
            "template_options": {"mode": mode},
        })
        .to_string()
    };
    assert_eq!(post(&url, &body("none")).status, 200);
    for (mode, kind, words) in [
        ("raise", "RAISED", "the template raised: no system message"),
        ("loop", "OUT_OF_FUEL", "out of fuel"),
        ("nest", "TOO_DEEP", "recursion limit"),
        ("write", "OUTPUT_TOO_LARGE", "the template wrote more than"),
    ] {
        let problem = post(&url, &body(mode)).problem(422, "CHAT_TEMPLATE");
        assert_eq!(problem["templateKind"], kind, "{problem}");
        let detail = problem["detail"].as_str().unwrap();
        assert!(detail.starts_with("chat template: "), "{detail}");
        assert!(detail.contains(words), "{mode}: {detail}");
    }
    // Every other problem stays as it was: a 400 without the field.
    let problem = post(&url, "{\"conversation\": []}").problem(400, "INVALID_ARGUMENT");
    assert!(problem.get("templateKind").is_none(), "{problem}");
    // The description says so.
    let description: serde_json::Value =
        serde_json::from_str(&curl(&[&service.url("/openapi.json")]).body).unwrap();
    let refusal = &description["paths"]["/v1/{profile}/prompt"]["post"]["responses"]["422"];
    assert!(
        refusal["description"]
            .as_str()
            .is_some_and(|d| d.contains("templateKind")),
        "{refusal}"
    );
    let field = &description["components"]["schemas"]["Problem"]["properties"]["templateKind"];
    assert_eq!(field["type"], "string", "{field}");
}

/// `ENGINE_FAILED`: the template could not be run at all. No request can cause it (a panic
/// inside the engine would be a bug; its control tokens' automaton overflows only past 2^31
/// states); a limit on the service's threads can, since each render runs on a thread of its
/// own. Under `RLIMIT_NPROC` set to the threads the service has once it has answered, the
/// render is refused its thread: a 503 naming `ENGINE_FAILED` (the server's fault, not the
/// request's: worth a retry), and the service goes on serving. Runs under a user id of its own (a limit does not bind root, and the batch tests
/// run as `nobody`), so only as root.
#[test]
#[cfg(target_os = "linux")]
fn a_render_refused_its_thread_is_a_503_naming_engine_failed() {
    use std::os::unix::fs::PermissionsExt;
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc is mounted");
    if !status
        .lines()
        .any(|line| line.starts_with("Uid:") && line.split_whitespace().nth(1) == Some("0"))
    {
        eprintln!("skipped: running as another user needs root");
        return;
    }
    let readable = |file: &TempFile, mode: u32| {
        std::fs::set_permissions(&file.0, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    // A copy of the command another user may run: the build folder may be private.
    let bin = TempFile::new(
        "mentor-context",
        &std::fs::read(env!("CARGO_BIN_EXE_mentor-context")).unwrap(),
    );
    readable(&bin, 0o755);
    let template = TempFile::new("chat_template.jinja", FAILS_BY_MODE.as_bytes());
    readable(&template, 0o644);
    let tokenizer = chatml_tokenizer();
    readable(&tokenizer, 0o644);
    let config = TempFile::new(
        "serve.toml",
        format!(
            "[profiles.chat]\nwindow = 8192\nchat_template = \"{}\"\ntokenizer_file = \"{}\"\n",
            template.path(),
            tokenizer.path()
        )
        .as_bytes(),
    );
    readable(&config, 0o644);
    // As the user 64999, with at most `tasks` threads for it if given.
    let serve = |tasks: Option<&str>| {
        let mut command = Command::new("prlimit");
        if let Some(tasks) = tasks {
            command.arg(format!("--nproc={tasks}:{tasks}"));
        }
        command
            .args([
                "setpriv",
                "--reuid=64999",
                "--regid=64999",
                "--clear-groups",
            ])
            .arg(bin.path())
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--config",
                config.path(),
            ]);
        Service::start_command(command)
    };
    let body = serde_json::json!({
        "conversation": [{"role": "user", "content": "What does Plan B cost?"}],
        "results": [{"content": "Plan B costs 12 EUR a month.", "score": 0.9}],
    })
    .to_string();
    // The threads the service has once it has answered: its runtimes' and the request's
    // (which waits for the next); the render's own has ended.
    let unlimited = serve(None);
    assert_eq!(post(&unlimited.url("/v1/chat/prompt"), &body).status, 200);
    let threads = std::fs::read_to_string(format!("/proc/{}/status", unlimited.child.id()))
        .unwrap()
        .lines()
        .find_map(|line| Some(line.strip_prefix("Threads:")?.trim().to_string()))
        .expect("a thread count");
    assert_eq!(unlimited.stop(), Some(0));
    let limited = serve(Some(&threads));
    let url = limited.url("/v1/chat/prompt");
    for _ in 0..2 {
        let problem = post(&url, &body).problem(503, "CHAT_TEMPLATE");
        assert_eq!(problem["templateKind"], "ENGINE_FAILED", "{problem}");
        let detail = problem["detail"].as_str().unwrap();
        assert!(
            detail.starts_with("chat template: no thread to render the template on"),
            "{detail}"
        );
    }
    // The service goes on serving what needs no thread of its own.
    assert_eq!(curl(&[&limited.url("/openapi.json")]).status, 200);
}
