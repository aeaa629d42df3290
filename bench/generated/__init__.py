"""Generated messy homes, template commands and HA's real pipeline as the rival.

`python -m bench.generated --help`; see docs/BENCHMARKS.md.
"""
