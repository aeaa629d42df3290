"""Tests for the Jarvis integration and its engine."""
