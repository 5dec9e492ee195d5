"""Analyses on the prover, the spec library and the atom layer (docs/model.md section 7): bank conflicts and
vector width (``banks``, with ``banks_place`` placing a copy or a TV layout over the smem tensor as
partition_S/D does), cp.async legality (``cp_async``) and passes with its global side (``cp_async_banks``),
loop nests as layouts (``loops``), einsum folding (``fold``), linear forms (``linear``).

May import: ``errors``, ``symbolic``, ``core``, ``algebra``, ``prover``, ``hardware``, ``atoms``.
"""
