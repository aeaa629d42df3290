"""End-to-end tests with real models."""
