"""A server whose tool list changes while clients are connected: tools add, remove, enable and disable tools
(by name or tag), and an included registry serves its tools under a prefix.

    mcptools serve examples/live_tools.py            # stdio
    mcptools serve examples/live_tools.py --http     # Streamable HTTP

Each change sends ``notifications/tools/list_changed`` to the open 2025 sessions and to 2026-07-28 clients'
``subscriptions/listen`` streams; every client's next ``tools/list`` shows it.
"""

from __future__ import annotations

from mcptools import Context, ToolRegistry

registry = ToolRegistry("live-tools")

# Another team's tools, served here as "gh_<name>"; tools added to it later show up here too.
github = ToolRegistry("github-tools")


@github.tool
def issue(number: int) -> str:
    """Describe an issue."""
    return f"issue #{number}"


registry.include(github, prefix="gh_")


@registry.tool(tags={"admin"})
def reset() -> str:
    """Reset everything (an admin tool, hidden when the 'admin' tag is disabled)."""
    return "reset done"


@registry.tool
def add_greeter(name: str) -> str:
    """Register a new tool called `name` (a sync tool: it runs in a worker thread)."""

    def greeter() -> str:
        return f"hello from {name}"

    registry.add(greeter, name=name, description=f"Greets as {name}.")
    return f"added {name}"


@registry.tool
async def add_github_tool(name: str, ctx: Context) -> str:
    """Register a tool in the included registry: it appears here as gh_<name>."""

    def extra() -> str:
        return f"github {name}"

    github.add(extra, name=name)
    await ctx.info(f"added gh_{name}")
    return f"added gh_{name}"


@registry.tool
def remove_tool(name: str) -> str:
    """Unregister a tool of this registry."""
    registry.remove(name)
    return f"removed {name}"


@registry.tool
def set_tag(tag: str, enabled: bool) -> str:
    """Enable or disable every tool carrying `tag`."""
    if enabled:
        registry.enable(tags={tag})
    else:
        registry.disable(tags={tag})
    return f"{tag} {'enabled' if enabled else 'disabled'}"
