"""An agent's backend: its tools, the history and the retrieval counted as one prompt, and
sent through the OpenAI SDK.

    pip install fastapi uvicorn openai ./python

The model runs behind an OpenAI-compatible chat endpoint that renders the model's own chat
template with the request's tools (vLLM's `vllm serve Qwen/Qwen3-8B`, for one). The
`PromptAssembler` reads the same template and tokenizer, so it counts what that server will
count: the tool definitions, the history, the tool calls and the retrieved context, and
`tokenCount + reserve <= window` holds for the request it builds. Wire it up with the model's
files and the server, and serve it with `uvicorn --factory`:

    def app():
        prompts = PromptAssembler(32_768, "Qwen3-8B/tokenizer_config.json",
                                  tokenizer_file="Qwen3-8B/tokenizer.json",
                                  context_in="tool", reserve=2048)
        llm = OpenAI(base_url="http://localhost:8000/v1", api_key="EMPTY")
        return create_app(prompts, llm, "Qwen/Qwen3-8B")

POST /agent with {"messages": [...], "tools": [...], "results": [...]}: OpenAI-style
messages that end with the user's question and the assistant's call of the application's
search tool (the model asked to search; the app ran the search), the tool definitions
(`[{"type": "function", "function": {"name", "description", "parameters"}}]`) and what the
search returned (results in the .NET wire form), with `template_options` if the template
reads any (Qwen 3's `{"enable_thinking": false}`). The context becomes the `tool` message that
answers the pending call; if the window is short, the oldest whole turns go. The request
sent to the model carries the prompt's `messages` (the history as fitted, the tool result
last), the same `tools`, `max_tokens` = the reserve, and the options as vLLM's
`chat_template_kwargs`. The answer is the model's message (text, or another tool call) with
the context's citation chips; a bad tool or conversation is a 422 naming it, and nothing is
sent.
"""

from typing import Any

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from openai import OpenAI
from pydantic import BaseModel

from mentor_context import MentorContextError, PromptAssembler


class AgentTurn(BaseModel):
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    results: list[dict[str, Any]]
    template_options: dict[str, Any] = {}


def create_app(prompts: PromptAssembler, llm: OpenAI, model: str) -> FastAPI:
    """The app: `prompts` built with `context_in="tool"` for the served model's template,
    `llm` a client of the server that serves it under the name `model`."""
    app = FastAPI()

    @app.post("/agent")
    def agent(turn: AgentTurn) -> Any:
        try:
            prompt = prompts.assemble(turn.messages, turn.results, tools=turn.tools,
                                      template_options=turn.template_options)
        except MentorContextError as error:
            return JSONResponse({"code": error.code, "error": str(error)}, status_code=422)
        # Exactly what was counted: the fitted messages (not the request's), the same tools,
        # the same template options (vLLM's field; other servers name it differently).
        extra = {"chat_template_kwargs": turn.template_options} if turn.template_options else None
        reply = llm.chat.completions.create(model=model, messages=prompt["messages"],
                                            tools=turn.tools, max_tokens=prompt["reserve"],
                                            extra_body=extra)
        return {
            "message": reply.choices[0].message.model_dump(exclude_none=True),
            "citations": prompt["context"]["citations"],
            "tokenCount": prompt["tokenCount"],
            "parts": prompt["parts"],
            "dropped": [dropped["index"] for dropped in prompt["dropped"]],
        }

    return app
