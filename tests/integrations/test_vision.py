"""Image observations: the rendered source as a TRL image column and in multimodal messages."""

from __future__ import annotations

import base64
import dataclasses
import io

import numpy as np
import pytest

from vector_gym.errors import ConfigError
from vector_gym.integrations.trl import build_dataset
from vector_gym.integrations.vision import multimodal_messages, png_data_uri, render_sources
from vector_gym.suites import get_suite

RED = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="5" fill="#ff0000"/></svg>'


def test_build_dataset_adds_the_rendered_source_as_an_image_column():
    suite = get_suite("vector_bench")
    tasks = suite.tasks()[:2]
    ds = build_dataset(suite, tasks=tasks, image=(32, 48))
    assert ds.column_names[-1] == "image"
    img = ds[0]["image"]
    assert img.size == (48, 32)  # PIL: (W, H)
    expected = np.asarray(render_sources(tasks[:1], (32, 48))[0])
    assert np.array_equal(np.asarray(img.convert("RGB")), expected)
    assert expected.min() < 255  # the drawing is there, on white


def test_openai_and_processor_messages_carry_the_png():
    from PIL import Image

    suite = get_suite("vector_bench")
    task = suite.tasks()[0]
    messages = suite.template("svg").messages(suite.observation(task))
    image = np.asarray(render_sources([dataclasses.replace(task, source_svg=RED)], (8, 8))[0])
    out = multimodal_messages(messages, image)
    assert out[0] == messages[0]  # the system message is unchanged
    parts = out[1]["content"]
    assert parts[0]["type"] == "image_url" and parts[1] == {"type": "text", "text": messages[1]["content"]}
    uri = parts[0]["image_url"]["url"]
    assert uri.startswith("data:image/png;base64,") and uri == png_data_uri(image)
    decoded = np.asarray(Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))).convert("RGB"))
    assert decoded[0, 0].tolist() == [255, 0, 0] and decoded[-1, 0].tolist() == [255, 255, 255]
    hf = multimodal_messages(messages, image, style="processor")[1]["content"]
    assert hf[0]["type"] == "image" and np.array_equal(np.asarray(hf[0]["image"]), image)
    with pytest.raises(ConfigError, match="style"):
        multimodal_messages(messages, image, style="x")


def test_grpo_two_steps_on_the_image_column_with_a_tiny_vlm(tiny_vlm_dir, tmp_path):
    """TRL trains a tiny random vision-language model on ``build_dataset(image=...)``: the
    rewards see the prompts with the rendered source in the first user message."""
    import warnings

    from trl import GRPOConfig

    from vector_gym.integrations.trl import grpo_trainer, reward_funcs
    from vector_gym.policies.templates import ChatTemplate

    suite = get_suite("vector_bench")
    tasks = suite.tasks()[:2]
    short = ChatTemplate(name="short", user="{instruction}")  # a short prompt keeps it fast
    train = build_dataset(suite, tasks=tasks, image=(28, 28), template=short)
    seen: list[dict] = []
    funcs = reward_funcs(suite)
    first = funcs[0]

    def recording(*args, **kwargs):
        seen.append(kwargs)
        return first(*args, **kwargs)

    recording.__name__ = first.__name__
    args = GRPOConfig(output_dir=str(tmp_path), max_steps=2, per_device_train_batch_size=2, num_generations=2,
                      max_completion_length=8, learning_rate=1e-3, logging_steps=1, save_strategy="no",
                      report_to=[], use_cpu=True, bf16=False, seed=0, dataloader_num_workers=0, disable_tqdm=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # max_completion_length=8 is below the suite's budget
        trainer = grpo_trainer(suite, str(tiny_vlm_dir), args, train_dataset=train,
                               reward_funcs=[recording, *funcs[1:]])
    assert type(trainer.model).__name__ == "LlavaForConditionalGeneration"
    trainer.train()
    assert trainer.state.global_step == 2 and len(seen) == 2
    expected = {t.task_id: np.asarray(img) for t, img in zip(tasks, render_sources(tasks, (28, 28)), strict=True)}
    for kwargs in seen:
        for prompt, tid in zip(kwargs["prompts"], kwargs["task_id"], strict=True):
            picture, text = prompt[0]["content"]
            assert picture["type"] == "image" and text["type"] == "text"
            assert np.array_equal(np.asarray(picture["image"].convert("RGB")), expected[tid])
            assert text["text"] == suite.get_task(tid).instruction
