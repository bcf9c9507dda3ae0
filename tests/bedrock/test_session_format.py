"""The session question grammar and the readings the probe generator and the reference agent share: questions that
parse back, what changes a file, exit codes, exception lines, a blank filled, paths compared."""

from __future__ import annotations

import pytest

from harness.answers import judge_path, judge_value
from harness.session_format import (
    BLANK,
    Write,
    blank_out,
    command_of,
    exception_lines,
    fill_blank,
    parse_session_question,
    path_forms,
    path_tokens,
    render_session_question,
    reports_failure,
    return_code,
    same_file,
    sed_replacement,
    shell_writes,
    snippet,
    writes,
)
from harness.task_format import ARTIFACT_QUESTION, parse_probe, render_decision_question, render_question


def test_every_question_parses_back_to_its_type_and_subject_and_the_two_grammars_do_not_overlap():
    subjects = {
        "artifact": "import tokenizer_v3 as tokenizer_v2",
        "path": "lexer_tables.py",
        "command": "cd /repo && python -c 'import parser' 2>&1 | tail -3",
        "error": f"ModuleNotFoundError: No module named '{BLANK}'",
        "constraint": f'Do not {BLANK} the "tests" folder.',
    }
    for kind, subject in subjects.items():
        question = render_session_question(kind, subject)
        assert parse_session_question(question) == (kind, subject)
        assert parse_probe(question) is None  # the scenarios' reader never takes a session question for its own
    for question in (render_question("build number"), render_decision_question("db"), ARTIFACT_QUESTION):
        assert parse_session_question(question) is None
    assert parse_session_question("Which file did you write the text `x` into?") is None  # no "Question:"


def test_a_subject_that_cannot_be_quoted_is_refused():
    with pytest.raises(ValueError, match="one non-blank line"):
        render_session_question("command", "echo `date`")
    with pytest.raises(ValueError, match="one non-blank line"):
        render_session_question("path", "a\nb.py")
    with pytest.raises(ValueError, match="exactly one blank"):
        render_session_question("constraint", "Do not touch the tests.")
    with pytest.raises(ValueError, match="no session question form"):
        render_session_question("value", "x")


def test_a_blank_is_filled_by_the_word_in_its_place_with_whitespace_read_loosely():
    line = "Do NOT commit your changes."
    template = blank_out(line, 7, 13)
    assert template == f"Do NOT {BLANK} your changes."
    assert fill_blank(template, "x\nDo  NOT\ncommit your changes.\ny") == ["commit"]
    assert fill_blank(template, "Do NOT push your changes. Do NOT commit your changes.") == ["push", "commit"]
    assert fill_blank(template, "Do NOT commit all your changes.") == []
    quoted = f"ModuleNotFoundError: No module named '{BLANK}'"
    assert fill_blank(quoted, "ModuleNotFoundError: No module named 'astropy.table._mixins'</message>") == [
        "astropy.table._mixins"
    ]
    assert fill_blank(f"the last word is {BLANK}", "so the last word is final.") == ["final."]


def test_what_changes_a_file_write_and_edit_tools_and_apply_patch():
    assert writes("write_file", {"file_path": "/notes/a.md", "content": "hello"}) == [Write("/notes/a.md", "hello")]
    assert writes("edit_file", {"file_path": "/a.py", "old_string": "x", "new_string": "y"}) == [Write("/a.py", "y")]
    assert writes("str_replace_editor", {"command": "create", "path": "/a.py", "file_text": "z"}) == [Write("/a.py", "z")]
    assert writes("read_file", {"file_path": "/a.py"}) == []
    assert writes("str_replace_editor", {"command": "view", "path": "/a.py"}) == []
    patch = "*** Begin Patch\n*** Update File: src/a.py\n@@\n-old\n+new line\n*** Add File: b.txt\n+hi\n*** End Patch"
    assert writes("apply_patch", {"input": patch}) == [Write("src/a.py", "new line"), Write("b.txt", "hi")]


