"""How an answer is read: one reading of a free-text answer, used by the checks, the judge's calibration and the
reports.

Models do not answer in the form a question asks for. They write the value in prose, bold it, quote it, put it in a
code span or a JSON object, restate the question first, think out loud before a final answer, hedge, name an old
value beside the new one ("pg-16 (changed from mysql-8)"), say which choice was rejected in a sentence of its own
("Postgres was rejected because of its license."), write "487 kg" for ``487-kg`` or "19:00" for ``19-00``, or refuse.
This module reads all of that the same way, by rules a reviewer can read, and says how it read each answer (`how`).

A value answer (recall, continuation, a needle) is read in three steps:

1. *Mentions*: every place the answer names a value. A value the case knows (the asked fact's chain and the case's
   other values) is found however it is written (case, separators, unit words, a unit left out); any other
   value-shaped token (letters and digits joined by a hyphen or colon, or letters and digits together: ``4457-KESTRL``,
   ``9-OSPREY``), a number with a unit, and whatever a correction introduces ("now it is pdf") is a mention of an
   unknown value, so a near miss or a look-alike of those shapes is not read as the right value.
2. *Polarity*: a mention is *set aside* when its clause says it is not the answer: negated or named as old or
   rejected before it ("not", "no longer", "instead of", "rather than", "replacing", "changed from", "previously",
   "originally", "the old ...", "rejected:") or after it ("was rejected", "(old)", "is no longer ...", "before").
   The cue nearest the mention decides ("replaced by X" and "changed from Y to X" set X forward, not aside), and a
   value listed after one set aside ("rejected: A, B") is set aside with it.
3. *Commitment*: the answer commits to a value when one value is named and not set aside; when several are, the one
   marked as the answer ("Answer: X", "Final answer: X", "so it is X"), then the one marked current ("now X", "the
   latest value is X"), then the one stated for the asked key ("the access code for the north vault is X"). Values
   offered as alternatives ("X or Y", "either X or Y") commit to neither. Otherwise the answer commits to nothing:
   a refusal, only old values, or several candidates.

A decision answer is read the same way: the decided value is the commitment, the rejected values are the values set
aside. A list of files (the artifact probe) is read by clause: paths named where the clause, its line or the heading
above it says they were created or changed count; paths named only as read, or as not changed, do not.

What is *not* read deterministically, and so goes to the judge (`harness.scoring.judge`): whether a continuation
carries the work on, whether a decision's rationale is right, whether a file's description is. These readers decide
only which value, which choices and which paths an answer gives. docs/quality.md reports their accuracy on the
labelled corpus in ``datasets/answers/``.

The reading is split by concept: `values` (how a value may be written), `text` (cleaning an answer), `reading`
(mentions, polarity, commitment: `read_value`), `decisions`, `paths`, and `verdicts` (the one rule per probe kind).
Every name is imported from here (``from harness.answers import judge_value``).
"""

from harness.answers.decisions import read_decision, says_none_rejected
from harness.answers.paths import PathsReading, read_paths
from harness.answers.reading import Mention, Reading, read_value
from harness.answers.text import clean, final_part
from harness.answers.values import normal, same_value, value_pattern
from harness.answers.verdicts import Verdict, judge_decision, judge_path, judge_paths, judge_value

__all__ = [
    "Mention",
    "PathsReading",
    "Reading",
    "Verdict",
    "clean",
    "final_part",
    "judge_decision",
    "judge_path",
    "judge_paths",
    "judge_value",
    "normal",
    "read_decision",
    "read_paths",
    "read_value",
    "same_value",
    "says_none_rejected",
    "value_pattern",
]
