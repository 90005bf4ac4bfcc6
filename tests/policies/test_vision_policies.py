"""Image observations through the model policies: a tiny random LLaVA (built in the test,
loaded back with from_pretrained) in TransformersPolicy and ``vector-gym eval --observation
image``, and the requests VLLMPolicy builds for ``LLM.chat`` (a recording fake engine; vLLM's
own parser of the image part is checked in ``test_vllm_contract.py``). No network, no
downloaded weights."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from vector_gym.errors import ConfigError
from vector_gym.policies import check_observation
from vector_gym.policies.multimodal import build_chat, multimodal_messages, to_pil
from vector_gym.policies.templates import ChatTemplate, task_observation
from vector_gym.policies.transformers_policy import TransformersPolicy
from vector_gym.policies.vllm_policy import VLLMPolicy

SHORT = ChatTemplate(name="short", user="{instruction}")  # a short prompt: the image matters


def _solid(rgb, h=40, w=40):
    a = np.zeros((h, w, 3), np.uint8)
    a[:] = rgb
    return a


RED, BLUE = _solid((255, 0, 0)), _solid((0, 0, 255))
OBS = {"instruction": "Make the circle red.", "svg": "<svg/>", "task_id": "t0"}


@pytest.fixture(scope="module")
def vlm(tiny_vlm_dir):
    return TransformersPolicy(tiny_vlm_dir, max_new_tokens=8, template=SHORT, batch_size=3)


def test_vlm_is_loaded_with_its_processor_and_reads_the_image(vlm, tiny_vlm_dir):
    from _tiny_models import VLM_IMAGE_SIDE, VLM_PATCH

    assert type(vlm.model).__name__ == "LlavaForConditionalGeneration"
    assert type(vlm.processor).__name__ == "LlavaProcessor" and vlm.accepts_images
    seen = []
    generate = vlm.model.generate

    def spy(**kwargs):
        seen.append(kwargs)
        return generate(**kwargs)

    vlm.model.generate = spy
    try:
        red, blue, text = vlm.generate([{**OBS, "image": RED}, {**OBS, "image": BLUE}, OBS])
    finally:
        del vlm.model.generate
    # One call for the batch; both images reach the model, resized to the vision tower's input.
    (kwargs,) = seen
    pixels = kwargs["pixel_values"]
    assert tuple(pixels.shape) == (2, 3, VLM_IMAGE_SIDE, VLM_IMAGE_SIDE)
    expected = vlm.processor.image_processor([to_pil(RED), to_pil(BLUE)], return_tensors="pt")
    assert np.allclose(pixels.numpy(), expected["pixel_values"].numpy())
    # The prompt holds the image's placeholder tokens: (28 / 14)^2 = 4 more than the text alone.
    tokens = (VLM_IMAGE_SIDE // VLM_PATCH) ** 2
    assert red[0].prompt_tokens == blue[0].prompt_tokens == text[0].prompt_tokens + tokens
    rendered = vlm.processor.apply_chat_template(
        multimodal_messages(SHORT.messages(OBS), RED, "processor"),
        add_generation_prompt=True,
        tokenize=False,
    )
    assert rendered == "<|user|><image>Make the circle red.<|eos|><|assistant|>"
    # The answer depends on the image (greedy, fixed random weights).
    assert red[0].text != blue[0].text
    assert all(c.completion_tokens == 8 and c.finish_reason == "length" for c in (*red, *blue))


def test_batched_image_generation_matches_one_by_one(vlm, tiny_vlm_dir):
    """Left padding with images in the batch changes no greedy answer."""
    observations = [
        {**OBS, "image": RED},
        {**OBS, "instruction": "Move the square to the left edge of the canvas.", "image": BLUE},
        {**OBS, "image": _solid((0, 0, 0), 12, 30)},
    ]
    single = TransformersPolicy(tiny_vlm_dir, max_new_tokens=8, template=SHORT, batch_size=1)
    batched = vlm.generate(observations, n=2)
    assert [[c.text for c in row] for row in batched] == [
        [c.text for c in row] for row in single.generate(observations, n=2)
    ]
    assert len({row[0].prompt_tokens for row in batched}) == 2  # really padded


def test_text_only_model_refuses_image_observations(tiny_lm_dir):
    policy = TransformersPolicy(tiny_lm_dir, max_new_tokens=2, template=SHORT)
    assert policy.accepts_images is False and policy.processor is None
    with pytest.raises(ConfigError, match="text-only"):
        policy.generate([{**OBS, "image": RED}])
    with pytest.raises(ConfigError, match="text-only"):
        check_observation(policy, "image")
    check_observation(policy, "text")
    check_observation(SimpleNamespace(name="openai:m"), "image")  # a server cannot be asked
    with pytest.raises(ConfigError, match="observation"):
        check_observation(policy, "video")


def test_bad_images_are_named_errors(vlm):
    with pytest.raises(ConfigError, match=r"\(H, W, 3\) uint8"):
        vlm.generate([{**OBS, "image": np.zeros((4, 4), np.float32)}])
    with pytest.raises(ConfigError, match="style"):
        build_chat([{**OBS, "image": RED}], SHORT, style="gif")


# ------------------------------------------------------------------------ vector-gym eval
def test_eval_observation_image_with_a_tiny_vlm(tiny_vlm_dir, tmp_path, capsys):
    """The Must-show line: a tiny random VLM answers image observations in ``vector-gym eval``;
    the run file records the observation mode and a text run of the same model is another file."""
    from vector_gym.cli import main

    runs = tmp_path / "runs"
    argv = ["eval", "--env", "vector-bench", "--policy", f"hf:{tiny_vlm_dir}", "--limit", "2",
            "--max-tokens", "4", "--runs-dir", str(runs), "--no-progress", "--json"]
    assert main([*argv, "--observation", "image", "--image-size", "32x48"]) == 0
    capsys.readouterr()
    (image_file,) = runs.glob("*-image32x48-*/*.jsonl")
    rows = [json.loads(line) for line in image_file.read_text().splitlines()]
    assert len(rows) == 2
    assert {r["run"]["observation"]["mode"] for r in rows} == {"image"}
    assert rows[0]["run"]["observation"] == {"mode": "image", "size": [32, 48], "backend": "skia"}
    assert "ImageObservation" in rows[0]["run"]["wrappers"]
    assert all(r["completion_tokens"] == 4 and r["max_tokens"] == 4 for r in rows)
    assert main(argv) == 0
    capsys.readouterr()
    text_files = [p for p in runs.glob("*/*.jsonl") if p != image_file]
    (text_file,) = text_files
    text_rows = [json.loads(line) for line in text_file.read_text().splitlines()]
    assert text_rows[0]["run"]["observation"] == {"mode": "text"}
    # The image run's prompts held the 4 image tokens the text run's did not.
    by_task = {r["task_id"]: r["prompt_tokens"] for r in text_rows}
    assert all(r["prompt_tokens"] == by_task[r["task_id"]] + 4 for r in rows)


def test_eval_image_options_are_checked(tiny_lm_dir, tmp_path, capsys):
    from vector_gym.cli import main

    base = ["eval", "--limit", "1", "--runs-dir", str(tmp_path), "--no-progress", "--json"]
    with pytest.raises(SystemExit):  # argparse: not a size
        main([*base, "--observation", "image", "--image-size", "0x5"])
    assert "expected H or HxW" in capsys.readouterr().err
    assert main([*base, "--policy", "identity", "--image-size", "32"]) == 1
    assert "--image-size needs --observation image" in capsys.readouterr().err
    # a text-only model is refused before any task runs
    assert main([*base, "--policy", f"hf:{tiny_lm_dir}", "--observation", "image"]) == 1
    assert "text-only model" in capsys.readouterr().err
    assert not list(tmp_path.glob("*/*.jsonl"))


# ------------------------------------------------------------------------ vLLM requests
class _RecordingLLM:
    """Records LLM.chat's conversations; answers one output per request."""

    def __init__(self, multimodal=True):
        self.calls = []
        self.model_config = SimpleNamespace(max_model_len=10_000, is_multimodal_model=multimodal)

    def get_tokenizer(self):
        return SimpleNamespace(
            apply_chat_template=lambda messages, **kw: [0] * sum(len(m["content"]) for m in messages)
        )

    def chat(self, messages, sampling_params=None, use_tqdm=True, chat_template=None):
        self.calls.append(messages)
        return [
            SimpleNamespace(
                prompt_token_ids=[0] * 3,
                outputs=[SimpleNamespace(index=0, text="<svg/>", token_ids=[1], finish_reason="stop")],
            )
            for _ in messages
        ]


