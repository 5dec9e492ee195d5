"""Symbolic integers: expressions, assumptions, conditions and obligations, the decision interface
(yes / no / unknown) with its tactics, finite enumeration, and the one bridge to Z3.

May import: ``cuteverify.errors`` only (the bottom layer of the library; docs/model.md section 1).
"""
from .assumptions import Assumptions, bounded_names, domain, finite_assignments
from .conditions import Condition, Note, Obligation
from .expr import format_value, is_symbolic, normalize, parse_expr, symbol, to_int

__all__ = ["Assumptions", "Condition", "Note", "Obligation", "symbol", "normalize", "parse_expr", "is_symbolic",
           "to_int", "format_value", "finite_assignments", "domain", "bounded_names"]
