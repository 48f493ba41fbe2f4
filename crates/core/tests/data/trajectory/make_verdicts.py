"""Makes the trajectory_match parity fixture: agentevals' own verdicts.

Generates trajectories (OpenAI chat messages with tool calls and tool results)
from a few reference trajectories, each changed in the ways trajectory
matching tells apart (calls reordered within a message and across messages,
a call dropped or added, an argument changed, added or dropped, a number
written 1.0 for 1 or true for 1, a name changed, a message's role changed,
no call at all, an empty call list, arguments that are not JSON), and runs
agentevals' `create_trajectory_match_evaluator` on each pair, for every
trajectory_match_mode x tool_args_match_mode and a few per-tool overrides.

Writes cases.jsonl (one line per pair: outputs, reference), verdicts.jsonl
(one line per pair: for each setting, "mode args N" with N the index in
OVERRIDES, its score, or the name of the exception agentevals raised), and overrides.json (OVERRIDES). Made with agentevals 0.0.9 and
langchain-core 1.8.3. Run, from this folder:

    python3 -m venv /tmp/agv && /tmp/agv/bin/pip install agentevals==0.0.9
    /tmp/agv/bin/python make_verdicts.py

Deterministic: the same agentevals gives the same files.
"""

import copy
import json
import random

from agentevals.trajectory.match import create_trajectory_match_evaluator

MODES = ["strict", "unordered", "subset", "superset"]
ARGS = ["exact", "ignore", "subset", "superset"]
OVERRIDES = [
    None,
    {"search": "ignore"},
    {"get_weather": "subset", "book": "superset"},
    {"search": ["query"], "book": ["trip.from", "trip.to"]},
]


