"""Hypothesis profiles: ``dev`` (the default: a quick local run) and ``ci`` (full counts, used by ``.ci/run``).

Pick one with ``HYPOTHESIS_PROFILE=ci`` or ``pytest --hypothesis-profile=ci``. A test that needs more (or
fewer) examples than the default says how many it wants under ``ci`` with :func:`scaled`, so its count
follows the profile instead of overriding it.
"""

from __future__ import annotations

import os

from hypothesis import settings

__all__ = ["FULL_EXAMPLES", "load_profile", "scaled"]

# Hypothesis' own default; ``ci`` keeps it, so ``scaled(n)`` is exactly ``n`` there.
FULL_EXAMPLES = 100
# A tenth of the examples locally (``scaled`` never gives fewer than 10): every property still runs on varied
# input, and ``ci`` runs them all. Property tests were a quarter of the suite's time at a quarter of the counts,
# and the README's test command has a minute, install included.
DEV_EXAMPLES = 10

settings.register_profile("ci", max_examples=FULL_EXAMPLES, print_blob=True)
# No deadline locally: a laptop (or seven jobs on two cores) makes timings noise, not a finding.
settings.register_profile("dev", max_examples=DEV_EXAMPLES, deadline=None)


def load_profile() -> None:
    """Load ``$HYPOTHESIS_PROFILE`` (``dev`` when unset); ``--hypothesis-profile`` still wins, loaded later."""
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def scaled(full: int) -> int:
    """``full`` examples under ``ci``, proportionally fewer under a lighter profile (never fewer than 10)."""
    current = settings().max_examples
    if current >= FULL_EXAMPLES:
        return full
    return max(10, full * current // FULL_EXAMPLES)
