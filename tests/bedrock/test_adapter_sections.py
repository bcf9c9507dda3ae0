"""The adapter reads the sections deepagents' memory and skills middleware append to the system prompt, in their own
templates (MEMORY_SYSTEM_PROMPT, SKILLS_SYSTEM_PROMPT of the installed release)."""

from deepagents.middleware.memory import MEMORY_SYSTEM_PROMPT
from deepagents.middleware.skills import SKILLS_SYSTEM_PROMPT

from harness import _deepagents_adapter as da

MEMORY = "/memories/AGENTS.md\n\n# Conventions\n- Notes go under /notes/."
SKILLS = (
    "- **ledger-audit**: How to audit a ledger.\n  -> Read `/skills/ledger-audit/SKILL.md` for full instructions\n- **b**: Other."
)


def _skills(listing: str) -> str:
    return SKILLS_SYSTEM_PROMPT.format(skills_locations="", skills_load_warnings="", skills_list=listing)


def test_memory_sections_are_the_agent_memory_blocks_and_nothing_else():
    prompt = "You are an agent.\n\n" + MEMORY_SYSTEM_PROMPT.format(agent_memory=MEMORY)
    assert da.memory_sections(prompt) == [MEMORY]
    assert da.memory_sections(MEMORY_SYSTEM_PROMPT.format(agent_memory="(No memory loaded)")) == []
    assert da.memory_sections("You are an agent. <agent_memory> is a tag.") == []
    two = MEMORY_SYSTEM_PROMPT.format(agent_memory="a") + "\n" + MEMORY_SYSTEM_PROMPT.format(agent_memory="b")
    assert da.memory_sections(two) == ["a", "b"]


def test_skill_entries_are_the_lines_of_the_skills_list_only():
    prompt = "- **Not a skill**: a bullet in the agent's own prompt\n\n" + _skills(SKILLS)
    assert da.skill_entries(prompt) == ["- **ledger-audit**: How to audit a ledger.", "- **b**: Other."]
    assert da.skill_entries(_skills("(No skills available yet. You can create skills in /skills/)")) == []
    assert da.skill_entries("- **ledger-audit**: How to audit a ledger.") == []  # outside a skills section
