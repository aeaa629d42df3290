"""Tests for the Wyoming speech servers."""
