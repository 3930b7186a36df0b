"""deepresearch: deep research through the agent CLI you already have."""

__version__ = "0.1.0"
