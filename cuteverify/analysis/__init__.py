"""Analyses on the prover and the spec library (docs/model.md section 7): bank conflicts and vector width
(``banks``), loop nests as layouts (``loops``), einsum folding (``fold``), linear forms (``linear``).

May import: ``errors``, ``symbolic``, ``core``, ``algebra``, ``prover``, ``hardware``.
"""
