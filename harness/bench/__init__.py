"""``harness bench``: measuring the harness (the figures docs/performance.md quotes), above the doors it times."""
