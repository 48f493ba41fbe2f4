"""BFCL's own verdicts on answers made from its possible answers, for
tests/bfcl_parity.rs and the CLI and page tests that score the same answers.

Run once (the outputs are committed beside this script):
    python3 -m venv /tmp/bfcl && cd /tmp/bfcl && bin/pip install filelock python-dotenv
    bin/pip download --no-deps bfcl-eval==2026.3.23 -d .
    python3 -c "import zipfile,glob; zipfile.ZipFile(glob.glob('/tmp/bfcl/bfcl_eval-*.whl')[0]).extractall('/tmp/bfcl/whl')"
    BFCL=/tmp/bfcl/whl /tmp/bfcl/bin/python crates/core/tests/data/bfcl/make_verdicts.py

Last run: 4524 verdicts (993 valid), 0 answers on which BFCL raised.

It needs nothing but the unpacked wheel: the checker's import of the model
configuration (which pulls every model handler) is replaced by a small module
that says, per model name, whether the model's function names have `.` as `_`.

Writes, for each Python category, the first ENTRIES entries of BFCL's
question file and of its possible answers (BFCL_v4_<category>.json and
possible_answer/BFCL_v4_<category>.json, as BFCL lays them out), and:
- answers.jsonl: {id, variant, model, response}, `response` an OpenAI assistant
  message (`content`, `tool_calls`), one per way the checker tells answers apart;
- verdicts.jsonl: {id, variant, valid, error_type}: BFCL's runner on that answer
  (its FC decoding, its format check, then `ast_checker` or the relevance rule),
  as `_evaluate_single_ast_entry` and `_evaluate_single_relevance_entry` run them.
"""

import copy
import json
import os
import pathlib
import sys
import types

BFCL = pathlib.Path(os.environ.get("BFCL", "/tmp/bfcl/whl"))
OUT = pathlib.Path(__file__).parent
ENTRIES = 30
CATEGORIES = [
    "simple_python", "multiple", "parallel", "parallel_multiple",
    "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
    "irrelevance", "live_irrelevance", "live_relevance",
]

sys.path.insert(0, str(BFCL))
# The checker asks the model's configuration one thing: underscore_to_dot.
stub = types.ModuleType("bfcl_eval.constants.model_config")
stub.MODEL_CONFIG_MAPPING = {
    "dots": types.SimpleNamespace(underscore_to_dot=False),
    "underscores": types.SimpleNamespace(underscore_to_dot=True),
}
sys.modules["bfcl_eval.constants.model_config"] = stub
from bfcl_eval.constants.enums import Language  # noqa: E402
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker  # noqa: E402
from bfcl_eval.utils import is_empty_output, is_function_calling_format_output  # noqa: E402


def fc_decode(result):
    """OpenAICompletionsHandler.decode_ast for FC models."""
    decoded = []
    for invoked in result:
        name = list(invoked.keys())[0]
        decoded.append({name: json.loads(invoked[name])})
    return decoded


def bfcl_result(message):
    """What BFCL's FC handler keeps of an answer: the calls as {name: arguments}, or the text."""
    if message.get("tool_calls") is None:
        return message.get("content") or ""
    return [{c["function"]["name"]: c["function"]["arguments"]} for c in message["tool_calls"]]


def verdict(category, entry, truth, message, model):
    result = bfcl_result(message)
    if "relevance" in category:
        try:
            decoded = fc_decode(result)
            call = not is_empty_output(decoded)
        except Exception:
            call = False
        ok = (not call) if "irrelevance" in category else call
        if ok:
            return True, None
        return False, "irrelevance_error:decoder_success" if "irrelevance" in category else "relevance_error:decoder_failed"
    try:
        decoded = fc_decode(result)
    except Exception:
        return False, "ast_decoder:decoder_failed"
    if not is_function_calling_format_output(decoded):
        return False, "ast_decoder:decoder_wrong_output_format"
    r = ast_checker(entry["function"], decoded, truth, Language.PYTHON, category, model)
    return r["valid"], (None if r["valid"] else r["error_type"])


def message(calls, content=None):
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a if isinstance(a, str) else json.dumps(a)}}
            for i, (n, a) in enumerate(calls)
        ],
    }


def first_value(values):
    for v in values:
        if v != "":
            return True, v
    return False, None


def right_calls(truth):
    calls = []
    for item in truth:
        name, params = next(iter(item.items()))
        args = {}
        for p, values in params.items():
            has, v = first_value(values)
            if has:
                args[p] = v
        calls.append((name, args))
    return calls


def declaration(entry, name):
    for f in entry["function"]:
        if f["name"] == name:
            return f
    return None


def wrong_type(v):
    if isinstance(v, bool):
        return "yes"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return str(v)
    if isinstance(v, str):
        return 12345
    if isinstance(v, list):
        return "not a list"
    if isinstance(v, dict):
        return 3
    return "x"


def wrong_value(v):
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return v + 1000
    if isinstance(v, float):
        return v + 1000.5
    if isinstance(v, str):
        return v + " nope"
    if isinstance(v, list):
        return v + (v[:1] if v else ["extra"])
    if isinstance(v, dict):
        w = dict(v)
        w["zz_extra_key"] = 1
        return w
    return v


