#!/usr/bin/env python3
"""Expected retrieval metrics from trec_eval (through its Python binding
pytrec_eval-terrier, `pip install pytrec-eval-terrier`), for the agreement test
crates/core/tests/retrieval_agreement.rs.

Writes cases.jsonl, ranked.jsonl and expected.jsonl (per case and k:
success, recall, ndcg_cut, recip_rank). 240 seeded cases: lists with duplicated
sources (the same file again, in another folder or case), empty lists, missing
lists, lists shorter and longer than k, several expected sources, and runs of
items a retriever would have scored equally.

evalpage's rules, fed to trec_eval without ambiguity: the list's own order is the
ranking, so each item gets a strictly decreasing score (trec_eval never has to
break a tie); sources compare by file name, lowercased; a source seen earlier in
the list keeps its place as a non-relevant placeholder (no gain, still counts
toward k).
"""
import json
import os
import random

import pytrec_eval

HERE = os.path.dirname(os.path.abspath(__file__))
POOL = [f"doc_{i:02d}.md" for i in range(14)]
KS = [1, 3, 5, 10]


def variant(rng, name):
    r = rng.random()
    if r < 0.15:
        return f"kb/{name}"
    if r < 0.25:
        return name.upper()
    return name


def key(s):
    return s.rstrip("/\\").replace("\\", "/").split("/")[-1].lower()


def main():
    rng = random.Random(20261126)
    cases, ranked, expected = [], [], []
    qrels, run = {}, {}
    for n in range(240):
        cid = f"r{n:03d}"
        exp = rng.sample(POOL, rng.randint(1, 4))
        bucket = rng.choice(["faq", "howto", "api"])
        cases.append({"case_id": cid, "query": f"query {n}", "expected_sources": exp, "bucket": bucket})
        qrels[cid] = {key(e): 1 for e in exp}
        shape = rng.random()
        if shape < 0.06:
            continue  # no list at all
        length = 0 if shape < 0.12 else rng.randint(1, 14)
        items = []
        for _ in range(length):
            if items and rng.random() < 0.2:
                items.append(variant(rng, key(rng.choice(items))))  # a repeated source
            else:
                items.append(variant(rng, rng.choice(POOL)))
        ranked.append({"case_id": cid, "sources": items})
        seen, scored = set(), {}
        for i, s in enumerate(items):
            k = key(s)
            doc = f"__dup_{i}" if k in seen else k
            seen.add(k)
            scored[doc] = float(len(items) - i)
        if scored:
            run[cid] = scored
    measures = {"success." + ",".join(map(str, KS)), "recall." + ",".join(map(str, KS)),
                "ndcg_cut." + ",".join(map(str, KS)), "recip_rank"}
    got = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    for c in cases:
        m = got.get(c["case_id"], {})
        for k in KS:
            expected.append({
                "case_id": c["case_id"], "k": k,
                "hit_at_k": m.get(f"success_{k}", 0.0),
                "recall_at_k": m.get(f"recall_{k}", 0.0),
                "ndcg_at_k": m.get(f"ndcg_cut_{k}", 0.0),
                "mrr": m.get("recip_rank", 0.0),
            })
    for name, rows in [("cases.jsonl", cases), ("ranked.jsonl", ranked), ("expected.jsonl", expected)]:
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
