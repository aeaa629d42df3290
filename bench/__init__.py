"""Benchmarks: scenario suite and voice servers."""
