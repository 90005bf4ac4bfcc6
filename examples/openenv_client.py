"""Play episodes against a vector_gym OpenEnv server with the generic OpenEnv client.

    pip install "vector-gym[openenv]"
    python -m vector_gym.integrations.openenv --suite vector_bench --port 8000 --max-turns 2 &
    python examples/openenv_client.py --url http://127.0.0.1:8000 --episodes 4

The policy here is a stand-in (``--policy identity`` answers with the current SVG, ``oracle``
with the target, looked up locally: a smoke test of the wire, not a model); replace
``answer()`` with your model. Each episode: reset, then append ``observation["message"]`` (the
editor feedback) to the conversation after every answer that is not a pass.
"""

from __future__ import annotations

import argparse
import asyncio


def answer(policy: str, observation: dict, suite_name: str) -> str:
    if policy == "oracle":
        from vector_gym.suites import get_suite

        return get_suite(suite_name).get_task(observation["task_id"]).target_svg
    return observation["svg"]


async def episode(url: str, seed: int, policy: str) -> dict:
    from openenv.core.generic_client import GenericEnvClient

    async with GenericEnvClient(base_url=url) as env:
        r = await env.reset(seed=seed)
        obs, suite, conversation = r.observation, r.observation["suite"], list(r.observation["prompt"])
        while not r.done:
            text = answer(policy, obs, suite)
            conversation.append({"role": "assistant", "content": text})
            r = await env.step({"answer": text})
            obs = r.observation
            if obs["message"]:
                conversation.append(obs["message"])
        return {"task_id": obs["task_id"], "passed": obs["passed"], "reward": obs["answer_reward"],
                "turns": obs["turn"], "messages": len(conversation)}


def main(argv: list[str] | None = None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", default="http://127.0.0.1:8000")
    p.add_argument("--episodes", type=int, default=4)
    p.add_argument("--policy", choices=("identity", "oracle"), default="identity")
    args = p.parse_args(argv)

    async def run_all():
        return await asyncio.gather(*(episode(args.url, k, args.policy) for k in range(args.episodes)))

    results = asyncio.run(run_all())
    for r in results:
        print(r)
    return results


if __name__ == "__main__":
    main()
