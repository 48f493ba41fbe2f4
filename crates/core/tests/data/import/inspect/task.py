"""Inspect AI fixture for evalpage import tests (answers scripted by the evalpage mock)."""

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import Score, Target, includes, match, mean, scorer, stderr
from inspect_ai.solver import TaskState, generate

SAMPLES = [
    Sample(id="q1", input="What is the capital of France?", target="Paris"),
    Sample(id="q2", input="What is 2 + 2?", target="4"),
    Sample(id=3, input="Name the largest planet.", target="Jupiter"),
    Sample(id="q4", input="What color is grass?", target="green"),
    Sample(id="q5", input="Spell cat backwards.", target="tac"),
]


@task
def import_fixture():
    return Task(
        dataset=SAMPLES,
        solver=generate(),
        scorer=[match(), includes()],
        epochs=2,
    )


@scorer(metrics=[mean(), stderr()])
def length_ratio():
    """A numeric score: min(len(target), len(answer)) / max(...), rounded to 3 places."""

    async def score(state: TaskState, target: Target) -> Score:
        answer = state.output.completion.strip()
        want = target.text
        value = round(min(len(want), len(answer)) / max(len(want), len(answer), 1), 3)
        return Score(value=value, answer=answer, explanation=f"{len(answer)} vs {len(want)} chars")

    return score


@task
def import_fixture_numeric():
    return Task(
        dataset=SAMPLES,
        solver=generate(),
        scorer=length_ratio(),
        epochs=2,
    )
