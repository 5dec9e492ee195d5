"""YAML for kernel manifests with marks and budgets: every value keeps the line and column of its node, and a
hostile file is refused with the line where it goes wrong instead of exhausting memory or the stack.

Why a composer of our own: YAML aliases share nodes, so a few hundred bytes of nested anchors (``&a [*b, *b,
...]``, nine levels deep) expand to hundreds of millions of values, and an alias to an enclosing anchor
(``claims: &c [{bijective: '4:1'}, *c]``) is a cycle. PyYAML composes both cheaply; expanding them into Python
values is what explodes. The composer below remembers where each alias was written and how deep the nesting
is; the builder counts the values it makes and refuses past ``MAX_VALUES`` (a real manifest has a few thousand),
refuses an alias that re-enters the node it sits in, and refuses nesting past ``MAX_DEPTH``. Nothing here prints.
"""
from __future__ import annotations

import yaml

from ...errors import YamlRefusal

# limits a manifest never reaches honestly; each refusal names the limit and the line
MAX_VALUES = 50_000  # values of the expanded document (every scalar, list and mapping)
MAX_DEPTH = 100  # nesting of lists and mappings


def _pos(mark):
    return (mark.line + 1, mark.column + 1) if mark is not None else (None, None)


class _BoundedLoader(yaml.SafeLoader):
    """SafeLoader whose composer records each alias's place (by the node it names) and refuses deep nesting
    while composing (PyYAML's composer recurses once per level)."""

    def __init__(self, stream):
        super().__init__(stream)
        self.alias_marks: dict = {}
        self.depth = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.events.AliasEvent):
            event = self.peek_event()
            node = self.anchors.get(event.anchor)
            if node is not None:
                self.alias_marks.setdefault(id(node), event.start_mark)
            return super().compose_node(parent, index)
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                event = self.peek_event()
                raise YamlRefusal(f"nesting deeper than {MAX_DEPTH} levels", *_pos(event.start_mark))
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


class Mark:
    """Where a value was written: 1-based line and column; ``quoted`` for quoted scalars (their text starts
    one column later)."""

    __slots__ = ("line", "column", "quoted")

    def __init__(self, node):
        self.line = node.start_mark.line + 1
        self.column = node.start_mark.column + 1
        self.quoted = getattr(node, "style", None) in ("'", '"')


def compose(text: str):
    """YAML text -> ``(python data, {path tuple: Mark})``. Raises ``yaml.YAMLError`` for malformed YAML and
    ``YamlRefusal`` for duplicate keys, non-scalar keys, alias cycles, documents past ``MAX_VALUES`` values
    and nesting past ``MAX_DEPTH``."""
    loader = _BoundedLoader(text)
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    if root is None:
        return None, {}
    return _Builder(loader.alias_marks).build(root)


class _Builder:
    """Expands the composed node graph into Python values, counting them."""

    def __init__(self, alias_marks):
        self.alias_marks = alias_marks
        self.marks: dict = {}
        self.count = 0
        self.open: list = []  # collection nodes being built, outermost first
        self.constructor = yaml.constructor.SafeConstructor()

    def _alias_place(self, node=None):
        """The place of the alias that led here: ``node``'s own alias, else the innermost one being built."""
        for n in ([node] if node is not None else []) + self.open[::-1]:
            m = self.alias_marks.get(id(n))
            if m is not None:
                return _pos(m)
        return _pos(self.open[-1].start_mark) if self.open else (None, None)

    def build(self, root):
        value = self._node(root, ())
        return value, self.marks

    def _node(self, node, path):
        self.count += 1
        if self.count > MAX_VALUES:
            raise YamlRefusal(f"the document expands past {MAX_VALUES} values (YAML aliases that multiply: "
                              "an alias bomb?)", *self._alias_place())
        if path not in self.marks:  # an alias expands under a new path; its first mark is kept
            self.marks[path] = Mark(node)
        if not isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
            return self.constructor.construct_object(node)
        if any(n is node for n in self.open):
            raise YamlRefusal("an alias refers to a list or mapping that contains it (an alias cycle)",
                              *self._alias_place(node))
        self.open.append(node)
        try:
            if isinstance(node, yaml.SequenceNode):
                return [self._node(v, path + (i,)) for i, v in enumerate(node.value)]
            out = {}
            for k, v in node.value:
                if not isinstance(k, yaml.ScalarNode):
                    raise YamlRefusal("mapping keys must be plain scalars", *_pos(k.start_mark))
                key = self.constructor.construct_scalar(k)
                if key in out:
                    raise YamlRefusal(f"duplicate key {key!r}", *_pos(k.start_mark))
                out[key] = self._node(v, path + (key,))
            return out
        finally:
            self.open.pop()
