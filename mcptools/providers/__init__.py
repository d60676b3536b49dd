"""The registry's tools for model APIs' own tool calling: ``openai``, ``anthropic`` and ``gemini``.

Each module has ``tools(registry, **options)`` (the tool definitions as plain dicts the provider's SDK accepts,
for the tools the registry serves now, cut to ``principal=``'s scopes when one is given), ``relaxed(registry,
**options)`` (the tools its profile could not take, with the reason: sent relaxed, or left out with
``fallback=False``), ``run(registry, calls)`` and ``await arun(registry, calls)`` (the provider's tool calls in,
the messages or parts to send back out, one per call, in order). None of them imports a provider SDK: import
the submodule you use, ``from mcptools.providers import openai``.
"""

__all__ = ["anthropic", "gemini", "openai"]
