"""What the harness changes in an agent's context handling: configs, presets, prompt variants, strategies, audit."""
