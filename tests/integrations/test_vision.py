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
