"""Demos runnable as ``fe-contact demo NAME``; each module exposes ``run(...)`` and ``main(argv)``."""
