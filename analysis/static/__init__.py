"""Static analysis of one function, without running anything.

    taint    where an input's value goes, and which inputs reach an expression
    review   where protected inputs reach a branch or the output (the static verdict)
"""
