"""Type stub for the compiled core (dealing and search)."""

def deal_ms(seed: int, piles: int = 17, depth: int = 3, ace_last: bool = True) -> bytes:
    """52 PySolFC card ids dealt by the Microsoft LCG (seed 1..2^33-1): the piles' cards (pile p
    position i at depth*p+i), then the rest in dealing order; ace_last: the Ace of Spades dealt last."""

def deal_mt(key: bytes, piles: int = 17, depth: int = 3, ace_last: bool = True) -> bytes:
    """52 card ids as deal_ms, dealt by MT19937 seeded like CPython's random.seed(int) with these
    little-endian words."""

class Solver:
    """One search at a time: a call from another thread while it searches raises RuntimeError."""

    def __init__(self, table_bits: int = 22) -> None: ...
    def solve(self, ranks: bytes, heights: bytes, foundation: int, search: int = 0,
              max_iters: int = 0, most_played: bool = True, talon: bytes = b"",
              rules: bytes | None = None) -> tuple[int, int, int | None, bytes]:
        """foundation 13: empty; talon: ranks, the next first; rules: 14 little-endian 16-bit masks
        (Game.rules_bytes), None for Black Hole's. search: 0 fast, 1 classic, 2 the heights search
        alone (layouts of at most 2^20 pile-height vectors). max_iters: 0 (no limit) to 2^63-1 for the whole
        solve; cards_played None when an unsolved position's most-cards-played search was skipped or
        ran out of budget. The solution holds 255 for a talon turn."""
    def trap_walks(self, ranks: bytes, heights: bytes, foundation: int, walks: int, probes: int, seed: int,
                   max_iters: int, talon: bytes = b"", rules: bytes | None = None) -> list[bytes] | None:
        """Per walk (winning moves only, seeded; a move is a pile card or a talon turn), the depths of
        the traps it passed; None if not winnable. Solver input, talon and rules as for solve."""
    @property
    def memory_bytes(self) -> int: ...
    @property
    def most_played_nodes(self) -> int: ...
    @property
    def busy(self) -> bool: ...

def plan(ranks: bytes, heights: bytes, foundation: int, budget: int, order: int, remember: bool,
         talon: bytes = b"", rules: bytes | None = None) -> tuple[bool, int]:
    """A bounded planner (depth-first with undo; order 0 piles left to right, 1 right to left, 2 tallest
    first; turning the talon after the pile moves): (won, positions); positions is budget + 1 when it
    gave up. Solver input, talon and rules as for Solver.solve."""

def play_line(layout: bytes, heights: bytes, foundation: int, line: bytes, by_card: bool,
              talon: bytes = b"", rules: bytes | None = None) -> tuple[int, int, bytes, bytes]:
    """Replay `line` (piles with 255 a talon turn, or card ids if by_card with 64 + id a talon turn)
    from a layout of card ids (foundation 52: empty): (problem, step, piles played, cards played);
    problem 0 means the piles were emptied."""
