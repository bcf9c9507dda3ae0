"""The reference models' names: what a request names to reach one, and what results record."""

PROVIDER = "reference"
AGENT_NAME = "reference-agent"
SUMMARIZER_NAME = "reference-summarizer"
JUDGE_NAME = "reference-judge"
ROLE_NAMES = {"agent": AGENT_NAME, "summarizer": SUMMARIZER_NAME, "judge": JUDGE_NAME}  # role -> the model's name
