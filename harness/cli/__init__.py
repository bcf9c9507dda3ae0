"""The command line: `harness run`, `experiment`, `report`, `serve`, ... (`harness --help`)."""
