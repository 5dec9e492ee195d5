"""The click front end (installed as ``cuteverify.cli``)."""
