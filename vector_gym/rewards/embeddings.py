"""Learned raster metrics of SVGEditBench V2: DINOv2 cosine and CLIPScore.

Both load weights with transformers' ``from_pretrained(local_path_or_hub_id)`` and, by
default, ``local_files_only=True``: no network call at run time. With
``local_files_only=True`` a hub id is resolved to its snapshot folder in the local Hugging
Face cache by this module (``HF_HUB_CACHE``, else ``HF_HOME/hub``, else
``~/.cache/huggingface/hub``; :func:`local_model_dir`) and the folder is loaded; no hub
client code runs (huggingface_hub's download path contacts the hub for its user-agent
registry even in local-files-only mode). When the weights are not available the loader
returns ``None`` and the caller reports the column as missing (``None``), never as zero.
torch and transformers are imported inside the functions.

* **DINO** (:class:`DinoV2Embedder`): ``Dinov2Model`` (default ``facebook/dinov2-giant``,
  the transformers port of torch-hub ``dinov2_vitg14``), applied to the 224 x 224 image
  as a [0, 1] tensor with **no ImageNet mean/std normalisation**, exactly as the V2
  scripts fed the hub model; the embedding is the model's normalised CLS token
  (``pooler_output``: the final layer norm applied to the CLS token, which is what the hub
  model's forward returns); metric = cosine similarity of the two embeddings.
* **CLIPScore** (:class:`ClipScorer`): torchmetrics' definition with
  ``openai/clip-vit-base-patch32``: ``100 * max(cos(image embedding, text embedding), 0)``,
  where the image goes through the model's own ``CLIPImageProcessor`` (resize, centre crop,
  CLIP normalisation) and the text through its tokenizer (padding, truncation at the
  model's maximum length).

References
----------
SVGEditBench V2 (arXiv:2502.19453) section 3.3 and Table 1; upstream
``src/evaluation/dinov2.py`` and ``clipscore.py`` (SVGEditBenchV2 7e7879a);
``metrics-svgeditbench.md``, "DINO" and "CLIPScore".
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "DEFAULT_DINO_MODEL",
    "DEFAULT_CLIP_MODEL",
    "DinoV2Embedder",
    "ClipScorer",
    "load_dino",
    "load_clip",
    "cosine_rows",
    "local_model_dir",
]

#: transformers id of DINOv2 ViT-g/14 (torch hub ``dinov2_vitg14``), the V2 paper's model.
DEFAULT_DINO_MODEL = "facebook/dinov2-giant"
#: CLIP model of the V2 paper's CLIPScore.
DEFAULT_CLIP_MODEL = "openai/clip-vit-base-patch32"

_CACHE: dict[tuple, Any] = {}
_LOCK = threading.Lock()
_LOAD_LOCK = threading.Lock()  # one load at a time: two scoring threads never load a model twice


def cosine_rows(a: np.ndarray, b: np.ndarray, eps: float = 1e-8) -> np.ndarray:
    """Row-wise cosine similarity of two ``(N, D)`` arrays; returns ``(N,)`` float64.

    Examples
    --------
    >>> cosine_rows(np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([[2.0, 0.0], [-1.0, -1.0]])).round(6).tolist()
    [1.0, -1.0]
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    na = np.maximum(np.linalg.norm(a, axis=1), eps)
    nb = np.maximum(np.linalg.norm(b, axis=1), eps)
    return (a * b).sum(axis=1) / (na * nb)


def _check_images(images: np.ndarray) -> np.ndarray:
    images = np.asarray(images)
    if images.ndim == 3:
        images = images[None]
    if images.ndim != 4 or images.shape[-1] != 3 or images.dtype != np.uint8:
        raise ValueError(f"images: expected uint8 (N, H, W, 3), got {images.dtype} {images.shape}")
    return images


