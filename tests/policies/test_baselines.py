"""The four evaluator controls (Vector-Bench Table 2) and the policy registry."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from lxml import etree

from vector_gym.errors import ConfigError, UnknownTaskError
from vector_gym.policies import CONTROL_POLICIES, POLICY_FACTORIES, Completion, Policy, make_policy
from vector_gym.policies.baselines import (
    MUTATION_ATTRIBUTE,
    IdentityPolicy,
    MalformedTargetPolicy,
    OraclePolicy,
    ProtectedMutationPolicy,
    malformed_target,
    protected_mutation,
)
from vector_gym.tasks.task import Task
from vector_gym.tasks.vector_bench import load_vector_bench

TASKS = load_vector_bench()


def obs_of(task):
    return {"instruction": task.instruction, "svg": task.source_svg, "task_id": task.task_id}


def test_controls_follow_the_policy_protocol():
    for spec in CONTROL_POLICIES:
        p = make_policy(spec, TASKS)
        assert isinstance(p, Policy) and p.name == spec
    assert CONTROL_POLICIES == (
        "identity",
        "oracle",
        "protected-mutation",
        "malformed-target",
    )  # Table 2 order


def test_identity_returns_the_source():
    out = IdentityPolicy().generate([obs_of(t) for t in TASKS[:3]], n=2)
    assert [[c.text for c in cs] for cs in out] == [[t.source_svg] * 2 for t in TASKS[:3]]
    assert out[0][0] == Completion(TASKS[0].source_svg, finish_reason="stop")


def test_oracle_returns_the_target_by_task_id():
    obs = [obs_of(t) for t in reversed(TASKS)]
    out = OraclePolicy(TASKS).generate(obs)
    assert [cs[0].text for cs in out] == [t.target_svg for t in reversed(TASKS)]


def test_protected_mutation_adds_one_data_attribute_to_the_first_protected_element():
    for t in TASKS:
        text = protected_mutation(t)
        assert text.count(MUTATION_ATTRIBUTE) == 1
        assert text.replace(" " + MUTATION_ATTRIBUTE, "", 1) == t.target_svg  # nothing else changes
        root = etree.fromstring(text.encode())
        (el,) = root.xpath("//*[@id=$u]", u=t.protected_ids[0])
        assert el.get("data-vector-gym-mutation") == "1"
    assert ProtectedMutationPolicy(TASKS).generate([obs_of(TASKS[4])])[0][
        0
    ].text == protected_mutation(TASKS[4])


def test_protected_mutation_falls_back_to_the_root():
    t = Task("x", "toy", "i", "<svg/>", '<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>')
    assert (
        protected_mutation(t)
        == f'<svg {MUTATION_ATTRIBUTE} xmlns="http://www.w3.org/2000/svg"><rect/></svg>'
    )
    with pytest.raises(ConfigError, match="no <svg"):
        protected_mutation(Task("y", "toy", "i", "", "not svg"))


def test_malformed_target_does_not_parse():
    for t in TASKS:
        text = malformed_target(t)
        assert t.target_svg.startswith(text) and "</svg>" not in text
        with pytest.raises(etree.XMLSyntaxError):
            etree.fromstring(text.encode())
    assert MalformedTargetPolicy(TASKS).generate([obs_of(TASKS[0])])[0][0].text == malformed_target(
        TASKS[0]
    )


def test_controls_are_deterministic():
    for spec in CONTROL_POLICIES:
        p = make_policy(spec, TASKS)
        assert p.generate([obs_of(t) for t in TASKS]) == p.generate([obs_of(t) for t in TASKS])


def test_target_controls_need_task_id():
    with pytest.raises(ConfigError, match="task_id"):
        OraclePolicy(TASKS).generate([{"instruction": "i", "svg": "s"}])
    with pytest.raises(UnknownTaskError, match="sv_999"):
        OraclePolicy(TASKS).generate([{"instruction": "i", "svg": "s", "task_id": "sv_999"}])
    with pytest.raises(ConfigError):
        OraclePolicy([])


def test_make_policy_errors():
    with pytest.raises(ConfigError, match="identity, oracle"):
        make_policy("nope", TASKS)
    with pytest.raises(ConfigError, match="no argument"):
        make_policy("oracle:x", TASKS)
    with pytest.raises(ConfigError, match="n:"):
        IdentityPolicy().generate([obs_of(TASKS[0])], n=0)


def test_registry_entries_are_lazy_strings():
    assert all(isinstance(v, str) and ":" in v for v in POLICY_FACTORIES.values())


def test_baselines_import_neither_envs_nor_rewards():
    """Architecture: policies import neither vector_gym.envs nor vector_gym.rewards."""
    src = Path(__file__).parents[2] / "vector_gym" / "policies"
    for f in (src / "baselines.py", src / "__init__.py"):
        tree = ast.parse(f.read_text())
        mods = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]
        mods += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert not [m for m in mods if m.startswith(("vector_gym.envs", "vector_gym.rewards"))], f


def test_patch_oracle_answers_the_edit_script_to_the_target():
    import json

    from vector_gym.policies.baselines import PatchOraclePolicy
    from vector_gym.svg.patch import apply_patch, diff_patch

    p = make_policy("patch-oracle", TASKS)
    assert isinstance(p, PatchOraclePolicy) and p.name == "patch-oracle"
    task = TASKS[0]
    ((c1, c2),) = p.generate([obs_of(task)], n=2)
    assert c1 == c2 and c1.finish_reason == "stop"
    assert json.loads(c1.text) == diff_patch(task.source_svg, task.target_svg)
    assert len(c1.text) < len(task.target_svg) / 10
    # later turns: the script starts from the observed (current) document
    current = apply_patch(task.source_svg, [json.loads(c1.text)[0]]).svg
    ((c,),) = p.generate([{**obs_of(task), "svg": current}])
    assert apply_patch(current, c.text).svg == apply_patch(task.source_svg, c1.text).svg
    assert json.loads(c.text) == json.loads(c1.text)[1:]
    # an observed SVG that does not parse: the script from the task's source
    ((c,),) = p.generate([{**obs_of(task), "svg": "<svg><g></svg>"}])
    assert c.text == c1.text
    with pytest.raises(ConfigError, match="no argument"):
        make_policy("patch-oracle:x", TASKS)
    with pytest.raises(ConfigError, match="task_id"):
        p.generate([{"svg": task.source_svg}])
