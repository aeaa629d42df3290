"""Safety at the point of action.

- `effects`: what a service call will touch, resolved with Home Assistant's
  own target helpers, through scripts, automations and scenes.
- `policy`: which of those effects need the user's yes (unlocking, disarming,
  opening a guarded kind; what cannot be known, by option).
- `holds`: actions held for a yes, stored as the exact calls that will run,
  owned by one conversation, user and satellite; outside-content taint.
- `engine.untrusted` (HA-free, so digests keep it): the fence around content
  from outside the house.

See docs/SECURITY.md for the threat model.
"""