def test_what_changes_a_file_in_a_shell_command():
    assert shell_writes("cd /repo && echo 'retries = 3' > conf/app.ini") == [Write("conf/app.ini", "retries = 3", "/repo")]
    assert shell_writes("cat >> log.txt <<'EOF'\nline one\nline two\nEOF\necho done") == [Write("log.txt", "line one\nline two")]
    assert shell_writes("cat <<EOF > /tmp/x.md\n# Title\nEOF") == [Write("/tmp/x.md", "# Title")]
    assert shell_writes("ls | tee -a out.txt list.txt") == [Write("out.txt"), Write("list.txt")]
    assert shell_writes("sed -i.bak -e 's/a/b/g' f1.py f2.py") == [Write("f1.py", "b"), Write("f2.py", "b")]
    assert shell_writes("cd /t && sed -i 's/x\\[0\\] = 1/x[0] = right/' pkg/m.py") == [Write("pkg/m.py", "x[0] = right", "/t")]
    assert shell_writes("git diff > patch.txt") == [Write("patch.txt")]
    assert shell_writes("pip install x 2>&1 | tail -3; make 2>/dev/null >&2") == []
    assert shell_writes("sed -n '1,5p' a.py && cat a.py") == []
    assert shell_writes("echo 'unbalanced > x.txt") == []  # not words: nothing read
    assert shell_writes("cd /a && cd b && touch c && echo hi > d.txt") == [Write("d.txt", "hi", "/a/b")]
    # each line a statement, a comment left out, a line continued, a newline inside quotes kept
    script = "cd /a\n# note > x.txt\necho hi \\\n  > b.txt\npython -c 'import x\nprint(1)' > c.log"
    assert shell_writes(script) == [Write("b.txt", "hi", "/a"), Write("c.log", None, "/a")]


def test_a_sed_replacement_and_a_snippet():
    assert sed_replacement("s|/usr|/opt|g") == "/opt"
    assert sed_replacement("s/a\\/b/c\\/d/") == "c/d"
    assert sed_replacement("1,5p") is None and sed_replacement("s/unterminated") is None
    assert snippet("\n\n   first   line  \nsecond") == "first line"
    assert snippet("x" * 100) == "x" * 80
    assert snippet("use `this`") is None and snippet("") is None and snippet(None) is None


def test_exit_codes_failure_and_commands():
    assert return_code("<returncode>1</returncode>\n<output>\nboom\n</output>") == 1
    assert return_code("done\nExit code: 2\n") == 2
    assert return_code("no code here, exit code was mentioned") is None
    assert reports_failure("<returncode>127</returncode>") and reports_failure("Error: no such file")
    assert not reports_failure("<returncode>0</returncode>") and not reports_failure("Updated file /a.md")
    assert command_of({"command": "ls -la"}) == "ls -la"
    assert command_of({"cmd": ["bash", "-lc", "make test"]}) == "make test"
    assert command_of({"cmd": ["git", "commit", "-m", "a b"]}) == "git commit -m 'a b'"
    assert command_of({"file_path": "/a"}) is None


def test_exception_lines_are_a_tracebacks_last_line():
    text = "Traceback (most recent call last):\n  File \"<string>\", line 1\nModuleNotFoundError: No module named 'x'\n"
    assert exception_lines(text) == [("ModuleNotFoundError: No module named 'x'", "ModuleNotFoundError", "No module named 'x'")]
    assert exception_lines("numpy.linalg.LinAlgError: Singular matrix") == [
        ("numpy.linalg.LinAlgError: Singular matrix", "numpy.linalg.LinAlgError", "Singular matrix")
    ]
    assert exception_lines("an Error: of prose, and a ValueError without a message") == []


def test_paths_their_forms_and_one_file_written_several_ways():
    assert path_tokens("found ./src/a.py and /etc/x.conf, see https://pip.pypa.io/warnings/venv or and/or.") == [
        "./src/a.py",
        "/etc/x.conf",
    ]
    assert path_forms("./src/a.py", "/repo") == ("./src/a.py", "src/a.py", "/repo/src/a.py")
    assert path_forms("/etc/x.conf", "/repo") == ("/etc/x.conf",)
    assert same_file("./src/a.py", "/repo/src/a.py") and not same_file("lib/a.py", "/repo/src/a.py")


def test_a_path_answer_is_right_when_every_path_it_names_is_the_file_asked_for():
    expected = ("astropy/modeling/separable.py", "/testbed/astropy/modeling/separable.py")
    assert judge_path("astropy/modeling/separable.py", expected).correct
    assert judge_path("It is at `/testbed/astropy/modeling/separable.py`.", expected).correct
    assert judge_path("./astropy/modeling/separable.py", expected).correct
    assert not judge_path("separable.py", expected).correct  # a file name is not its path
    assert not judge_path("astropy/modeling/core.py or astropy/modeling/separable.py", expected).correct
    assert not judge_path("I don't know the path of `separable.py`.", expected).correct
    assert judge_path("separable.py", expected).how == "names no path"
    assert judge_path("/a/core.py or ./astropy/modeling/separable.py", expected).how == (
        "names /a/core.py, not the file asked for"
    )
    assert judge_path("./astropy/modeling/separable.py", expected).how == "names /astropy/modeling/separable.py"


def test_a_refusal_that_quotes_the_command_asked_about_commits_to_no_value():
    command = 'cd /t && python -c "import a; print(a.__version__)" 2>&1'
    assert judge_value(f"I don't know the exit code of `{command}`: it is not in view.", command, "1").answered is None
    assert judge_value(f"`{command}` exited with 1.", command, "1").correct
