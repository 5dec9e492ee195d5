"""CuTe's text notation, in and out (docs/model.md section 2.5): the one bracket scanner (``scan``), the reader of
layouts, shapes, strides, swizzles and composed layouts in every accepted print (``parse``), the writer
(``format``), tile extents and permutation tilers (``tiles``), CuTe IR's type texts (``cute_ir``), pasted
``print_layout`` tables (``print_table``) and other libraries' objects and "text or object -> Layout"
(``interop``).
May import: ``errors``, ``symbolic``, the rest of ``core``.
"""
