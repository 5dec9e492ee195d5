"""Synthesis of shared-memory layouts (docs/model.md section 13): for a tile, an element type and the accesses
that write and read it, the layout of a searched space (swizzle atom, tile order, padding) that every required
consumer accepts, with the fewest bank conflicts and the widest vectors, returned with its proofs and as CuTe
C++ and CuTe DSL code; and, for a user's layout, which accesses conflict and the smallest change that helps.

May import: ``errors``, ``symbolic``, ``core``, ``algebra``, ``linear``, ``prover``, ``hardware``, ``atoms``,
``analysis``.
"""
