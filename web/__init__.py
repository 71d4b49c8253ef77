"""Roundkeeper's browser layer (PyScript), in two rooms: `web.app` (pure: the model, messages, update,
screens and views; runs and is tested in CPython) and `web.page` (the only code that touches the
browser: the runtime's performers, the DOM, listeners, timers, storage and the transport)."""
