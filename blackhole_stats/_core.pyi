"""Type stub for the compiled core (dealing and search)."""

def deal_ms(seed: int) -> bytes:
    """51 PySolFC card ids (pile p position i at 3*p+i) dealt by the Microsoft LCG, seed 1..2^33-1."""

def deal_mt(key: bytes) -> bytes:
    """51 card ids dealt by MT19937 seeded like CPython's random.seed(int) with these little-endian words."""

class Solver:
    def __init__(self, table_bits: int = 22) -> None: ...
    def solve(self, ranks: bytes, heights: bytes, foundation: int, search: int = 0,
              max_iters: int = 0, most_played: bool = True) -> tuple[int, int, int, bytes]: ...
    @property
    def memory_bytes(self) -> int: ...
    @property
    def most_played_nodes(self) -> int: ...
