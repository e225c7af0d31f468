"""Storage only: day logs, long-term Markdown files, history. No Qt, no model."""
