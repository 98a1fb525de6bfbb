"""A record's getters: code written against a class calls `person.get_age()`,
`patient.getSex()`; the record built in its place (harness/runner.py `Record`) answers such a
call with its field `age`, `sex`, as the engine's readers (analysis/source/reads_input.py)
read the call as that field.

Part of the child script (see harness/runner.py): joined into one script with the other parts by
`analysis.execution.process.HARNESS_SOURCE`; standard library only.
"""

import re

# `get_age`, `getAge`, `get_Age`: a getter and the field it gets.
GETTER = re.compile(r"get_?([A-Za-z]\w*)")


def getter_field(method: str) -> str | None:
    """The field a getter method gets (`get_age` -> "age", `getDateOfBirth` ->
    "dateOfBirth"); None when the name is no getter's (`get`, `getattr`, `gettext`)."""
    found = GETTER.fullmatch(method)
    if found is None:
        return None
    rest = found.group(1)
    if method[3] != "_" and not rest[0].isupper():
        return None  # `gettext`, `getattr`: a word, not get + a field
    return rest[0].lower() + rest[1:]
