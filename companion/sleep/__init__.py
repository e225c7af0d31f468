"""The nightly sleep job: distill day logs into long-term memory, roll up digests, report."""
