"""The scripted roles' output files, shared with `deepresearch demo`: they live in the package
(`deepresearch/demo/scripted_roles.py`) so the demo's agent ships in the wheel; the fake agent CLI
(`tests/fake_agent`, which imports this module by its bare name) and the scripted model server
(`tests/model_server.py`) import them from here."""

from deepresearch.demo.scripted_roles import *  # noqa: F403
from deepresearch.demo.scripted_roles import DEFAULT_PLAN  # noqa: F401
