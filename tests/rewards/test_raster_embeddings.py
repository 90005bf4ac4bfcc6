"""DINOv2 cosine and CLIPScore code paths on tiny random models built here (no downloads).

Definitions: ``metrics-svgeditbench.md`` "DINO" and "CLIPScore" (SVGEditBench V2, Table 1):
DINO = cosine of the normalised CLS embeddings of [0, 1] images without ImageNet
normalisation; CLIPScore = 100 * max(cos(image, text), 0).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from vector_gym.rewards.embeddings import cosine_rows, load_clip, load_dino


def _images(seed: int, n: int, size: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, size=(n, size, size, 3), dtype=np.uint8)


@pytest.fixture(scope="module")
def tiny_dino_dir(tmp_path_factory):
    from transformers import Dinov2Config, Dinov2Model

    torch.manual_seed(0)
    cfg = Dinov2Config(
        hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, image_size=28, patch_size=14
    )
    path = tmp_path_factory.mktemp("tiny_dino")
    Dinov2Model(cfg).save_pretrained(path)
    return str(path)


@pytest.fixture(scope="module")
def tiny_clip_dir(tmp_path_factory):
    from tokenizers import pre_tokenizers
    from transformers import CLIPConfig, CLIPImageProcessor, CLIPModel, CLIPTokenizer

    path = tmp_path_factory.mktemp("tiny_clip")
    # A character-level CLIP BPE vocabulary (no merges): every byte symbol, alone and word-final.
    symbols = sorted(pre_tokenizers.ByteLevel.alphabet())  # CLIP's byte-to-unicode symbols
    vocab = {s: i for i, s in enumerate(symbols)}
    for s in symbols:
        vocab[s + "</w>"] = len(vocab)
    for special in ("<|startoftext|>", "<|endoftext|>"):
        vocab[special] = len(vocab)
    (path / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (path / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    tok = CLIPTokenizer(str(path / "vocab.json"), str(path / "merges.txt"))
    tok.save_pretrained(path)
    torch.manual_seed(0)
    cfg = CLIPConfig(
        text_config={
            "vocab_size": len(vocab), "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
            "num_attention_heads": 2, "max_position_embeddings": 77,
            "bos_token_id": vocab["<|startoftext|>"], "eos_token_id": vocab["<|endoftext|>"], "pad_token_id": vocab["<|endoftext|>"],
        },
        vision_config={
            "image_size": 32, "patch_size": 16, "hidden_size": 32, "intermediate_size": 64,
            "num_hidden_layers": 2, "num_attention_heads": 2,
        },
        projection_dim=16,
    )
    CLIPModel(cfg).save_pretrained(path)
    CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}).save_pretrained(path)
    return str(path)


def test_cosine_rows():
    a = np.array([[3.0, 4.0], [1.0, 0.0]])
    assert cosine_rows(a, a).tolist() == pytest.approx([1.0, 1.0])
    assert cosine_rows(a, -a).tolist() == pytest.approx([-1.0, -1.0])


def test_dino_identical_images_cosine_one(tiny_dino_dir):
    dino = load_dino(tiny_dino_dir)
    assert dino is not None
    a, b = _images(1, 3, 28), _images(2, 3, 28)
    same = dino.cosine(a, a)
    diff = dino.cosine(a, b)
    assert same == pytest.approx([1.0, 1.0, 1.0], abs=1e-5)
    assert (diff < 1.0 - 1e-4).all()
    emb = dino.embed(a)
    assert emb.shape == (3, 32)


def test_dino_uses_unnormalised_unit_interval_input(tiny_dino_dir):
    """The embedding equals the model's pooler output on pixels / 255 (no mean/std step)."""
    dino = load_dino(tiny_dino_dir)
    img = _images(3, 1, 28)
    x = torch.from_numpy(img).permute(0, 3, 1, 2).float() / 255.0
    with torch.no_grad():
        ref = dino.model(pixel_values=x).pooler_output.numpy()
    np.testing.assert_allclose(dino.embed(img), ref, rtol=1e-5, atol=1e-6)


