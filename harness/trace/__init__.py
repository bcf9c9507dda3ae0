"""What the model saw at every call: the trace schema, the recorder, and frames for analysis."""
