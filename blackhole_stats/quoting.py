"""How error messages show what a user gave: escaped, on one line, and short."""
from __future__ import annotations

QUOTE_LIMIT = 100
"""Characters of a token an error message shows before cutting it short."""


def quoted(text: str | bytes, limit: int = QUOTE_LIMIT) -> str:
    """`repr(text)`, so newlines and control characters stay escaped; cut after `limit` characters.

    A message must stay one readable line whatever the input was: a whole
    binary file or a 4000-digit number would otherwise flood the terminal.
    """
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"
