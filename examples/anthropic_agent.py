"""An agent loop on Anthropic's Messages API with the registry's tools.

    pip install anthropic && ANTHROPIC_API_KEY=... python examples/anthropic_agent.py "Weather in Paris?"

``tools(registry)`` gives each tool's input schema as it is; ``run(registry, response)`` validates and runs the
``tool_use`` blocks of one turn and returns the ``tool_result`` blocks (``is_error`` set on errors) for the next
user message. A call with bad arguments comes back as ``Invalid arguments: ...`` and the model retries.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import agent_tools

from mcptools.providers import anthropic as provider

MODEL = os.environ.get("ANTHROPIC_MODEL", "claude-sonnet-4-5")


def ask(client: Any, question: str, *, model: str = MODEL, turns: int = 10) -> str:
    """Ask ``question``, running the tools the model calls, until it answers in text."""
    messages: list[Any] = [{"role": "user", "content": question}]
    tools = provider.tools(agent_tools.registry)
    for _ in range(turns):
        response = client.messages.create(model=model, max_tokens=1024, messages=messages, tools=tools)
        if response.stop_reason != "tool_use":
            return "".join(block.text for block in response.content if block.type == "text")
        messages.append({"role": "assistant", "content": response.content})
        messages.append({"role": "user", "content": provider.run(agent_tools.registry, response)})
    return "(no answer after the turn limit)"


def main() -> int:
    if not os.environ.get("ANTHROPIC_API_KEY"):
        print("Set ANTHROPIC_API_KEY to run this agent against Anthropic.", file=sys.stderr)
        return 2
    from anthropic import Anthropic

    print(ask(Anthropic(), " ".join(sys.argv[1:]) or "What's the weather in Paris for the next 3 days?"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
