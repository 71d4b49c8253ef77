"""Entry point run by PyScript once the interpreter is up."""

from pyscript import document


def start() -> None:
    document.documentElement.dataset.engine = "ready"
