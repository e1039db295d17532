"""The agent example (python/examples/agent_tools.py): a FastAPI endpoint fits the tools, the
history and the retrieval (as the answer to the model's search call) into the window and
sends them through the OpenAI SDK. The SDK's HTTP client gets a transport that records the
request and answers as a chat endpoint would, so nothing leaves the process; what is checked
is the request the SDK made: exactly the counted messages, tools and template options."""

import importlib.util
import json

import pytest
from conftest import FIXTURES, ROOT, load

pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")
pytest.importorskip("openai")

from fastapi.testclient import TestClient  # noqa: E402
from openai import OpenAI  # noqa: E402

from mentor_context import PromptAssembler  # noqa: E402

# A small ChatML template that writes the tools into the system message and reads
# `enable_thinking`, with its tokenizer (the fixture of test_prompt.py).
CHATML = FIXTURES / "prompt" / "chatml-tools"
TOOLS = load(CHATML / "tools.json")
OPTIONS = {"enable_thinking": False}
CALL = {"id": "call_7", "type": "function",
        "function": {"name": "search_prices", "arguments": '{"plan": "B"}'}}
ANSWER = "Business costs 27 EUR per seat and month [1]."


def example():
    spec = importlib.util.spec_from_file_location(
        "agent_tools", ROOT / "python" / "examples" / "agent_tools.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def assembler(window):
    return PromptAssembler(window, str(CHATML / "tokenizer_config.json"),
                           tokenizer_file=str(CHATML / "tokenizer.json"),
                           context_in="tool", reserve=256)


def agent(window):
    """The example's app, a list of the requests its SDK client sent, and the assembler."""
    sent = []

    def api(request: httpx.Request) -> httpx.Response:
        sent.append((request.url.path, json.loads(request.content)))
        return httpx.Response(200, json={
            "id": "1", "object": "chat.completion", "created": 0, "model": "Qwen/Qwen3-8B",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": ANSWER}}]})

    llm = OpenAI(api_key="EMPTY", base_url="http://vllm.test/v1",
                 http_client=httpx.Client(transport=httpx.MockTransport(api)))
    prompts = assembler(window)
    return TestClient(example().create_app(prompts, llm, "Qwen/Qwen3-8B")), sent, prompts


def conversation():
    """The history, the question, and the assistant's call of the search tool."""
    return load(FIXTURES / "prompt" / "conversation.json") + [
        {"role": "assistant", "content": "", "tool_calls": [CALL]}]


def body(**changes):
    turn = {"messages": conversation(), "tools": TOOLS,
            "results": load(FIXTURES / "pricing.json"), "template_options": OPTIONS}
    return turn | changes


@pytest.mark.parametrize("window", [4096, 1100])
def test_the_sdk_sends_exactly_the_counted_messages_tools_and_options(window):
    client, sent, prompts = agent(window)
    reply = client.post("/agent", json=body())
    assert reply.status_code == 200, reply.text
    expected = prompts.assemble(conversation(), load(FIXTURES / "pricing.json"), tools=TOOLS,
                                template_options=OPTIONS)
    [(path, request)] = sent
    assert path == "/v1/chat/completions"
    assert request["model"] == "Qwen/Qwen3-8B"
    assert request["messages"] == expected["messages"]
    assert request["tools"] == TOOLS
    assert request["chat_template_kwargs"] == OPTIONS
    assert request["max_tokens"] == 256
    # The context answers the pending call, right after it.
    result = request["messages"][-1]
    assert result == {"role": "tool", "tool_call_id": "call_7", "name": "search_prices",
                      "content": expected["context"]["context"]}
    assert result["content"].startswith("[1] Subscription plans and prices")
    assert request["messages"][-2]["tool_calls"] == [CALL]
    # What was sent fits: the tools are counted, the parts add up to the count.
    answer = reply.json()
    assert answer["tokenCount"] == expected["tokenCount"]
    assert answer["parts"] == expected["parts"] and answer["parts"]["tools"] > 0
    assert sum(answer["parts"].values()) == answer["tokenCount"]
    assert answer["tokenCount"] + 256 <= window
    assert answer["message"] == {"role": "assistant", "content": ANSWER}
    assert answer["citations"] == expected["context"]["citations"]
    assert answer["citations"][0]["title"] == "Subscription plans and prices"


def test_a_short_window_drops_the_oldest_turns_from_what_is_sent():
    client, sent, _ = agent(1100)
    answer = client.post("/agent", json=body()).json()
    assert answer["dropped"] == [1, 2]
    [(_, request)] = sent
    given = conversation()
    # The system message, then the newest whole turn, the question, the call and its result.
    assert request["messages"][:-1] == [given[0]] + given[3:]


def test_the_tools_take_their_room_from_the_context():
    client, _, _ = agent(1400)
    with_tools = client.post("/agent", json=body()).json()
    without = client.post("/agent", json=body(tools=[])).json()
    assert "tools" not in without["parts"]
    # The same window: what the definitions take, the context does not get.
    assert with_tools["parts"]["context"] < without["parts"]["context"]
    assert with_tools["tokenCount"] + 256 <= 1400 and without["tokenCount"] + 256 <= 1400


@pytest.mark.parametrize(
    "changes, message",
    [
        (dict(tools=[{"type": "function", "function": {"description": "no name"}}]),
         "tool 0: its function needs a `name`"),
        (dict(messages=load(FIXTURES / "prompt" / "conversation.json")), "`tool` placement"),
        (dict(template_options={"messages": []}), "set by the library"),
    ],
)
def test_a_bad_request_is_named_and_nothing_is_sent(changes, message):
    client, sent, _ = agent(4096)
    reply = client.post("/agent", json=body(**changes))
    assert reply.status_code == 422
    assert message in reply.json()["error"] and reply.json()["code"]
    assert sent == []


def test_a_request_that_cannot_fit_is_named_and_nothing_is_sent():
    # The system message, the question, the template and the tools leave no room in 700.
    client, sent, _ = agent(700)
    reply = client.post("/agent", json=body())
    assert reply.status_code == 422
    assert reply.json()["code"] == "WINDOW_TOO_SMALL" and "window of 700" in reply.json()["error"]
    assert sent == []
