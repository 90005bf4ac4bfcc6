"""Export a suite's tasks as a lossless Hugging Face dataset (one split per suite split) and
read them back with equal integrity hashes.

    pip install "vector-gym[datasets]"
    python examples/hf_datasets.py --suite repairgen --n 1000 --out data/repairgen_ds
    # ds.push_to_hub("you/repairgen") works the same way; from_dataset(load_dataset(...)) reads it.
"""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> dict[str, int]:
    from datasets import load_from_disk

    from vector_gym.integrations.datasets import from_dataset, suite_dataset
    from vector_gym.suites import get_suite
    from vector_gym.tasks.task import corpus_hash

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--suite", default="vector_bench")
    p.add_argument("--n", type=int, default=None, help="generated suites: tasks per split")
    p.add_argument("--out", default="data/tasks_ds")
    args = p.parse_args(argv)
    suite = get_suite(args.suite)
    kw = {"n": args.n} if args.n else {}
    splits = [s for s in suite.splits if s != "all"]
    dd = suite_dataset(suite, splits=splits, **kw)
    dd.save_to_disk(args.out)
    back = from_dataset(load_from_disk(args.out))
    sizes = {}
    for split in splits:
        same = corpus_hash(back[split]) == corpus_hash(suite.tasks(split, **kw))
        sizes[split] = len(back[split])
        print(f"{split}: {len(back[split])} tasks, corpus hash {'equal' if same else 'DIFFERENT'}")
    return sizes


if __name__ == "__main__":
    main()