def variants(category, entry, truth):
    """(variant, message, model) for one entry."""
    out = []
    if "relevance" in category:
        f = entry["function"][0]
        out.append(("text", {"role": "assistant", "content": "I cannot help with that."}, "dots"))
        out.append(("empty_list", message([]), "dots"))
        out.append(("a_call", message([(f["name"], {})]), "dots"))
        out.append(("bad_json", message([(f["name"], '{"a": ')]), "dots"))
        out.append(("not_object", message([(f["name"], "[1, 2]")]), "dots"))
        return out
    right = right_calls(truth)
    out.append(("right", message(right), "dots"))
    if any("." in n for n, _ in right):
        out.append(("right_underscores", message([(n.replace(".", "_"), a) for n, a in right]), "underscores"))
    if len(right) > 1:
        out.append(("reversed", message(list(reversed(right))), "dots"))
        out.append(("one_missing", message(right[:-1]), "dots"))
    out.append(("extra_call", message(right + right[:1]), "dots"))
    out.append(("wrong_name", message([(right[0][0] + "_x", right[0][1])] + right[1:]), "dots"))
    out.append(("text", {"role": "assistant", "content": "I cannot call a function for that."}, "dots"))
    out.append(("empty_list", message([]), "dots"))
    out.append(("bad_json", message([(right[0][0], '{"a": ')] + right[1:]), "dots"))
    out.append(("not_object", message([(right[0][0], "[1, 2]")] + right[1:]), "dots"))
    name, args = right[0]
    decl = declaration(entry, name) or {}
    props = decl.get("parameters", {}).get("properties", {})
    required = decl.get("parameters", {}).get("required", [])
    extra = dict(args)
    extra["zz_unexpected"] = 1
    out.append(("unexpected_param", message([(name, extra)] + right[1:]), "dots"))
    for p in required:
        if p in args:
            a = {k: v for k, v in args.items() if k != p}
            out.append(("missing_required", message([(name, a)] + right[1:]), "dots"))
            break
    params = next(iter(truth[0].values()))
    for p, values in params.items():
        if p in args and "" not in values and p not in required:
            a = {k: v for k, v in args.items() if k != p}
            out.append(("missing_optional", message([(name, a)] + right[1:]), "dots"))
            break
    for p, v in args.items():
        a = dict(args)
        a[p] = wrong_type(v)
        out.append((f"wrong_type:{p}", message([(name, a)] + right[1:]), "dots"))
        a = dict(args)
        a[p] = wrong_value(v)
        out.append((f"wrong_value:{p}", message([(name, a)] + right[1:]), "dots"))
        t = props.get(p, {}).get("type")
        if isinstance(v, str):
            a = dict(args)
            a[p] = " " + v.upper().replace(" ", "  ") + "."
            out.append((f"restyled_string:{p}", message([(name, a)] + right[1:]), "dots"))
        if t == "float" and isinstance(v, float) and v.is_integer():
            a = dict(args)
            a[p] = int(v)
            out.append((f"int_for_float:{p}", message([(name, a)] + right[1:]), "dots"))
        if t == "integer" and isinstance(v, int) and not isinstance(v, bool):
            a = dict(args)
            a[p] = float(v)
            out.append((f"float_for_int:{p}", message([(name, a)] + right[1:]), "dots"))
            a = dict(args)
            a[p] = True
            out.append((f"bool_for_int:{p}", message([(name, a)] + right[1:]), "dots"))
        if isinstance(v, list) and len(v) > 1:
            a = dict(args)
            a[p] = list(reversed(v))
            out.append((f"list_reordered:{p}", message([(name, a)] + right[1:]), "dots"))
        if isinstance(v, dict) and v:
            a = dict(args)
            k = next(iter(v))
            a[p] = {kk: vv for kk, vv in v.items() if kk != k}
            out.append((f"dict_key_dropped:{p}", message([(name, a)] + right[1:]), "dots"))
    return out


def main():
    (OUT / "possible_answer").mkdir(exist_ok=True)
    answers, verdicts = [], []
    crashes = 0
    for category in CATEGORIES:
        name = f"BFCL_v4_{category}.json"
        lines = (BFCL / "bfcl_eval" / "data" / name).read_text().splitlines()[:ENTRIES]
        (OUT / name).write_text("\n".join(lines) + "\n")
        entries = [json.loads(l) for l in lines]
        truths = {}
        pa = BFCL / "bfcl_eval" / "data" / "possible_answer" / name
        if pa.exists():
            ids = {e["id"] for e in entries}
            kept = [l for l in pa.read_text().splitlines() if json.loads(l)["id"] in ids]
            (OUT / "possible_answer" / name).write_text("\n".join(kept) + "\n")
            truths = {json.loads(l)["id"]: json.loads(l)["ground_truth"] for l in kept}
        for entry in entries:
            truth = truths.get(entry["id"])
            for variant, msg, model in variants(category, entry, truth):
                try:
                    valid, error_type = verdict(category, copy.deepcopy(entry), copy.deepcopy(truth), msg, model)
                except Exception as e:  # BFCL's checker raised: no verdict to compare
                    crashes += 1
                    print(f"{entry['id']} {variant}: BFCL raised {type(e).__name__}: {e}", file=sys.stderr)
                    continue
                answers.append({"id": entry["id"], "variant": variant, "model": model, "response": msg})
                verdicts.append({"id": entry["id"], "variant": variant, "valid": valid, "error_type": error_type})
    (OUT / "answers.jsonl").write_text("".join(json.dumps(a, ensure_ascii=False) + "\n" for a in answers))
    (OUT / "verdicts.jsonl").write_text("".join(json.dumps(v, ensure_ascii=False) + "\n" for v in verdicts))
    print(f"{len(verdicts)} verdicts ({sum(v['valid'] for v in verdicts)} valid), {crashes} answers on which BFCL raised (left out)")


if __name__ == "__main__":
    main()
