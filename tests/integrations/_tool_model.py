"""A tiny random model whose tokenizer uses TRL's bundled Qwen3 chat template (tool calling).

Built from ``tests/_tiny_models.py`` (tokenizer trained in the test, random Llama): the Qwen3
special tokens are added, the chat template is TRL's copy (so ``add_response_schema`` knows how
to parse tool calls), and the embeddings are resized. Nothing is downloaded.
"""

from __future__ import annotations

from pathlib import Path

QWEN_TOKENS = ["<|im_start|>", "<|im_end|>", "<think>", "</think>", "<tool_call>", "</tool_call>",
               "<tool_response>", "</tool_response>"]


def build_tool_lm(directory: str | Path) -> Path:
    from _tiny_models import build_tiny_lm
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl.chat_template_utils import qwen3_chat_template

    directory = Path(directory)
    build_tiny_lm(directory)
    tok = AutoTokenizer.from_pretrained(directory)
    tok.add_special_tokens({"additional_special_tokens": QWEN_TOKENS})
    tok.chat_template = qwen3_chat_template
    tok.eos_token = "<|im_end|>"
    tok.save_pretrained(directory)
    model = AutoModelForCausalLM.from_pretrained(directory)
    model.resize_token_embeddings(len(tok))
    model.config.eos_token_id = model.generation_config.eos_token_id = tok.eos_token_id
    model.save_pretrained(directory)
    return directory