def call(i, name, args):
    return {"id": f"c{i}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}


def references():
    yield [
        {"role": "user", "content": "Weather in Paris and Oslo?"},
        {"role": "assistant", "content": "", "tool_calls": [
            call(1, "get_weather", {"city": "Paris", "unit": "c"}),
            call(2, "get_weather", {"city": "Oslo", "unit": "c"})]},
        {"role": "tool", "tool_call_id": "c1", "content": "18"},
        {"role": "tool", "tool_call_id": "c2", "content": "9"},
        {"role": "assistant", "content": "Paris 18, Oslo 9."},
    ]
    yield [
        {"role": "user", "content": "Find a flight and book it."},
        {"role": "assistant", "content": "", "tool_calls": [
            call(1, "search", {"query": "PAR-OSL", "limit": 3})]},
        {"role": "tool", "tool_call_id": "c1", "content": "[\"AF1\"]"},
        {"role": "assistant", "content": "", "tool_calls": [
            call(2, "book", {"flight": "AF1", "seat": 12,
                             "trip": {"from": "PAR", "to": "OSL"}})]},
        {"role": "tool", "tool_call_id": "c2", "content": "ok"},
        {"role": "assistant", "content": "Booked AF1."},
    ]
    yield [
        {"role": "user", "content": "Add 2 and 3, then 5 and 8."},
        {"role": "assistant", "content": "", "tool_calls": [
            call(1, "add", {"a": 2, "b": 3})]},
        {"role": "tool", "tool_call_id": "c1", "content": "5"},
        {"role": "assistant", "content": "", "tool_calls": [
            call(2, "add", {"a": 5, "b": 8})]},
        {"role": "tool", "tool_call_id": "c2", "content": "13"},
        {"role": "assistant", "content": "5 and 13."},
    ]
    yield [
        {"role": "user", "content": "Just say hi."},
        {"role": "assistant", "content": "Hi."},
    ]


def calls_at(msgs):
    return [(i, j) for i, m in enumerate(msgs) for j, _ in enumerate(m.get("tool_calls") or [])]


def args_of(c):
    return json.loads(c["function"]["arguments"])


def set_args(c, a):
    c["function"]["arguments"] = json.dumps(a)


def mutate(msgs, rng):
    """One change, chosen at random among those that apply."""
    msgs = copy.deepcopy(msgs)
    at = calls_at(msgs)
    kinds = ["same", "extra_message", "no_calls"]
    if len(msgs) > 1:
        kinds += ["role", "drop_message"]
    if at:
        kinds += ["reorder_in", "drop_call", "extra_call", "change_arg", "add_arg",
                  "drop_arg", "rename", "float", "bool", "split", "merge",
                  "empty_list", "bad_json", "swap_messages", "dup_call"]
    kind = rng.choice(kinds)
    if kind == "role":
        m = rng.choice(msgs)
        m["role"] = {"user": "assistant", "assistant": "user", "tool": "assistant"}.get(m["role"], "user")
    elif kind == "drop_message":
        del msgs[rng.randrange(len(msgs))]
    elif kind == "extra_message":
        msgs.insert(rng.randrange(len(msgs) + 1), {"role": "assistant", "content": "Let me think."})
    elif kind == "no_calls":
        for m in msgs:
            m.pop("tool_calls", None)
    elif kind == "reorder_in":
        for m in msgs:
            if len(m.get("tool_calls") or []) > 1:
                m["tool_calls"].reverse()
    elif kind == "drop_call":
        i, j = rng.choice(at)
        del msgs[i]["tool_calls"][j]
    elif kind == "extra_call":
        i, _ = rng.choice(at)
        msgs[i]["tool_calls"].append(call(9, rng.choice(["search", "add", "get_weather"]),
                                          {"query": "x"} if rng.random() < 0.5 else {"a": 1, "b": 1}))
    elif kind == "dup_call":
        i, j = rng.choice(at)
        msgs[i]["tool_calls"].append(copy.deepcopy(msgs[i]["tool_calls"][j]))
    elif kind in ("change_arg", "add_arg", "drop_arg", "float", "bool"):
        i, j = rng.choice(at)
        c = msgs[i]["tool_calls"][j]
        try:
            a = args_of(c)
        except ValueError:  # arguments made unparsable by an earlier change
            return kind, msgs
        keys = list(a)
        if kind == "change_arg" and keys:
            k = rng.choice(keys)
            a[k] = "other" if isinstance(a[k], str) else ({"from": "PAR", "to": "BER"} if isinstance(a[k], dict) else 99)
        elif kind == "add_arg":
            a["extra"] = True
        elif kind == "drop_arg" and keys:
            del a[rng.choice(keys)]
        elif kind == "float":
            for k in keys:
                if isinstance(a[k], int):
                    a[k] = float(a[k])
        elif kind == "bool":
            for k in keys:
                if a[k] == 1 or a[k] == 3:
                    a[k] = True
            a.setdefault("flag", 1)
        set_args(c, a)
    elif kind == "rename":
        i, j = rng.choice(at)
        msgs[i]["tool_calls"][j]["function"]["name"] += "_v2"
    elif kind == "split":
        for i, m in enumerate(msgs):
            if len(m.get("tool_calls") or []) > 1:
                last = m["tool_calls"].pop()
                msgs.insert(i + 1, {"role": "assistant", "content": "", "tool_calls": [last]})
                break
    elif kind == "merge":
        with_calls = [m for m in msgs if m.get("tool_calls")]
        if len(with_calls) > 1:
            with_calls[0]["tool_calls"] += with_calls[1]["tool_calls"]
            msgs.remove(with_calls[1])
    elif kind == "empty_list":
        i, _ = rng.choice(at)
        msgs[i]["tool_calls"] = []
    elif kind == "bad_json":
        i, j = rng.choice(at)
        msgs[i]["tool_calls"][j]["function"]["arguments"] = '{"city": '
    elif kind == "swap_messages":
        idx = [i for i, m in enumerate(msgs) if m.get("tool_calls")]
        if len(idx) > 1:
            msgs[idx[0]], msgs[idx[1]] = msgs[idx[1]], msgs[idx[0]]
    return kind, msgs


def main():
    rng = random.Random(41)
    refs = list(references())
    cases = []
    for r, ref in enumerate(refs):
        for n in range(60):
            out = ref
            kinds = []
            for _ in range(1 + (n % 3)):
                kind, out = mutate(out, rng)
                kinds.append(kind)
            # half the pairs the other way round: the reference changed
            if n % 2:
                cases.append({"id": f"r{r}-{n}", "changes": kinds, "outputs": out, "reference": ref})
            else:
                cases.append({"id": f"r{r}-{n}", "changes": kinds, "outputs": ref, "reference": out})
    with open("cases.jsonl", "w") as f:
        for c in cases:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    with open("overrides.json", "w") as f:
        json.dump(OVERRIDES, f)
        f.write("\n")
    with open("verdicts.jsonl", "w") as f:
        for c in cases:
            # "mode args override" -> True, False, or the exception's name
            scores = {}
            for mode in MODES:
                for args in ARGS:
                    for o, overrides in enumerate(OVERRIDES):
                        if o and args != "exact":
                            continue
                        ev = create_trajectory_match_evaluator(
                            trajectory_match_mode=mode, tool_args_match_mode=args,
                            tool_args_match_overrides=overrides)
                        try:
                            res = ev(outputs=copy.deepcopy(c["outputs"]),
                                     reference_outputs=copy.deepcopy(c["reference"]))
                            verdict = res["score"]
                        except Exception as e:  # agentevals raised: recorded as such
                            verdict = type(e).__name__
                        scores[f"{mode} {args} {o}"] = verdict
            f.write(json.dumps({"id": c["id"], "scores": scores}) + "\n")


if __name__ == "__main__":
    main()
