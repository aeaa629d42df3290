"""Speech-to-text server (faster-whisper)."""

from .handler import SttEventHandler
from .service import SttService, add_arguments

__all__ = ["SttEventHandler", "SttService", "add_arguments"]
