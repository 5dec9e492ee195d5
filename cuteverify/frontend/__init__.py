"""The front ends (docs/model.md section 1, layer 10): everything a user types or reads, and nothing a lower layer
needs. ``manifest/`` (a manifest's YAML read line by line: load, expressions, YAML guard, claim kinds, the
result cache, JUnit and HTML), ``cli/`` (the ``cuteverify`` command, one module per verb), ``checked`` (the
API functions whose shape mismatches are input errors), ``messages`` (errors and verdicts as user text),
``testing`` and ``pytest_plugin`` (manifests as pytest items). Front ends parse and render; every decision is
made below them.
May import: every layer below (``errors`` ... ``triton``, ``synth``), ``draw`` and the facade ``cuteverify``.
"""
