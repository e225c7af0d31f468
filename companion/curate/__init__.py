"""What may be written to long-term memory and how: the one writer (gate), the write policy, rule extraction, dates, the secret detector."""
