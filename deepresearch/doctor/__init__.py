"""`deepresearch doctor`: what a run needs (agent CLIs, Chromium, search providers, the workspace)."""

from deepresearch.doctor.agents import AgentCheck, DoctorReport, run_doctor

__all__ = ["AgentCheck", "DoctorReport", "run_doctor"]
