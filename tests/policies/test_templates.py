"""Chat templates follow each benchmark's prompting protocol (docs/protocols.md)."""

from __future__ import annotations

import dataclasses

import pytest

from vector_gym.errors import ConfigError
from vector_gym.policies.templates import (
    SVGEDITBENCH_V1,
    SVGEDITBENCH_V2,
    VECTOR_BENCH,
    ChatTemplate,
    build_messages,
    select_template,
    task_observation,
)

SVG = '<svg xmlns="http://www.w3.org/2000/svg"><style>a{fill:red}</style><rect id="r"/></svg>'


def test_vector_bench_layout():
    """protocols.md, Vector-Bench: system + 'Repair request:' / instruction / blank / 'Corrupted SVG:' / SVG."""
    msgs = VECTOR_BENCH.messages({"instruction": "Fix the door.", "svg": SVG})
    assert [m["role"] for m in msgs] == ["system", "user"]
    assert msgs[1]["content"] == f"Repair request:\nFix the door.\n\nCorrupted SVG:\n{SVG}"
    system = msgs[0]["content"]
    # The four points of the published system message, in our words.
    for phrase in ("repair", "exactly one complete, valid SVG document", "unchanged", "Markdown"):
        assert phrase in system
    assert "{" not in system


def test_svgeditbench_v2_layout():
    """protocols.md, SVGEditBench V2: one user message, source SVG in a ```svg fence, no system."""
    msgs = SVGEDITBENCH_V2.messages({"instruction": "Make the rectangle blue.", "svg": SVG})
    assert msgs == [
        {
            "role": "user",
            "content": "The following is the SVG code representing an image. Make the rectangle blue. "
            f"Only return the output SVG code.\n\n```svg\n{SVG}\n```",
        }
    ]


def test_svgeditbench_v1_uses_stored_prompt():
    """protocols.md, SVGEditBench v1: the stored prompt (a v1 task's instruction), unchanged, as one user message."""
    from vector_gym.tasks.svgeditbench import load_svgeditbench_v1

    task = load_svgeditbench_v1()[0]
    obs = task_observation(task)
    assert obs == {
        "instruction": task.instruction,
        "svg": task.source_svg,
        "task_id": task.task_id,
        "family": "svgeditbench-v1",
    }
    assert select_template(obs) is SVGEDITBENCH_V1
    msgs = build_messages([obs])[0]
    assert msgs == [{"role": "user", "content": task.instruction}]
    assert msgs[0]["content"].startswith("The following code is the SVG code for the emoji")
    assert f"```svg\n{task.source_svg}" in msgs[0]["content"]


def test_svg_braces_are_not_format_fields():
    # The CSS braces inside the SVG are inserted verbatim, never interpreted.
    msgs = SVGEDITBENCH_V2.messages({"instruction": "{svg}", "svg": SVG})
    assert "a{fill:red}" in msgs[0]["content"]
    assert msgs[0]["content"].count(SVG) == 1
    assert "{svg}" in msgs[0]["content"]


def test_selection_by_family_and_overrides():
    obs = [
        {"family": "vector-bench", "instruction": "i", "svg": "<svg/>"},
        {"family": "svgeditbench-v2", "instruction": "i", "svg": "<svg/>"},
        {"family": "svgeditbench-v1", "instruction": "p", "svg": "<svg/>"},
        {"instruction": "i", "svg": "<svg/>"},  # no family: Vector-Bench
    ]
    convs = build_messages(obs)
    assert [len(c) for c in convs] == [2, 1, 1, 2]
    assert convs[2] == [{"role": "user", "content": "p"}]
    custom = dataclasses.replace(VECTOR_BENCH, system=None, name="mine")
    assert select_template(obs[0], templates={"vector-bench": custom}) is custom
    forced = ChatTemplate(name="forced", user="{task_id}: {instruction}")
    assert build_messages(
        [{"instruction": "x", "task_id": "t1", "family": "svgeditbench-v1"}], forced
    ) == [[{"role": "user", "content": "t1: x"}]]


def test_errors_name_what_was_expected():
    with pytest.raises(ConfigError, match="no chat template for family 'nope'"):
        select_template({"family": "nope"})
    with pytest.raises(ConfigError, match="expects observation key 'svg'"):
        VECTOR_BENCH.messages({"instruction": "i"})
    with pytest.raises(ConfigError, match="expected fields among"):
        ChatTemplate(name="bad", user="{source}")
    with pytest.raises(ConfigError, match="invalid format string"):
        ChatTemplate(name="bad", user="{instruction")


# ------------------------------------------------------------------ output token budget
def test_default_budget_follows_the_public_runner_rule():
    """protocols.md, Vector-Bench: max(8192, len(source)/2 + 2048), capped by a user ceiling."""
    from vector_gym.policies.templates import default_max_tokens
    from vector_gym.tasks.vector_bench import load_vector_bench

    # The bundled sources are 5,389-6,952 characters: 6,952 // 2 + 2,048 = 5,524 < 8,192.
    tasks = load_vector_bench()
    assert max(len(t.source_svg) for t in tasks) == 6952
    assert {default_max_tokens(task_observation(t)) for t in tasks} == {8192}
    assert default_max_tokens({"svg": "x" * 12_288}) == 8192  # 6,144 + 2,048: the crossover
    assert default_max_tokens({"svg": "x" * 12_290}) == 8193
    assert default_max_tokens({"svg": "x" * 30_001, "family": "repairgen"}) == 17_048
    assert default_max_tokens({"svg": "x" * 30_001}, ceiling=16_000) == 16_000
    assert default_max_tokens({"svg": "x" * 30_001}, ceiling=20_000) == 17_048
    assert default_max_tokens({}) == 8192  # no source: the floor
    # SVGEditBench V2 ran open models at max_tokens 8,192 (protocols.md)
    assert default_max_tokens({"svg": "x" * 30_001, "family": "svgeditbench-v2"}) == 8192
    with pytest.raises(ConfigError, match="ceiling"):
        default_max_tokens({"svg": ""}, ceiling=0)


