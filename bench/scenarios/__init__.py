"""The scenario benchmark (issue #3): Jarvis in a real Home Assistant, real models.

`python -m bench.scenarios --help` runs it; `suite.py` holds the scenarios,
`home.py` the synthetic home they play in.
"""
