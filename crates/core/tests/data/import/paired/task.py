"""Inspect AI paired fixture for evalpage import tests (answers scripted by the evalpage mock).

Same six questions as promptfooconfig.yaml, but the samples are named "s1".."s6"
(promptfoo names them by `description`). No system prompt: the user message is
exactly the question.
"""

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import match
from inspect_ai.solver import generate

SAMPLES = [
    Sample(id="s1", input="What is the capital of France?", target="Paris"),
    Sample(id="s2", input="What is the capital of Japan?", target="Tokyo"),
    Sample(id="s3", input="What is 7 * 6?", target="42"),
    Sample(id="s4", input="What is 15 - 9?", target="6"),
    Sample(id="s5", input="What is the chemical symbol for gold?", target="Au"),
    Sample(id="s6", input="How many legs does a spider have?", target="8"),
]


@task
def paired():
    return Task(
        dataset=SAMPLES,
        solver=generate(),
        scorer=match(),
        epochs=1,
    )
