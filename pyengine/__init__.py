"""Roundkeeper rules engine."""
