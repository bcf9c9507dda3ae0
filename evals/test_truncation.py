"""Argument truncation: a file rewritten after deepagents clipped its previous write must be read back first.

The report cases (datasets/mechanisms/truncation.jsonl) build one file section by
section, rewriting it whole with write_file each time (truncation-report-*) or appending
after its last line with edit_file (truncation-edits-*). They run under the `truncation` preset:
summarization out of the way (85 %), write_file / edit_file arguments over 2,000
characters clipped to their first 20 characters plus "...(argument truncated)" once the
request passes 10 % of the window, outside the most recent 2.5 %. Adding the next
section then needs the file's text (or its last line), which only the file still holds
in full: the agent must read it back, and the file must end with every section and no truncation marker.
Valid only if some write/edit came after the file's previous one was shown clipped.
The preset and its 64k window are fixed (the session's --variant and --window do not
apply: the cases are sized for them); --model and --summary-model do.
"""

import pytest

pytestmark = pytest.mark.truncation


@pytest.mark.langsmith
def test_a_rewrite_after_clipping_reads_the_file_back_and_loses_nothing(case, eval_session):
    result = eval_session.run_eval("truncation", case)
    # Validity first (args_clipped: a write/edit followed a clipped one), then reread_after_clipping,
    # file_intact and no drift: harness.suites.registry.SUITES["truncation"].
    result.require_eval("truncation")
