"""The bottom layer: errors, events, configuration, workspace paths, clock, files and processes.

Every other package may import `core`; `core` imports nothing else of deepresearch.
"""