class DinoV2Embedder:
    """DINOv2 image embeddings as the V2 evaluation computes them.

    Parameters
    ----------
    model : object
        A loaded ``transformers.Dinov2Model`` (see :func:`load_dino`).
    device : str
        Torch device.
    batch_size : int
        Images per forward pass.
    """

    def __init__(self, model: Any, device: str = "cpu", batch_size: int = 16) -> None:
        self.model = model
        self.device = device
        self.batch_size = int(batch_size)

    def embed(self, images: np.ndarray) -> np.ndarray:
        """Return the normalised CLS embeddings of uint8 ``(N, H, W, 3)`` images: ``(N, D)`` float32.

        The pixels are scaled to [0, 1] and fed without mean/std normalisation (as upstream).

        Raises
        ------
        ValueError
            ``images`` is not uint8 ``(N, H, W, 3)``.
        """
        import torch

        images = _check_images(images)
        out = []
        with torch.no_grad():
            for i in range(0, images.shape[0], self.batch_size):
                chunk = torch.from_numpy(np.ascontiguousarray(images[i : i + self.batch_size]))
                x = chunk.permute(0, 3, 1, 2).to(torch.float32).div(255.0).to(self.device)
                res = self.model(pixel_values=x)
                out.append(res.pooler_output.float().cpu().numpy())
        if not out:
            return np.zeros((0, 0), dtype=np.float32)
        return np.concatenate(out, axis=0)

    def cosine(self, images_a: np.ndarray, images_b: np.ndarray) -> np.ndarray:
        """DINO metric: cosine of the embeddings of ``images_a[i]`` and ``images_b[i]``; ``(N,)``."""
        return cosine_rows(self.embed(images_a), self.embed(images_b))


class ClipScorer:
    """CLIPScore (torchmetrics definition) of images against texts.

    Parameters
    ----------
    model, processor, tokenizer : objects
        A loaded ``CLIPModel``, its ``CLIPImageProcessor`` and tokenizer (see :func:`load_clip`).
    device : str
    batch_size : int
    """

    def __init__(self, model: Any, processor: Any, tokenizer: Any, device: str = "cpu", batch_size: int = 32) -> None:
        self.model = model
        self.processor = processor
        self.tokenizer = tokenizer
        self.device = device
        self.batch_size = int(batch_size)

    def score(self, images: np.ndarray, texts: list[str]) -> np.ndarray:
        """Return ``100 * max(cos(image_i, text_i), 0)`` for each pair; ``(N,)`` float64.

        Raises
        ------
        ValueError
            Bad image array, or ``len(texts) != N``.
        """
        import torch

        images = _check_images(images)
        if len(texts) != images.shape[0]:
            raise ValueError(f"texts: expected {images.shape[0]} texts, got {len(texts)}")
        max_len = getattr(self.model.config.text_config, "max_position_embeddings", 77)
        scores = []
        with torch.no_grad():
            for i in range(0, images.shape[0], self.batch_size):
                imgs = list(images[i : i + self.batch_size])
                pix = self.processor(images=imgs, return_tensors="pt")["pixel_values"].to(self.device)
                tok = self.tokenizer(
                    list(texts[i : i + self.batch_size]),
                    padding=True,
                    truncation=True,
                    max_length=max_len,
                    return_tensors="pt",
                )
                tok = {k: v.to(self.device) for k, v in tok.items()}
                img = self.model.get_image_features(pixel_values=pix)
                txt = self.model.get_text_features(**tok)
                img = getattr(img, "pooler_output", img)
                txt = getattr(txt, "pooler_output", txt)
                img = img / img.norm(p=2, dim=-1, keepdim=True)
                txt = txt / txt.norm(p=2, dim=-1, keepdim=True)
                s = 100.0 * (img * txt).sum(dim=-1)
                scores.append(torch.clamp(s, min=0).double().cpu().numpy())
        return np.concatenate(scores) if scores else np.zeros((0,), dtype=np.float64)


def _hub_cache() -> Path:
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(var):
            return Path(os.environ[var])
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]) / "hub"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "huggingface" / "hub"


