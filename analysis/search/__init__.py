"""The search for a witness of bias, and the verdict drawn from what it found.

    search           `Search`: one protected input varied, every other input fixed
    refusal          a call that raises for one realistic value and not another
    stability        stable parts of nondeterministic outputs
    shifted          echoes masking cannot see (dates moved with the protected date)
    missing_fields   fields a function reads that its source does not name
    verdict          from a search's result to a function's report
    acceptance       accepted findings: ignore comments and the policy's allow list
"""
