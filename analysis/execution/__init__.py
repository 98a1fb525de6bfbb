"""The process boundary: code under test runs in a child process, never in ours.

    process       the host side: sessions, calls, outcomes, limits, the child script
    interpreter   the Python the code under test runs with
    harness/      the child side, standard library only, joined into one script

The sandbox (analysis/sandbox/) is one `Executor` of `process`: the same child in bubblewrap.
"""
