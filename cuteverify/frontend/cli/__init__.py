"""The click front end (installed as ``cuteverify.frontend.cli``)."""
