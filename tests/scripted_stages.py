"""The scripted analyst, chart planner and default report, shared with `deepresearch demo`: they
live in the package (`deepresearch/demo/scripted_stages.py`); the fake agent CLI and the scripted
model server import them from here."""

from deepresearch.demo.scripted_stages import *  # noqa: F403
