"""The output-file contracts of each agent role: parse and validate what an agent wrote.

Each module turns one role's output file into typed data plus a list of problems. Problems are
written for the agent: the repair prompt quotes them verbatim.
"""
