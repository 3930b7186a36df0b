"""Many questions at once: `deepresearch batch`, its exports and its summary report."""