def test_clipscore_range_and_identity(tiny_clip_dir):
    clip = load_clip(tiny_clip_dir)
    assert clip is not None
    imgs = _images(4, 2, 40)
    s = clip.score(imgs, ["grinning face", "eight oclock"])
    assert s.shape == (2,)
    assert ((s >= 0) & (s <= 100)).all()
    # the score equals 100 * max(cos, 0) of the model's own projected features
    with torch.no_grad():
        pix = clip.processor(images=list(imgs), return_tensors="pt")["pixel_values"]
        tok = clip.tokenizer(["grinning face", "eight oclock"], padding=True, return_tensors="pt")
        i = clip.model.get_image_features(pixel_values=pix)
        t = clip.model.get_text_features(**tok)
        i = getattr(i, "pooler_output", i)
        t = getattr(t, "pooler_output", t)
        cos = torch.nn.functional.cosine_similarity(i, t).numpy()
    np.testing.assert_allclose(s, 100 * np.maximum(cos, 0), rtol=1e-4, atol=1e-4)
    # same image and text -> same score; another image -> another score
    assert clip.score(imgs[:1], ["grinning face"])[0] == pytest.approx(s[0], abs=1e-4)
    other = clip.score(_images(5, 1, 40), ["grinning face"])[0]
    assert other != pytest.approx(s[0], abs=1e-6)


def test_missing_weights_give_none(tmp_path):
    """No weights and no network: the loader returns None (the column is missing, never 0)."""
    assert load_dino(str(tmp_path / "absent")) is None
    assert load_clip(str(tmp_path / "absent")) is None


def test_scorer_reports_learned_metrics(tiny_dino_dir, tiny_clip_dir):
    """The raster scorer fills dino/clipscore from the tiny models: oracle DINO 1."""
    from vector_gym.rewards.raster import RasterScorer
    from vector_gym.tasks.svgeditbench import load_svgeditbench_v2

    tasks = load_svgeditbench_v2()[:3]
    sc = RasterScorer("v2", size=(28, 28), dino_model=tiny_dino_dir, clip_model=tiny_clip_dir, processes=0)
    oracle = sc.score_many(tasks, [t.target_svg for t in tasks], extracted=True)
    ident = sc.score_many(tasks, [t.source_svg for t in tasks], extracted=True)
    assert [r.dino for r in oracle] == pytest.approx([1.0] * 3, abs=1e-5)
    assert all(r.dino < 1.0 - 1e-5 for r in ident)
    assert all(0 <= r.clipscore <= 100 for r in oracle + ident)
    sc_missing = RasterScorer("v2", size=(28, 28), dino_model="/nonexistent/dino", clip_model=None, processes=0)
    r = sc_missing.score_many(tasks[:1], [tasks[0].target_svg], extracted=True)[0]
    assert r.dino is None and r.clipscore is None and "dino_unavailable" in r.detail
    assert r.to_dict()["dino"] is None


def test_two_scoring_threads_load_a_model_once(tiny_dino_dir, monkeypatch):
    """A rollout scores two parts of a batch in threads (vector_gym.rollout): their first learned
    metric must not load the weights twice (DINOv2-giant is 4.4 GB)."""
    import threading
    import time

    import transformers

    from vector_gym.rewards import embeddings

    real = transformers.Dinov2Model.from_pretrained.__func__
    loads: list[str] = []

    def slow_load(cls, *args, **kwargs):
        loads.append(threading.current_thread().name)
        time.sleep(0.2)  # the second thread asks while the first one loads
        return real(cls, *args, **kwargs)

    monkeypatch.setattr(transformers.Dinov2Model, "from_pretrained", classmethod(slow_load))
    monkeypatch.setattr(embeddings, "_CACHE", {})
    got: list = []
    threads = [threading.Thread(target=lambda: got.append(load_dino(tiny_dino_dir))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(loads) == 1
    assert got[0] is got[1] is not None
