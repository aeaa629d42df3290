"""Jarvis's Wyoming speech servers (speech-to-text, text-to-speech, wake word).

Each runs on its own or all in one process, with flags like the upstream servers:

    python -m wyoming_services.stt --model tiny-int8 --uri tcp://0.0.0.0:10300
    python -m wyoming_services.tts --voice en_US-lessac-medium --data-dir ./voices
    python -m wyoming_services.wake --wake-word hey_jarvis --uri tcp://0.0.0.0:10400
    python -m wyoming_services.all --model tiny-int8 --voice en_US-lessac-medium

Add the host and port to Home Assistant's Wyoming integration (or pass --zeroconf).
"""

__version__ = "0.1.0"
