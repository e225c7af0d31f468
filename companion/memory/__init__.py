"""Storage only: day logs, long-term Markdown files and their entry grammar, history, search. No Qt, no model."""
