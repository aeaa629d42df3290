"""Tests for the HA-free engine."""
