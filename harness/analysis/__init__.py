"""Statistics over result rows: comparisons, paired tests, pass@k, the regression gate."""
