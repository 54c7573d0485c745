"""The package's version, written here only: pyproject.toml reads it (setuptools' dynamic
``version``), ``finegrad.__version__`` re-exports it, ``finegrad --version`` prints it."""
__version__ = "0.1.0"
