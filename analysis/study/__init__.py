"""The paper's study: Code Bias Score over many generated functions (`codebias bench`).

    scores        prompts, sample outcomes, CBS, CBS_U@K and CBS_I@K
    completions   saved completions: what a model answered, per prompt and sample
"""
