"""The spec library's data (docs/model.md section 6): spec files and where they are (``loader``), one
``Spec`` and a ``Library`` of them (``spec``), the library loaded, checked and resolved by name (``catalog``;
a library that parses a file only when asked, ``lazylib``), the formula language (``formula``), dtypes
(``dtypes``), and both sides of a comparison as int tables (``intlayout``: the CuTe layout, ``ptx_tables``: the
PTX formula).
May import: ``errors``, ``symbolic``, ``core``, ``algebra``, ``prover``, ``hardware.checks``.
"""
