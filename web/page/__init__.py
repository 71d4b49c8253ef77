"""The page: the only code that touches the browser. `main.start()` binds it (`dom.bind()`), builds the
runtime (web/app/loop.py's loop with the performers of each effect), and hears the DOM's events,
timers, storage events, the journal and the live table's connections, each turned into a message."""
