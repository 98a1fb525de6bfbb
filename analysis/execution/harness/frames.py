"""A small stand-in for a pandas DataFrame, for sandboxes where pandas cannot be imported.

Code over a table of people keeps or drops rows by a test of their columns
(`df = df[df["AGEP"] > 16]`), selects columns (`df[["SEX", "PINCP"]]`) and computes with
them. Given plain records, that code can only raise; given this table it runs as it would on
pandas for that common subset, and anything outside it raises AttributeError or TypeError
(the call then proves nothing, as before). Outputs compare as pandas' would: a table as
`{column: {row label: value}}`, a column as `{row label: value}` (`_cb_plain`).

Part of the child script (see harness/runner.py): joined into one script with the other parts by
`analysis.execution.process.HARNESS_SOURCE`; standard library only.
"""

import operator
from collections.abc import Callable
from typing import Any


def _pairwise(left: Any, right: Any, op: Any) -> Any:
    """`op` item by item: with a column of the same rows, or with one value for every row."""
    if isinstance(right, Column):
        if right.index != left.index:
            raise ValueError("can only compare identically-labeled columns")
        return Column(
            [op(a, b) for a, b in zip(left.values, right.values, strict=True)], left.index
        )
    if isinstance(right, (list, tuple)):
        if len(right) != len(left.values):
            raise ValueError("lengths must match")
        return Column([op(a, b) for a, b in zip(left.values, right, strict=True)], left.index)
    return Column([op(a, right) for a in left.values], left.index)


def _operator(op: Callable[[Any, Any], Any], reflected: bool = False) -> Any:
    def method(self: Any, other: Any) -> Any:
        if reflected:
            return _pairwise(self, other, lambda a, b: op(b, a))
        return _pairwise(self, other, op)

    return method


class Column:
    """One column of a `Table`: values with their row labels."""

    def __init__(self, values: Any, index: Any = None, name: Any = None) -> None:
        self.values = list(values)
        self.index = list(range(len(self.values))) if index is None else list(index)
        self.name = name

    def _cb_plain(self) -> Any:
        return dict(zip(self.index, self.values, strict=True))

    __eq__ = _operator(operator.eq)
    __ne__ = _operator(operator.ne)
    __lt__ = _operator(operator.lt)
    __le__ = _operator(operator.le)
    __gt__ = _operator(operator.gt)
    __ge__ = _operator(operator.ge)
    __add__ = _operator(operator.add)
    __sub__ = _operator(operator.sub)
    __mul__ = _operator(operator.mul)
    __truediv__ = _operator(operator.truediv)
    __floordiv__ = _operator(operator.floordiv)
    __mod__ = _operator(operator.mod)
    __pow__ = _operator(operator.pow)
    __radd__ = _operator(operator.add, reflected=True)
    __rsub__ = _operator(operator.sub, reflected=True)
    __rmul__ = _operator(operator.mul, reflected=True)
    __rtruediv__ = _operator(operator.truediv, reflected=True)
    __rpow__ = _operator(operator.pow, reflected=True)
    __and__ = _operator(lambda a, b: bool(a) and bool(b))
    __or__ = _operator(lambda a, b: bool(a) or bool(b))
    __rand__ = __and__
    __ror__ = __or__
    __hash__ = None  # type: ignore[assignment]  # unhashable, as pandas' columns are

    def __invert__(self) -> Any:
        return Column([not v for v in self.values], self.index, self.name)

    def __neg__(self) -> Any:
        return Column([-v for v in self.values], self.index, self.name)

    def __bool__(self) -> Any:
        raise ValueError("The truth value of a Series is ambiguous.")

    def __len__(self) -> Any:
        return len(self.values)

    def __iter__(self) -> Any:
        return iter(self.values)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, Column):  # a mask
            kept = [i for i, keep in enumerate(key.values) if keep]
            return Column([self.values[i] for i in kept], [self.index[i] for i in kept], self.name)
        return self.values[self.index.index(key)]

    def __setitem__(self, key: Any, value: Any) -> None:
        """`creat[ratio < 1] = kappa * ratio`: the masked rows take the value's own rows."""
        if not isinstance(key, Column):
            self.values[self.index.index(key)] = value
            return
        for i, keep in enumerate(key.values):
            if keep:
                self.values[i] = value.values[i] if isinstance(value, Column) else value

    def __repr__(self) -> Any:
        return f"Column({self.name!r}, {self._cb_plain()!r})"

    def isin(self, values: Any) -> Any:
        wanted = list(values)
        return Column([v in wanted for v in self.values], self.index, self.name)

    def map(self, mapping: Any) -> Any:
        if callable(mapping):
            return Column([mapping(v) for v in self.values], self.index, self.name)
        return Column([mapping.get(v) for v in self.values], self.index, self.name)

    apply = map

    def tolist(self) -> Any:
        return list(self.values)

    to_list = tolist

    def to_dict(self) -> Any:
        return self._cb_plain()

    def sum(self) -> Any:
        return sum(self.values)

    def mean(self) -> Any:
        return sum(self.values) / len(self.values) if self.values else float("nan")

    def min(self) -> Any:
        return min(self.values)

    def max(self) -> Any:
        return max(self.values)

    def any(self) -> Any:
        return any(self.values)

    def all(self) -> Any:
        return all(self.values)

    def copy(self) -> Any:
        return Column(self.values, self.index, self.name)


class Table:
    """Columns of equal length, with row labels (0, 1, ... when made)."""

    def __init__(self, columns: Any, index: Any = None) -> None:
        self._columns = {name: list(values) for name, values in columns.items()}
        size = len(next(iter(self._columns.values()), []))
        self.index = list(range(size)) if index is None else list(index)

    def _cb_plain(self) -> Any:
        return {
            name: dict(zip(self.index, values, strict=True))
            for name, values in self._columns.items()
        }

    @property
    def columns(self) -> Any:
        return list(self._columns)

    @property
    def shape(self) -> Any:
        return (len(self.index), len(self._columns))

    @property
    def empty(self) -> Any:
        return not self.index or not self._columns

    def __len__(self) -> Any:
        return len(self.index)

    def __iter__(self) -> Any:
        return iter(self._columns)

    def __contains__(self, name: Any) -> Any:
        return name in self._columns

    def __getattr__(self, name: Any) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        columns = self.__dict__.get("_columns", {})
        if name in columns:
            return Column(columns[name], self.index, name)
        raise AttributeError(f"'DataFrame' stand-in has no attribute {name!r}")

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, Column):  # rows kept by a mask
            if key.index != self.index:
                raise ValueError("the mask's rows are not the table's")
            kept = [i for i, keep in enumerate(key.values) if keep]
            return Table(
                {n: [vs[i] for i in kept] for n, vs in self._columns.items()},
                [self.index[i] for i in kept],
            )
        if isinstance(key, list):
            return Table({n: self._columns[n] for n in key}, self.index)
        if key not in self._columns:
            raise KeyError(key)
        return Column(self._columns[key], self.index, key)

    def __setitem__(self, key: Any, value: Any) -> Any:
        if isinstance(value, Column):
            value = value.values
        elif not isinstance(value, (list, tuple)):
            value = [value] * len(self.index)
        if len(value) != len(self.index):
            raise ValueError("Length of values does not match length of index")
        self._columns[key] = list(value)

    def __repr__(self) -> Any:
        return f"Table({self._cb_plain()!r})"

    def copy(self) -> Any:
        return Table(self._columns, self.index)

    def to_dict(self) -> Any:
        return self._cb_plain()

    def head(self, n: Any = 5) -> Any:
        return Table({k: v[:n] for k, v in self._columns.items()}, self.index[:n])
