"""Options shared by every command, as one value passed down the stages."""

from __future__ import annotations

import os
from dataclasses import dataclass


def in_ci() -> bool:
    """CI sets CI=true; runs there must be deterministic."""
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


@dataclass
class Options:
    seed: int = 0
    max_examples: int = 200
    function: str | None = None
    grammar: str | None = None
    tree: str | None = None
    fail_on: str = "any"  # "any" | "breaking"
    consumers: bool = False
    # wall-clock bound on testing one subject; the report says when it cut the sweep short
    deadline_seconds: float = 3.0