# ------------------------------------------------------------ action formats and multi-turn
def test_patch_format_selects_the_edit_script_templates():
    """issue 5: a prompt template for each action format; the observation's action_format picks it."""
    from vector_gym.policies.templates import (
        SVGEDITBENCH_V1_PATCH,
        SVGEDITBENCH_V2_PATCH,
        VECTOR_BENCH_PATCH,
        template_key,
    )
    from vector_gym.suites.templates import PATCH_FORMAT_INSTRUCTIONS

    obs = {"instruction": "Fix the door.", "svg": SVG, "action_format": "patch"}
    assert template_key(obs) == "vector-bench:patch"
    assert select_template(obs) is VECTOR_BENCH_PATCH
    assert select_template({**obs, "family": "repairgen"}) is VECTOR_BENCH_PATCH
    assert select_template({**obs, "family": "svgeditbench-v2"}) is SVGEDITBENCH_V2_PATCH
    assert select_template({**obs, "family": "svgeditbench-v1"}) is SVGEDITBENCH_V1_PATCH
    assert select_template({**obs, "action_format": "svg"}) is VECTOR_BENCH
    system, user = VECTOR_BENCH_PATCH.messages(obs)
    # the edit-script syntax verbatim (its JSON braces survive formatting), no whole-SVG rule
    assert system["content"].endswith(PATCH_FORMAT_INSTRUCTIONS)
    assert '[{"set": "door", "x": "128"}, {"delete": "stray-mark"}]' in system["content"]
    assert "exactly one complete, valid SVG document" not in system["content"]
    assert user["content"] == f"Repair request:\nFix the door.\n\nCorrupted SVG:\n{SVG}"
    (v2,) = SVGEDITBENCH_V2_PATCH.messages({**obs, "family": "svgeditbench-v2"})
    assert PATCH_FORMAT_INSTRUCTIONS in v2["content"] and v2["content"].endswith(
        f"```svg\n{SVG}\n```"
    )
    assert "Only return the output SVG code" not in v2["content"]
    # overrides use FAMILY:patch keys; an unknown format is an error
    mine = ChatTemplate(name="mine", user="{svg}")
    assert select_template(obs, templates={"vector-bench:patch": mine}) is mine
    assert (
        select_template({**obs, "action_format": "svg"}, templates={"vector-bench:patch": mine})
        is VECTOR_BENCH
    )
    with pytest.raises(ConfigError, match="action_format"):
        select_template({**obs, "action_format": "diff"})
    assert task_observation(load_one(), action_format="patch")["action_format"] == "patch"
    assert "action_format" not in task_observation(load_one())


def load_one():
    from vector_gym.tasks.vector_bench import load_vector_bench

    return load_vector_bench()[0]


def test_multi_turn_observations_show_the_current_svg_and_the_feedback():
    """issue 5: later turns show what a person at an editor would see (docs: MULTI_TURN_INSTRUCTIONS)."""
    from vector_gym.policies.templates import MULTI_TURN_INSTRUCTIONS, VECTOR_BENCH_PATCH

    first = {"instruction": "Fix the door.", "svg": SVG, "feedback": ""}
    system, user = VECTOR_BENCH.messages(first)
    assert system["content"].endswith(" " + MULTI_TURN_INSTRUCTIONS)
    assert user["content"] == f"Repair request:\nFix the door.\n\nCorrupted SVG:\n{SVG}"
    current = "<svg><g></svg>"
    later = {
        "instruction": "Fix the door.",
        "svg": current,
        "feedback": "The document is not well-formed XML.",
    }
    for template in (VECTOR_BENCH, VECTOR_BENCH_PATCH):
        system, user = template.messages(later)
        assert system["content"].endswith(MULTI_TURN_INSTRUCTIONS)
        assert user["content"] == (
            "Repair request:\nFix the door.\n\nCurrent SVG (after your last answer):\n"
            f"{current}\n\nEditor feedback:\nThe document is not well-formed XML."
        )
    # no system message: the note follows the user message
    (v2,) = SVGEDITBENCH_V2.messages({**later, "family": "svgeditbench-v2"})
    assert v2["content"].endswith(
        f"```svg\n{current}\n```\n\nEditor feedback on your last answer:\n"
        f"The document is not well-formed XML.\n\n{MULTI_TURN_INSTRUCTIONS}"
    )
    # v1's stored prompt embeds the source: later turns add the current document
    (v1,) = SVGEDITBENCH_V1.messages({**later, "family": "svgeditbench-v1"})
    assert v1["content"].startswith(
        "Fix the door.\n\nYour last answer produced this SVG:\n```svg\n" + current
    )
    # a custom template without followup gets the feedback after its user message; None = no note
    plain = ChatTemplate(name="plain", user="{svg}", multi_turn=None)
    assert plain.messages(later) == [
        {
            "role": "user",
            "content": f"{current}\n\nEditor feedback on your last answer:\nThe document is not well-formed XML.",
        }
    ]
    # single-turn observations (no "feedback" key) are unchanged
    assert VECTOR_BENCH.messages({"instruction": "i", "svg": SVG})[0]["content"].endswith(
        "explanation."
    )
    with pytest.raises(ConfigError, match="followup"):
        ChatTemplate(name="bad", user="{svg}", followup="{target}")
