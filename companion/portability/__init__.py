"""Moving memory in and out: Agent Skill export/import, merge, migration from other apps, redaction."""
