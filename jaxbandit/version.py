"""The version of jaxbandit: the one place it is written (pyproject.toml reads it, saved results record it)."""
__version__ = "0.5.0"
