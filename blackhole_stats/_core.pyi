"""Type stub for the compiled core (dealing and search)."""

def deal_ms(seed: int) -> bytes:
    """51 PySolFC card ids (pile p position i at 3*p+i) dealt by the Microsoft LCG, seed 1..2^33-1."""

def deal_mt(key: bytes) -> bytes:
    """51 card ids dealt by MT19937 seeded like CPython's random.seed(int) with these little-endian words."""

class Solver:
    """One search at a time: a call from another thread while it searches raises RuntimeError."""

    def __init__(self, table_bits: int = 22) -> None: ...
    def solve(self, ranks: bytes, heights: bytes, foundation: int, search: int = 0,
              max_iters: int = 0, most_played: bool = True) -> tuple[int, int, int | None, bytes]:
        """max_iters: 0 (no limit) to 2^63-1 for the whole solve; cards_played None when an unsolved
        position's most-cards-played search was skipped or ran out of budget."""
    def trap_walks(self, ranks: bytes, heights: bytes, foundation: int, walks: int, probes: int, seed: int,
                   max_iters: int) -> list[bytes] | None:
        """Per walk (winning moves only, seeded), the depths of the traps it passed; None if not winnable."""
    @property
    def memory_bytes(self) -> int: ...
    @property
    def most_played_nodes(self) -> int: ...
    @property
    def busy(self) -> bool: ...

def plan(ranks: bytes, heights: bytes, foundation: int, budget: int, order: int,
         remember: bool) -> tuple[bool, int]:
    """A bounded planner (depth-first with undo; order 0 piles 0..16, 1 piles 16..0, 2 tallest first):
    (won, positions); positions is budget + 1 when it gave up."""

def play_line(layout: bytes, heights: bytes, foundation: int, line: bytes,
              by_card: bool) -> tuple[int, int, bytes, bytes]:
    """Replay `line` (piles, or card ids if by_card) from a layout of 51 card ids:
    (problem, step, piles played, cards played); problem 0 means every card was played."""
