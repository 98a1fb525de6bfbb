"""What one scan reads and may spend.

    files     which files a scan reads, and where each lives
    project   a file's project: its import roots and its dotted module name
    diff      which lines a unified diff touches
    budget    functions, executions and seconds a scan may spend
"""
