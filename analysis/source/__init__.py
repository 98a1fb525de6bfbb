"""Reading Python as people and language models write it.

    reading             source text to a module: fenced answers, repairs, a clear error
    line_repairs        mending one broken line the way a person reads it
    docstring_repairs   docstrings an answer cut or glued to a def
    answer_layout       where the code is in a language model's answer
    functions           the functions of a module: qualified names, lines, how each is called
    mentions            where each word is mentioned in a piece of code (keeps walks linear)
"""
