"""The code examples of a project's documentation as an entry of the recording
(analysis/evidence/examples.py): which blocks, as what code."""

from __future__ import annotations

from pathlib import Path

from test_recorder_protocol import write

from analysis.evidence.entrypoints import entry_points
from analysis.evidence.examples import python_blocks
from analysis.scan.project import Project

MARKDOWN = """\
# scores

```python
from scores import risk
risk(age=70)
```

```bash
pip install scores
```

```pycon
>>> from scores import risk
>>> def twice(age):
...     return risk(age) * 2
>>> twice(40)
12
```

```
>>> risk(age=30)
```

```ipython
%timeit risk(age=50)
risk(age=51)
```
"""

RST = """\
Usage
=====

.. code-block:: python
   :caption: one patient

   from scores import risk
   risk(age=70)

Done.
"""


def test_markdown_python_blocks_and_doctest_prompts_become_code() -> None:
    codes = [(b.line, b.code) for b in python_blocks("README.md", MARKDOWN)]
    assert codes == [
        (4, "from scores import risk\nrisk(age=70)\n"),
        (13, "from scores import risk\ndef twice(age):\n    return risk(age) * 2\ntwice(40)\n"),
        (21, "risk(age=30)\n"),  # a plain fence holding prompts
        (25, "risk(age=51)\n"),  # IPython's magics left out
    ]


def test_restructured_text_code_blocks_become_code_without_their_options() -> None:
    (block,) = python_blocks("docs/usage.rst", RST)
    assert block.code.strip() == "from scores import risk\nrisk(age=70)"


def test_a_document_runs_when_one_of_its_blocks_names_a_module_or_public_function_tested(
    tmp_path: Path,
) -> None:
    write(tmp_path, {
        "scores/__init__.py": "", "scores/model.py": "def risk(age):\n    return age\n",
        "README.md": "```python\nx = 1\n```\n\n```python\nrisk(age=x)\n```\n",
        "docs/other.md": "```python\nprint('unrelated')\n```\n",
        "docs/private.md": "```python\n_helper(1)\n```\n",
    })  # fmt: skip
    project = Project(tmp_path)
    found = entry_points(project, {"scores.model"}, functions={"risk", "_helper"})
    (entry,) = found.entries
    assert (entry.kind, entry.label) == ("examples", "README.md examples")
    assert entry.packages == ("scores",)
    assert [b.label for b in entry.blocks] == [
        "README.md example (line 2)", "README.md example (line 6)",
    ]  # fmt: skip
