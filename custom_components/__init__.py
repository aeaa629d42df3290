"""Custom components package (kept so tests import this tree, not the test rig's)."""
