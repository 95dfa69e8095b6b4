"""The README's examples run as written: its ``pycon`` blocks, with doctest,
in a folder holding the tables and self-play records they name."""

from __future__ import annotations

import doctest
import os
import re
import shutil

import pytest

from conftest import ROOT

README = ROOT / "crates" / "python" / "README.md"


def blocks(text: str) -> list[str]:
    return re.findall(r"```pycon\n(.*?)```", text, flags=re.S)


def test_the_readme_examples_run_as_written(tmp_path, tables_dir, games_file):
    found = blocks(README.read_text())
    assert found, "the README has no pycon example"
    data = tmp_path / "data"
    (data / "run").mkdir(parents=True)
    # The README's commands: ≤ 4-piece tables (the session's ≤ 5 serve alike)
    # and self-play records.
    shutil.copytree(tables_dir, data / "tb")
    shutil.copy(games_file, data / "run" / "games.csv")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        parser = doctest.DocTestParser()
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        globs: dict = {}
        for i, block in enumerate(found):
            test = parser.get_doctest(block, globs, f"README block {i}", str(README), 0)
            runner.run(test)
        result = runner.summarize(verbose=False)
    finally:
        os.chdir(cwd)
    assert result.attempted > 20 and result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
    # The example writes a game still in progress (two moves), as written.
    assert "mybot" in (data / "mybot-games.csv").read_text()


@pytest.mark.parametrize("module", ["alquerque_lab", "alquerque_lab.compact", "alquerque_lab.pettingzoo_env",
                                    "alquerque_lab.openspiel"])
def test_the_module_examples_run(module):
    if module.endswith("pettingzoo_env"):
        pytest.importorskip("pettingzoo")
    if module.endswith("openspiel"):
        pytest.importorskip("pyspiel")
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
