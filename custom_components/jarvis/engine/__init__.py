"""Jarvis's reply engine: plain Python that knows nothing of Home Assistant."""
