"""Measuring recall and memory on conversations: the harness behind `companion eval`."""
