"""How messages show what a user gave (escaped, on one line, and short), and counts of things."""
from __future__ import annotations


def counted(number: int, noun: str) -> str:
    """`1 iteration`, `2,000 iterations`: a count with its noun, singular for one."""
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


QUOTE_LIMIT = 100
"""Characters of a token's quotation an error message shows before cutting it short."""


def quoted(text: str | bytes, limit: int = QUOTE_LIMIT, *, start_only: bool = False) -> str:
    """`repr(text)`, so newlines and control characters stay escaped; cut short where what stands between
    the quotes (escapes counted as the reader sees them) would pass `limit` characters.

    A message must stay one readable line whatever the input was: a whole
    binary file (each NUL shown as four characters) or a 4000-digit number
    would otherwise flood the terminal. `start_only`: `text` is only the
    start of what was given (a line too long to read whole), which its
    quotation ends with '...' to say, and no count.
    """
    room = limit + len(repr(text[:0]))  # the quotes (and b) besides
    if len(text) <= limit and len(repr(text)) <= room:  # (a long text's repr is never made: a whole file's)
        return repr(text) + ("..." if start_only else "")
    low, high = 0, min(len(text), limit)  # the longest start whose quotation fits: repr only grows with it
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if len(repr(text[:middle])) <= room else (low, middle - 1)
    return f"{text[:low]!r}..." + ("" if start_only else f" ({len(text):,} characters)")
