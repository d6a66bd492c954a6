"""Collect what one logger says, whatever the handlers and levels the package set up."""

from __future__ import annotations

import contextlib
import logging


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def records(name: str, level: int = logging.INFO):
    """Yield the list of messages logged on ``name`` at ``level`` or above within the block.
    A handler on the logger itself sees them even when the package's logger does not
    propagate to pytest's root handler (``caplog`` then sees nothing, depending on test order
    and pytest version)."""
    logger = logging.getLogger(name)
    handler, old = _Collect(), logger.level
    logger.addHandler(handler)
    logger.setLevel(level)
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)
