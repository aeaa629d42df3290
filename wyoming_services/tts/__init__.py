"""Text-to-speech server (Piper)."""

from .handler import TtsEventHandler
from .service import TtsService, add_arguments

__all__ = ["TtsEventHandler", "TtsService", "add_arguments"]
