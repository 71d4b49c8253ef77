"""The app, pure: one frozen Model, the messages, `update(model, message) -> (model, effects)`, the
effects as data, the screens and each system's view (state -> HTML), and what is stored (checked,
merged, recovered) behind a small `Store`. Nothing here imports the page or a JavaScript object
(tests/unit/test_layout.py); all of it runs in CPython."""
