"""Runs the real lm_eval 0.4.13 CLI (`lm_eval run ...`) with a deterministic
scripted LM registered as model "fixture" (no torch, no network), and a fixed
clock so the output file names and the `date` field are reproducible."""
import datetime as _dt
import sys
import types
import time as _time

import lm_eval.evaluator as ev
import lm_eval.loggers.evaluation_tracker as et
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model

FIXED = _dt.datetime(2026, 11, 28, 10, 0, 0, 123456)
FIXED_TS = _dt.datetime(2026, 11, 28, 10, 0, 0, 123456, tzinfo=_dt.timezone.utc).timestamp()


class _FixedDatetime(_dt.datetime):
    @classmethod
    def now(cls, tz=None):
        return FIXED


et.datetime = _FixedDatetime
_shim = types.SimpleNamespace(**{k: getattr(_time, k) for k in dir(_time) if not k.startswith("__")})
_shim.time = lambda: FIXED_TS
ev.time = _shim

# arc_easy_tiny: loglikelihood of " " + choice, keyed by the choice text.
LL = {
    # doc 0 (gold 0): raw argmax 3 (acc 0), normalized argmax 0 (acc_norm 1)
    "Planetary days will become shorter.": -8.0,
    "Planetary years will become longer.": -12.0,
    "Planetary gravity will become stronger.": -12.0,
    "Planetary density will decrease.": -7.8,
    # doc 1 (gold 1): raw argmax 1 (acc 1), normalized argmax 3 (acc_norm 0)
    "buildings will be built faster": -12.0,
    "buildings will be made safer": -11.0,
    "building designs will look nicer": -20.0,
    "building materials will be cheaper": -12.5,
    # doc 2 (gold 2): raw argmax 1 (acc 0), normalized argmax 2 (acc_norm 1)
    "Chemical energy is absorbed through the roots.": -20.0,
    "Light energy is converted to chemical energy.": -14.0,
    "Chlorophyll in the leaf captures light energy.": -14.2,
    "Sunlight is converted into chlorophyll.": -25.0,
    # doc 3 (gold 0): raw argmax 0 (acc 1), normalized argmax 0 (acc_norm 1)
    "decrease the temperature": -5.0,
    "increase the temperature": -9.0,
    "decrease the mass": -6.0,
    "increase the mass": -7.0,
}
GREEDY = {"Planetary density will decrease.", "buildings will be made safer",
          "Light energy is converted to chemical energy.", "decrease the temperature"}

# gsm8k_tiny: generation keyed by a phrase of the question.
GEN = {
    # strict 1, flexible 1
    "Natalia sold clips": " Natalia sold 48/2 = 24 clips in May.\nAltogether she sold 48+24 = 72 clips.\n#### 72",
    # strict 0 ([invalid]), flexible 1 ("$10." -> "10")
    "Weng earns": " She earns 12/60 = $0.2 per minute, so 50 minutes pays $10.",
    # strict 1, flexible 0 (last number is 3)
    "Betty is saving": " She has 50, her parents give 15 and her grandparents 30, so she needs 100 - 95 = 5.\n#### 5 dollars (after 3 gifts)",
    # strict 0 ([invalid]), flexible 1
    "James writes": " He writes 3*2*2 = 12 pages a week, so 12*52 = 624 pages a year. So the answer is 624.",
}


@register_model("fixture")
class FixtureLM(LM):
    def __init__(self, pretrained="fixture-org/tiny-fixture-lm", **kwargs):
        super().__init__()
        self.pretrained = pretrained

    def loglikelihood(self, requests, disable_tqdm=False):
        out = []
        for r in requests:
            _ctx, cont = r.args
            key = cont.strip()
            out.append((LL[key], key in GREEDY))
        return out

    def loglikelihood_rolling(self, requests, disable_tqdm=False):
        raise NotImplementedError

    def generate_until(self, requests, disable_tqdm=False):
        out = []
        for r in requests:
            ctx, _gen_kwargs = r.args
            out.append(next(v for k, v in GEN.items() if k in ctx))
        return out


if __name__ == "__main__":
    from lm_eval.__main__ import cli_evaluate
    sys.argv = ["lm_eval"] + sys.argv[1:]
    cli_evaluate()
