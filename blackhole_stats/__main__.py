"""`python -m blackhole_stats ...` is the `blackhole-stats` command."""
from .console import main

main()
