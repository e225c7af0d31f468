"""One turn of conversation: prompt assembly, the model call, tools, logging, learning by rule."""
