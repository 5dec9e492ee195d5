"""Analyses built on the prover and the spec library (docs/model.md section 7): shared-memory bank
conflicts and vector width, loop nests as layouts (paper section 1.2), einsum folding (1.3), linear forms
and completeness chains (2.4.3-2.4.4).

May import: ``errors``, ``symbolic``, ``core``, ``algebra``, ``prover``, ``hardware``.
"""