@pytest.mark.parametrize("image", [RED, to_pil(BLUE)])
def test_vllm_sends_image_pil_parts_and_counts_the_text(image):
    from dataclasses import dataclass

    @dataclass
    class _Params:
        n: int = 1
        max_tokens: int | None = None
        seed: int | None = None

    llm = _RecordingLLM()
    policy = VLLMPolicy("vlm", llm=llm, sampling_params_cls=_Params, template=SHORT, max_tokens=50)
    assert policy.accepts_images is True
    rows = policy.generate([{**OBS, "image": image}, OBS])
    assert [r[0].text for r in rows] == ["<svg/>", "<svg/>"]
    (conversations,) = llm.calls
    with_image, plain = conversations
    assert plain == [{"role": "user", "content": "Make the circle red."}]
    part, text = with_image[0]["content"]
    assert text == {"type": "text", "text": "Make the circle red."}
    assert part["type"] == "image_pil"
    assert np.array_equal(np.asarray(part["image_pil"]), np.asarray(to_pil(image)))
    # the budget fit counts the text of an image conversation (the image adds no tokens here)
    assert policy.prompt_tokens(with_image) == policy.prompt_tokens(plain) == len(OBS["instruction"])
    assert [r[0].budget["prompt_tokens"] for r in rows] == [len(OBS["instruction"])] * 2
    text_engine = VLLMPolicy("m", llm=_RecordingLLM(multimodal=False), sampling_params_cls=_Params)
    assert text_engine.accepts_images is False
    with pytest.raises(ConfigError, match="text-only"):
        text_engine.generate([{**OBS, "image": image}])


def test_task_observation_plus_image_renders_with_the_suite_template(vlm):
    """A bundled task's observation with its rendered source goes through the suite's template."""
    from vector_gym.integrations.vision import render_sources
    from vector_gym.suites import get_suite

    suite = get_suite("vector_bench")
    task = suite.tasks()[0]
    image = np.asarray(render_sources([task], (28, 28))[0])
    conv = build_chat([{**task_observation(task), "image": image}], templates=suite.template_table(),
                      style="processor")[0]
    assert conv[0]["role"] == "system" and isinstance(conv[0]["content"], str)
    assert conv[1]["content"][0]["type"] == "image"
    assert np.array_equal(np.asarray(conv[1]["content"][0]["image"]), image)
