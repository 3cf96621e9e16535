"""The live page's files (static/), installed as the package ``companion.page``.

This folder is the home of the page's sources; pyproject.toml maps it onto
``companion.page`` so that a wheel carries the page and `companion.web` finds it
with importlib.resources, from a checkout and from an installed package alike.
"""
