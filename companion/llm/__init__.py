"""Model backends behind one small Protocol. No Qt, no memory."""
