"""Both protocol generations: revisions, sessions, sealed state and the engine that answers messages.

Import from the submodules (``engine``, ``session``, ...): ``_context`` needs ``session`` while
``engine`` needs ``_context``, so this package itself imports nothing.
"""
