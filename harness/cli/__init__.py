"""The command line, harness ...."""
