"""The inputs of one function, built from its module's facts and the policy.

    builder        `InputBuilder`: the shape of every parameter and the pool of every leaf
    pools          which values each leaf is tried with
    doc_examples   calls a docstring or the module's demo shows

The shapes themselves (leaves, records, lists, frames...) are `analysis.shapes`.
"""
