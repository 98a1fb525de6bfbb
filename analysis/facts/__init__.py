"""What a module's code says, read and never run.

    module        `ModuleFacts`: constants, classes, enums and hints of one module
    hint          `Hint`: what the code says about one name (values, kinds, bounds)
    harvest       the constants a function's expressions compare names with
    annotations   what a type annotation says about a parameter's values
    exports       the names one module defines or imports from its project
    imports       what a module takes from the other modules of its project
    param_docs    what a docstring says each parameter is
    fieldreads    which keys and attributes a function reads from a record
    instance_reads  what a method reads of the objects its instance holds (self.settings.age)
    callers       what a helper's parameter holds, by what its callers hand it
    in_place      the inputs a function that returns nothing changes: its output
    preparations  the set-up a function's callers run before calling it
    conversions   functions that compute the protected attribute itself
    people        whether a protected word is about a person
"""
