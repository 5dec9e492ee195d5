"""Linear layouts over F2 (docs/model.md section 11): Triton's ``LinearLayout`` model (named input dimensions,
each bit of an input sends to a basis vector of the named output dimensions, and a value is the XOR of the
bases of its set bits), the F2 linear algebra it needs (ranks, spans, inverses) and the conversions between
CuTe layouts and linear layouts.

May import: ``errors``, ``symbolic``, ``core``, ``algebra``.
"""
