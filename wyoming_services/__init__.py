"""Jarvis's Wyoming speech servers (speech-to-text, text-to-speech, wake word)."""