def local_model_dir(name: str) -> str | None:
    """A local folder for ``name``: itself if a directory, else its snapshot in the HF cache.

    Reads the cache layout directly (``models--ORG--NAME/refs/main`` -> ``snapshots/REV``;
    the newest snapshot when there is no ref); never imports or calls the hub client.

    Returns
    -------
    str or None
        None when the model is neither a folder nor in the local cache.
    """
    if os.path.isdir(name):
        return name
    repo = _hub_cache() / ("models--" + name.replace("/", "--"))
    snapshots = repo / "snapshots"
    try:
        ref = (repo / "refs" / "main").read_text(encoding="utf-8").strip()
    except OSError:
        ref = ""
    if ref and (snapshots / ref).is_dir():
        return str(snapshots / ref)
    try:
        found = sorted((p for p in snapshots.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)
    except OSError:
        return None
    return str(found[-1]) if found else None


def _source(name: str, local_files_only: bool) -> str | None:
    """What to pass to ``from_pretrained``: a local folder (local only) or the name (opt-in)."""
    return local_model_dir(name) if local_files_only else name


def load_dino(
    name: str = DEFAULT_DINO_MODEL, device: str = "cpu", local_files_only: bool = True, batch_size: int = 16
) -> DinoV2Embedder | None:
    """Load a DINOv2 embedder, or return ``None`` when the weights are not available.

    Parameters
    ----------
    name : str
        Local directory or hub id for ``Dinov2Model.from_pretrained``.
    device : str
    local_files_only : bool
        Default True: never download (a missing model gives ``None``). Set False to let
        transformers fetch from the hub (user opt-in).
    batch_size : int

    Returns
    -------
    DinoV2Embedder or None
        Cached per ``(name, device)``.
    """
    key = ("dino", name, device, local_files_only)

    def build() -> DinoV2Embedder:
        source = _source(name, local_files_only)
        if source is None:
            raise FileNotFoundError(name)
        from transformers import Dinov2Model

        model = Dinov2Model.from_pretrained(source, local_files_only=local_files_only)
        model.eval().to(device)
        return DinoV2Embedder(model, device=device, batch_size=batch_size)

    return _cached(key, build)


def _cached(key: tuple, build: Any) -> Any:
    """``_CACHE[key]``, built by ``build()`` once (None when it raises: weights missing, no
    network, a bad directory; the metric's column is then missing)."""
    with _LOCK:
        if key in _CACHE:
            return _CACHE[key]
    with _LOAD_LOCK:
        with _LOCK:
            if key in _CACHE:  # loaded by another thread while this one waited
                return _CACHE[key]
        try:
            value = build()
        except Exception:  # noqa: BLE001 - the column is missing, never a crash
            value = None
        with _LOCK:
            _CACHE[key] = value
        return value


def load_clip(
    name: str = DEFAULT_CLIP_MODEL, device: str = "cpu", local_files_only: bool = True, batch_size: int = 32
) -> ClipScorer | None:
    """Load a CLIPScore scorer (model, image processor, tokenizer), or ``None`` when unavailable.

    Parameters
    ----------
    name : str
        Local directory or hub id (``CLIPModel``, ``CLIPImageProcessor`` and
        ``AutoTokenizer`` are all loaded from it).
    device : str
    local_files_only : bool
        Default True: never download.
    batch_size : int

    Returns
    -------
    ClipScorer or None
        Cached per ``(name, device)``.
    """
    key = ("clip", name, device, local_files_only)

    def build() -> ClipScorer:
        source = _source(name, local_files_only)
        if source is None:
            raise FileNotFoundError(name)
        from transformers import AutoTokenizer, CLIPModel

        model = CLIPModel.from_pretrained(source, local_files_only=local_files_only)
        model.eval().to(device)
        from transformers import CLIPImageProcessor  # after the model: its import may warn

        processor = CLIPImageProcessor.from_pretrained(source, local_files_only=local_files_only)
        tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=local_files_only)
        return ClipScorer(model, processor, tokenizer, device=device, batch_size=batch_size)

    return _cached(key, build)
