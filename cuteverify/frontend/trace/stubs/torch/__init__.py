"""cuteverify's inert ``torch`` stub (``cuteverify trace capture --stub-torch``): every attribute and submodule is
an inert object; see ``_cuteverify_stubs``. Not the real package.
May import: the standard library and ``_cuteverify_stubs`` only.
"""
import _cuteverify_stubs

_cuteverify_stubs.adopt(__name__)
