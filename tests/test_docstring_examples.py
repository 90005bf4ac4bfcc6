"""Every ``>>>`` example in a public docstring of the package runs and gives the output it shows.

The examples document shapes and values (the developer guide asks docstrings for them); this
makes them tests, so that a docstring cannot drift from the code. Modules whose import needs an
optional extra that is not installed are left out (their own tests cover them where it is).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import vector_gym


def _modules() -> list[str]:
    names = [vector_gym.__name__]
    for info in pkgutil.walk_packages(vector_gym.__path__, prefix="vector_gym."):
        names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples_give_the_output_they_show(name: str) -> None:
    try:
        module = importlib.import_module(name)
    except ImportError as exc:  # an optional extra (ray, verl, verifiers, ...) not installed
        pytest.skip(f"{name}: {exc}")
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in finder.find(module, name, globs=dict(vars(module))):
        if test.examples and test.filename and test.filename.endswith(".py"):
            runner.run(test, out=lambda _s: None)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples of {name} fail (run pytest --doctest-modules {module.__file__})"
