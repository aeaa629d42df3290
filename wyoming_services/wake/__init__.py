"""Wake word server (openWakeWord, microWakeWord)."""

from .handler import WakeEventHandler
from .service import WakeService, add_arguments

__all__ = ["WakeEventHandler", "WakeService", "add_arguments"]
