"""The child side of execution, run inside the sandbox as ONE script.

`analysis.execution.process.HARNESS_SOURCE` joins these files' source text, in this order:

    output     an output's text as compared: canonical, echoes masked, part by part
    stubs      recording stand-ins for modules that cannot be imported
    frames     a small DataFrame stand-in for sandboxes without pandas
    describe   what a recorded argument holds, as bounded JSON
    testplugin the recording run's pytest plugin: each test names, times and may skip
    recorder   the recording run of the project's own tests and demos
    recorded   recorded calls replayed with one leaf set
    held       the JSON reader and writer and the MAC, held before code runs
    loading    the module under test loaded as its project would
    runner     loads one module and calls one function many times (the protocol)

Each uses the standard library only; imported (as the tests do), they import each other.
"""
