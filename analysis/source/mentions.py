"""Where each word is mentioned in a piece of code: the index that keeps per-input walks linear.

Most questions the engine asks of a function are about one input: which keys does `record`
read, which locals hold what `record["age"]` gave, which conditions read it. Each answer
comes from nodes that mention a word (the parameter's name, the key, the local), and the
nodes around them. Walking the whole function for every input costs the square of its size
for a function that reads thousands of keys; this index lists, for each word, the nodes that
mention it (a `Name`, an attribute, a text constant) and each node's parent, so that a walk
for one input reads only the mentions of its words and their ancestors, in the order
`ast.walk` would have met them.
"""

from __future__ import annotations

import ast
import weakref
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass
class Mentions:
    """The index of one root node (a function, a lambda, a loop)."""

    root: ast.AST
    # Position of each node in `ast.walk(root)`, by id: walks keep that order.
    order: dict[int, int] = field(default_factory=dict)
    parents: dict[int, ast.AST] = field(default_factory=dict)
    by_word: dict[str, list[ast.AST]] = field(default_factory=dict)

    def around(self, words: Iterable[str]) -> list[ast.AST]:
        """Every node that holds a mention of one of `words` (the mention and each of its
        ancestors up to the root), in `ast.walk` order. A node that mentions none of them
        cannot read what they name."""
        found: dict[int, ast.AST] = {}
        for word in words:
            for node in self.by_word.get(word, ()):
                current: ast.AST | None = node
                while current is not None and id(current) not in found:
                    found[id(current)] = current
                    current = self.parents.get(id(current))
        return sorted(found.values(), key=lambda n: self.order[id(n)])

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.parents.get(id(node))

    def ancestors(self, node: ast.AST) -> Iterable[tuple[ast.AST, ast.AST]]:
        """(ancestor, its child on the way down to `node`), from the nearest up."""
        child = node
        current = self.parents.get(id(node))
        while current is not None:
            yield current, child
            child, current = current, self.parents.get(id(current))


def word_of(node: ast.AST) -> str | None:
    """The word a node mentions: a name, an attribute, a text constant."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


_INDEXES: weakref.WeakKeyDictionary[ast.AST, Mentions] = weakref.WeakKeyDictionary()


def mentions(root: ast.AST) -> Mentions:
    """The index of `root`, built once (the tree must not change afterwards)."""
    index = _INDEXES.get(root)
    if index is None:
        index = Mentions(root)
        todo = deque([root])  # breadth first, as ast.walk
        position = 0
        while todo:
            node = todo.popleft()
            index.order[id(node)] = position
            position += 1
            for child in ast.iter_child_nodes(node):
                index.parents[id(child)] = node
                todo.append(child)
            word = word_of(node)
            if word is not None:
                index.by_word.setdefault(word, []).append(node)
        _INDEXES[root] = index
    return index
