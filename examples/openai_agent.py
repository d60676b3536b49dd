"""An agent loop on OpenAI's Chat Completions with the registry's tools.

    pip install openai && OPENAI_API_KEY=... python examples/openai_agent.py "Weather in Paris for 3 days?"

``tools(registry)`` exports the tools under OpenAI's strict profile; ``run(registry, response)`` validates and
runs the calls of one turn and returns the ``tool`` messages to send back. A call with bad arguments comes back
to the model as ``Invalid arguments: ...`` and the model retries.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import agent_tools

from mcptools.providers import openai as provider

MODEL = os.environ.get("OPENAI_MODEL", "gpt-4.1-mini")


def ask(client: Any, question: str, *, model: str = MODEL, turns: int = 10) -> str:
    """Ask ``question``, running the tools the model calls, until it answers in text."""
    messages: list[Any] = [{"role": "user", "content": question}]
    tools = provider.tools(agent_tools.registry)
    for _ in range(turns):
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        message = response.choices[0].message
        if not message.tool_calls:
            return str(message.content or "")
        messages.append(message.model_dump(exclude_none=True))
        messages.extend(provider.run(agent_tools.registry, response))
    return "(no answer after the turn limit)"


def main() -> int:
    if not os.environ.get("OPENAI_API_KEY"):
        print("Set OPENAI_API_KEY to run this agent against OpenAI.", file=sys.stderr)
        return 2
    from openai import OpenAI

    print(ask(OpenAI(), " ".join(sys.argv[1:]) or "What's the weather in Paris for the next 3 days?"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
