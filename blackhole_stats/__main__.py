"""`python -m blackhole_stats ...` is the `blackhole-stats` command."""
from .cli import main

main(prog_name="blackhole-stats")
