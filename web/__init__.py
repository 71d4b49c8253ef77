"""Roundkeeper's browser layer (PyScript): renders engine state into the page, turns taps into engine calls."""
