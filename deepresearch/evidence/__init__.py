"""Evidence that code can check: numbers with units read from prose (numbers, units, quantities) and
whether a claimed number is grounded in its evidence (grounding)."""
