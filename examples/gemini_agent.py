"""An agent loop on Google's Gemini API with the registry's tools.

    pip install google-genai && GEMINI_API_KEY=... python examples/gemini_agent.py "Weather in Paris?"

``tools(registry)`` gives the ``function_declarations`` under the Gemini schema profile; ``run(registry,
response)`` validates and runs the ``function_call`` parts of one turn and returns the ``function_response``
parts to send back. A call with bad arguments comes back as an ``error`` response and the model retries.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import agent_tools

from mcptools.providers import gemini as provider

MODEL = os.environ.get("GEMINI_MODEL", "gemini-2.5-flash")


def ask(client: Any, question: str, *, model: str = MODEL, turns: int = 10) -> str:
    """Ask ``question``, running the tools the model calls, until it answers in text."""
    from google.genai import types

    declarations = [types.FunctionDeclaration.model_validate(d) for d in provider.tools(agent_tools.registry)]
    config = types.GenerateContentConfig(tools=[types.Tool(function_declarations=declarations)])
    contents: list[Any] = [types.Content(role="user", parts=[types.Part(text=question)])]
    for _ in range(turns):
        response = client.models.generate_content(model=model, contents=contents, config=config)
        if not response.function_calls:
            return str(response.text or "")
        contents.append(response.candidates[0].content)
        results = provider.run(agent_tools.registry, response)
        contents.append(types.Content.model_validate({"role": "user", "parts": results}))
    return "(no answer after the turn limit)"


def main() -> int:
    if not (os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY")):
        print("Set GEMINI_API_KEY to run this agent against Gemini.", file=sys.stderr)
        return 2
    from google import genai

    print(ask(genai.Client(), " ".join(sys.argv[1:]) or "What's the weather in Paris for the next 3 days?"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
