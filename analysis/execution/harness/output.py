"""The text of an output as the harness compares it: canonical (sorted sets, no addresses,
numbers by value), with the protected value's echoes masked, and part by part.

Part of the child script (see harness/runner.py): it runs inside the sandbox, first of the parts
`analysis.execution.process.HARNESS_SOURCE` joins into one script, so it uses the standard library
only and imports nothing from codebias.
"""

import re
from datetime import date
from enum import Enum
from itertools import islice
from math import isfinite

try:
    from _sha256 import sha256  # built in: no OpenSSL to load at every start (3.11)
except ImportError:  # pragma: no cover - other versions
    from hashlib import sha256

# Held by name from here on (`islice`, not `itertools.islice`), like everything the harness
# uses while it runs: code under test may replace what a module offers, by assignment
# (`itertools.islice = ...`), but not what the harness took before it ran. No regular
# expression is compiled after the start either: `re` keeps its patterns in a cache that
# code under test can fill with its own (ADDRESS is compiled now, and its `sub` with a
# literal replacement runs in C).

MAX_REPR = 2000
# The keys under which a function returns the error it caught (`except Exception as exc:
# return {"error": str(exc)}`, an API handler's habit): a failure, not an answer.
ERROR_KEYS = ("error", "errors", "error_message", "exception")
MAX_ITEMS = 60  # items of one container that an output's text shows
MAX_HIDDEN = 500  # items past those whose texts a digest stands for (more())
DIGEST_DEPTH = 2  # containers this deep or deeper are compared by their count alone
SORTED_ROWS = 2000  # rows of a polars frame sorted before its first MAX_ITEMS are shown
MASK = "<protected>"
MAX_PARTS = 32  # parts of one output, at most (the reply stays small)
MAX_PART = 160  # characters of one part's text
PART_DEPTH = 3
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
# The member's name in an enum's repr whose value was masked: `<AgeBand.SENIOR: '<protected>'>`
# echoes the value tried as much as the value does (an enum made from it, by value).
ENUM_NAME = re.compile(r"\.\w+(?=: (['\"])<protected>\1>)")
# A digest of the inputs (`sha256(payload).hexdigest()[:12]`, a request id): hex digits and
# letters, eight or more, one case; or a text of twelve digits or more, as such a digest
# sometimes is (no date or amount is written so). It changes with every input, the
# protected one too, and decides nothing: masked like an echo.
DIGEST = re.compile(
    r"(?<![\w.\-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{8,}(?![\w])"
    r"|(?<![\w.\-])(?=[0-9A-F]*[A-F])(?=[0-9A-F]*[0-9])[0-9A-F]{8,}(?![\w])"
    r"|(?<=['\"])[0-9]{12,}(?=['\"])|^[0-9]{12,}$"
)
DIGEST_MASK = "<digest>"


def clip(text):
    """An output's text cut to MAX_REPR characters, ending in a digest of the whole when cut:
    two outputs that differ only past the cut (a constructor's state, a long report) still
    read as different."""
    if len(text) <= MAX_REPR:
        return text
    digest = sha256(text.encode("utf-8", "replace")).hexdigest()[:16]
    tail = f" ... #{digest}"
    return text[: MAX_REPR - len(tail)] + tail


def mask_text(text, masks):
    tokens = {}
    for m in masks:
        if isinstance(m, bool) or m is None:
            continue
        tokens[str(m).strip()] = is_number(m)
        if isinstance(m, Enum):
            # A member echoed in a repr (`age_band=<AgeBand.SENIOR: 'senior'>`) or by value.
            tokens[repr(m)] = False
            if isinstance(m.value, str):  # not a number: 1 of `Sex.MALE = 1` may be a decision
                tokens[m.value.strip()] = False
        for years in ages_from_birth(m):
            # The age code works out from a birth date: "is 30 years old" echoes 1996-06-15.
            tokens.setdefault(str(years), True)
        if is_number(m) and isfinite(m):
            # `f"{age:.1f} yr"`: the number as text formats it, to 1 to 3 decimals
            tokens.update({f"{m:.{digits}f}": True for digits in (1, 2, 3)})
    # Longest first, so that "30.0" is masked whole and not as "30" followed by ".0".
    for token in sorted(filter(None, tokens), key=len, reverse=True):
        # Masking too much is harmless (outputs also compare unmasked); too little is not.
        # Any case: `gender.upper()` and `.title()` echo the value, they do not judge it.
        text = mask_whole(text, token, tokens[token])
    if masks:
        text = DIGEST.sub(DIGEST_MASK, text)
    return ENUM_NAME.sub("." + MASK, text) if MASK in text else text


def named_flag(name: str, value: object) -> str:
    """The mask of a flag under its own name: `is_resident=True`, as a dataclass's repr writes
    it, and the key and value of a dict (canonical) or a keyword (`Profile(is_resident=True)`)."""
    return f"{name}={value!r}"


def ages_from_birth(value):
    """The whole years from a date (or ISO text of one) to today, as code works an age out of
    a birth date: by the calendar, `days // 365` or `days / 365.25`; none for anything else."""
    if isinstance(value, str) and len(value) == 10:
        try:
            value = date.fromisoformat(value)
        except ValueError:
            return set()
    if not isinstance(value, date):
        return set()
    today = date.today()
    if hasattr(value, "date"):  # a datetime
        value = value.date()
    days = (today - value).days
    calendar = today.year - value.year - ((today.month, today.day) < (value.month, value.day))
    return {y for y in (calendar, days // 365, int(days / 365.25)) if 0 <= y <= 130}


def mask_whole(text, token, number):
    """`text` with each whole occurrence of `token`, in any case, replaced by MASK: a number
    is not part of another one (the 1 of "11", "-1" or "1.5" is no echo of 1), nor a word
    part of another word."""
    folded, key = fold(text), fold(token)
    pieces, start = [], 0
    found = folded.find(key)
    while found >= 0:
        end = found + len(key)
        if stands_alone(text, found, end, number):
            pieces += [text[start:found], MASK]
            start = end
            found = folded.find(key, end)
        else:
            found = folded.find(key, found + 1)
    return "".join(pieces) + text[start:] if pieces else text


def whole(token: str, number: bool) -> str:
    """The regular expression of what mask_whole() finds (in any case): for the parent, which
    reads outputs as masking does (search.py, refusal.py, shifted.py). Not used in the child."""
    before = r"[\w.\-]" if number else r"[\w.]"
    return rf"(?<!{before}){re.escape(token)}(?![\w]|\.\d)"


def fold(text):
    """`text` in lower case character for character, so that positions stay the same: each
    character as a case-insensitive regular expression compares it (`ſ` as `s`, `İ` as `i`)."""
    lowered = text.lower()
    if lowered.isascii() and len(lowered) == len(text):
        return lowered
    return "".join(fold_character(c) for c in text)


def fold_character(char):
    if char in "\u0130\u0131":
        return "i"  # re's IGNORECASE puts dotted İ and dotless ı with i and I
    for form in (char.casefold(), char.lower()):
        if len(form) == 1:
            return form
    return char


def stands_alone(text, start, end, number):
    """Whether text[start:end] is a whole word or number: no letter, digit, `_` or `.` (or,
    for a number, `-`) just before it, no letter, digit or `_` just after it, and no `.`
    followed by a digit (the 1 of "1.5")."""
    if start > 0:
        before = text[start - 1]
        if is_word(before) or before == "." or (number and before == "-"):
            return False
    if end < len(text):
        after = text[end]
        if is_word(after):
            return False
        if after == "." and end + 1 < len(text) and text[end + 1].isdecimal():
            return False
    return True


def is_word(char):
    return char.isalnum() or char == "_"


def is_masked(obj, masks):
    for m in masks:
        if isinstance(m, bool):
            continue
        if type(obj) is type(m) and obj == m:
            return True
        # A normalised echo: `str(value).strip().lower()`, `.upper()`, `.title()`.
        if isinstance(obj, str) and isinstance(m, str) and m.strip():
            if obj.strip().casefold() == m.strip().casefold():
                return True
        # A number echoed rounded or converted: `round(age, 4)`, `int(age)`, `float(age)`.
        if is_number(obj) and is_number(m) and obj in rounded_forms(m):
            return True
    return False


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def rounded_forms(number):
    """`number` as code echoes it rounded. Whole-number forms only from 10 up: rounding 0.5
    to 0 would mask any 0 the function decides on."""
    if not isfinite(number):
        return {number}
    rounded = (round(number, digits) for digits in range(1, 7))
    # A whole number is too common to be taken for this one: 2.01 to 1 digit is 2.0, and
    # masking every 2 beside it would hide or invent a difference.
    forms = {number, *(r for r in rounded if not float(r).is_integer())}
    if abs(number) >= 10:
        forms |= {int(number), round(number)}
    return forms


def output_parts(obj, masks):
    """[path, text, masked text] of each part of an output, breadth first, bounded."""
    out = []
    queue = [("", obj, 0)]
    while queue and len(out) < MAX_PARTS:
        path, value, depth = queue.pop(0)
        if path:
            out.append([path, canonical(value, [])[:MAX_PART], canonical(value, masks)[:MAX_PART]])
        if depth >= PART_DEPTH:
            continue
        if isinstance(value, dict):
            children = sorted(
                ((f"[{canonical(k, [])[:40]}]", v) for k, v in value.items()), key=lambda kv: kv[0]
            )
        elif isinstance(value, (list, tuple)):
            children = [(f"[{i}]", v) for i, v in enumerate(value)]
        elif hasattr(value, "__dict__") and (
            type(value).__repr__ is object.__repr__ or hasattr(type(value), "__dataclass_fields__")
        ):
            # An object's attributes, also when a dataclass writes them all into its repr.
            children = sorted((f".{k}", v) for k, v in vars(value).items())
        else:
            continue
        queue += [(path + name, v, depth + 1) for name, v in children[:MAX_PARTS]]
    return out


def more(items, hidden=None):
    """How many items of a large output were left out, with a digest of their texts
    (`hidden`, MAX_HIDDEN of them at most): two outputs that differ only in a code moved at
    the 200th key of a dict still read as different, as clip() keeps a long text's tail."""
    if len(items) <= MAX_ITEMS:
        return []
    note = f"... {len(items) - MAX_ITEMS} more"
    if hidden is not None:
        texts = "\n".join(hidden).encode("utf-8", "replace")
        note += f" #{sha256(texts).hexdigest()[:16]}"
    return [note]


def left_out(items):
    """The items past the first MAX_ITEMS whose texts more() digests."""
    return islice(items, MAX_ITEMS, MAX_ITEMS + MAX_HIDDEN)


def flag_or_canonical(key, value, masks, depth):
    """A dict's value, masked when it is the varied flag under the flag's own name."""
    if isinstance(value, bool) and isinstance(key, str) and named_flag(key, value) in masks:
        return MASK
    return canonical(value, masks, depth)


def table_text(columns, masks, depth):
    """A table as `{column: {row label: value}}`, its values masked and its row labels not:
    the labels 0, 1, ... are positions, and masked they made an age 0 tried against 1 read
    as two tables (cvd-risk's `validate_dataframe(df)` returning df)."""
    shown = []
    for name, rows in islice(columns.items(), MAX_ITEMS):

        def cell(label, value, name=name):
            # A column of flags named as the flag varied holds it: `df["pregnancy"]`.
            text = flag_or_canonical(name, value, masks, depth + 2)
            return f"{canonical(label, (), depth + 2)}: {text}"

        cells = sorted(cell(label, value) for label, value in islice(rows.items(), MAX_ITEMS))
        hidden = sorted(cell(label, value) for label, value in left_out(rows.items()))
        shown.append(
            f"{canonical(name, masks, depth + 1)}: {{{', '.join(cells + more(rows, hidden))}}}"
        )
    return "{" + ", ".join(sorted(shown) + more(columns)) + "}"


def polars_text(obj, masks, depth):
    """A polars DataFrame as the set of its rows, a Series as the list of its values. A
    frame's rows are sorted: polars keeps no index, and its `group_by` gives its groups in
    an order that changes from one run to the next (pandas' sorts them)."""
    try:
        if type(obj).__name__ == "DataFrame":
            shown = SORTED_ROWS if len(obj) <= SORTED_ROWS else MAX_ITEMS
            rows = islice(obj.iter_rows(named=True), shown)
            texts = sorted(canonical(row, masks, depth + 1) for row in rows)[:MAX_ITEMS]
            return "{" + ", ".join(texts + more(obj)) + "}"
        if type(obj).__name__ == "Series":
            return canonical(obj.head(MAX_ITEMS).to_list(), masks, depth + 1)
    except Exception:  # noqa: BLE001 - an object of theirs without a plain form: its repr
        pass
    return mask_text(ADDRESS.sub("", repr(obj)), masks)


def is_table(plain):
    return isinstance(plain, dict) and all(isinstance(rows, dict) for rows in plain.values())


def returned_error(result):
    """The error a function returned in place of an answer (a dict whose error key holds a
    text, or texts), or None. Two such calls failed alike, whatever their messages say; one
    beside an answer refused its inputs, as raising does."""
    if type(result) is not dict:
        return None
    for key in ERROR_KEYS:
        value = result.get(key)
        if isinstance(value, str) and value.strip():
            return value
        if (
            isinstance(value, (list, tuple))
            and value
            and all(isinstance(v, str) and v.strip() for v in value)
        ):
            return "; ".join(value)
    return None


def canonical(obj, masks, depth=0):
    """A stable text for an output: masked protected echoes, sorted sets, no addresses."""
    # One branch per kind of value, in the order they must be tried (a bool before an int,
    # a mask before anything): split up, the precedence would no longer read in one place.
    if depth > 20:
        return "..."
    if is_masked(obj, masks):
        return MASK
    if isinstance(obj, str):
        return repr(mask_text(obj, masks))
    if isinstance(obj, float):
        # 2 and 2.0 are the same answer: numbers compare by value, as == does.
        rounded = round(obj, 9)
        return repr(int(rounded)) if rounded.is_integer() else repr(rounded)
    if isinstance(obj, (bytes, bytearray)):
        # Bytes encode values (a device's packet, a serialised record): what they hold echoes
        # the value tried, written in; their length is the encoding's shape.
        return f"<{len(obj)} bytes>" if masks else repr(obj)
    if isinstance(obj, (bool, int, type(None), complex)):
        return repr(obj)
    if isinstance(obj, Enum):
        return f"{type(obj).__name__}.{obj.name}"
    digested = depth < DIGEST_DEPTH  # the items past MAX_ITEMS, by a digest of their texts
    if isinstance(obj, dict):

        def entry(k, v):
            return f"{canonical(k, masks, depth + 1)}: {flag_or_canonical(k, v, masks, depth + 1)}"

        items = sorted(entry(k, v) for k, v in islice(obj.items(), MAX_ITEMS))
        hidden = sorted(entry(k, v) for k, v in left_out(obj.items())) if digested else None
        return "{" + ", ".join(items + more(obj, hidden)) + "}"
    if isinstance(obj, (list, tuple)):
        inner = [canonical(v, masks, depth + 1) for v in islice(obj, MAX_ITEMS)]
        hidden = [canonical(v, masks, depth + 1) for v in left_out(obj)] if digested else None
        return ("[%s]" if isinstance(obj, list) else "(%s)") % ", ".join(inner + more(obj, hidden))
    if isinstance(obj, (set, frozenset)):
        # Sorted before cut: a set's order is its hashes'.
        seen = MAX_ITEMS + (MAX_HIDDEN if digested else 0)
        texts = sorted(canonical(v, masks, depth + 1) for v in islice(obj, seen))
        hidden = texts[MAX_ITEMS:] if digested else None
        return "{" + ", ".join(texts[:MAX_ITEMS] + more(obj, hidden)) + "}"
    plain_form = getattr(type(obj), "_cb_plain", None)
    if plain_form is not None:  # the harness's own table and column (harness/frames.py)
        plain = plain_form(obj)
        if is_table(plain):
            return table_text(plain, masks, depth)
        return canonical(plain, masks, depth + 1)
    module = type(obj).__module__.split(".")[0]
    if module in ("numpy", "pandas"):
        # Arrays, series and their scalars as plain data: compared, and masked, by value.
        try:
            plain = obj.tolist() if hasattr(obj, "tolist") else obj.to_dict()
        except Exception:  # noqa: BLE001 - an object of theirs without a plain form
            plain = None
        if is_table(plain) and hasattr(obj, "columns"):  # a DataFrame
            return table_text(plain, masks, depth)
        if plain is not None and plain is not obj:
            return canonical(plain, masks, depth + 1)
    if module == "polars":
        return polars_text(obj, masks, depth)
    if hasattr(obj, "__dict__") and type(obj).__repr__ is object.__repr__:
        return f"{type(obj).__name__}({canonical(vars(obj), masks, depth + 1)})"
    try:
        text = repr(obj)
    except Exception as exc:  # noqa: BLE001
        text = f"<unrepresentable {type(obj).__name__}: {exc}>"
    return mask_text(ADDRESS.sub("", text), masks)
